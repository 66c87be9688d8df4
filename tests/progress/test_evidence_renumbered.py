"""A plan renumbered after its commits (`msd_run phase reconcile` moves `04-billing/04-01` to
`05-billing/05-01`) keeps its evidence: the `Msd-Plan:` trailers in history name the old number, and a
clone (no run records of its own) finds them under it, only when one old name fits and git traces the PLAN
from it (moved, committed or still in the work tree): a removed phase's slug reused by a new phase lends nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


def _executed_and_cloned(tmp_path: Path, earlier: bool = False) -> Path:
    """Phase 4 Billing executed through `msd_run commit --plan` and summarised, in a clone. `earlier`: an older
    phase 3 also named billing was executed too."""
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
    return clone


def _executed_then_renumbered(tmp_path: Path, earlier: bool = False) -> Path:
    """`_executed_and_cloned`, then renumbered to 5 (as reconcile does) and committed. `earlier`: the older
    phase 3 is removed in that commit."""
    clone = _executed_and_cloned(tmp_path, earlier)
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


def _new_billing_plan(pid: str, src: str) -> str:
    """A plan written afresh for a new phase that reuses the slug: its own text, not a renumbered one."""
    return (f"---\nphase: {pid[:2]}-billing\nplan: {pid[-2:]}\nwave: 1\nfiles_modified: [{src}]\n---\n"
            "# Plan: invoices by e-mail\n\n<objective>Send each invoice as a PDF to the customer's address.</objective>\n"
            "<tasks>\n<task>Render the PDF</task>\n<task>Queue the mail</task>\n</tasks>\n")


def _removed_then_reused(tmp_path: Path) -> Path:
    """Phase 3 Billing executed through `msd_run commit --plan`, then removed; later a new phase 5 is also named
    billing and its plan, declaring the same file, is summarised by hand (no msd commit). A fresh clone."""
    root = new_repo(tmp_path / "p")
    _write(root, ".planning/PROJECT.md", "# P\n")
    _execute(root, ".planning/phases/03-billing", "03-01", "src/billing.py")
    git(root, "rm", "-rq", ".planning/phases/03-billing")
    git(root, "commit", "-q", "-m", "chore: remove phase 3 (billing moves to a later milestone)")
    _write(root, ".planning/phases/05-billing/05-01-PLAN.md", _new_billing_plan("05-01", "src/billing.py"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs: plan 05-01")
    _write(root, "src/billing.py", "B = 'by hand'\n")
    _write(root, ".planning/phases/05-billing/05-01-SUMMARY.md", "Done, says the summary.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat: 05-01 by hand")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    return clone


def test_a_removed_phases_commits_do_not_prove_a_new_phase_that_reuses_its_slug(tmp_path):
    clone = _removed_then_reused(tmp_path)
    # 03-billing/03-01 is the only old name that fits and 05-billing the only billing phase, but 03-billing was
    # removed, not moved to 05-billing: its commits are not 05-01's
    assert "no commit recorded" in _unproven(clone, "05-billing", "05-01")["reason"]


def test_a_plan_renumbered_twice_keeps_its_first_numbers_commits(tmp_path):
    clone = _executed_then_renumbered(tmp_path)
    old, new = clone / ".planning/phases/05-billing", clone / ".planning/phases/06-billing"
    git(clone, "mv", str(old), str(new))
    git(clone, "mv", str(new / "05-01-PLAN.md"), str(new / "06-01-PLAN.md"))
    git(clone, "mv", str(new / "05-01-SUMMARY.md"), str(new / "06-01-SUMMARY.md"))
    (new / "06-01-PLAN.md").write_text(_plan("06-01", "src/billing.py"))
    git(clone, "commit", "-q", "-am", "chore: reconcile phase numbers again")
    assert _unproven(clone, "06-billing", "06-01") is None


def _renumber_in_the_work_tree(clone: Path) -> Path:
    """What `msd_run phase reconcile` leaves before anyone commits: the folder and its files renamed on disk."""
    old, new = clone / OLD, clone / ".planning/phases/05-billing"
    old.rename(new)
    (new / "04-01-PLAN.md").unlink()
    (new / "05-01-PLAN.md").write_text(_plan("05-01", "src/billing.py"))
    (new / "04-01-SUMMARY.md").rename(new / "05-01-SUMMARY.md")
    return new


def test_a_renumber_not_yet_committed_keeps_the_evidence(tmp_path):
    clone = _executed_and_cloned(tmp_path)
    _renumber_in_the_work_tree(clone)
    assert _unproven(clone, "05-billing", "05-01") is None


def test_a_phase_removed_and_a_new_one_written_in_the_work_tree_borrows_nothing(tmp_path):
    root = new_repo(tmp_path / "p")
    _write(root, ".planning/PROJECT.md", "# P\n")
    _execute(root, ".planning/phases/03-billing", "03-01", "src/billing.py")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    git(clone, "rm", "-rq", ".planning/phases/03-billing")  # not committed yet
    _write(clone, ".planning/phases/05-billing/05-01-PLAN.md", _new_billing_plan("05-01", "src/billing.py"))
    _write(clone, ".planning/phases/05-billing/05-01-SUMMARY.md", "Done, says the summary.\n")
    assert "no commit recorded" in _unproven(clone, "05-billing", "05-01")["reason"]


def test_two_plans_the_work_tree_could_have_moved_leave_it_uncertain(tmp_path):
    clone = _executed_and_cloned(tmp_path)
    _write(clone, ".planning/phases/06-billing/06-01-PLAN.md", _plan("06-01", "src/billing.py"))  # never executed
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "docs: plan 06-01")
    new = _renumber_in_the_work_tree(clone)
    git(clone, "rm", "-rq", ".planning/phases/06-billing")
    # 04-billing/04-01 and 06-billing/06-01 are both gone and both read like 05-01: which became it is not certain
    assert (new / "05-01-PLAN.md").read_text() == _plan("05-01", "src/billing.py")
    assert "no commit recorded" in _unproven(clone, "05-billing", "05-01")["reason"]


def test_a_second_renumber_not_yet_committed_keeps_the_first_numbers_commits(tmp_path):
    clone = _executed_then_renumbered(tmp_path)  # 04 -> 05 committed
    old, new = clone / ".planning/phases/05-billing", clone / ".planning/phases/06-billing"
    old.rename(new)  # 05 -> 06 in the work tree only
    (new / "05-01-PLAN.md").unlink()
    (new / "06-01-PLAN.md").write_text(_plan("06-01", "src/billing.py"))
    (new / "05-01-SUMMARY.md").rename(new / "06-01-SUMMARY.md")
    assert _unproven(clone, "06-billing", "06-01") is None


@pytest.mark.parametrize("committed", [True, False])
def test_a_renumbered_plan_of_a_root_below_the_top_keeps_its_evidence(tmp_path, committed):
    top = new_repo(tmp_path / "p")
    root = top / "services/api"
    _write(root, ".planning/PROJECT.md", "# P\n")
    _execute(root, OLD, "04-01", "src/billing.py")
    _write(root, f"{OLD}/04-01-SUMMARY.md", "---\nphase: 04-billing\n---\nDone.\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs(04-01): summary")
    _renumber_in_the_work_tree(root)
    if committed:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "chore: reconcile phase numbers")
    shutil.rmtree(root / ".planning/.msd")  # a clone's view: no run records, git alone
    assert _unproven(root, "05-billing", "05-01") is None
