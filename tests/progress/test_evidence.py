"""Completion from evidence (msd_core.progress.evidence, issue 30 item 1): a summarised plan is
done only when `msd_run commit --plan` recorded commits of it touching its files_modified (or a
recorded deviation), once msd executes the project; `next`, `wave plan`, `state sync` agree.

Projects are built by hand in real git repositories; the runtime is called as the content calls it.
Expected routes are written from docs/CONTRACTS.md and the issue, never produced by the code.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.kit.gitkit import git, new_repo, run_msd

ROADMAP = """# Roadmap: Demo

## Phases

- [ ] Phase 1: Core — the core works
- [ ] Phase 2: Extra — more works

### Phase 1: Core
Goal: core
Plans: 1 plans
- [ ] 01-01-PLAN.md — build the core
"""

STATE = ("---\nprogress:\n  total_plans: 1\n  completed_plans: 0\n---\n"
         "# Demo\n\n## Position\nPhase: 1 of 2 (Core)\nPlan: 1 of 1 in current phase\nStatus: Ready to execute\n")
PHASE = ".planning/phases/01-core"
PLAN = f"{PHASE}/01-01-PLAN.md"
SUMMARY = f"{PHASE}/01-01-SUMMARY.md"


def _project(tmp_path: Path, files=("src/a.txt", "src/b.txt")) -> Path:
    root = new_repo(tmp_path / "p")
    (root / PHASE).mkdir(parents=True)
    (root / ".planning/PROJECT.md").write_text("# Demo\n")
    (root / ".planning/ROADMAP.md").write_text(ROADMAP)
    (root / ".planning/STATE.md").write_text(STATE)
    (root / f"{PHASE}/01-CONTEXT.md").write_text("# ctx\n")
    fm = "".join(f"  - {f}\n" for f in files)
    (root / PLAN).write_text(f"---\nphase: 01-core\nplan: 01\nwave: 1\nfiles_modified:\n{fm}---\n# Plan\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    return root


def _msd(root: Path, *args: str, ok=(0,)) -> dict:
    r = run_msd(list(args), root)
    assert r.returncode in ok and "Traceback" not in r.stderr, (args, r.returncode, r.stderr)
    return json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}


def _start_execution(root: Path) -> dict:
    """execute-phase's first call: `wave plan` (it records that msd executes the project)."""
    return _msd(root, "wave", "plan", "--phase-dir", PHASE)


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _commit(root: Path, *files: str, deviation: str | None = None) -> None:
    extra = ["--deviation", deviation] if deviation else []
    _msd(root, "commit", "--plan", PLAN, "-m", "feat(01-01): work", *extra, "--", *files)


def _next(root: Path) -> dict:
    return _msd(root, "next")


def test_a_summary_without_a_recorded_commit_routes_back_to_execute(tmp_path):
    root = _project(tmp_path)
    assert _start_execution(root)["plans_remaining"] == 1
    # the executor wrote the code and its SUMMARY and committed by hand (not through msd_run commit)
    _write(root, "src/a.txt", "a\n")
    _write(root, "src/b.txt", "b\n")
    _write(root, SUMMARY, "---\nphase: 01-core\n---\n# done\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat: all of it")
    out = _next(root)
    assert (out["route"], out["command"]) == ("execute-phase", "/msd-execute-phase 1")
    assert "01-01 has a SUMMARY but no commit recorded by `msd_run commit --plan`" in out["reason"]
    assert [u["plan"] for u in out["phase"]["unproven"]] == ["01-01"]
    # execute-phase's wave loop runs it again, and says why
    waves = _start_execution(root)
    assert waves["plans_remaining"] == 1 and "no commit recorded" in waves["plans"][0]["unproven"]
    # state sync: in progress, the plan's roadmap box stays open
    _msd(root, "state", "sync")
    assert _msd(root, "state", "get", "Status")["value"] == "In progress"
    assert "- [ ] 01-01-PLAN.md" in (root / ".planning/ROADMAP.md").read_text()
    # STATE.md counts it as still to do: plan 1 of 1, none completed
    assert _msd(root, "state", "get", "Plan")["value"] == "1 of 1 in current phase"
    assert "  completed_plans: 0\n" in (root / ".planning/STATE.md").read_text()

    # the work committed through msd, one declared file at a time
    _write(root, "src/a.txt", "a2\n")
    _commit(root, "src/a.txt")
    out = _next(root)
    assert out["route"] == "execute-phase" and "do not touch src/b.txt" in out["reason"]
    assert out["phase"]["unproven"][0]["untouched"] == ["src/b.txt"]
    _write(root, "src/b.txt", "b2\n")
    _commit(root, "src/b.txt")
    out = _next(root)
    assert (out["route"], out["command"]) == ("verify-work", "/msd-verify-work 1")  # the verifier is on by default
    assert _start_execution(root)["plans_remaining"] == 0
    _msd(root, "state", "sync")
    assert "- [x] 01-01-PLAN.md" in (root / ".planning/ROADMAP.md").read_text()
    assert "  completed_plans: 1\n" in (root / ".planning/STATE.md").read_text()


