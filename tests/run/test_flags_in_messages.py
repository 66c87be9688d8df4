"""Domain modules name no flag in the errors they raise (issue 47, item 1): they say what is wrong
with a value and name the input by its parameter (MsdError.about / .remedy); the command line that
took the value names its flag (MsdError.name_flags: msd_run's dispatch, msd's errors_to_exit).

The flags are collected from the real parsers (every msd_run command, every msd command), so a flag
added tomorrow is covered. A backticked command line msd hands over (`msd_run next-step ... --restart`,
`msd install --local`) is a command to run, not a message naming a flag, and stays."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from msd_core.errors import MsdError, UsageError
from msd_core.run.dispatch import COMMANDS, build_command_parser, main

PACKAGE = Path(__file__).resolve().parents[2] / "msd_core"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
COMMAND_LINE = re.compile(r"`(?:msd_run|msd|git|claude|codex|gemini|pip)\s[^`]*`")
HOLE = "\x00"  # where an f-string's value goes


def _run_flags() -> dict[str, set[str]]:
    """{parameter name: its flags} over every msd_run command's parsers."""
    found: dict[str, set[str]] = {}

    def walk(parser):
        for action in parser._actions:
            long = {s for s in action.option_strings if s.startswith("--")}
            if long:
                found.setdefault(action.dest, set()).update(long)
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    for name in COMMANDS:
        walk(build_command_parser(name))
    return found


def _msd_flags() -> dict[str, set[str]]:
    """{parameter name: its flags} over every msd command."""
    import typer.main

    from msd_core.cli.app import build_app

    found: dict[str, set[str]] = {}

    def walk(command):
        for param in command.params:
            long = {s for s in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])] if s.startswith("--")}
            if long:
                found.setdefault(param.name, set()).update(long)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(build_app()))
    return found


PARAMETERS: dict[str, set[str]] = {}
for _taken in (_run_flags(), _msd_flags()):
    for _name, _flags in _taken.items():
        PARAMETERS.setdefault(_name, set()).update(_flags)
FLAGS = set().union(*PARAMETERS.values()) - {"--help", "--version"}


def _error_classes() -> set[str]:
    """MsdError and every subclass the package defines (read from the source), plus argparse's own."""
    names = {"MsdError", "ArgumentTypeError"}
    bases: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases)
    grew = True
    while grew:
        grew = False
        for name, of in bases.items():
            if name not in names and of & names:
                names.add(name)
                grew = True
    return names


ERRORS = _error_classes()


def _texts(node: ast.AST):
    """(line, text) of every string in an expression; an f-string as one text, its values as holes."""
    inside = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.JoinedStr):
            inside.update(id(v) for v in sub.values)
            yield sub.lineno, "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in sub.values)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in inside:
            yield sub.lineno, sub.value


