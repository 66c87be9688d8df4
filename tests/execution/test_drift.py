"""`msd_run drift`: commits outside the workflow, stale verifications, files that are gone (issue 49, item 1).

Every test builds a real git history in a temporary folder: msd's commits carry the
`Msd-Plan:` trailer as `msd_run commit --plan` writes it, the verification's machine part
records the commit it ran on, and the drift is made with plain git (hotfix, rename, revert,
cherry-pick, merge, rebase, squash, deletion).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from msd_core.planning import check_status
from tests.execution.test_plan_check import ROADMAP, plan

PLAN_REF = "01-core/01-01"
MUST = ("must_haves:\n  truths: [\"habits can be created\"]\n  artifacts: [src/habits.py]\n"
        "  key_links:\n    - {from: src/app.py, to: src/habits.py, pattern: 'import habits'}\n")


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(root),
                               "GIT_EDITOR": "true"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def write(root: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        p = root / rel
        if text is None:
            p.unlink()
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def commit(root: Path, message: str, files: dict[str, str | None] | None = None, plan_ref: str | None = None) -> str:
    if files:
        write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message + (f"\n\nMsd-Plan: {plan_ref}" if plan_ref else ""))
    return git(root, "rev-parse", "HEAD")


def verification(root: Path, at: str | None = None) -> str:
    """The phase's VERIFICATION file, its machine part recording `at` (default HEAD), committed."""
    at = at or git(root, "rev-parse", "HEAD")
    body = f"## Machine checks\n\nresult: passed\ntests_command: none\ntests_status: passed\ntests_commit: {at}\n"
    text = f"---\nphase: 01-core\nstatus: passed\n---\n{check_status.machine_block(body)}\n\n# Phase 1: verification\n"
    commit(root, "docs(01): verification", {".planning/phases/01-core/01-VERIFICATION.md": text})
    return at


def project(tmp_path: Path) -> Path:
    """A project msd built and verified: a commit before msd, the planning docs, the plan's commit, its SUMMARY."""
    root = tmp_path / "p"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "t")
    git(root, "config", "user.email", "t@t")
    commit(root, "chore: the project before msd", {"README.md": "hello\n"})
    commit(root, "docs: plan phase 1", {".planning/ROADMAP.md": ROADMAP,
                                        ".planning/phases/01-core/01-01-PLAN.md": plan(must=MUST)})
    commit(root, "feat(01-01): habits", {"src/habits.py": "def create(n):\n    return n\n",
                                         "src/app.py": "import habits\n"}, PLAN_REF)
    commit(root, "docs(01-01): summary", {".planning/phases/01-core/01-01-SUMMARY.md": "# done\n"})
    verification(root)
    return root


