"""What the usage reader meets in files it does not own: a FIFO planted where a subagent's
meta.json is, token counts arithmetic cannot take, a damaged cache. Each is read through the one
door (msd_core.files.safe_read, msd_core.files.numbers) and never hangs, crashes or prints a
nonsense figure."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from msd_core.usage import cache, locate, report
from tests.kit.hostile import finishes
from tests.kit.transcripts import Transcript, agent, meta, usage


def _session(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, host config folder, the subagent's transcript): one executor run of plan 01-01."""
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    config = tmp_path / "cfg"
    folder = config / "projects" / locate.folder_name(str(root))
    main = Transcript(str(root), session="S").command("msd-execute-phase", "1")
    main.reply(usage(100, 0, 0, 1), [agent("msd-executor", "Execute 01-01-PLAN.md", "toolu_1")], skill="msd-execute-phase")
    main.write(folder / "S.jsonl")
    sub = Transcript(str(root), session="S", agent_id="a1").user("Execute 01-01-PLAN.md").reply(usage(1000, 9000, 0, 10))
    path = sub.write(folder / "S" / "subagents" / "agent-a1.jsonl")
    meta(path, "msd-executor", "toolu_1")
    return root, config, path


def test_a_fifo_at_a_subagents_meta_json_is_passed_over_not_waited_on(tmp_path):
    root, config, sub = _session(tmp_path)
    fifo = sub.with_name("agent-a1.meta.json")
    fifo.unlink()
    os.mkfifo(fifo)
    files = finishes(lambda: report.scan(root, config), fifo)
    data = report.build(files)
    # without its meta file the subagent is named by its parent's launch record: still counted
    assert data["totals"]["requests"] == 2 and data["totals"]["input"] == 1100
    assert locate.subagent_meta(sub) == {}


BAD_COUNTS = ["1e400", "-1e400", "Infinity", "-Infinity", "-40", "1.5", "10000000000000000000000"]  # (NaN was skipped before)


@pytest.mark.parametrize("bad", BAD_COUNTS)
def test_a_token_count_arithmetic_cannot_take_is_a_malformed_line_not_a_figure(tmp_path, monkeypatch, bad):
    """`1e400` and `Infinity` once ended `msd usage` in an OverflowError; a negative count was added."""
    from typer.testing import CliRunner

    from msd_core.cli.app import build_app

    root, config, sub = _session(tmp_path)
    line = json.dumps({"type": "assistant", "sessionId": "S", "cwd": str(root), "requestId": "r-bad",
                       "message": {"id": "m-bad", "role": "assistant", "model": "claude-opus-5-5", "content": [],
                                   "usage": {"input_tokens": 7, "cache_read_input_tokens": 0, "output_tokens": 1,
                                             "cache_creation_input_tokens": "BAD"}}}).replace('"BAD"', bad)
    with sub.open("ab") as fh:
        fh.write(line.encode() + b"\n")
    monkeypatch.chdir(root)
    r = CliRunner().invoke(build_app(), ["usage", "--json", "--config-dir", str(config)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["totals"]["requests"] == 2 and data["totals"]["input"] == 1100  # the bad request is not added
    assert data["totals"]["cache_write"] == 0 and data["lines"]["malformed"] == 1
    assert all(isinstance(v, int) and v >= 0 for v in data["totals"].values())


def _statusline_at(root: Path, config: Path, monkeypatch) -> str:
    from msd_core.hooks import position, statusline

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setattr(position, "position", lambda *_a: {"phase": "01", "workflow": "execute-phase", "step": "run"})
    return statusline.line({"cwd": str(root), "context_window": {"used_percentage": 12}})


DAMAGE = {
    "groups a list": lambda e: e["state"].__setitem__("groups", []),
    "a group's count a string": lambda e: [g.__setitem__(1, "12") for g in e["state"]["groups"].values()],
    "a group's count NaN": lambda e: [g.__setitem__(2, float("nan")) for g in e["state"]["groups"].values()],
    "a group's count negative": lambda e: [g.__setitem__(1, -5) for g in e["state"]["groups"].values()],
    "a group cut short": lambda e: [g.pop() for g in e["state"]["groups"].values()],
    "line counts missing": lambda e: e["state"].pop("lines"),
    "launches a list": lambda e: e["state"].__setitem__("launches", []),
    "first without context": lambda e: e["state"].__setitem__("first", {"model": None, "group": "a|b|c|d"}),
    "host total short": lambda e: e["state"].__setitem__("host_total", [1]),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_usage_cache_is_rebuilt_and_the_status_line_keeps_its_figures(tmp_path, monkeypatch, damage):
    """A damaged entry once left the status line showing only `msd` until the cache was deleted."""
    root, config, _sub = _session(tmp_path)
    good = _statusline_at(root, config, monkeypatch)
    assert good == "msd · phase 01 · execute-phase: run · ctx 12% · phase 10.1k tok"
    path = cache.cache_path(root)
    doc = json.loads(path.read_text())
    for entry in doc["files"].values():
        DAMAGE[damage](entry)
    path.write_text(json.dumps(doc))
    assert _statusline_at(root, config, monkeypatch) == good
    assert all(cache.sound_entry(e) for e in json.loads(path.read_text())["files"].values())  # rebuilt and saved


def test_a_window_that_is_not_a_positive_count_is_forgotten(tmp_path):
    root, _config, _sub = _session(tmp_path)
    path = cache.cache_path(root)
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "files": {}, "windows": {"a": -1, "b": NaN, "c": "x", "d": 0, "e": 200000}}')
    assert cache.load(root)["windows"] == {"e": 200000}
