"""shell_words.parse: a Bash command split as the shell splits it, at the word level."""

from __future__ import annotations

from msd_core.hooks.shell_words import parse, text


def shape(command: str):
    commands, subs = parse(command)
    return [([text(w) for w in c.words], [(op, text(t)) for op, t in c.redirects], c.end) for c in commands], subs


def test_quotes_escapes_and_ansi_c_quoting_are_removed_as_the_shell_removes_them():
    assert shape("c\\at '.e'\"nv\" $'\\x2eenv' .e\\\nnv")[0] == [(["cat", ".env", ".env", ".env"], [], ";")]
    assert shape("echo 'a b' \"c $X d\"")[0] == [(["echo", "a b", "c $X d"], [], ";")]


def test_operators_split_commands_and_redirections_keep_their_targets():
    assert shape("a && b || c | d & e; f\ng") == ([(["a"], [], "&&"), (["b"], [], "||"), (["c"], [], "|"), (["d"], [], "&"),
                                                   (["e"], [], ";"), (["f"], [], "\n"), (["g"], [], ";")], [])
    assert shape("tr a a <.env 2>/dev/null >>out &>all")[0] == [(["tr", "a", "a"], [("<", ".env"), (">", "/dev/null"),
                                                                                     (">>", "out"), (">", "all")], ";")]


def test_substitutions_are_handed_back_and_stand_in_their_word():
    words, subs = shape('cat "$(echo .env)" `pwd` <(sort x) ${F:-.env}')
    assert words == [(["cat", "$(...)", "$(...)", "$(...)", ".env"], [], ";")]
    assert subs == ["echo .env", "pwd", "sort x"]


def test_here_documents_are_input_not_commands_and_unquoted_ones_run_their_substitutions():
    words, subs = shape("cat <<'EOF'\ncat .env\nEOF\necho done")
    assert words == [(["cat"], [("<<", "cat .env\n")], "\n"), (["echo", "done"], [], ";")] and subs == []
    assert shape("cat <<EOF\n$(cat .env)\nEOF")[1] == ["cat .env"]


def test_comments_end_at_the_line_and_an_open_quote_runs_to_the_end():
    assert shape("ls # cat .env\npwd")[0] == [(["ls"], [], "\n"), (["pwd"], [], ";")]
    assert shape("cat .env 'open")[0] == [(["cat", ".env", "open"], [], ";")]
