"""Rule `commit-scope`: every instruction that commits names its files, through `msd_run commit`.

Fails, anywhere in a markdown content file (prose or code) or a flow's prompts:
  - `git add -A`, `git add --all`, `git add .`, `git add -u` / `--update` (stage everything);
  - `git commit -a`, `--all`, or a short-option cluster holding `a` before any value option
    (`-am`, `-av`); `-ma` is message "a" and passes;
  - any other `git commit` (`git commit -m ...`, `git add <files> && git commit ...`): commits go
    through `msd_run commit --files <path>...`, which commits exactly the named paths (moves and
    deletions under them included) under the project's commit lock and leaves whatever else is
    staged alone; a bare `git commit` takes everything staged, by anyone;
  - a commit helper call without its files argument: `msd_run commit` with options but without
    `--files <path>` (or `-- <path>`); a bare mention of the command and `--list` pass;
  - a `msd_run commit` whose files name `.planning/STATE.md` but not `.planning/ROADMAP.md`:
    committing STATE.md syncs it first, which may tick ROADMAP.md's boxes, and the helper
    commits only what is named, so the tree would be left dirty.
A match preceded, earlier in the same sentence of its line, by a negation (never, not, n't,
avoid, instead of, forbidden, prohibited) is a prohibition, not an instruction, and passes:
"Never run `git add -A`, `git add .` or `git commit -a`" is fine; "Done. Run `git add -A`" is not.
"""

from __future__ import annotations

import re
import shlex

from msd_core.checks.model import FLOW_RE, CheckContext, Violation

RULE = "commit-scope"
FIX = 'name the files and commit through the helper: msd_run commit --files <path> <path> ... -m "<message>"'
_END = r"(?=$|[\s;&|)`'\"])"
_ADD = re.compile(r"\bgit\s+add\s+(?:-[-\w]*\s+)*?(-A|--all|-u|--update|\.)" + _END)
_COMMIT = re.compile(r"\bgit\s+commit\b([^\n]*)")
_HELPERS = {"msd_run commit": "--files"}  # helper -> the option that names the files
_HELPER_RE = re.compile(r"\b(msd_run\s+commit)\b([^\n]*)")
_NEGATION = re.compile(r"\b(never|not|avoid|instead of|forbidden|prohibited)\b|n't\b", re.IGNORECASE)
_CUT = re.compile(r";|&&|\|\||\||`|\)")
_VALUE_OPTS = set("mFCcS")  # short options of git commit that take a value


_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z*_`(\[])")


def negated(line: str, start: int) -> bool:
    """A negation earlier in the same sentence of the line: the match is a prohibition."""
    before = line[:start]
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    return bool(_NEGATION.search(before[ends[-1] if ends else 0:]))


def _tokens(rest: str) -> list[str]:
    rest = _CUT.split(rest, 1)[0]
    try:
        return shlex.split(rest)
    except ValueError:
        return rest.split()


def commit_all_flag(rest: str) -> str | None:
    """The option that makes `git commit <rest>` commit every tracked change, if any."""
    toks = _tokens(rest)
    skip = False
    for tok in toks:
        if skip:
            skip = False
            continue
        if tok == "--all":
            return tok
        if tok in ("--message", "--file", "--author", "--date", "--reuse-message", "--reedit-message"):
            skip = True
            continue
        if tok.startswith("-") and not tok.startswith("--") and len(tok) > 1:
            for ch in tok[1:]:
                if ch == "a":
                    return tok
                if ch in _VALUE_OPTS:
                    if tok.endswith(ch):
                        skip = True
                    break
    return None


HELPER_FIX = 'commit through the helper: msd_run commit --files <path> <path> ... -m "<type>(<scope>): <what>"'


def _checked_lines(tree):
    """(file, lines) of every markdown file and every flow file (prompts, TOML quotes undone)."""
    for rel in tree.markdown_files():
        yield rel, tree.lines(rel)
    for rel in tree.files:
        if FLOW_RE.match(rel) and tree.text(rel) is not None:
            yield rel, [line.replace('\\"', '"') for line in tree.lines(rel)]


STATE_FIX = "name ROADMAP.md beside STATE.md: msd_run commit --files ... .planning/STATE.md .planning/ROADMAP.md -m ..."


def named_files(toks: list[str]) -> list[str]:
    """The paths a `msd_run commit` names: the values after `--files` (up to the next option) and after `--`."""
    out: list[str] = []
    taking = False
    for tok in toks:
        if tok in ("--files", "--"):
            taking = True
        elif tok.startswith("-"):
            taking = False
        elif taking:
            out.append(tok)
    return out


def _state_without_roadmap(toks: list[str]) -> bool:
    files = named_files(toks)
    return (any(f.endswith(".planning/STATE.md") for f in files)
            and not any(f.endswith(".planning/ROADMAP.md") for f in files))


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    out: list[Violation] = []
    for rel, lines in _checked_lines(tree):
        for i, line in enumerate(lines, 1):
            for m in _ADD.finditer(line):
                if not negated(line, m.start()):
                    out.append(Violation(rel, i, RULE, f"`git add {m.group(1)}` stages every change, not named files", FIX))
            for m in _COMMIT.finditer(line):
                if negated(line, m.start()):
                    continue
                flag = commit_all_flag(m.group(1))
                if flag:
                    out.append(Violation(rel, i, RULE, f"`git commit {flag}` commits every tracked change, not named files", FIX))
                else:
                    out.append(Violation(rel, i, RULE, "a bare `git commit` takes whatever is staged, by anyone", HELPER_FIX))
            for m in _HELPER_RE.finditer(line):
                helper = " ".join(m.group(1).split())
                opt = _HELPERS[helper]
                toks = _tokens(m.group(2))
                if not toks or "--list" in toks:
                    continue  # a mention of the command, or a read of a plan's record: no commit
                named = opt in toks and toks.index(opt) + 1 < len(toks) and not toks[toks.index(opt) + 1].startswith("-")
                named = named or ("--" in toks and toks.index("--") + 1 < len(toks))
                if not named and not negated(line, m.start()):
                    out.append(Violation(rel, i, RULE, f"`{helper}` without `{opt} <file>...` commits whatever is staged", f"pass the files: {helper} ... {opt} <file> <file>"))
                elif _state_without_roadmap(toks):
                    out.append(Violation(rel, i, RULE, "names STATE.md but not ROADMAP.md: the sync before the commit may tick "
                                         "ROADMAP.md's boxes, and only named files are committed", STATE_FIX))
    return out
