"""Deep or huge input is exit 2 with one line, never "internal error: RecursionError".

The bounds themselves (msd_core.files.bounded), then each reader of a file another program or a
person wrote, driven through the command that reads it, and a guard that no parser is called on
such input outside the one mechanism."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from msd_core.files import bounded
from msd_core.files.bounded import MAX_DEPTH, BoundedInputError, check, loads_json, loads_toml, parse

DEEP = 50_000


def deep_json(n: int = DEEP) -> str:
    return '{"a":' * n + "1" + "}" * n


# ------------------------------------------------------------------ the bounds


@pytest.mark.parametrize("syntax, text", [
    ("json", "[" * DEEP + "]" * DEEP),
    ("json", deep_json()),
    ("jsonc", "// c\n" + "[" * DEEP + "]" * DEEP),
    ("toml", "a = " + "[" * DEEP + "]" * DEEP),
    ("toml", "a = " + "{b = " * DEEP + "1" + "}" * DEEP),
    ("yaml", "a: " + "[" * DEEP + "]" * DEEP),
    ("yaml", "".join(" " * i + "k:\n" for i in range(400))),  # block mappings: an indentation per level
    ("yaml", "- " * 2000 + "x\n"),  # compact nested sequences on one line
])
def test_deep_input_is_refused_before_any_parser_runs(syntax, text):
    with pytest.raises(BoundedInputError) as err:
        check(text, syntax, "the file")
    assert err.value.exit_code == 2 and isinstance(err.value, ValueError)
    assert err.value.message == f"the file is nested more than {MAX_DEPTH} levels deep; msd does not read it"
    assert "\n" not in err.value.one_line()


def test_the_limit_is_exact_for_json():
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x") == eval("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(BoundedInputError):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "x")


@pytest.mark.parametrize("syntax, text", [
    ("json", json.dumps({"s": "[" * 5000, "t": "{\\\"[" * 300, "n": [[1]]})),
    ("jsonc", '{"a": 1, // ' + "[" * 5000 + "\n /* " + "{" * 500 + " */ \"b\": [[2]]}"),
    ("toml", 'a = """' + "[" * 500 + '"""\nb = \'' + "{" * 500 + "'\n# " + "[" * 500 + "\nc = [[1]]\n"),
    ("yaml", 'a: "' + "[" * 500 + '"\nb: \'' + "{" * 500 + "'\nc: [[1]]\n"),
])
def test_brackets_inside_strings_and_comments_do_not_count(syntax, text):
    check(text, syntax, "x")  # no error


def test_size_and_long_numbers_are_refused_with_one_line():
    with pytest.raises(BoundedInputError, match="is larger than 10 bytes"):
        loads_json(b"[1,2,3,4,5,6]", "f", max_bytes=10)
    with pytest.raises(BoundedInputError, match="holds a number with too many digits"):
        loads_json("[" + "9" * 5000 + "]", "f")
    with pytest.raises(json.JSONDecodeError):  # malformed input raises what the parser raises, as before
        loads_json("{", "f")
    assert loads_json(b"\xef\xbb\xbf{}", "f", bom=True) == {}
    assert loads_toml("a = [[1]]", "f") == {"a": [[1]]}


def test_a_parser_that_still_recurses_too_deep_gives_the_same_refusal():
    """The floor under the pre-scan: whatever a parser does, RecursionError never leaves it."""
    def recurse(text, n=0):
        return recurse(text, n + 1)

    with pytest.raises(BoundedInputError, match="nested more than"):
        parse(recurse, "{}", "json", "x")
    with pytest.raises(BoundedInputError, match="too large to read in memory"):
        parse(lambda t: (_ for _ in ()).throw(MemoryError()), "{}", "json", "x")


def test_small_input_is_not_scanned(monkeypatch):
    """msd_run's hot path reads config.json and frontmatter through here: fewer candidate
    characters than the limit cost a count, not a scan."""
    monkeypatch.setattr(bounded, "_bracket_depth", lambda *a: pytest.fail("scanned"))
    check(json.dumps({"a": {"b": [1, 2, {"c": 3}]}}), "json", "x")
    check("a: 1\nb:\n  - c\n  - d: [1]\n", "yaml", "x")


# ------------------------------------------------------------------ every reader, through its command


def _one_line(r, code=2):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    return r.stderr


@pytest.mark.parametrize("runtime, rel", [("opencode", ".opencode/opencode.json"), ("claude", ".claude/settings.json")])
def test_install_with_a_deep_settings_file_leaves_it_untouched_with_one_warning(tmp_path, msd, runtime, rel):
    """The installer's rule for a settings file it cannot read (msd_core/runtimes): left untouched,
    one warning naming why, the install goes on; a deep one is such a file (no RecursionError)."""
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text(deep_json())
    r = msd(["install", "--local", "--runtime", runtime], cwd=tmp_path)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    warned = [line for line in r.stderr.splitlines() if "nested more than" in line]
    assert len(warned) == 1 and str(path) in warned[0], r.stderr
    assert path.read_text() == deep_json()


def test_mcp_install_with_a_deep_claude_json_is_exit_2(tmp_path, msd):
    home = Path.home()
    (home / ".claude.json").write_text(deep_json())
    r = msd(["mcp", "install"], cwd=tmp_path)
    assert ".claude.json is nested more than" in _one_line(r)
    assert (home / ".claude.json").read_text() == deep_json()


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".planning").mkdir()
    return tmp_path


def test_deep_project_config_is_exit_2(project, msd_run):
    (project / ".planning" / "config.json").write_text(deep_json())
    for argv in (["config", "get", "mode"], ["config", "set", "mode", "yolo"]):
        assert "config.json is nested more than" in _one_line(msd_run(argv, cwd=project))
    assert (project / ".planning" / "config.json").read_text() == deep_json()


@pytest.mark.parametrize("argv", [
    ["config", "set", "parallelization", deep_json(300)],  # a bool or an object
    ["config", "set", "custom", "[" * 300 + "]" * 300],  # a key the schema does not know, held as a list
    ["config", "get", "mode", "--default", "[" * 300 + "]" * 300],  # a default that is not JSON stays text
])
def test_deep_values_on_the_command_line_are_exit_2(project, msd_run, argv):
    (project / ".planning" / "config.json").write_text('{"workflow": {"research": true}, "custom": [1]}\n')
    r = msd_run(argv, cwd=project)
    if "--default" in argv:
        assert r.returncode == 0 and r.stdout.strip() == json.dumps("[" * 300 + "]" * 300), r.stderr
    else:
        assert "nested more than" in _one_line(r)
    assert (project / ".planning" / "config.json").read_text() == '{"workflow": {"research": true}, "custom": [1]}\n'


def test_deep_agent_answers_are_exit_2():
    """--result of step-done, a step-report field, a chain field: what an agent hands back."""
    from msd_core.chain.step_report import _typed
    from msd_core.flows.engine import parse_result

    with pytest.raises(BoundedInputError, match="the result is nested more than"):
        parse_result("[" * 300 + "]" * 300)
    with pytest.raises(BoundedInputError, match="files is nested more than"):
        _typed("files", "list", "[" * 300 + "]" * 300)


def test_deep_frontmatter_is_skipped_with_a_reason(project, msd_run):
    from msd_core.planning.frontmatter import split_frontmatter as split

    text = "---\na: " + "[" * 3000 + "]" * 3000 + "\n---\nbody\n"
    data, body, problem = split(text)
    assert data is None and body == "body\n" and "nested more than" in problem
    phase = project / ".planning" / "phases" / "01-a"
    phase.mkdir(parents=True)
    (project / ".planning" / "ROADMAP.md").write_text("# R\n\n- [ ] Phase 1: A\n")
    (phase / "01-01-PLAN.md").write_text(text)
    for argv in (["next"], ["state", "sync", "--check"], ["history-digest"], ["wave", "plan", "--phase-dir", str(phase)]):
        r = msd_run(argv, cwd=project)
        assert "internal error" not in r.stderr and "Traceback" not in r.stderr, (argv, r.stderr)


def test_a_deep_manifest_is_an_integrity_failure(tmp_path, msd_run):
    from msd_core.install.installer import install
    from msd_core.paths import Target

    cfg = tmp_path / "cfg"
    install(Target("global", cfg))
    (cfg / "msd-core" / "manifest.json").write_text(deep_json())
    r = msd_run(["resolve", "plan-phase", "--root", str(cfg / "msd-core")], cwd=tmp_path)
    assert "nested more than" in _one_line(r, code=3)


def test_deep_flow_and_tier_files_are_reported_as_problems():
    from msd_core.checks.tiers import parse_tiers
    from msd_core.flows.schema import parse_flow

    flow, errors = parse_flow("workflow = " + "[" * DEEP + "]" * DEEP)
    assert flow is None and errors == [(1, f"the flow file is nested more than {MAX_DEPTH} levels deep; msd does not read it")]
    assert parse_tiers("[workflows]\na = " + "[" * DEEP + "]" * DEEP).problems[0][1].startswith("the tier file is nested")


def test_deep_records_of_msd_are_read_as_damaged(project):
    """Files in .planning/.msd are project data anyone can edit: a deep one is damaged (skipped
    or refused with the reader's own line), never a traceback."""
    from msd_core.errors import OperationFailed
    from msd_core.execution import gate, run_record

    gdir = gate.gate_dir(project)
    (gdir / "last.json").write_text(deep_json())
    (gdir / "confirmed.json").write_text(deep_json())
    (gdir / "runs.jsonl").write_text(deep_json() + "\n" + '{"status": "passed"}\n')
    assert gate.last(project) is None and gate.confirmed(project) == []
    assert gate.runs(project) == [{"status": "passed"}]
    runs = project / ".planning" / ".msd" / "runs"
    runs.mkdir(parents=True)
    (runs / "01-a__01-01.json").write_text(deep_json())
    with pytest.raises(OperationFailed, match="not valid JSON"):
        run_record.load(runs / "01-a__01-01.json")


# ------------------------------------------------------------------ one mechanism

# a parser called, or the TOML reader imported by name (its `loads` is then called bare)
PARSE_CALL = re.compile(r"\b(json\.loads?|tomllib\.loads?|tomlread\.loads?|yaml\.(?:safe_)?load)\("
                        r"|from msd_core\.files\.tomlread import (loads)")
# (path, what is matched) read here on purpose without the bounds, and why
ALLOWED = {
    ("msd_core/files/bounded.py", "json.loads("): "the mechanism itself",
    ("msd_core/files/bounded.py", "tomlread loads"): "the mechanism itself",
    ("msd_core/config/schema.py", "json.loads("): "the package's own schema.json",
    ("msd_core/checks/fields.py", "json.loads("): "the package's own schema.json",
    ("msd_core/planning/frontmatter.py", "yaml.load("): "after bounded.parse checked the block; inside the reader's fallback",
    ("msd_core/flows/schema.py", "tomlread loads"): "tomllib inside _flow_toml, called through bounded.parse",
    ("msd_core/lean/simple_toml.py", "tomllib.loads("): "its docstring",
    ("msd_core/config/store.py", "json.loads("): "a deep copy of a value already read (json.dumps of it)",
    ("msd_core/hooks/client_calls.py", "json.loads("): "pre_tool_use's own answer (msd's JSON), rewritten for a client",
}


def unbounded_calls(root: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0]
            for m in PARSE_CALL.finditer(code):
                what = m.group(1) + "(" if m.group(1) else "tomlread loads"
                if (rel, what) not in ALLOWED:
                    found.append((rel, line.strip()))
    return found


def test_no_parser_runs_on_outside_input_but_through_the_bounds():
    root = Path(bounded.__file__).resolve().parents[1]
    assert unbounded_calls(root) == []


def test_the_guard_finds_an_unbounded_call(tmp_path):
    pkg = tmp_path / "msd_core" / "runtimes"
    pkg.mkdir(parents=True)
    (pkg / "x.py").write_text("import json\n\ndef read(p):\n    return json.loads(p.read_text())\n")
    assert unbounded_calls(tmp_path / "msd_core") == [("msd_core/runtimes/x.py", "return json.loads(p.read_text())")]
    (pkg / "y.py").write_text("from msd_core.files import tomlread\n\ndef read(p):\n    return tomlread.loads(p.read_text())\n")
    assert ("msd_core/runtimes/y.py", "return tomlread.loads(p.read_text())") in unbounded_calls(tmp_path / "msd_core")


def test_status_reports_a_deep_claude_json_and_still_answers(tmp_path, msd):
    """A reader that never raises (status) names the bound like any damaged file."""
    (Path.home() / ".claude.json").write_text(deep_json())
    r = msd(["status"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ".claude.json is nested more than 100 levels deep" in r.stdout


# ------------------------------------------------------------------ JSON without the json module

LEAN_CASES = ['{}', ' [1, 2.5, "x", null, true, false] \n', '{"a": NaN, "b": -Infinity, "c": 1e400}', '"\\u00e9\\ud83d\\ude00"',
              '12345678901234567890', '-0', '{"a": {"b": [[], {}]}}', '{"a":1}{', '', ' \t', '\ufeff{}', '[1,]', '{"a" 1}',
              '{not json', '"\x01"', '"abc', '[', '{"a":', 'nul', '{"a": 1,}', '"\\x"', '1' * 5000]

LEAN_PROBE = r"""
import json as _j, sys
del sys.modules["json"]
for name in [m for m in sys.modules if m.startswith("json.")]:
    del sys.modules[name]
sys.path.append(sys.argv[1])
from msd_core.files.bounded import _json_loads
cases = _j.loads(sys.argv[2])


def outcome(fn, text):
    try:
        return ["ok", repr(fn(text))]
    except Exception as exc:
        return ["error", type(exc).__name__, str(exc)]


out = []
for text in cases:
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
        del sys.modules[name]  # each case starts where a hook starts: no json module imported
    lean = outcome(_json_loads, text)
    imported = "json" in sys.modules
    import json
    out.append([lean, outcome(json.loads, text), imported])
print(_j.dumps(out))
"""


def test_json_is_read_as_json_loads_reads_it_without_importing_json_when_well_formed():
    """bounded's reader parses with the json module's C scanner (no `import json`, no re) and hands
    anything it does not take whole to json.loads: same value, same error, in a fresh interpreter."""
    import subprocess
    import sys

    repo = str(Path(bounded.__file__).resolve().parents[2])
    r = subprocess.run([sys.executable, "-I", "-S", "-c", LEAN_PROBE, repo, json.dumps(LEAN_CASES)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)
    for text, (lean, plain, imported) in zip(LEAN_CASES, results):
        assert lean == plain, text
        assert imported is (plain[0] == "error"), text  # the json module only for a malformed text
    assert sum(plain[0] == "ok" for _l, plain, _i in results) == 7 and any("digits" in p[-1] for _l, p, _i in results)
