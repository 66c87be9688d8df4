"""A plan renumbered after its commits (`msd_run phase reconcile` moves `04-billing/04-01` to
`05-billing/05-01`) keeps its evidence: the `Msd-Plan:` trailers in history name the old number, and a
clone (no run records of its own) finds them under it, only when one old name fits."""

from __future__ import annotations

from pathlib import Path

from msd_core.progress.evidence import Reading
from tests.kit.gitkit import git, new_repo, run_msd

OLD = ".planning/phases/04-billing"


def _plan(pid: str, src: str) -> str:
    return f"---\nphase: {pid[:2]}-billing\nplan: {pid[-2:]}\nwave: 1\nfiles_modified: [{src}]\n---\n# Plan\n"


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _execute(root: Path, folder: str, pid: str, src: str) -> None:
    _write(root, f"{folder}/{pid}-PLAN.md", _plan(pid, src))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"plan {pid}")
    _write(root, src, f"B = {pid!r}\n")
    r = run_msd(["commit", "--plan", f"{folder}/{pid}-PLAN.md", "-m", f"feat({pid}): billing", "--", src], root)
    assert r.returncode == 0, r.stderr


def _executed_then_renumbered(tmp_path: Path, earlier: bool = False) -> Path:
    """Phase 4 Billing executed through `msd_run commit --plan`, then renumbered to 5 (as reconcile does), in a
    clone. `earlier`: an older phase 3 also named billing was executed too, then removed."""
    root = new_repo(tmp_path / "p")
    _write(root, ".planning/PROJECT.md", "# P\n")
    if earlier:
        _execute(root, ".planning/phases/03-billing", "03-01", "src/billing.py")
    _execute(root, OLD, "04-01", "src/billing.py")
    _write(root, f"{OLD}/04-01-SUMMARY.md", "---\nphase: 04-billing\n---\nDone.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs(04-01): summary")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    for key, value in (("user.email", "mate@example.com"), ("user.name", "mate"), ("commit.gpgsign", "false")):
        git(clone, "config", key, value)
    if earlier:
        git(clone, "rm", "-rq", ".planning/phases/03-billing")
    git(clone, "mv", OLD, ".planning/phases/05-billing")
    new = clone / ".planning/phases/05-billing"
    git(clone, "mv", str(new / "04-01-PLAN.md"), str(new / "05-01-PLAN.md"))
    git(clone, "mv", str(new / "04-01-SUMMARY.md"), str(new / "05-01-SUMMARY.md"))
    (new / "05-01-PLAN.md").write_text(_plan("05-01", "src/billing.py"))
    git(clone, "commit", "-q", "-am", "chore: reconcile phase numbers")
    assert not (clone / ".planning/.msd/runs").exists()  # the clone proves it from git alone
    return clone


def _unproven(root: Path, folder: str, pid: str) -> dict | None:
    phase = root / ".planning/phases" / folder
    return Reading(root).unproven(phase, pid, (phase / f"{pid}-PLAN.md").read_text())


def test_a_renumbered_plan_is_proven_by_the_commits_of_its_old_number(tmp_path):
    clone = _executed_then_renumbered(tmp_path)
    assert _unproven(clone, "05-billing", "05-01") is None


def test_another_phase_of_the_same_slug_borrows_nothing(tmp_path):
    clone = _executed_then_renumbered(tmp_path)
    _write(clone, ".planning/phases/06-billing/06-01-PLAN.md", _plan("06-01", "src/billing.py"))
    _write(clone, ".planning/phases/06-billing/06-01-SUMMARY.md", "Done.\n")
    # two phases named billing: which one the old commits were for is not certain, so neither is proven by them
    assert "no commit recorded" in _unproven(clone, "05-billing", "05-01")["reason"]
    assert "no commit recorded" in _unproven(clone, "06-billing", "06-01")["reason"]



def test_two_old_names_that_fit_prove_nothing(tmp_path):
    clone = _executed_then_renumbered(tmp_path, earlier=True)
    # 03-billing/03-01 and 04-billing/04-01 both fit 05-billing/05-01: which is its own is not certain
    assert "no commit recorded" in _unproven(clone, "05-billing", "05-01")["reason"]
