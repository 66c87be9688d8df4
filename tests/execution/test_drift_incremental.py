"""Incremental drift (issue 49): after each new commit, drift from the saved state plus the new commits
equals drift read from the whole history, and the cases that cannot be extended fall back.

Histories are generated with plain git from a seed: msd commits and outside commits, renames,
deletions, reverts, cherry-picks, merges, planning-doc commits, plan edits, new verifications,
acceptances, run records and a rewritten HEAD (an amend: what a rebase does to the saved HEAD).
After every step, drift runs once with the state the previous step saved (the chain of states is
never reset), then once more with no state (the full read), and the two answers must be equal.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from msd_core.execution import drift as drift_mod
from msd_core.execution import drift_state
from tests.execution.test_drift import PLAN_REF, commit, git, project, verification, write
from tests.execution.test_plan_check import plan

PLAN2 = ".planning/phases/01-core/01-02-PLAN.md"
STATE = Path(".planning/.msd") / drift_state.NAME
FULL = {"merge", "amend", "verify", "plan-edit", "accept"}  # steps that must read the whole history
INCREMENTAL = {"msd", "outside", "hotfix", "rename", "delete", "revert", "cherry-pick", "planning-doc", "summary"}


@pytest.fixture
def paths(monkeypatch):
    """Which way each drift run took: 'full' or 'incremental'."""
    taken: list[str] = []
    full, extend = drift_mod._full_part, drift_mod._extend_part
    monkeypatch.setattr(drift_mod, "_full_part", lambda *a: (taken.append("full"), full(*a))[1])
    monkeypatch.setattr(drift_mod, "_extend_part", lambda *a: (taken.append("incremental"), extend(*a))[1])
    return taken


def base_project(tmp_path: Path) -> Path:
    """test_drift's verified project, a second plan declaring a folder, and a side branch to pick from."""
    root = project(tmp_path)
    commit(root, "docs: plan 01-02", {PLAN2: plan("01-02", files=("src/store.py", "src/util/"), reqs=("HABIT-02",),
                                                     must="")})
    commit(root, "feat(01-02): store", {"src/store.py": "s = 0\n", "src/util/a.py": "a = 0\n"}, "01-core/01-02")
    git(root, "checkout", "-q", "-b", "side")
    for i in range(6):
        commit(root, f"feat: side {i}", {f"side/s{i}.py": f"s = {i}\n"}, PLAN_REF if i % 2 else None)
    git(root, "checkout", "-q", "main")
    return root


def both(root: Path) -> tuple[dict, dict]:
    """(drift with the saved state, drift with none); the saved state is the first run's afterwards."""
    inc = drift_mod.drift(root)
    state = root / STATE
    if state.is_dir() or state.is_symlink():  # no state can be kept in its place: both runs read it all
        return inc, drift_mod.drift(root)
    kept = state.read_bytes() if state.is_file() and not state.is_symlink() else None
    state.unlink(missing_ok=True)
    full = drift_mod.drift(root)
    state.unlink(missing_ok=True)
    if kept is not None:
        state.write_bytes(kept)
    return inc, full


