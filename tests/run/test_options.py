"""msd_run's shared flags, each defined once (msd_core/run/options.py), and the one refusal of a
bad `--cwd`: every command that takes it refuses a missing folder or a file with the same line,
from the parser, before the command runs."""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import pytest

from msd_core.run import options
from msd_core.run.dispatch import COMMANDS, build_command_parser, main

RUN = Path(__file__).resolve().parents[2] / "msd_core" / "run"
# The commands that act on no project folder: the host's hooks and status line (the host's JSON
# names the project), git's merge driver (git names the files), a chain step's report (its ticket
# names the project) and an agent's role (read from the install).
WITHOUT_CWD = {"agent-role", "hook", "statusline", "merge-driver", "step-report"}


def hand_declared(source: str) -> list[tuple[int, str]]:
    """(line, flag) of every `<x>.add_argument("<a shared flag>", ...)` in the source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in options.SHARED):
            found.append((node.lineno, node.args[0].value))
    return found


def test_the_scan_finds_a_shared_flag_declared_by_hand():
    source = ('def configure(parser):\n'
              '    parser.add_argument("--cwd", metavar="DIR", help="project folder")\n'
              '    sub = parser.add_subparsers()\n'
              '    sub.add_parser("x").add_argument("--raw", action="store_true")\n'
              '    parser.add_argument("--limit", type=int)\n')
    assert hand_declared(source) == [(2, "--cwd"), (4, "--raw")]


def test_no_command_declares_a_shared_flag_by_hand():
    modules = sorted(RUN.glob("cmd_*.py")) + [RUN / "report_args.py", RUN / "dispatch.py"]
    assert len(modules) > 40
    found = {p.name: hand_declared(p.read_text(encoding="utf-8")) for p in modules}
    assert {name: hits for name, hits in found.items() if hits} == {}


def _flag_holders(parser: argparse.ArgumentParser, flag: str) -> list[tuple[list[str], argparse.ArgumentParser]]:
    """(verbs leading to it, parser) of every parser in the tree that takes `flag`."""
    out = []
    if any(flag in a.option_strings for a in parser._actions):
        out.append(([], parser))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb, sub in action.choices.items():
                out += [([verb, *path], p) for path, p in _flag_holders(sub, flag)]
    return out


CWD_TAKERS = [(name, path, p.prog) for name in COMMANDS
              for path, p in _flag_holders(build_command_parser(name), "--cwd")]


def test_every_command_but_the_projectless_ones_takes_cwd_and_one_help():
    takers = {name for name, _path, _prog in CWD_TAKERS}
    assert set(COMMANDS) - takers == WITHOUT_CWD
    helps = set()
    for name in COMMANDS:
        for _path, parser in _flag_holders(build_command_parser(name), "--cwd"):
            action = next(a for a in parser._actions if "--cwd" in a.option_strings)
            helps.add(action.help)
    assert helps == {"the project folder (default: the current directory)"}


@pytest.mark.parametrize("name,path,prog", CWD_TAKERS, ids=[f"{n} {' '.join(p)}".strip() for n, p, _ in CWD_TAKERS])
def test_a_missing_or_file_cwd_is_refused_by_the_parser_with_one_message(name, path, prog, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("keep me\n")
    missing = tmp_path / "typo" / "project"
    for given, what in ((str(missing), "does not exist"), ("notes.txt", "is not a folder")):
        code = main([name, *path, "--cwd", given])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert err == f"{prog}: error: argument --cwd: {given} {what} (see `{prog} --help`)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # nothing made for the typo
    assert (tmp_path / "notes.txt").read_text() == "keep me\n"


def test_domain_backstops_say_what_is_wrong_without_naming_a_flag(tmp_path):
    """A caller outside msd_run's parser (msd init, msd chain) still gets the folder refused, in the
    parser's words without the flag."""
    from msd_core.config import wizard
    from msd_core.errors import UsageError
    from msd_core.flows import service
    from msd_core.planning import project

    missing = str(tmp_path / "gone")
    for refuse in (lambda: project.project_root(missing), lambda: project.plan_and_root("p.md", None, missing),
                   lambda: service.open_flow("plan-phase", cwd=missing), lambda: wizard.project_dir(missing)):
        with pytest.raises(UsageError) as info:
            refuse()
        assert info.value.message == f"{missing} does not exist"
    assert not (tmp_path / "gone").exists()


def test_no_domain_module_names_the_cwd_flag():
    package = RUN.parent
    named = []
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel.startswith(("run/", "cli/", "content/")) or rel == "mcp/server.py":
            continue  # the command lines name their flags; the MCP server writes msd_run command lines
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings may say where a value comes from
        for node in ast.walk(tree):
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and id(node) not in prose:
                parts = node.values if isinstance(node, ast.JoinedStr) else [node]
                texts = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
                if texts and texts[0].lstrip("`").startswith("msd_run "):
                    continue  # a command line msd hands the agent to run (another root's `next`) names its flags
                if any("--cwd" in text for text in texts):
                    named.append(f"{rel}:{node.lineno}")
    assert sorted(set(named)) == []


def test_json_errors_shows_the_same_payload_for_a_bad_cwd(capsys, tmp_path):
    code = main(["--json-errors", "state", "get", "--cwd", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2 and json.loads(err) == {
        "error": "usage", "exit_code": 2, "message": f"argument --cwd: {tmp_path / 'nope'} does not exist",
        "hint": "see `msd_run state get --help`"}
