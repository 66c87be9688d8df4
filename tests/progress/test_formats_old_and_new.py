"""Issue 22: a project started from msd's own templates and a project carried over from the
corpus (written with the older formats) both route (`msd_run next`), digest and sync.

Expected values are worked out here from the files the test writes (or, for the corpus, by
relabelling a copy of its STATE.md with msd's labels and requiring the same answers from
both copies), never taken from the code under test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import corpus_tree_names

CORE = Path(__file__).resolve().parents[2] / "msd_core" / "content" / "msd-core"
TEMPLATES = CORE / "templates"

PHASES = [("1", "Core", "core"), ("2", "Reminders", "reminders"), ("3", "Sync", "sync")]


def _fill(text: str, values: dict) -> str:
    return re.sub(r"\{\{([^{}]*)\}\}", lambda m: values.get(m.group(1).strip(), "filled"), text)


def _fenced(stem: str) -> str:
    text = (CORE / "workflows" / f"{stem}.md").read_text(encoding="utf-8")
    return re.search(r"```markdown\n(.*?)\n```", text, re.S).group(1)


def _summary(phase: str, slug: str, pp: str, provides: str) -> str:
    text = (TEMPLATES / "summary-standard.md").read_text(encoding="utf-8")
    text = text.replace('"{{NN-slug}}"', f"{phase}-{slug}").replace('"{{PP}}"', pp)
    text = text.replace('["{{capability now available}}"]', f'["{provides}"]')
    text = text.replace('["{{area touched}}"]', f'["{slug}"]')
    return _fill(text, {})


def _new_project(root: Path) -> dict:
    """Three phases from the templates: phase 1 done and verified, phase 2 one of two plans
    summarised, phase 3 untouched. Returns the facts a reader must find."""
    planning = root / ".planning"
    planning.mkdir(parents=True)
    roadmap = (TEMPLATES / "roadmap.md").read_text(encoding="utf-8")
    head, _sep, _rest = roadmap.partition("- [ ] Phase 1:")
    lines = [f"- [{'x' if n == '1' else ' '}] Phase {n}: {name} — {name.lower()} works" for n, name, _s in PHASES]
    blocks = [f"### Phase {n}: {name}\nGoal: {name} works\nDepends on: nothing\nRequirements: TBD\n"
              f"Done when:\n- {name} can be tried\nPlans: TBD\n" for n, name, _s in PHASES]
    (planning / "ROADMAP.md").write_text(_fill(head, {"project_name": "Habits"}) + "\n".join(lines) + "\n\n"
                                         + "\n".join(blocks))
    (planning / "PROJECT.md").write_text(_fill((TEMPLATES / "project.md").read_text(encoding="utf-8"), {}))
    state = _fill((TEMPLATES / "state.md").read_text(encoding="utf-8"),
                  {"n": "1", "total_phases": "3", "phase_name": "Core", "project_name": "Habits"})
    (planning / "STATE.md").write_text(state)
    shutil.copy(TEMPLATES / "config.json", planning / "config.json")
    provides = {}
    for n, _name, slug in PHASES[:2]:
        folder = planning / "phases" / f"0{n}-{slug}"
        folder.mkdir(parents=True)
        for pp in ("01", "02"):
            (folder / f"0{n}-{pp}-PLAN.md").write_text(f"---\nphase: 0{n}-{slug}\nplan: {pp}\n---\n<tasks></tasks>\n")
            if n == "1" or pp == "01":
                fact = f"{slug} piece {pp}"
                (folder / f"0{n}-{pp}-SUMMARY.md").write_text(_summary(f"0{n}", slug, pp, fact))
                provides.setdefault(f"0{n}-{slug}", []).append(fact)
    (planning / "phases" / "01-core" / "01-VERIFICATION.md").write_text("---\nstatus: passed\n---\n")
    for i, f in enumerate(sorted(planning.rglob("*.md"))):  # oldest first; 02-01's SUMMARY is the newest
        os.utime(f, (1_700_000_000 + i, 1_700_000_000 + i))
    newest = planning / "phases" / "02-reminders" / "02-01-SUMMARY.md"
    os.utime(newest, (1_750_000_000, 1_750_000_000))
    return {"provides": provides}


def _json(res) -> dict:
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_new_template_project_routes_digests_and_syncs(tmp_path, msd_run):
    facts = _new_project(tmp_path)
    cwd = ["--cwd", str(tmp_path)]
    # phase 1 is ticked; phase 2 has 02-02-PLAN.md without a SUMMARY
    nxt = _json(msd_run(["next", *cwd]))
    assert (nxt["route"], nxt["command"]) == ("execute-phase", "/msd-execute-phase 2")
    assert (nxt["phases_total"], nxt["phases_done"]) == (3, 1)

    digest = _json(msd_run(["history-digest", *cwd]))
    assert {k: v["p"].split("\n") for k, v in digest["phases"].items()} == facts["provides"]

    sync = _json(msd_run(["state", "sync", *cwd]))
    assert sync["missing"] == []
    text = (tmp_path / ".planning" / "STATE.md").read_text()
    # (1 done phase + 1 of 2 plans of phase 2) / 3 phases = 50%
    for line in ("Focus: Phase 2 (Reminders)", "Phase: 2 of 3 (Reminders)", "Plan: 2 of 2 in current phase",
                 "Status: In progress", "Progress: [#####-----] 50%"):
        assert f"\n{line}\n" in text, line
    assert "\nLast change: 2025-06-15 (completed 02-01-PLAN.md)\n" in text  # 1_750_000_000 s, in UTC
    for old in ("Current Position", "Current focus", "Stopped at", "Resume file", "Last activity"):
        assert old not in text, old  # msd writes its own labels, never the older ones
    assert _json(msd_run(["state", "sync", "--check", *cwd]))["in_sync"] is True

    # pause: the handoff pause-work writes, recorded under the template's Session lines
    handoff = ".planning/phases/02-reminders/.continue-here.md"
    (tmp_path / handoff).write_text(_fenced("pause-work") + "\n")
    patched = _json(msd_run(["state", "patch", "--set-session", "Paused: 02-02 task 1", "--resume-file", handoff, *cwd]))
    assert patched["not_found"] == []
    text = (tmp_path / ".planning" / "STATE.md").read_text()
    assert f"\nHandoff: {handoff}\n" in text and "\nLeft off: Paused: 02-02 task 1\n" in text
    nxt = _json(msd_run(["next", *cwd]))
    assert (nxt["route"], nxt["resume_file"]) == ("resume-work", handoff)
    (tmp_path / handoff).unlink()
    _json(msd_run(["state", "patch", "--resume-file", "None", *cwd]))
    assert _json(msd_run(["next", *cwd]))["route"] == "execute-phase"

    # phase 2 finished, then the UAT verify-work writes reports issues: plan the gaps
    folder = tmp_path / ".planning" / "phases" / "02-reminders"
    (folder / "02-02-SUMMARY.md").write_text(_summary("02", "reminders", "02", "reminders piece 02"))
    assert _json(msd_run(["next", *cwd]))["route"] == "verify-work"
    uat = _fenced("verify-work").replace("status: testing ", "status: issues_found", 1)
    (folder / "02-UAT.md").write_text(uat + "\n")
    nxt = _json(msd_run(["next", *cwd]))
    assert (nxt["route"], nxt["command"]) == ("plan-gaps", "/msd-plan-phase 2 --gaps")
    _json(msd_run(["state", "sync", *cwd]))
    assert "\nStatus: Gaps found\n" in (tmp_path / ".planning" / "STATE.md").read_text()


# --- the corpus: older labels, and the same file relabelled the msd way ---------------------------

RELABEL = [(r"Current Position", "Position"), (r"Session Continuity", "Session"), (r"Blockers/Concerns", "Blockers"),
           (r"Current focus", "Focus"), (r"Last activity", "Last change"), (r"Last session", "Last worked"),
           (r"Stopped at", "Left off"), (r"Resume file", "Handoff")]


def _relabel(text: str) -> str:
    for old, new in RELABEL:
        text = re.sub(old, new, text)
    return text


def _summary_folders(root: Path) -> set[str]:
    return {p.parent.name for p in (root / ".planning" / "phases").glob("*/*SUMMARY.md")} \
        if (root / ".planning" / "phases").is_dir() else set()


@pytest.mark.parametrize("name", corpus_tree_names() or ["<no corpus>"])
def test_corpus_project_reads_the_same_under_either_labels(name, copy_corpus_tree, msd_run, tmp_path):
    old_root = copy_corpus_tree(name)
    state = old_root / ".planning" / "STATE.md"
    if not state.is_file():
        pytest.skip("no STATE.md in this corpus project")
    new_root = tmp_path / "relabelled" / name
    shutil.copytree(old_root, new_root, symlinks=True)
    original = state.read_text(encoding="utf-8", errors="replace")
    relabelled = _relabel(original)
    (new_root / ".planning" / "STATE.md").write_text(relabelled, encoding="utf-8")
    # keep modification times equal, so `Last change` is derived from the same files
    for src in old_root.rglob("*"):
        dst = new_root / src.relative_to(old_root)
        if src.is_file() and not src.is_symlink() and dst.name != "STATE.md":
            shutil.copystat(src, dst)

    def answers(root: Path) -> tuple:
        nxt = msd_run(["next", "--cwd", str(root)])
        check = msd_run(["state", "sync", "--check", "--cwd", str(root)])
        get = msd_run(["state", "get", "--cwd", str(root)])
        out = []
        for res in (nxt, check, get):
            assert res.returncode in (0, 1), res.stderr
            out.append(json.loads(res.stdout) if res.stdout.strip().startswith("{") else res.stderr.strip())
        nxt_json, check_json, get_json = out
        if isinstance(nxt_json, dict):
            nxt_json.pop("project_root", None)
        changes = [(c["field"], c["line"], c["new"]) for c in check_json.get("changed", [])] \
            if isinstance(check_json, dict) else check_json
        position = get_json.get("position") if isinstance(get_json, dict) else get_json
        return nxt_json, changes, check_json.get("missing") if isinstance(check_json, dict) else None, position

    old, new = answers(old_root), answers(new_root)
    assert old[0] == new[0]  # the same route, reason and resume file
    assert old[1] == new[1]  # the same derived lines change to the same values
    assert old[2] == new[2]  # and the same ones are missing
    if isinstance(old[3], dict) and isinstance(new[3], dict):
        relabel_keys = {o: n for o, n in RELABEL}
        assert {relabel_keys.get(k, k): v for k, v in old[3].items()} == new[3]

    # a handoff line under either label routes alike (when the project already keeps one)
    for label in ("Resume file", "Stopped at"):
        if re.search(rf"^\W*{label}\W*:", original, re.M | re.I):
            values = [_json(msd_run(["state", "get", lab, "--cwd", str(root)]))["value"]
                      for root, lab in ((old_root, label), (new_root, dict(RELABEL)[label]))]
            assert values[0] == values[1]

    # digest: every phase it reports is a folder that holds a SUMMARY
    digest = _json(msd_run(["history-digest", "--cwd", str(old_root)]))
    current = {k for k in digest["phases"] if "/" not in k}
    assert current <= _summary_folders(old_root)