def step(root: Path, rnd: random.Random, op: str, n: int) -> bool:
    """Make the step `op`; False when its way cannot be told in advance (a revert of a planning change)."""
    files = ["src/habits.py", "src/app.py", "src/store.py", "src/util/a.py", "README.md", f"lib/free{n % 4}.py"]
    tracked = set(git(root, "ls-files").split())
    present = [f for f in files if f in tracked]
    if op in ("rename", "delete") and not present:
        commit(root, f"fix: bring one back {n}", {files[n % len(files)]: "back\n"})
        present = [files[n % len(files)]]
    if op in ("msd", "outside"):
        path = rnd.choice(files)
        commit(root, f"{'feat(01-01)' if op == 'msd' else 'fix'}: step {n}", {path: f"v = {n}\n"},
               PLAN_REF if op == "msd" else None)
    elif op == "hotfix":  # outside the workflow, on a file a verified plan declares
        commit(root, f"fix: hotfix {n}", {"src/habits.py": f"h = {n}\n"})
    elif op == "rename":
        old = rnd.choice(present)
        new = f"moved/{n}_{Path(old).name}"
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        git(root, "mv", old, new)
        git(root, "commit", "-q", "-m", f"refactor: move {old}" + (f"\n\nMsd-Plan: {PLAN_REF}" if rnd.random() < .3 else ""))
    elif op == "delete":
        git(root, "rm", "-q", rnd.choice(present))
        git(root, "commit", "-q", "-m", f"chore: remove a file {n}")
    elif op == "revert":
        planning = any(f.startswith(".planning/") for f in git(root, "show", "--format=", "--name-only", "HEAD").split())
        merge = len(git(root, "show", "-s", "--format=%P", "HEAD").split()) > 1
        if not git(root, "show", "--format=", "--name-only", *(["-m", "--first-parent"] if merge else []), "HEAD"):
            commit(root, f"fix: instead of reverting an empty commit {n}", {"README.md": f"e {n}\n"})
            return True
        git(root, "revert", "--no-edit", *(["-m", "1"] if merge else []), "HEAD")
        return not planning
    elif op == "cherry-pick":
        picked = git(root, "log", "--format=%H", "main..side").split()
        try:
            git(root, "cherry-pick", "-x", "--allow-empty", "--keep-redundant-commits", picked[n % len(picked)])
        except AssertionError:  # git's rename guesses met an earlier move: pick nothing, commit by hand
            git(root, "cherry-pick", "--abort")
            commit(root, f"fix: instead of a pick {n}", {f"side/by_hand{n}.py": "x\n"})
    elif op == "merge":
        git(root, "checkout", "-q", "-b", f"b{n}", "HEAD~1")
        commit(root, f"fix: on a branch {n}", {f"branch/{n}.py": "b = 1\n", "src/app.py" if n % 2 else "x.txt": "m\n"})
        git(root, "checkout", "-q", "main")
        try:
            git(root, "merge", "-q", "--no-ff", "--no-edit", "-X", "theirs", f"b{n}")
        except AssertionError:  # a file one side deleted: no merge this time, a commit by hand
            git(root, "merge", "--abort")
            commit(root, f"fix: instead of a merge {n}", {f"branch/{n}.py": "b = 1\n"})
            return False
    elif op == "amend":
        git(root, "commit", "-q", "--amend", "--allow-empty", "-m", f"fix: rewritten {n}")
    elif op == "verify":
        verification(root)
    elif op == "plan-edit":
        commit(root, "docs: plan 01-02 names one more file",
               {PLAN2: plan("01-02", files=("src/store.py", "src/util/", f"lib/free{n % 4}.py", f"lib/extra{n}.py"), reqs=("HABIT-02",),
                            must="")})
    elif op == "planning-doc":
        commit(root, f"docs: notes {n}", {".planning/notes.md": f"note {n}\n"})
    elif op == "summary":
        commit(root, "docs(01-02): summary", {".planning/phases/01-core/01-02-SUMMARY.md": f"# done {n}\n"})
    elif op == "accept":
        outside = [f["commit"] for f in drift_mod.drift(root)["findings"] if f["kind"] == "outside-commit"]
        if not outside:
            commit(root, f"fix: to accept {n}", {"README.md": f"r {n}\n"})
            outside = [git(root, "rev-parse", "HEAD")]
            drift_mod.drift(root)
        drift_mod.accept(root, rnd.choice(outside), f"reviewed {n}")
        if rnd.random() < .5:
            commit(root, f"docs(drift): accept {n}")
    return True


