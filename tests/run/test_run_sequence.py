"""One run sequence for msd_run's CLI (`main`) and the MCP server (`call`): the same failure gives
the same JSON payload both ways, every payload is MsdError.to_json()'s, and every command module
follows one convention (msd_core/run/cmd_<command>.py with `configure` and `run`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from msd_core.mcp.server import RuntimeCallFailed, run_runtime
from msd_core.run.dispatch import COMMANDS, call, main

PACKAGE = Path(__file__).resolve().parents[2] / "msd_core"

FAILURES = {
    "unknown command": (["stat"], 2, "unknown command 'stat'"),
    "unknown option": (["state", "get", "--bogus"], 2, "unrecognized arguments: --bogus"),
    "missing cwd": (["next", "--cwd", "{tmp}/gone"], 2, "argument --cwd: {tmp}/gone does not exist"),
    "no project": (["history-digest", "--cwd", "{tmp}"], 1, "no .planning/ folder at or above {tmp}"),
    "unknown key": (["config", "get", "no.such.key", "--cwd", "{tmp}"], 2, "no.such.key"),
    "bad count": (["memory", "search", "x", "--limit", "-3", "--cwd", "{tmp}"], 2, "argument --limit"),
}


@pytest.mark.parametrize("case", FAILURES, ids=list(FAILURES))
def test_cli_and_mcp_give_the_same_payload_for_the_same_failure(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv, exit_code, says = FAILURES[case]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    says = says.replace("{tmp}", str(tmp_path))

    code = main(["--json-errors", *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (exit_code, "")
    printed = json.loads(err)

    handed_code, handed = call(argv)
    assert (handed_code, handed) == (code, printed)
    assert handed["exit_code"] == exit_code and says in handed["message"] and handed["hint"]
    with pytest.raises(RuntimeCallFailed) as info:  # what the MCP server's tools hand their client
        run_runtime(argv, call)
    assert info.value.error == printed

    code = main(argv)  # the one line, from the same payload
    line = capsys.readouterr().err
    assert code == exit_code and line.count("\n") == 1 and f": error: {printed['message']} ({printed['hint']})" in line


def builds_error_payload(source: str) -> list[int]:
    """Lines where a dict with the keys "error" and "exit_code" is written out by hand."""
    found = []
    for node in ast.walk(ast.parse(source)):
        keys = set()
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            keys = {k.arg for k in node.keywords}
        if {"error", "exit_code"} <= keys:
            found.append(node.lineno)
    return found


def test_the_scan_finds_a_payload_built_by_hand():
    source = ('def f(exc, code):\n'
              '    a = {"error": "usage", "exit_code": code, "message": str(exc)}\n'
              '    b = dict(error="failed", exit_code=1, message="x")\n'
              '    return {"error": exc.message}  # a finding\'s reason, not the payload\n')
    assert builds_error_payload(source) == [2, 3]


# errors.py is where the payload is built (MsdError.to_json); every other module asks it.
OUTSIDE = {"errors.py"}


def test_no_module_builds_the_error_payload_by_hand():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        lines = builds_error_payload(path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = lines
    assert set(found) <= OUTSIDE, found
    assert "errors.py" in found  # MsdError.to_json, the one place


def convention_breaks(commands: dict[str, tuple[str, str]], run_dir: Path) -> list[str]:
    """Where COMMANDS and the command modules leave the one convention."""
    out = []
    for name, (module, _help) in commands.items():
        if module != f"msd_core.run.cmd_{name.replace('-', '_')}":
            out.append(f"{name}: {module}")
    listed = {module.rsplit(".", 1)[1] for module, _help in commands.values()}
    out += [f"unlisted {p.stem}" for p in sorted(run_dir.glob("cmd_*.py")) if p.stem not in listed]
    return out


def test_the_convention_check_finds_a_straggler(tmp_path):
    (tmp_path / "cmd_flow.py").write_text("")
    (tmp_path / "cmd_next_step.py").write_text("")
    commands = {"next-step": ("msd_core.run.cmd_next_step", ""), "step-done": ("msd_core.run.cmd_flow", "")}
    assert convention_breaks(commands, tmp_path) == ["step-done: msd_core.run.cmd_flow"]
    assert convention_breaks({"next-step": ("msd_core.run.cmd_next_step", "")}, tmp_path) == ["unlisted cmd_flow"]


def test_every_command_module_follows_one_convention():
    import importlib

    assert convention_breaks(COMMANDS, PACKAGE / "run") == []
    for name, (module, _help) in COMMANDS.items():
        loaded = importlib.import_module(module)
        assert callable(getattr(loaded, "configure", None)) and callable(getattr(loaded, "run", None)), name
