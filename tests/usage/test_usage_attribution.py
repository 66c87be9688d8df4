"""Reading transcripts (msd_core/usage): where they are, one request per response, attribution to
msd's command, phase, plan and agent, bad lines skipped and counted, and the report's figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from msd_core.usage import locate, report
from msd_core.usage.attribute import Scanner, canonical_phase, facts_of_call, runner_calls
from tests.kit.transcripts import Transcript, agent, bash, meta, usage

# --- where the host keeps them ----------------------------------------------------------------

# (cwd, folder) pairs the real CLI 2.1.332 produced (spaces, `_`, `.`, a non-ASCII letter, and a
# 260-character path that gets the hash suffix)
OBSERVED = [
    ("/tmp/hostfacts/runs/naming/my proj_v1.2 é", "-tmp-hostfacts-runs-naming-my-proj-v1-2--"),
    ("/tmp/hostfacts/runs/naming/gitrepo/sub/dir", "-tmp-hostfacts-runs-naming-gitrepo-sub-dir"),
    ("/tmp/hostfacts/runs/naming/" + "L" * 120 + "/" + "M" * 120,
     "-tmp-hostfacts-runs-naming-" + "L" * 120 + "-" + "M" * 52 + "-vvslco"),
]


@pytest.mark.parametrize("cwd,folder", OBSERVED)
def test_folder_names_are_the_ones_the_host_gives(cwd, folder):
    assert locate.folder_name(cwd) == folder


def _project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "work" / "proj"
    (root / ".planning").mkdir(parents=True)
    config = tmp_path / "cfg"
    return root, config


def test_a_projects_sessions_include_its_subfolders_and_exclude_a_lookalike(tmp_path):
    root, config = _project(tmp_path)
    (root / "sub").mkdir()
    lookalike = tmp_path / "work" / "proj-sub"  # `/a/proj-sub` and `/a/proj/sub` share one folder name
    lookalike.mkdir()
    projects = config / "projects"
    mine = Transcript(str(root)).user("hi").reply(usage(1)).write(projects / locate.folder_name(str(root)) / "a.jsonl")
    sub = Transcript(str(root / "sub")).user("hi").reply(usage(2)).write(projects / locate.folder_name(str(root / "sub")) / "b.jsonl")
    other = Transcript(str(lookalike)).user("hi").reply(usage(4)).write(projects / locate.folder_name(str(lookalike)) / "c.jsonl")
    assert locate.folder_name(str(root / "sub")) == locate.folder_name(str(lookalike))
    found = [m for m, _subs in locate.sessions(root, config)]
    assert sorted(found) == sorted([mine, sub]) and other not in found


# --- one request per response ----------------------------------------------------------------

def _scan(t: Transcript, tmp_path: Path, agent_name: str = "main", launch=None, extra: bytes = b"") -> Scanner:
    path = t.write(tmp_path / f"t{len(list(tmp_path.iterdir()))}.jsonl", extra)
    scanner, _ = report.scan_file(path, agent_name, launch)
    return scanner


def test_a_response_of_several_blocks_is_one_request(tmp_path):
    t = Transcript("/p").command("msd-plan-phase", "2")
    t.reply(usage(100, 200, 30, 4), [{"type": "text", "text": "a"}, bash("ls"), bash("pwd")], skill="msd-plan-phase")
    s = _scan(t, tmp_path).state
    assert s["groups"] == {"plan-phase|02||main": [1, 100, 200, 30, 4, 330, "claude-opus-5-5"]}


def test_phase_and_plan_follow_the_skill_and_the_msd_run_calls(tmp_path):
    t = Transcript("/p").command("msd-execute-phase", "3")
    t.reply(usage(1), [bash("msd_run next-step --workflow execute-phase --var phase=03 --root ~/.claude/msd-core")], skill="msd-execute-phase")
    t.reply(usage(2), [bash("cd x && msd_run commit --plan 03-02 src/a.py")], skill="msd-execute-phase")
    t.reply(usage(4), [bash("msd_run wave plan --phase-dir .planning/phases/04-api")], skill="msd-execute-phase")
    t.reply(usage(8), skill="msd-execute-phase")
    groups = _scan(t, tmp_path).state["groups"]
    assert {k: v[0:2] for k, v in groups.items()} == {
        "execute-phase|03||main": [2, 3],        # the skill's argument, then --var phase=03
        "execute-phase|03|03-02|main": [1, 4],   # after `--plan 03-02`
        "execute-phase|04||main": [1, 8],        # a new phase folder: its plan is not known
    }


def test_a_model_invoked_skill_sets_command_and_phase(tmp_path):
    t = Transcript("/p").user("do it")
    t.reply(usage(1), [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "msd-verify-work", "args": "2.1"}}])
    t.reply(usage(2), skill="msd-verify-work")
    assert set(_scan(t, tmp_path).state["groups"]) == {"|||main", "verify-work|02.1||main"}


def test_a_subagent_gets_the_launch_and_the_plan_its_prompt_names(tmp_path):
    main = Transcript("/p").command("msd-execute-phase", "1")
    main.reply(usage(10), [agent("msd-executor", "Run .planning/phases/01-auth/01-02-PLAN.md", "toolu_A")], skill="msd-execute-phase")
    parent = _scan(main, tmp_path)
    launch = parent.state["launches"]["toolu_A"]
    assert launch == {"agent": "msd-executor", "command": "execute-phase", "phase": "01", "plan": "01-02"}
    sub = Transcript("/p", agent_id="a1").user("Run .planning/phases/01-auth/01-02-PLAN.md")
    sub.reply(usage(50, 10)).reply(usage(70, 20), skill="msd-execute-phase")
    s = _scan(sub, tmp_path, "msd-executor", launch).state
    assert s["groups"] == {"execute-phase|01|01-02|msd-executor": [2, 120, 30, 0, 0, 90, "claude-opus-5-5"]}
    assert s["first"]["context"] == 60


def test_bad_lines_are_skipped_and_counted_never_fatal(tmp_path):
    t = Transcript("/p").command("msd-plan-phase", "1").reply(usage(5))
    t.other("a-type-from-the-future", x=1)
    t.lines.append({"type": "assistant", "message": {"id": "m", "usage": {"input_tokens": "lots"}}})  # known type, bad fields
    extra = b'{"type": "assistant", "mess\n[1, 2]\n\n' + b'{"type": "user", "message": {"content": "no newline yet"}}'
    s = _scan(t, tmp_path, extra=extra).state
    assert s["lines"] == {"read": 7, "malformed": 3, "unknown": 1, "oversized": 0}
    assert s["groups"] == {"plan-phase|01||main": [1, 5, 0, 0, 0, 5, "claude-opus-5-5"]}


def test_canonical_phase_and_runner_calls():
    assert [canonical_phase(x) for x in ("2", "02", "2.1", "12", "02-auth", "phase 3", "x", "")] == ["02", "02", "02.1", "12", "02", "03", None, None]
    assert runner_calls("cd a && msd_run state get; echo msd_run_x; /venv/bin/msd_run next --raw") == [["state", "get"], ["next", "--raw"]]
    assert facts_of_call(["compile-plan", ".planning/phases/05-ui/05-03-PLAN.md"]) == {"plan": "05-03", "phase": "05"}
    assert facts_of_call(["step-done", "--var=phase=7", "--workflow", "plan-phase"]) == {"phase": "07", "workflow": "plan-phase"}


# --- the report --------------------------------------------------------------------------------

def _session(tmp_path: Path) -> tuple[Path, Path]:
    root, config = _project(tmp_path)
    folder = config / "projects" / locate.folder_name(str(root))
    main = Transcript(str(root), session="S").command("msd-execute-phase", "1")
    main.reply(usage(100, 0, 0, 1), [agent("msd-executor", "Execute 01-01-PLAN.md", "toolu_1")], skill="msd-execute-phase")
    main.reply(usage(200, 0, 0, 2), [agent("msd-executor", "Execute 01-02-PLAN.md", "toolu_2")], skill="msd-execute-phase")
    main.write(folder / "S.jsonl")
    for n, tid, figures in ((1, "toolu_1", [(1000, 9000), (3000, 30000)]), (2, "toolu_2", [(500, 4500)])):
        sub = Transcript(str(root), session="S", agent_id=f"a{n}").user(f"Execute 01-0{n}-PLAN.md")
        for inp, cached in figures:
            sub.reply(usage(inp, cached, 0, 10))
        path = sub.write(folder / "S" / "subagents" / f"agent-a{n}.jsonl")
        meta(path, "msd-executor", tid)
    return root, config


def test_the_report_per_phase_plan_and_agent_with_the_executors_context_shares(tmp_path):
    root, config = _session(tmp_path)
    data = report.build(report.scan(root, config), windows={"claude-opus-5-5": 100_000})
    plans = {r["plan"]: r for r in data["by_plan"]}
    assert {p: r["requests"] for p, r in plans.items()} == {"01-01": 2, "01-02": 1}
    assert plans["01-01"]["executor_start"] == {"tokens": 10_000, "share": 0.1, "window": 100_000, "window_source": "host"}
    assert plans["01-01"]["executor_peak"]["tokens"] == 33_000 and plans["01-02"]["executor_peak"]["share"] == 0.05
    (phase,) = data["by_phase"]
    assert phase["phase"] == "01" and phase["requests"] == 5 and phase["input"] == 4800
    assert phase["executor_start"]["tokens"] == 10_000 and phase["executor_peak"]["tokens"] == 33_000
    assert {r["agent"]: r["requests"] for r in data["by_agent"]} == {"main": 2, "msd-executor": 3}
    assert data["totals"]["total"] == 4800 + 43_500 + 5 * 0 + 3 + 30


def test_the_window_is_the_hosts_then_the_configured_then_the_default():
    assert report.window_of("m", {"m": 1_000_000}, 50_000) == (1_000_000, "host")
    assert report.window_of("m", {}, 50_000) == (50_000, "config")
    assert report.window_of(None, {}, None) == (report.DEFAULT_WINDOW, "default")


def test_msd_usage_json_and_the_chart(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from msd_core.cli.app import build_app

    root, config = _session(tmp_path)
    monkeypatch.chdir(root)
    r = CliRunner().invoke(build_app(), ["usage", "--json", "--config-dir", str(config)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["command"] == "usage" and data["totals"]["requests"] == 5
    r = CliRunner().invoke(build_app(), ["usage", "--config-dir", str(config)], env={"COLUMNS": "140"})
    assert r.exit_code == 0 and "By plan" in r.output and "Executor context" in r.output and "█" in r.output
    r = CliRunner().invoke(build_app(), ["usage", "--config-dir", str(tmp_path / "empty")])
    assert r.exit_code == 0 and "No request recorded" in r.output


# --- what the host counted without a request line (compaction summaries) ------------------------

def _cost_state(inp: int, read: int, write: int, out: int) -> dict:
    """A `cost-state` line's modelUsage as the host writes it, split over two models."""
    return {"claude-opus-5-5": {"inputTokens": inp - 1, "outputTokens": out, "cacheReadInputTokens": read,
                                "cacheCreationInputTokens": write, "costUSD": 0.1},
            "claude-small": {"inputTokens": 1, "outputTokens": 0, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0}}