def walk(root: Path, seed: int, steps: int, taken: list[str], ops: list[str] | None = None, paths: bool = True
         ) -> list[str]:
    """Run `steps` random steps (or `ops`), checking incremental == full after each; the ops run."""
    rnd = random.Random(seed)
    choices = sorted(INCREMENTAL) * 3 + sorted(FULL)
    done = []
    both(root)
    for n in range(steps if ops is None else len(ops)):
        op = rnd.choice(choices) if ops is None else ops[n]
        told = step(root, rnd, op, n)
        taken.clear()
        inc, full = both(root)
        assert inc == full, f"seed {seed}, step {n} ({op}): incremental drift differs from the full read"
        assert taken[-1] == "full"
        if not paths or not told:
            pass
        elif op in FULL:
            assert taken[0] == "full", f"step {n} ({op}) must read the whole history"
        elif op in INCREMENTAL:
            assert taken[0] == "incremental", f"step {n} ({op}) should extend the saved state"
        done.append(op)
    return done


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_incremental_drift_equals_the_full_read_after_every_commit(tmp_path, paths, monkeypatch, seed):
    if seed % 2 == 0:  # the phases kept by their files' stamps even when just written (the walk is fast)
        monkeypatch.setattr(drift_state, "QUIET_NS", 0)
    root = base_project(tmp_path)
    done = walk(root, seed, 28, paths)
    assert set(done) & FULL and set(done) & INCREMENTAL
    final = drift_mod.drift(root)
    assert final["count"] > 0 and {f["kind"] for f in final["findings"]} >= {"outside-commit"}


def test_every_kind_of_step_in_one_history(tmp_path, paths):
    root = base_project(tmp_path)
    ops = ["outside", "msd", "rename", "delete", "revert", "cherry-pick", "cherry-pick", "planning-doc", "summary",
           "merge", "outside", "amend", "msd", "verify", "outside", "plan-edit", "accept", "planning-doc", "outside"]
    walk(root, 11, 0, paths, ops)
    kinds = {f["kind"] for f in drift_mod.drift(root)["findings"]}
    assert {"outside-commit", "stale-verification", "missing-file"} <= kinds


def test_a_run_record_naming_a_saved_outside_commit_is_judged_again(tmp_path, paths):
    """The saved part keeps the commits a run record may settle, so a new record needs no full read."""
    root = base_project(tmp_path)
    bare = commit(root, "feat(01-01): before trailers", {"src/app.py": "print(3)\n"})
    both(root)
    commit(root, "fix: later", {"README.md": "later\n"})
    runs = root / ".planning/.msd/runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / "01-core__01-01.json").write_text(json.dumps(
        {"plan": "01-01", "phase_dir": "01-core", "commits": [{"hash": bare, "files": ["src/app.py"]}]}))
    paths.clear()
    inc, full = both(root)
    assert inc == full, "incremental drift differs from the full read"
    assert paths[0] == "incremental"
    assert bare not in [f["commit"] for f in inc["findings"] if f["kind"] == "outside-commit"]
    # a record of a commit the saved state has no stake in changes nothing either
    commit(root, "fix: one more", {"README.md": "more\n"})
    (runs / "01-core__01-02.json").write_text(json.dumps(
        {"plan": "01-02", "phase_dir": "01-core", "commits": [{"hash": "0" * 40, "files": []}]}))
    paths.clear()
    inc, full = both(root)
    assert inc == full and paths[0] == "incremental"


def test_a_fast_forward_onto_the_verified_commit_reads_the_whole_history(tmp_path, paths):
    """The verification names a commit on another branch; HEAD then moves onto it in one line."""
    root = base_project(tmp_path)
    commit(root, "fix: outside before", {"README.md": "before\n"})
    git(root, "checkout", "-q", "-b", "ahead")
    v = commit(root, "feat(01-01): ahead", {"src/habits.py": "h = 9\n"}, PLAN_REF)
    git(root, "checkout", "-q", "main")
    body = f"## Machine checks\n\nresult: passed\ntests_command: none\ntests_status: passed\ntests_commit: {v}\n"
    from msd_core.planning import check_status

    write(root, {".planning/phases/01-core/01-VERIFICATION.md":
                 f"---\nphase: 01-core\nstatus: passed\n---\n{check_status.machine_block(body)}\n"})
    both(root)
    git(root, "stash", "-q", "-u")
    git(root, "merge", "-q", "--ff-only", "ahead")
    git(root, "stash", "pop", "-q")
    paths.clear()
    inc, full = both(root)
    assert inc == full, "incremental drift differs from the full read"
    assert paths[0] == "full"


