"""`msd_run state patch --resume-file <path>`: the one way pause-work records its handoff.

Expected texts are written by hand from tests/fixtures/planning/state/ (line 25 of
crlf_fm.md is `Resume file: None`), never produced by the code under test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from msd_core.planning.state import apply_patch
from tests.conftest import FIXTURES

STATE_FIX = FIXTURES / "planning" / "state"
PAUSE = Path(__file__).resolve().parents[2] / "msd_core" / "content" / "msd-core" / "workflows" / "pause-work.md"


def _project(tmp_path: Path, fixture: str) -> Path:
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    shutil.copyfile(STATE_FIX / fixture, root / ".planning" / "STATE.md")
    return root


def test_resume_file_replaces_only_its_line_and_keeps_crlf(tmp_path, msd_run):
    root = _project(tmp_path, "crlf_fm.md")
    before = (root / ".planning" / "STATE.md").read_bytes()
    r = msd_run(["state", "patch", "--resume-file", ".planning/phases/02-auth/.continue-here.md"], cwd=root)
    assert r.returncode == 0, r.stderr
    after = (root / ".planning" / "STATE.md").read_bytes()
    b, a = before.split(b"\r\n"), after.split(b"\r\n")
    assert len(a) == len(b)
    assert [i for i, (x, y) in enumerate(zip(b, a)) if x != y] == [24]  # line 25, nothing else
    assert a[24] == b"Resume file: .planning/phases/02-auth/.continue-here.md"
    got = msd_run(["state", "get", "Resume file"], cwd=root)
    assert '".planning/phases/02-auth/.continue-here.md"' in got.stdout


def test_resume_file_with_set_session_in_one_call(tmp_path, msd_run):
    root = _project(tmp_path, "crlf_fm.md")
    r = msd_run(["state", "patch", "--set-session", "Paused: phase 2, plan 02-01 task 2",
                 "--resume-file", ".planning/.continue-here.md"], cwd=root)
    assert r.returncode == 0, r.stderr
    text = (root / ".planning" / "STATE.md").read_text()
    assert "Stopped at: Paused: phase 2, plan 02-01 task 2" in text
    assert "Resume file: .planning/.continue-here.md" in text
    # clearing it again on resume
    r = msd_run(["state", "patch", "--resume-file", "None"], cwd=root)
    assert r.returncode == 0
    assert (root / ".planning" / "STATE.md").read_bytes().endswith(b"\r\nResume file: None")  # last line, no EOL


def test_resume_file_missing_line_is_reported_not_invented(tmp_path, msd_run):
    root = _project(tmp_path, "bold_fields_no_fm.md")  # has no `Resume file:` line
    before = (root / ".planning" / "STATE.md").read_bytes()
    r = msd_run(["state", "patch", "--resume-file", ".planning/.continue-here.md"], cwd=root)
    assert r.returncode == 1
    assert "resume-file" in r.stderr and "Traceback" not in r.stderr
    assert (root / ".planning" / "STATE.md").read_bytes() == before


def test_resume_file_bad_values_exit_2_and_change_nothing(tmp_path, msd_run):
    root = _project(tmp_path, "crlf_fm.md")
    before = (root / ".planning" / "STATE.md").read_bytes()
    for bad in ("", "a\nb", "x\x07y", "p" * 2001):
        r = msd_run(["state", "patch", "--resume-file", bad], cwd=root)
        assert r.returncode == 2, (bad[:10], r.stderr)
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert (root / ".planning" / "STATE.md").read_bytes() == before


def test_bold_form_resume_file_keeps_markup():
    text = "## Session Continuity\n\n**Resume file:** None\n"
    new, _changed, missing = apply_patch(text, [("resume-file", "x/HANDOFF.md")])
    assert missing == [] and new == "## Session Continuity\n\n**Resume file:** x/HANDOFF.md\n"


def test_pause_work_uses_the_flag():
    text = PAUSE.read_text()
    assert "--resume-file" in text