def drift(msd_run, root: Path, *extra: str) -> tuple[int, dict]:
    r = msd_run(["drift", "--check", *extra], cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def kinds(out: dict) -> list[str]:
    return sorted(f["kind"] for f in out["findings"])


def test_a_clean_history_has_no_finding(msd_run, tmp_path):
    root = project(tmp_path)
    code, out = drift(msd_run, root)
    assert code == 0 and out["clean"] and out["findings"] == [] and out["commits_read"] == 3


def test_a_hotfix_outside_the_workflow_is_listed_with_its_plans_and_requirements(msd_run, tmp_path):
    root = project(tmp_path)
    fix = commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return n.strip()\n"})
    code, out = drift(msd_run, root)
    assert code == 1 and kinds(out) == ["outside-commit", "stale-verification"]
    outside = next(f for f in out["findings"] if f["kind"] == "outside-commit")
    assert outside["commit"] == fix and outside["phases"] == ["01"]
    assert outside["files"] == [{"path": "src/habits.py", "status": "M", "plans": ["01-01"],
                                 "requirements": ["HABIT-01", "HABIT-02"]}]
    assert outside["command"] == "msd_run verify 01" and outside["commands"][1].startswith("msd_run drift accept")
    stale = next(f for f in out["findings"] if f["kind"] == "stale-verification")
    assert stale["files"] == ["src/habits.py"] and stale["commits"] == [fix] and stale["command"] == "/msd-verify-work 01"
    text = msd_run(["drift", "--text"], cwd=root)
    assert text.returncode == 0 and len(text.stdout.splitlines()) == 3 and "-> msd_run verify 01" in text.stdout
    # re-verifying on the new commit settles both
    verification(root)
    code, out = drift(msd_run, root)
    assert code == 0 and out["clean"]


def test_an_accepted_commit_is_no_longer_reported_and_the_reason_is_recorded(msd_run, tmp_path):
    root = project(tmp_path)
    fix = commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return n.strip()\n"})
    readme = commit(root, "docs: readme", {"README.md": "hello, world\n"})
    code, out = drift(msd_run, root)
    assert code == 1 and [f.get("commit") for f in out["findings"] if f["kind"] == "outside-commit"] == [readme, fix]
    r = msd_run(["drift", "accept", fix[:10], "--reason", "urgent prod fix, reviewed by Ann"], cwd=root)
    assert r.returncode == 0, r.stderr
    said = json.loads(r.stdout)
    assert said["accepted"] and said["commit"] == fix and said["file"] == ".planning/drift-accepted.md"
    assert f"- {fix} urgent prod fix, reviewed by Ann (accepted " in (root / ".planning/drift-accepted.md").read_text()
    code, out = drift(msd_run, root)
    assert code == 1 and kinds(out) == ["outside-commit"] and out["findings"][0]["commit"] == readme
    assert out["findings"][0]["command"].startswith(f"msd_run drift accept {readme[:12]}")
    again = json.loads(msd_run(["drift", "accept", fix, "--reason", "x"], cwd=root).stdout)
    assert again["already"] and not again["accepted"]
    assert msd_run(["drift", "accept", readme, "--reason", "typo"], cwd=root).returncode == 0
    commit(root, "docs(drift): accept", None)  # the acceptance file is a planning doc: workflow
    assert drift(msd_run, root)[0] == 0


def test_usage_mistakes_are_one_line(msd_run, tmp_path):
    root = project(tmp_path)
    for args in (["drift", "accept", "HEAD"], ["drift", "accept", "HEAD", "--reason", "  "],
                 ["drift", "accept", "deadbeef", "--reason", "x"], ["drift", "accept", "--reason", "x"],
                 ["drift", "--reason", "x"]):
        r = msd_run(args, cwd=root)
        assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_a_renamed_declared_file_is_followed_to_its_new_path(msd_run, tmp_path):
    root = project(tmp_path)
    git(root, "mv", "src/habits.py", "src/habit_store.py")
    moved = commit(root, "refactor: rename habits")
    code, out = drift(msd_run, root)
    missing = [f for f in out["findings"] if f["kind"] == "missing-file"]
    assert code == 1 and [(f["path"], f["renamed_to"], f["commit"]) for f in missing] == \
        [("src/habits.py", "src/habit_store.py", moved)] * len(missing) and missing
    assert {f["command"] for f in missing} == {"/msd-plan-phase 01 --gaps"}
    outside = next(f for f in out["findings"] if f["kind"] == "outside-commit")
    assert outside["files"][0] == {"path": "src/habit_store.py", "status": "R", "from": "src/habits.py",
                                   "plans": ["01-01"], "requirements": ["HABIT-01", "HABIT-02"]}
    assert "requirement-gone" not in kinds(out)  # renamed, not gone: the requirement is judged on the tree


def test_a_deleted_artifact_and_the_requirement_it_carried(msd_run, tmp_path):
    root = project(tmp_path)
    gone = commit(root, "chore: drop habits", {"src/habits.py": None})
    code, out = drift(msd_run, root)
    assert code == 1 and kinds(out) == ["missing-file", "outside-commit", "requirement-gone",
                                        "requirement-gone", "stale-verification"]
    missing = [f for f in out["findings"] if f["kind"] == "missing-file"]
    assert {f["path"] for f in missing} == {"src/habits.py"} and all(f["commit"] == gone for f in missing)
    assert "renamed_to" not in missing[0]
    reqs = sorted(f["requirement"] for f in out["findings"] if f["kind"] == "requirement-gone")
    assert reqs == ["HABIT-01", "HABIT-02"]


def test_a_hand_made_revert_of_an_msd_commit_is_drift(msd_run, tmp_path):
    root = project(tmp_path)
    msd_commit = git(root, "log", "--format=%H", "--grep=^Msd-Plan:", "-1")
    revert = (git(root, "revert", "--no-edit", msd_commit), git(root, "rev-parse", "HEAD"))[1]
    code, out = drift(msd_run, root)
    outside = next(f for f in out["findings"] if f["kind"] == "outside-commit")
    assert code == 1 and outside["commit"] == revert and outside["reverts"] == msd_commit
    assert "msd_run undo" in outside["message"]
    assert {"missing-file", "stale-verification", "requirement-gone"} <= set(kinds(out))


def test_a_cherry_picked_msd_commit_carries_its_trailer(msd_run, tmp_path):
    root = project(tmp_path)
    git(root, "checkout", "-q", "-b", "other")
    picked = commit(root, "feat(01-01): strip names", {"src/habits.py": "def create(n):\n    return n.strip()\n"},
                    PLAN_REF)
    git(root, "checkout", "-q", "main")
    git(root, "cherry-pick", "-x", picked)
    code, out = drift(msd_run, root)
    assert "outside-commit" not in kinds(out)
    assert kinds(out) == ["stale-verification"]  # workflow, yet after the verification: re-verify
    verification(root)
    assert drift(msd_run, root)[0] == 0


def test_a_merge_judges_the_merged_commits_not_the_merge(msd_run, tmp_path):
    root = project(tmp_path)
    git(root, "checkout", "-q", "-b", "teammate")
    commit(root, "feat(01-01): app", {"src/app.py": "import habits\nprint(1)\n"}, PLAN_REF)
    fix = commit(root, "fix: teammate's tweak", {"docs/notes.md": "notes\n"})
    git(root, "checkout", "-q", "main")
    commit(root, "docs: readme on main", {".planning/notes.md": "x\n"})
    git(root, "merge", "-q", "--no-ff", "--no-edit", "teammate")
    code, out = drift(msd_run, root)
    outside = [f for f in out["findings"] if f["kind"] == "outside-commit"]
    assert code == 1 and [f["commit"] for f in outside] == [fix] and outside[0]["phases"] == []
    assert outside[0]["command"].startswith("msd_run drift accept") and "/msd-quick" in outside[0]["commands"]


def test_a_rebase_keeps_msd_commits_in_the_workflow(msd_run, tmp_path):
    root = project(tmp_path)
    git(root, "checkout", "-q", "-b", "work")
    commit(root, "feat(01-01): app", {"src/app.py": "import habits\nprint(1)\n"}, PLAN_REF)
    verified = verification(root)
    git(root, "checkout", "-q", "main")
    fix = commit(root, "fix: readme on main", {"README.md": "hi\n"})
    git(root, "checkout", "-q", "work")
    git(root, "rebase", "-q", "main")
    assert verified not in git(root, "log", "--format=%H").split()
    code, out = drift(msd_run, root)
    # the rebased msd commit is still msd's; the verification's commit left the history, its tree is compared
    assert [f["commit"] for f in out["findings"] if f["kind"] == "outside-commit"] == [fix]
    assert "stale-verification" not in kinds(out)
    # a rebase that also changes a verified file makes the verification stale (compared by trees)
    commit(root, "fix: on top", {"src/habits.py": "def create(n):\n    return 2\n"})
    stale = next(f for f in drift(msd_run, root)[1]["findings"] if f["kind"] == "stale-verification")
    assert stale["rebased"] and stale["files"] == ["src/habits.py"] and stale["verified_commit"] == verified


def test_a_squash_of_msd_commits_keeps_their_trailers(msd_run, tmp_path):
    root = project(tmp_path)
    git(root, "checkout", "-q", "-b", "feature")
    commit(root, "feat(01-01): one", {"src/app.py": "import habits\nprint(1)\n"}, PLAN_REF)
    commit(root, "feat(01-01): two", {"src/habits.py": "def create(n):\n    return n or ''\n"}, PLAN_REF)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--squash", "feature")
    git(root, "commit", "-q", "--no-edit")  # "Squashed commit of the following:" with the messages indented
    code, out = drift(msd_run, root)
    assert "outside-commit" not in kinds(out) and kinds(out) == ["stale-verification"]
    # a squash by interactive rebase: the messages one after another, each trailer in its paragraph
    git(root, "checkout", "-q", "feature")
    git(root, "reset", "-q", "--soft", "HEAD~2")
    git(root, "commit", "-q", "-m", f"feat(01-01): one\n\nMsd-Plan: {PLAN_REF}\n\nfeat(01-01): two\n\nMsd-Plan: {PLAN_REF}")
    assert "outside-commit" not in kinds(drift(msd_run, root)[1])


def test_outside_git_or_without_a_commit_is_one_line(msd_run, tmp_path):
    root = tmp_path / "q"
    (root / ".planning").mkdir(parents=True)
    for args in (["drift"], ["drift", "accept", "HEAD", "--reason", "x"]):  # no history: not a usage mistake
        r = msd_run(args, cwd=root)
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, args
    assert not (root / ".planning" / "drift-accepted.md").exists()


def test_a_commit_a_run_record_lists_is_workflow_without_a_trailer(msd_run, tmp_path):
    root = project(tmp_path)
    bare = commit(root, "feat(01-01): made before trailers existed", {"src/app.py": "import habits\nprint(2)\n"})
    assert [f["commit"] for f in drift(msd_run, root)[1]["findings"] if f["kind"] == "outside-commit"] == [bare]
    runs = root / ".planning/.msd/runs"
    runs.mkdir(parents=True)
    (runs / "01-core__01-01.json").write_text(json.dumps(
        {"plan": "01-01", "phase_dir": "01-core", "commits": [{"hash": bare, "files": ["src/app.py"]}]}))
    assert "outside-commit" not in kinds(drift(msd_run, root)[1])


def test_a_real_msd_run_commit_is_workflow(msd_run, tmp_path):
    root = project(tmp_path)
    write(root, {"src/habits.py": "def create(n):\n    return n.title()\n"})
    r = msd_run(["commit", "-m", "feat(01-01): titles", "--plan", ".planning/phases/01-core/01-01-PLAN.md",
                 "--", "src/habits.py"], cwd=root)
    assert r.returncode == 0, r.stderr
    assert kinds(drift(msd_run, root)[1]) == ["stale-verification"]


def test_a_linked_worktree_is_judged_on_its_own_head(msd_run, tmp_path):
    root = project(tmp_path)
    wt = tmp_path / "wt"
    git(root, "worktree", "add", "-q", "-b", "side", str(wt))
    fix = commit(wt, "fix: on the side branch", {"src/habits.py": "def create(n):\n    return 3\n"})
    assert drift(msd_run, root)[0] == 0  # the main checkout's HEAD has no drift
    code, out = drift(msd_run, wt)
    assert code == 1 and [f["commit"] for f in out["findings"] if f["kind"] == "outside-commit"] == [fix]


def test_a_requirement_mapped_in_requirements_md_is_judged_too(msd_run, tmp_path):
    root = project(tmp_path)
    commit(root, "docs: requirements", {
        ".planning/REQUIREMENTS.md": "# Requirements\n\n## Traceability\n\n| Requirement | Phase |\n|---|---|\n"
                                     "| STORE-01 | Phase 1 |\n",
        ".planning/phases/01-core/01-01-PLAN.md": plan(must=MUST, reqs=("HABIT-01", "HABIT-02", "STORE-01"))})
    commit(root, "chore: drop habits", {"src/habits.py": None})
    reqs = sorted(f["requirement"] for f in drift(msd_run, root)[1]["findings"] if f["kind"] == "requirement-gone")
    assert reqs == ["HABIT-01", "HABIT-02", "STORE-01"]


def test_a_shallow_clone_says_what_it_cannot_see(msd_run, tmp_path):
    root = project(tmp_path)
    commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return 4\n"})
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{root}", str(clone)], check=True, capture_output=True)
    code, out = drift(msd_run, clone)
    assert any("shallow" in n for n in out.get("notes", []))
    assert "shallow" not in " ".join(drift(msd_run, root)[1].get("notes", []))


def test_a_verification_commit_the_repository_does_not_hold_is_a_note(msd_run, tmp_path):
    root = project(tmp_path)
    verification(root, "0123456789abcdef0123456789abcdef01234567")
    code, out = drift(msd_run, root)
    assert code == 0 and any("0123456789ab is not in the repository" in n for n in out["notes"])


def test_an_acceptance_file_that_is_a_symlink_is_refused_in_one_line(msd_run, tmp_path):
    root = project(tmp_path)
    (tmp_path / "elsewhere.md").write_text("- " + "a" * 40 + " x\n")
    (root / ".planning" / "drift-accepted.md").symlink_to(tmp_path / "elsewhere.md")
    for args in (["drift"], ["drift", "accept", "HEAD", "--reason", "x"]):
        r = msd_run(args, cwd=root)
        assert r.returncode == 1 and "symlink" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert (tmp_path / "elsewhere.md").read_text() == "- " + "a" * 40 + " x\n"


def test_drift_imports_nothing_heavy(tmp_path):
    """drift and drift accept in a git repository: nothing beyond the light set (git through msd_core.lean.spawn)."""
    from tests.kit.probe import denied, probe

    root = project(tmp_path)
    block = ("must_haves:\n  truths:\n    - \"habits can be created\"\n  artifacts:\n    - path: src/habits.py\n"
             "  key_links:\n    - from: src/app.py\n      to: src/habits.py\n      pattern: \"import habits\"\n")
    commit(root, "docs: the plan in the common form", {".planning/phases/01-core/01-01-PLAN.md": plan(must=block)})
    verification(root, "0123456789abcdef0123456789abcdef01234567")  # the existence check runs too
    commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return 5\n"})
    for i, argv in enumerate((["drift"], ["drift", "--text"], ["drift", "accept", "HEAD", "--reason", "ok"])):
        res = probe(argv, root, tmp_path / f"probe-{i}.json")
        assert res["code"] == 0, res["err"]
        assert denied(res["modules"], set()) == [], argv


def test_a_hand_edited_machine_part_is_not_trusted(msd_run, tmp_path):
    root = project(tmp_path)
    fix = commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return 6\n"})
    path = root / ".planning/phases/01-core/01-VERIFICATION.md"
    text = path.read_text()
    old = text.split("tests_commit: ")[1][:40]
    commit(root, "docs: moved the verification forward by hand", {path.relative_to(root).as_posix(): text.replace(old, fix)})
    code, out = drift(msd_run, root)
    assert code == 1 and any("edited by hand" in n for n in out["notes"])
    assert kinds(out) == ["outside-commit"]  # no verification to be stale; the hotfix still needs one
