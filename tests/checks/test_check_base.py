"""`--base REV` rules on a throwaway git repository built in tmp: split completeness,
protected-sentinel loss, undeclared and declared boundary moves, tiers moving up, new files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from msd_core.checks import run_checks
from msd_core.errors import UsageError

WF = "msd-core/workflows/wf.md"
PART1 = "msd-core/workflows/wf/detail/01-more.md"

WHOLE = """# The wf workflow

Load the project state before doing anything else.
Ask the user which phase to work on next.
Write the plan files for the chosen phase.
Run the checker on every plan file written.
Commit the plan files by name when done.
"""


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false",
                           "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A", ".")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    """A git repo whose content tree lives in the subfolder tree/ (exercises the path prefix)."""
    r = tmp_path / "repo"
    (r / "tree").mkdir(parents=True)
    git(r, "init", "-q")
    return r


def rule_hits(root: Path, base: str, rule: str) -> set[tuple[str, int]]:
    report = run_checks(root, base=base, write=True)
    return {(v.file, v.line) for v in report.violations if v.rule == rule}


def rules(root: Path, base: str) -> set[str]:
    return {v.rule for v in run_checks(root, base=base, write=True).violations}


def test_split_that_lost_a_line_fails_completeness(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE})
    base = commit(repo, "whole workflow")
    spine = "# The wf workflow\n\nLoad the project state before doing anything else.\nAsk the user which phase to work on next.\nRead `workflows/wf/detail/01-more.md` next.\n"
    part = "# More\n\nWrite the plan files for the chosen phase.\nCommit the plan files by name when done.\n"
    write(root, {WF: spine, PART1: part})
    # "Run the checker on every plan file written." (line 6 at base) is in neither half
    assert rule_hits(root, base, "partition.completeness") == {(WF, 6)}
    assert rules(root, base) == {"partition.completeness"}


def test_complete_split_passes(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE})
    base = commit(repo, "whole workflow")
    spine = "# The wf workflow\n\nLoad the project state before doing anything else.\nAsk the user which phase to work on next.\nRead `workflows/wf/detail/01-more.md` next.\n"
    part = "# More\n\nWrite the plan files for the chosen phase.\n  Run the checker   on every plan file written.\nCommit the plan files by name when done.\n"
    write(root, {WF: spine, PART1: part})
    assert rules(root, base) == set()


PROTECTED = """# The wf workflow

<!-- msd:protected -->
Never commit secrets or credential files.
Always stage files by their names.

Load the project state before doing anything else.
"""


def test_protected_line_lost_since_base(repo):
    root = repo / "tree"
    write(root, {WF: PROTECTED})
    base = commit(repo, "protected text")
    # the second protected line is still in the spine, but no longer covered by the sentinel
    write(root, {WF: PROTECTED.replace("Never commit secrets or credential files.\nAlways stage files by their names.\n",
                                       "Never commit secrets or credential files.\n\nAlways stage files by their names.\n")})
    assert rule_hits(root, base, "partition.protected") == {(WF, 5)}


def test_protected_sentinel_deleted_since_base(repo):
    root = repo / "tree"
    write(root, {WF: PROTECTED})
    base = commit(repo, "protected text")
    write(root, {WF: "# The wf workflow\n\nLoad the project state before doing anything else.\n"})
    assert rule_hits(root, base, "partition.protected") == {(WF, 4), (WF, 5)}


def test_declared_protected_edit_passes_only_for_its_stem(repo):
    root = repo / "tree"
    write(root, {WF: PROTECTED})
    base = commit(repo, "protected text")
    write(root, {WF: "# The wf workflow\n\nLoad the project state before doing anything else.\n"})
    commit(repo, "rewrite the guardrails\n\nMsd-Protected-Edit: other\n")
    assert rule_hits(root, base, "partition.protected") == {(WF, 4), (WF, 5)}
    commit(repo, "declare it\n\nMsd-Protected-Edit: wf\n")
    assert rule_hits(root, base, "partition.protected") == set()


def test_protected_kept_passes(repo):
    root = repo / "tree"
    write(root, {WF: PROTECTED})
    base = commit(repo, "protected text")
    write(root, {WF: PROTECTED.replace("<!-- msd:protected -->", "<!-- msd:protected:start -->") .replace(
        "Always stage files by their names.\n", "Always stage files by their names.\n<!-- msd:protected:end -->\n")})
    assert rules(root, base) == set()


SPLIT_SPINE = """# The wf workflow