def test_a_recorded_deviation_excuses_a_declared_file_left_untouched(tmp_path):
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _commit(root, "src/a.txt")
    _write(root, SUMMARY, "# done\n")
    assert "do not touch src/b.txt" in _next(root)["reason"]
    _commit(root, SUMMARY, deviation="src/b.txt was not needed: a.txt holds both")
    assert _next(root)["route"] == "verify-work"


def test_a_declared_folder_is_touched_by_a_file_under_it(tmp_path):
    root = _project(tmp_path, files=("src/", "docs/guide.md"))
    _start_execution(root)
    _write(root, "src/deep/x.txt", "x\n")
    _write(root, "docs/guide.md", "g\n")
    _commit(root, "src/deep/x.txt", "docs/guide.md")
    _write(root, SUMMARY, "# done\n")
    assert _next(root)["route"] == "verify-work"
    root2 = _project(tmp_path / "two", files=("docs/guide.md",))
    _start_execution(root2)
    _write(root2, "docs/guide.md.bak", "x\n")
    _msd(root2, "commit", "--plan", PLAN, "-m", "x", "--deviation", "scratch", "--", "docs/guide.md.bak")
    _write(root2, SUMMARY, "# done\n")
    out = _next(root2)
    assert out["route"] == "verify-work"  # the deviation recorded with that commit excuses the file
    rec = root2 / ".planning/.msd/runs/01-core__01-01.json"
    data = json.loads(rec.read_text())
    del data["commits"][0]["deviation"]
    rec.write_text(json.dumps(data))
    assert "do not touch docs/guide.md" in _next(root2)["reason"]


def test_projects_msd_never_executed_are_taken_on_their_summaries(tmp_path):
    """The documented choice for older projects: no `.planning/.msd/evidence.json` (a project
    made before msd, a fresh clone whose run records are gone), or a SUMMARY written before it."""
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done\n")
    assert _next(root)["route"] == "verify-work"
    assert not (root / ".planning/.msd/evidence.json").exists()  # `next` marks nothing
    _start_execution(root)  # msd starts executing after the SUMMARY was written: its cutoff lists it
    assert _next(root)["route"] == "verify-work"
    os.utime(root / SUMMARY)  # touched (a checkout, a copy): the same SUMMARY, still taken on its word
    assert _next(root)["route"] == "verify-work"
    _write(root, SUMMARY, "# done again\n")  # rewritten after the cutoff: msd must see it proven
    assert _next(root)["route"] == "execute-phase"


def test_a_marker_of_an_older_msd_exempts_summaries_written_before_it(tmp_path):
    """A marker without `cutoff` (`{"since": t}`, as msd wrote it before issue 45) keeps its meaning."""
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done\n")
    (root / ".planning/.msd").mkdir(parents=True, exist_ok=True)
    (root / ".planning/.msd/evidence.json").write_text(json.dumps({"since": time.time() + 60}))
    assert _next(root)["route"] == "verify-work"
    (root / ".planning/.msd/evidence.json").write_text(json.dumps({"since": time.time() - 3600}))
    assert _next(root)["route"] == "execute-phase"