def test_what_the_host_counted_beyond_the_request_lines_is_reported_apart(tmp_path):
    root, config = _session(tmp_path)
    folder = config / "projects" / locate.folder_name(str(root))
    main = folder / "S.jsonl"
    # the session's attributed figures: input 4800, cache read 43,500, cache write 0, output 33;
    # the host also counted a compaction summary of 9000 / 0 / 100 / 700
    line = {"type": "cost-state", "sessionId": "S", "modelUsage": _cost_state(4800 + 9000, 43_500, 100, 33 + 700)}
    main.write_bytes(main.read_bytes() + json.dumps(line).encode() + b"\n")
    data = report.build(report.scan(root, config))
    assert data["totals"]["total"] == 4800 + 43_500 + 33  # the attributed requests, as before
    u = data["unattributed"]
    assert (u["input"], u["cache_read"], u["cache_write"], u["output"], u["total"]) == (9000, 0, 100, 700, 9800)
    assert u["sessions_counted_by_host"] == 1


def test_an_older_or_partial_cost_state_never_counts_below_zero_and_a_session_without_one_adds_nothing(tmp_path):
    root, config = _session(tmp_path)
    data = report.build(report.scan(root, config))
    assert data["unattributed"]["total"] == 0 and data["unattributed"]["sessions_counted_by_host"] == 0
    main = config / "projects" / locate.folder_name(str(root)) / "S.jsonl"
    bad = [{"type": "cost-state", "modelUsage": {"m": {"inputTokens": 10, "outputTokens": "x", "cacheReadInputTokens": -5}}},
           {"type": "cost-state", "modelUsage": "not a mapping"}]
    main.write_bytes(main.read_bytes() + b"".join(json.dumps(x).encode() + b"\n" for x in bad))
    data = report.build(report.scan(root, config))
    assert data["lines"]["malformed"] == 0
    assert data["unattributed"]["total"] == 0  # a run whose totals lag the lines after it: nothing below zero


def test_a_subagents_cost_state_line_is_not_the_sessions(tmp_path):
    t = Transcript("/p", agent_id="a1").user("Execute 01-01-PLAN.md").reply(usage(10))
    t.other("cost-state", modelUsage=_cost_state(999, 0, 0, 0))
    assert _scan(t, tmp_path, "msd-executor").state["host_total"] is None
    t2 = Transcript("/p").reply(usage(10)).other("cost-state", modelUsage=_cost_state(999, 0, 0, 0))
    assert _scan(t2, tmp_path).state["host_total"] == [999, 0, 0, 0]
