"""`msd_run ui detect|contract|record|show` (issue 33.4): whether a phase has a UI, its design
contract checked section by section, the UI review recorded as gaps the lifecycle routes."""

from __future__ import annotations

import json
import os
import time

import pytest

ROADMAP = """# Roadmap

- [x] Phase 1: Setup
- [ ] Phase 2: Data sync
- [ ] Phase 3: Settings screen

### Phase 2: Data sync
Goal: records reach the server
"""

SPEC = """# UI contract

## Screens
- Settings: reached from the avatar menu

## States
Loading shows a skeleton; empty shows "No settings yet"; error shows a retry banner.

## Copy
- Heading: "Settings"

## Layout
One column; the save bar sticks to the bottom.

## Visual
Reuse Button and Card; spacing token md.

## Accessibility
Every field has a label; focus starts on the first field.
"""


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".planning" / "phases" / "02-data-sync").mkdir(parents=True)
    (root / ".planning" / "PROJECT.md").write_text("# Demo\n")
    (root / ".planning" / "ROADMAP.md").write_text(ROADMAP)
    (root / "src").mkdir()
    (root / "src" / "sync.py").write_text("def sync():\n    pass\n")
    return root


def plan(root, phase_dir, files):
    folder = root / ".planning" / "phases" / phase_dir
    folder.mkdir(parents=True, exist_ok=True)
    n = phase_dir[:2]
    (folder / f"{n}-01-PLAN.md").write_text(f"---\nphase: {phase_dir}\nplan: 01\ntype: execute\nwave: 1\n"
                                            f"files_modified: [{', '.join(files)}]\n---\n<objective>x</objective>\n")
    return folder