def test_a_damaged_run_record_or_marker_is_a_reason_not_a_traceback(tmp_path):
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, SUMMARY, "# done\n")
    runs = root / ".planning/.msd/runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / "01-core__01-01.json").write_text("{not json")
    out = _next(root)
    assert out["route"] == "execute-phase" and "run record 01-core__01-01.json cannot be read" in out["reason"]
    (runs / "01-core__01-01.json").write_text(json.dumps({"commits": [{"hash": "not-a-hash"}]}))
    assert "no commit recorded" in _next(root)["reason"]
    (root / ".planning/.msd/evidence.json").write_text("[1, 2")  # a damaged marker: taken as never executed
    assert _next(root)["route"] == "verify-work"


def test_a_linked_worktree_reads_the_main_checkouts_records(tmp_path):
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _write(root, "src/b.txt", "b\n")
    _commit(root, "src/a.txt", "src/b.txt")
    _write(root, SUMMARY, "# done\n")
    _msd(root, "commit", "--plan", PLAN, "-m", "docs(01-01): summary", "--", SUMMARY)
    wt = tmp_path / "wt"
    git(root, "worktree", "add", "-q", "-b", "side", str(wt), "HEAD")
    assert _next(root)["route"] == "verify-work"
    out = json.loads(run_msd(["next"], wt).stdout)
    assert out["route"] == "verify-work", out  # not "no commit recorded": the records are the main checkout's


def _corpus_summarised(corpus_dir: Path) -> list[str]:
    return [p.name for p in sorted(corpus_dir.iterdir())
            if (p / ".planning/phases").is_dir() and any((p / ".planning/phases").glob("*/*SUMMARY.md"))][:4]


def test_corpus_projects_route_as_before_once_msd_executes_them(corpus_dir, tmp_path):
    """Real projects made before msd: marking them executed from now on leaves their routes as
    they were (every SUMMARY is older); treating every SUMMARY as new would send them back,
    which is what the marker's moment prevents."""
    from msd_core.progress import evidence, lifecycle

    names = _corpus_summarised(corpus_dir)
    assert names, "the corpus has projects with SUMMARYs"
    sent_back = 0
    for name in names:
        dest = tmp_path / name
        shutil.copytree(corpus_dir / name, dest, symlinks=True)
        for p in [dest, *dest.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode | 0o200)
        before = lifecycle.where(dest)
        evidence.mark_since(dest)
        after = lifecycle.where(dest)
        assert [(p.number, s) for p, s in after.states] == [(p.number, s) for p, s in before.states], name
        assert not any(p.unproven for p in after.phases), name
        (dest / ".planning/.msd/evidence.json").write_text('{"since": 0}')  # as if msd had executed them all
        strict = lifecycle.where(dest)
        sent_back += sum(1 for p in strict.phases if p.unproven)
    assert sent_back > 0


@pytest.mark.parametrize("body", ["", "{}", '{"since": "yesterday"}', '{"since": true}'])
def test_a_marker_without_a_moment_is_never_executed(tmp_path, body):
    from msd_core.progress import evidence

    (tmp_path / ".planning/.msd").mkdir(parents=True)
    (tmp_path / ".planning/.msd/evidence.json").write_text(body)
    assert evidence.since(tmp_path) is None


# --- run records stay in the clone that made them: git's trailers prove a plan merged in -------

def _runs(root: Path) -> Path:
    return root / ".planning/.msd/runs"


def test_a_plan_committed_through_msd_in_another_clone_is_proven_by_its_commit_trailers(tmp_path):
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _write(root, "src/b.txt", "b\n")
    _commit(root, "src/a.txt", "src/b.txt")
    _write(root, SUMMARY, "# done\n")
    _commit(root, SUMMARY)
    assert _next(root)["route"] == "verify-work"
    # this clone without the run record (a teammate's, after the merge; or the record lost)
    shutil.rmtree(_runs(root))
    out = _next(root)
    assert out["route"] == "verify-work", out  # the commits say `Msd-Plan: 01-core/01-01` themselves
    assert _start_execution(root)["plans_remaining"] == 0


def test_without_the_record_a_commit_made_by_hand_still_proves_nothing(tmp_path):
    """The fixture for the rule above: only msd's trailer counts, never a commit that merely touches the files."""
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _commit(root, "src/a.txt")
    _write(root, "src/b.txt", "b\n")
    _write(root, SUMMARY, "# done\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat(01-01): the rest, by hand", "-m", "Msd-Plan-ish: 01-core/01-01")
    shutil.rmtree(_runs(root))
    out = _next(root)
    assert out["route"] == "execute-phase" and "do not touch src/b.txt" in out["reason"], out


def test_a_deviation_travels_with_its_commit(tmp_path):
    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _commit(root, "src/a.txt")
    _write(root, SUMMARY, "# done\n")
    _commit(root, SUMMARY, deviation="src/b.txt was not needed: a.txt holds both")
    assert "Msd-Deviation: src/b.txt was not needed" in git(root, "log", "-1", "--format=%B")
    shutil.rmtree(_runs(root))
    assert _next(root)["route"] == "verify-work"


def test_a_long_lived_process_reads_git_again_for_each_reading(tmp_path):
    from msd_core.progress import evidence

    root = _project(tmp_path)
    _start_execution(root)
    _write(root, "src/a.txt", "a\n")
    _write(root, "src/b.txt", "b\n")
    _write(root, SUMMARY, "# done\n")
    reading = evidence.Reading(root)
    assert reading.git_commits("01-core", "01-01") == []
    _commit(root, "src/a.txt", "src/b.txt")
    assert reading.git_commits("01-core", "01-01") == []  # the same reading: the log read once
    (found,) = evidence.Reading(root).git_commits("01-core", "01-01")
    assert sorted(found["files"]) == ["src/a.txt", "src/b.txt"] and found["deviation"] is None


# --- evidence from the first command (issue 45) ----------------------------------------------


def _without_config(tmp_path: Path) -> Path:
    """The tree of `_project`, minus config.json: what msd finds before it made the project."""
    root = _project(tmp_path)
    cfg = root / ".planning/config.json"
    if cfg.exists():
        cfg.unlink()
    return root


def test_the_new_project_flows_first_setting_starts_the_evidence(tmp_path):
    """The flow's ask-settings step writes config.json with `msd_run config set`: the project is msd's from then on."""
    root = _without_config(tmp_path)
    _msd(root, "config", "set", "mode", "yolo", "--create")
    assert _msd(root, "evidence", "status")["required"] is True
    _write(root, SUMMARY, "# done\n")
    assert _next(root)["route"] == "execute-phase"


def test_setting_a_value_in_an_existing_config_starts_nothing(tmp_path):
    root = _without_config(tmp_path)
    (root / ".planning/config.json").write_text('{"mode": "interactive"}\n')
    _msd(root, "config", "set", "mode", "yolo")
    assert _msd(root, "evidence", "status")["required"] is False
    _write(root, SUMMARY, "# done\n")
    assert _next(root)["route"] == "verify-work"  # a tree msd never wrote: taken on its SUMMARY


def test_adopting_an_older_project_records_its_cutoff(tmp_path):
    """`msd_run evidence adopt`: plans summarised now stay taken on their word (by content, not by a
    file's time); any SUMMARY written or changed after it needs its recorded commits."""
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done\n")
    second = f"{PHASE}/01-02-PLAN.md"
    _write(root, second, "---\nphase: 01-core\nplan: 02\nwave: 2\nfiles_modified: [src/c.txt]\n---\n# Plan 2\n")
    status = _msd(root, "evidence", "status")
    assert status["required"] is False and "msd_run evidence adopt" in status["hint"]
    adopted = _msd(root, "evidence", "adopt")
    assert adopted["created"] is True and adopted["cutoff"] == ["01-core/01-01"]
    assert _msd(root, "evidence", "adopt")["created"] is False  # once
    os.utime(root / SUMMARY, (time.time() + 60, time.time() + 60))  # a checkout touches it: the same SUMMARY
    assert _next(root)["route"] == "execute-phase" and "01-01" not in _next(root).get("reason", "")
    _write(root, f"{PHASE}/01-02-SUMMARY.md", "# done\n")  # summarised after the cutoff, nothing recorded
    out = _next(root)
    assert out["route"] == "execute-phase" and "plan 01-02 has a SUMMARY but no commit recorded" in out["reason"]
    assert "01-01" not in out["reason"]