def flags_named(source: str, flags=FLAGS) -> list[tuple[int, str]]:
    """(line, flag) of every flag a raised or built error's message or hint names outside a command line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if called not in ERRORS:
            continue
        for arg in [*node.args, *(k.value for k in node.keywords if k.arg in (None, "hint"))]:
            for line, text in _texts(arg):
                if text.startswith("msd_run "):
                    continue  # a command line msd hands the agent to run
                found += [(line, f) for f in FLAG.findall(COMMAND_LINE.sub("", text)) if f in flags]
    return sorted(set(found))


def _domain_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("run/", "cli/", "content/")) or rel == "mcp/server.py":
            continue  # the command lines: they name their flags
        yield rel, path


def test_the_flags_come_from_the_real_parsers():
    assert {"--cwd", "--root", "--var", "--restart", "--phase-dir"} <= FLAGS  # msd_run's
    assert {"--agent", "--agent-cmd", "--allow", "--config-dir", "--global"} <= FLAGS  # msd's
    assert {"UsageError", "OperationFailed", "IntegrityError", "UnknownPhase", "ArgumentTypeError"} <= ERRORS


def test_the_scan_catches_a_flag_in_a_message_and_spares_command_lines():
    source = (
        'from msd_core.errors import UsageError, OperationFailed\n'
        'def parse(pair, path, n):\n'
        '    if "=" not in pair:\n'
        '        raise UsageError(f"--var {pair!r} must look like name=value")\n'
        '    if n:\n'
        '        raise OperationFailed("no such run", hint="finish it, or start over with --restart")\n'
        '    err = UsageError(f"{path} is not a folder", hint=f"run `msd_run next-step --workflow {n} --restart`")\n'
        '    raise UsageError("bad", hint="run `msd install --local` or choose another --config-dir")\n'
        'def cmd():\n'
        '    return ["git", "log", "--format=%H"], "msd_run next --cwd x"\n'
    )
    assert flags_named(source) == [(4, "--var"), (6, "--restart"), (8, "--config-dir")]


# What is left, each a flag named in a hint as the way forward or a message still to reword (see the
# report of h-flags); the list only shrinks: a new one fails, a fixed one must be taken off.
LEFT: dict[str, int] = {}


def test_no_domain_module_names_a_flag_in_an_error():
    named = {}
    for rel, path in _domain_modules():
        hits = flags_named(path.read_text(encoding="utf-8"))
        if hits:
            named[rel] = hits
    assert {rel: len(hits) for rel, hits in named.items()} == LEFT, named


def inputs_named(source: str) -> list[tuple[int, str]]:
    """(line, name) of every input an error names by its parameter (`about=`, `remedy=`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in ("about", "remedy"):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found += [(v.lineno, v.value) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return found


def test_every_input_an_error_names_is_a_parameter_of_a_real_command_line():
    """A name no parser takes would leave the message without its flag: caught here."""
    assert inputs_named('raise UsageError("x", about="phase_dir", remedy=("plan", "no_such_input"))\n') == [
        (1, "phase_dir"), (1, "plan"), (1, "no_such_input")]
    unknown, seen = [], 0
    for rel, path in _domain_modules():
        for line, name in inputs_named(path.read_text(encoding="utf-8")):
            seen += 1
            if name not in PARAMETERS:
                unknown.append(f"{rel}:{line} {name}")
    assert seen > 50 and unknown == []


def test_the_command_line_names_the_flag_of_the_input_an_error_is_about():
    error = UsageError("'x' must look like name=value", hint="e.g. phase=02", about="var", remedy="restart")
    error.name_flags({"var": "--var", "restart": "--restart"})
    assert error.one_line() == "argument --var: 'x' must look like name=value (e.g. phase=02: pass --restart)"
    unnamed = MsdError("a value is wrong", about="var").name_flags({})
    assert (unnamed.message, unnamed.about) == ("a value is wrong", "var")  # no parser took it: left as it is


@pytest.mark.parametrize("argv", [["next-step", "--workflow", "plan-phase", "--var", "phase"],
                                  ["step-done", "--workflow", "plan-phase", "--step", "x", "--var", "phase"]])
def test_msd_run_refuses_a_var_without_a_value_in_one_line_naming_the_flag(argv, tmp_path, capsys):
    code = main([*argv, "--cwd", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "argument --var: 'phase' must look like name=value" in err


def test_msd_run_names_the_flags_of_the_way_forward(tmp_path, capsys):
    """recorded.select says what is missing (a phase or a plan); msd_run names the flags that give it."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code = main(["recorded", "--cwd", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "msd_run recorded: error: give exactly one of a phase or a plan (pass --phase or --plan)\n"


def test_an_in_process_call_gets_the_flag_named_too(tmp_path):
    """The MCP server's path (dispatch.call) runs the same sequence: the payload names the flag."""
    from msd_core.run.dispatch import call

    code, payload = call(["resolve", "plan-phase", "--root", str(tmp_path / "typo"), "--cwd", str(tmp_path)])
    assert code == 2 and payload["message"] == f"argument --root: {tmp_path / 'typo'} does not exist"
