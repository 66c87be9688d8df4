"""Issue 45 (seam 4): the milestone's version is written where it is read. The roadmap template
writes `## Milestone v1.0: <name>`; audit-milestone and complete-milestone read the version of
that heading, new-milestone's roadmapper writes it, and `msd_run branch` (milestone strategy)
finds it in a roadmap made from the template. Before, audit-milestone read "the version in
STATE.md or ROADMAP.md's heading" and no template wrote one there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"
WORKFLOWS = CONTENT / "msd-core" / "workflows"
HEADING = "`## Milestone <version>: <name>`"


def _template() -> str:
    return (CONTENT / "msd-core" / "templates" / "roadmap.md").read_text(encoding="utf-8")


def test_the_roadmap_template_writes_the_version_heading():
    lines = [line for line in _template().splitlines() if line.startswith("## Milestone ")]
    assert len(lines) == 1 and re.fullmatch(r"## Milestone v1\.0: \{\{milestone_name\}\}", lines[0]), lines


@pytest.mark.parametrize("stem", ["audit-milestone", "complete-milestone", "new-milestone"])
def test_the_milestone_workflows_name_the_heading_the_template_writes(stem):
    text = " ".join((WORKFLOWS / f"{stem}.md").read_text(encoding="utf-8").split())
    assert HEADING in text
    shape = HEADING.strip("`").replace("<version>", "v1.0").replace("<name>", "{{milestone_name}}")
    assert shape in _template()


def test_no_milestone_workflow_reads_a_version_from_state():
    text = " ".join((WORKFLOWS / "audit-milestone.md").read_text(encoding="utf-8").split())
    assert "version in STATE.md" not in text


def test_msd_run_branch_finds_the_version_in_a_roadmap_made_from_the_template(msd_run, tmp_path):
    import subprocess

    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".planning" / "ROADMAP.md").write_text(re.sub(r"\{\{[^}]*\}\}", "Habits", _template()))
    (root / ".planning" / "config.json").write_text('{"git": {"branching_strategy": "milestone"}}\n')
    r = msd_run(["branch"], cwd=root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["for"] == "milestone v1.0"