Load the project state before doing anything else.
Ask the user which phase to work on next.
Read `workflows/wf/detail/01-more.md` next.
"""
SPLIT_PART = "# More\n\nWrite the plan files for the chosen phase.\n"


def _moved(repo: Path, message: str) -> tuple[Path, str]:
    root = repo / "tree"
    write(root, {WF: SPLIT_SPINE, PART1: SPLIT_PART})
    base = commit(repo, "split")
    write(root, {WF: SPLIT_SPINE.replace("Ask the user which phase to work on next.\n", ""),
                 PART1: SPLIT_PART + "Ask the user which phase to work on next.\n"})
    commit(repo, message)
    return root, base


def test_undeclared_boundary_move_fails(repo):
    root, base = _moved(repo, "move a line into the part")
    assert rule_hits(root, base, "partition.boundary") == {(PART1, 4)}


def test_declared_boundary_move_passes(repo):
    root, base = _moved(repo, "move a line into the part\n\nMsd-Boundary-Move: wf\n")
    assert rules(root, base) == set()


def test_trailer_for_another_stem_does_not_count(repo):
    root, base = _moved(repo, "move a line into the part\n\nMsd-Boundary-Move: other\n")
    assert rule_hits(root, base, "partition.boundary") == {(PART1, 4)}


TIERS_BEFORE = '[workflows]\nLARGE = ["wf"]\nDEFAULT = []\n[agents]\n'


def test_tier_moved_up_fails_and_down_passes(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE, "size_tiers.toml": TIERS_BEFORE})
    base = commit(repo, "tiers")
    write(root, {"size_tiers.toml": '[workflows]\nXL = ["wf"]\n[agents]\n'})
    assert rule_hits(root, base, "size") == {("size_tiers.toml", 2)}
    write(root, {"size_tiers.toml": '[workflows]\nDEFAULT = ["wf"]\n[agents]\n'})
    assert rule_hits(root, base, "size") == set()


def test_listing_a_previously_unlisted_workflow_is_a_move_up(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE, "size_tiers.toml": "[workflows]\n[agents]\n"})
    base = commit(repo, "tiers")
    write(root, {"size_tiers.toml": '[workflows]\nDEFAULT = ["wf"]\n[agents]\n'})
    assert rule_hits(root, base, "size") == {("size_tiers.toml", 2)}


def test_file_added_since_base_gets_the_hard_cap_even_when_listed(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE, "size_tiers.toml": "[workflows]\n[agents]\n"})
    base = commit(repo, "start")
    big = "# Big\n\n" + "A long sentence that fills this new workflow up to its size.\n" * 600  # ~37 KB
    write(root, {"msd-core/workflows/big.md": big, "size_tiers.toml": '[workflows]\nDEFAULT = ["big"]\n[agents]\n'})
    assert len(big.encode()) > 32_768
    assert rule_hits(root, base, "size") == {("msd-core/workflows/big.md", 0)}
    # without --base the DEFAULT tier (<= 40,960) applies
    assert {v.rule for v in run_checks(root, write=True).violations} == set()


def test_base_that_is_not_a_revision_is_a_usage_error(repo):
    root = repo / "tree"
    write(root, {WF: WHOLE})
    commit(repo, "start")
    with pytest.raises(UsageError):
        run_checks(root, base="no-such-rev")
    with pytest.raises(UsageError):
        run_checks(root, base="--output=/tmp/x")


def test_base_outside_git_is_a_usage_error(tmp_path):
    write(tmp_path / "tree", {WF: WHOLE})
    with pytest.raises(UsageError):
        run_checks(tmp_path / "tree", base="HEAD")


def test_bad_base_exits_2_with_one_line(repo, msd):
    root = repo / "tree"
    write(root, {WF: WHOLE})
    commit(repo, "start")
    r = msd(["check", "content", "--root", str(root), "--base", "nope"])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "nope" in r.stderr and "Traceback" not in r.stderr