def detect(msd_run, root, phase):
    r = msd_run(["ui", "detect", "--phase", phase], cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_back_end_phase_has_no_ui(msd_run, proj):
    plan(proj, "02-data-sync", ["src/sync.py"])
    out = detect(msd_run, proj, "2")
    assert out["ui"] is False and out["reasons"] == [] and out["files"] == []


def test_a_phase_named_for_a_screen_has_a_ui_before_it_has_a_folder(msd_run, proj):
    out = detect(msd_run, proj, "3")
    assert out["ui"] is True and "Settings screen" not in out["reasons"][0] and "screen" in out["reasons"][0]
    assert out["contract"] == ".planning/phases/03-settings-screen/03-UI-SPEC.md" and out["contract_exists"] is False


def test_planned_ui_files_make_a_ui_phase(msd_run, proj):
    plan(proj, "02-data-sync", ["src/sync.py", "web/components/SyncBadge.tsx"])
    out = detect(msd_run, proj, "2")
    assert out["ui"] is True and out["files"] == ["web/components/SyncBadge.tsx"]


def test_one_ui_word_counts_only_with_a_frontend(msd_run, proj):
    (proj / ".planning" / "ROADMAP.md").write_text(ROADMAP.replace("records reach the server", "records reach the server; a dashboard shows it"))
    assert detect(msd_run, proj, "2")["ui"] is False
    (proj / "package.json").write_text(json.dumps({"dependencies": {"react": "^18"}}))
    out = detect(msd_run, proj, "2")
    assert out["ui"] is True and out["stack"] == ["react"]


def test_a_broken_package_json_is_no_frontend_and_no_error(msd_run, proj):
    (proj / "package.json").write_text("{not json")
    assert detect(msd_run, proj, "2")["stack"] == []


def test_an_unknown_phase_is_a_usage_error(msd_run, proj):
    r = msd_run(["ui", "detect", "--phase", "9"], cwd=proj)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def contract(msd_run, root, phase="2"):
    r = msd_run(["ui", "contract", "--phase", phase], cwd=root)
    return r.returncode, json.loads(r.stdout)


def spec_file(root):
    return root / ".planning" / "phases" / "02-data-sync" / "02-UI-SPEC.md"


def test_a_complete_contract_passes(msd_run, proj):
    spec_file(proj).write_text(SPEC)
    code, out = contract(msd_run, proj)
    assert code == 0 and out["status"] == "complete" and out["missing"] == []


def test_no_contract_is_absent(msd_run, proj):
    code, out = contract(msd_run, proj)
    assert code == 1 and out["status"] == "absent" and len(out["missing"]) == 6


@pytest.mark.parametrize("edit,missing", [
    (lambda s: s.replace("## Copy\n- Heading: \"Settings\"\n", ""), "Copy: no `## Copy` section"),
    (lambda s: s.replace("Reuse Button and Card; spacing token md.", "TBD"), "Visual: empty or a placeholder"),
    (lambda s: s.replace("One column; the save bar sticks to the bottom.", "{{layout}}"), "Layout: empty or a placeholder"),
    (lambda s: s.replace("empty shows \"No settings yet\"; ", ""), "States: no empty state"),
    (lambda s: s.replace("error shows a retry banner", "a banner"), "States: no error state"),
], ids=["section gone", "TBD", "template placeholder", "no empty state", "no error state"])
def test_each_gap_in_a_contract_is_named(msd_run, proj, edit, missing):
    spec_file(proj).write_text(edit(SPEC))
    code, out = contract(msd_run, proj)
    assert code == 1 and out["status"] == "incomplete" and missing in out["missing"], out


def test_a_linked_contract_is_not_read(msd_run, proj, tmp_path):
    (tmp_path / "outside.md").write_text(SPEC)
    os.symlink(tmp_path / "outside.md", spec_file(proj))
    code, out = contract(msd_run, proj)
    assert code == 1 and out["status"] == "absent"


def finding(**over):
    f = {"id": "V1", "severity": "high", "category": "states", "file": "web/Settings.tsx", "title": "no error state",
         "what": "a failed load shows a blank page", "evidence": "the contract asks for a retry banner",
         "fix": "render the retry banner on a load error", "truth": "a failed load shows the retry banner", "status": "open"}
    f.update(over)
    return f


def test_the_ui_review_records_gaps_and_routes_back_to_itself(msd_run, proj):
    folder = plan(proj, "02-data-sync", ["web/Settings.tsx"])
    (proj / "web").mkdir()
    (proj / "web" / "Settings.tsx").write_text("export function Settings() { return null }\n")
    (folder / "02-01-SUMMARY.md").write_text("---\nphase: 02-data-sync\nplan: 01\n---\n# done\n")
    (folder / "02-VERIFICATION.md").write_text("---\nstatus: passed\n---\n")
    path = proj.parent / "ui.json"
    path.write_text(json.dumps({"findings": [finding()]}))
    r = msd_run(["ui", "record", "--phase", "2", "--findings", str(path)], cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["file"] == ".planning/phases/02-data-sync/02-UI-REVIEW.md" and out["gaps"] == ["V1"]
    nxt = json.loads(msd_run(["next", "--json"], cwd=proj).stdout)
    assert nxt["route"] == "plan-gaps" and "02-UI-REVIEW.md" in nxt["reason"]
    summary = folder / "02-01-SUMMARY.md"
    t = time.time() + 5
    os.utime(summary, (t, t))
    nxt = json.loads(msd_run(["next", "--json"], cwd=proj).stdout)
    assert nxt["route"] == "ui-review" and nxt["command"] == "/msd-ui-review 2"
    shown = json.loads(msd_run(["ui", "show", "--phase", "2"], cwd=proj).stdout)
    assert shown["gaps"] == ["V1"]


def test_a_ui_finding_with_a_security_category_fails(msd_run, proj):
    plan(proj, "02-data-sync", ["src/sync.py"])
    path = proj.parent / "ui.json"
    path.write_text(json.dumps({"findings": [finding(file="src/sync.py", category="tampering")]}))
    r = msd_run(["ui", "record", "--phase", "2", "--findings", str(path)], cwd=proj)
    assert r.returncode == 2 and "`category` must be one of contract" in r.stderr
    path.write_text(json.dumps({"findings": [finding(file="src/sync.py", id="S1")]}))
    r = msd_run(["ui", "record", "--phase", "2", "--findings", str(path)], cwd=proj)
    assert r.returncode == 2 and "`id` must be V1" in r.stderr


def test_one_ui_word_counts_when_the_project_has_ui_files(msd_run, proj):
    (proj / ".planning" / "ROADMAP.md").write_text(ROADMAP.replace("records reach the server", "a dashboard shows the sync"))
    assert detect(msd_run, proj, "2")["ui"] is False
    (proj / "web").mkdir()
    (proj / "web" / "index.html").write_text("<html></html>\n")
    assert detect(msd_run, proj, "2")["ui"] is True


def test_the_roadmap_name_counts_when_the_folder_says_otherwise(msd_run, proj):
    plan(proj, "03-prefs", ["src/prefs.py"])  # the folder's words are not the roadmap's "Settings screen"
    out = detect(msd_run, proj, "3")
    assert out["ui"] is True and out["reasons"] == ["its name says screen"]


def recorded_ui_gap(msd_run, proj):
    """A UI review recorded with one open high finding (V1): a gap."""
    plan(proj, "02-data-sync", ["web/Settings.tsx"])
    path = proj.parent / "ui.json"
    path.write_text(json.dumps({"findings": [finding()]}))
    r = msd_run(["ui", "record", "--phase", "2", "--findings", str(path)], cwd=proj)
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "gaps_found", r.stderr
    return proj / ".planning" / "phases" / "02-data-sync" / "02-UI-REVIEW.md"


def test_the_agent_cannot_accept_its_own_ui_finding(msd_run, proj):
    """`msd_run ui record --accept` (the agent's runtime) refuses, with or without findings, names the
    person's command and changes nothing: the gap stays."""
    review = recorded_ui_gap(msd_run, proj)
    before = review.read_bytes()
    path = proj.parent / "ui.json"
    for extra in ([], ["--findings", str(path)]):
        r = msd_run(["ui", "record", "--phase", "2", "--accept", "V1", "--reason", "internal only", *extra], cwd=proj)
        assert r.returncode == 2 and "the person's decision, which msd_run does not record" in r.stderr, r.stderr
        assert '`msd ui accept --phase 2 V1 --reason "<why the risk is acceptable>"`' in r.stderr
        assert "msd_run ui show --phase 2" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert review.read_bytes() == before
    assert json.loads(msd_run(["ui", "show", "--phase", "2"], cwd=proj).stdout)["status"] == "gaps_found"


def test_the_person_accepts_a_ui_finding_with_a_reason(msd, msd_run, proj):
    review = recorded_ui_gap(msd_run, proj)
    r = msd(["ui", "accept", "V1", "--phase", "2"], cwd=proj)
    assert r.returncode == 2 and "--reason" in r.stderr
    r = msd(["ui", "accept", "V9", "--phase", "2", "--reason", "x"], cwd=proj)
    assert r.returncode == 1 and "no such finding" in r.stderr
    r = msd(["ui", "accept", "V1", "--phase", "2", "--reason", "settings load from a local file in v1", "--json"], cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "passed" and out["accepted"] == ["V1"] and out["gaps"] == []
    assert "settings load from a local file in v1" in review.read_text()
    assert json.loads(msd_run(["ui", "show", "--phase", "2"], cwd=proj).stdout)["status"] == "passed"
    accepted = review.read_bytes()
    r = msd(["security", "accept", "V1", "--phase", "2", "--reason", "x"], cwd=proj)  # the UI review is not the security one
    assert r.returncode == 1 and "no security review recorded" in r.stderr and review.read_bytes() == accepted


@pytest.mark.parametrize("git_repo", [True, False])
def test_msds_own_local_install_is_no_frontend(msd_run, proj, git_repo):
    """A local install puts msd's `templates/` (and more) under `.claude/msd-core/`;
    those files are msd's (its manifest lists them), not the project's UI files."""
    import subprocess

    from msd_core.install.installer import install
    from msd_core.paths import resolve_target

    if git_repo:
        subprocess.run(["git", "init", "-q", str(proj)], check=True)
    install(resolve_target("local", project_dir=proj))
    assert any((proj / ".claude" / "msd-core" / "templates").iterdir())
    (proj / ".planning" / "ROADMAP.md").write_text(ROADMAP.replace("records reach the server", "a dashboard shows the sync"))
    assert detect(msd_run, proj, "2")["ui"] is False
    (proj / "templates").mkdir()  # the project's own templates folder still counts
    (proj / "templates" / "base.txt").write_text("x\n")
    assert detect(msd_run, proj, "2")["ui"] is True