BREAKS = {
    "facts are not compared": ("fingerprint", lambda *a: "same"),
    "ancestry is not checked": ("_one_line", lambda *a: True),
    "planning files are not stamped": ("planning_stamp", lambda root: []),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_broken_fallback_rule_is_caught(tmp_path, paths, monkeypatch, name):
    """The equivalence check has teeth: with a fallback rule broken, stale state is reused and differs."""
    attr, broken = BREAKS[name]
    monkeypatch.setattr(drift_state, attr, broken)
    root = base_project(tmp_path)
    ops = ["hotfix", "msd", "amend", "hotfix", "plan-edit", "hotfix", "verify", "outside", "msd", "outside"]
    with pytest.raises(AssertionError, match="differs from the full read"):
        walk(root, 5, 0, paths, ops, paths=False)


def test_the_verified_commit_rule_is_needed(tmp_path, paths, monkeypatch):
    """Without the rule 'a new commit is a verification commit: read it all', the fast-forward case differs."""
    real = drift_state.extend

    def lax(root, saved, tip, facts, verif, where, read):
        return real(root, saved, tip, facts, set(), where, read)

    monkeypatch.setattr(drift_state, "extend", lax)
    with pytest.raises(AssertionError, match="differs from the full read"):
        test_a_fast_forward_onto_the_verified_commit_reads_the_whole_history(tmp_path, paths)


@pytest.mark.parametrize("bad", ["garbage", "oversized", "foreign-version", "other-msd", "wrong-shape", "symlink", "folder"])
def test_a_bad_saved_state_means_a_full_read_and_a_good_one_after(tmp_path, paths, bad):
    root = base_project(tmp_path)
    commit(root, "fix: outside", {"src/habits.py": "h = 2\n"})
    both(root)
    state = root / STATE
    doc = json.loads(state.read_text())
    commit(root, "fix: outside again", {"README.md": "again\n"})
    state.unlink()
    if bad == "garbage":
        state.write_bytes(b"\x00{not json")
    elif bad == "oversized":
        state.write_text(json.dumps({**doc, "pad": "x" * drift_state.MAX_BYTES}))
    elif bad == "foreign-version":
        state.write_text(json.dumps({**doc, "version": drift_state.VERSION + 1}))
    elif bad == "other-msd":
        state.write_text(json.dumps({**doc, "msd": "0.0.0-other"}))
    elif bad == "wrong-shape":
        state.write_text(json.dumps({**doc, "moved": {"a": 1}, "changed": [1]}))
    elif bad == "symlink":
        target = tmp_path / "elsewhere.json"
        target.write_text(json.dumps(doc))
        state.symlink_to(target)
    else:
        state.mkdir()
    paths.clear()
    inc, full = both(root)
    assert paths[0] == "full" and inc == full
    assert [f["subject"] for f in inc["findings"] if f["kind"] == "outside-commit"][:2] == ["fix: outside again",
                                                                                           "fix: outside"]
    if bad == "symlink":  # never followed nor written through: every run reads it all, the target untouched
        assert state.is_symlink() and json.loads(target.read_text()) == doc
    elif bad != "folder":  # the state is written whole again, and the next commit extends it
        assert drift_state.load(root) is not None
        commit(root, "fix: a third", {"README.md": "third\n"})
        paths.clear()
        inc, full = both(root)
        assert inc == full and paths[0] == "incremental"


def test_two_writers_leave_one_whole_state(tmp_path):
    """Atomic replace: whichever run wrote last, the file is one of theirs, whole and loadable."""
    import threading

    root = base_project(tmp_path)
    commit(root, "fix: outside", {"src/habits.py": "h = 2\n"})
    drift_mod.drift(root)
    errors: list[BaseException] = []

    def run():
        try:
            for _ in range(4):
                drift_mod.drift(root)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and drift_state.load(root) is not None


def test_a_root_below_the_top_extends_its_own_history(tmp_path, paths):
    """A project below the work tree's top reads its folder's history (scoped, parents rewritten)."""
    from tests.execution.test_drift_roots import commit as top_commit
    from tests.kit.rootskit import three_roots

    top = three_roots(tmp_path / "mono", api_stage="executed")
    api = top / "services" / "api"
    plan_file = api / ".planning/phases/01-part/01-01-PLAN.md"
    plan_file.write_text("---\nphase: 01-part\nplan: 1\nwave: 1\nfiles_modified: [src/a.py]\n---\n# Plan\n", encoding="utf-8")
    top_commit(top, {"services/api/src/a.py": "a = 1\n"}, "feat(01-01): a\n\nMsd-Plan: 01-01")
    both(api)
    for n, (files, message, way) in enumerate([
            ({"services/api/src/a.py": "a = 2\n"}, "api hotfix", "incremental"),
            ({"apps/web/src/w.py": "w = 1\n"}, "web hotfix", "incremental"),  # not the api's: no new commit for it
            ({"docs/top.md": "top\n"}, "top docs", "incremental"),
            ({"services/api/src/b.py": "b = 1\n", "docs/top.md": "again\n"}, "both", "incremental")]):
        top_commit(top, files, message)
        paths.clear()
        inc, full = both(api)
        assert inc == full, f"step {n}: incremental drift differs from the full read"
        assert paths[0] == way, n
    assert [f["subject"] for f in inc["findings"] if f["kind"] == "outside-commit"] == ["both", "api hotfix"]
    git(top, "reset", "-q", "--hard", "HEAD~2")  # the saved HEAD left the branch
    paths.clear()
    inc, full = both(api)
    assert inc == full and paths[0] == "full"


def test_the_phases_are_kept_while_their_files_are_unchanged_and_quiet(tmp_path, monkeypatch):
    root = base_project(tmp_path)
    reads: list[int] = []
    real = drift_mod.read_phases
    monkeypatch.setattr(drift_mod, "read_phases", lambda *a: (reads.append(1), real(*a))[1])
    drift_mod.drift(root)
    commit(root, "fix: outside", {"src/habits.py": "h = 3\n"})
    drift_mod.drift(root)
    assert len(reads) == 2  # the planning files changed less than QUIET_NS ago: read each time
    monkeypatch.setattr(drift_state, "QUIET_NS", 0)
    drift_mod.drift(root)
    commit(root, "fix: outside again", {"src/app.py": "a = 3\n"})
    first = drift_mod.drift(root)
    assert len(reads) == 3  # kept: the commit touched no planning file
    plan_file = root / PLAN2
    plan_file.write_text(plan_file.read_text().replace("src/store.py", "src/store.py, src/app.py"))
    second = drift_mod.drift(root)
    assert len(reads) == 4  # a plan changed: read again, and it counts
    hot = [f for f in second["findings"] if f["kind"] == "outside-commit" and f["subject"] == "fix: outside again"]
    assert hot[0]["files"][0]["plans"] == ["01-01", "01-02"] and first != second
    (root / ".planning/phases/01-core/01-02-SUMMARY.md").write_text("# done\n")  # a new file in a phase folder
    drift_mod.drift(root)
    assert len(reads) == 5


def test_the_stamp_names_every_file_the_phases_come_from(tmp_path, monkeypatch):
    root = base_project(tmp_path)
    assert drift_state.planning_stamp(root) is None  # just written: not quiet yet
    monkeypatch.setattr(drift_state, "QUIET_NS", 0)
    rows = {row[0]: row for row in drift_state.planning_stamp(root)}
    for rel in ("ROADMAP.md", "phases", "phases/01-core", "phases/01-core/01-01-PLAN.md", "phases/01-core/01-02-PLAN.md",
                "phases/01-core/01-01-SUMMARY.md", "phases/01-core/01-VERIFICATION.md"):
        assert len(rows[rel]) == 6, rel
    assert rows["REQUIREMENTS.md"] == ["REQUIREMENTS.md"]  # absent, and said so: its arrival changes the stamp


def test_the_symlink_check_kept_across_paths_still_refuses_a_link(tmp_path):
    from msd_core.execution.verify import _inside

    (tmp_path / "real").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    links: dict[str, bool] = {}
    for _ in range(2):  # the second round answers from `links`
        assert _inside(tmp_path, "link/x.py", links) is None and _inside(tmp_path, "link/y/", links) is None
        assert _inside(tmp_path, "real/x.py", links) == tmp_path / "real" / "x.py"
    assert links == {str(tmp_path / "link"): True, str(tmp_path / "real"): False, str(tmp_path / "real" / "x.py"): False}
