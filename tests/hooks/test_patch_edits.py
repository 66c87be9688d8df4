"""An `apply_patch` patch read as the whole-file writes it makes (msd_core/hooks/patch_edits.py), and
msd's write guard judging those writes for OpenCode (msd_core/hooks/opencode.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from msd_core.hooks.patch_edits import writes

RUNNER = Path(sys.executable).parent / "msd_run"


def _patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


def test_an_added_file_is_its_plus_lines(tmp_path):
    patch = _patch("*** Add File: new.md", "+# New", "+", "+text")
    assert writes(patch, str(tmp_path)) == [(str(tmp_path / "new.md"), "# New\n\ntext")]


def test_an_updated_file_is_its_text_with_each_chunk_applied_in_order(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\ntwo\nfive\n")
    patch = _patch("*** Update File: a.txt", "@@ three", " two", "-five", "+FIVE", "@@", "+six")
    assert writes(patch, str(tmp_path)) == [(str(tmp_path / "a.txt"), "one\ntwo\nthree\ntwo\nFIVE\nsix\n")]
    patch = _patch("*** Update File: a.txt", "@@", "-one", "+ONE", "@@", " three", "-two", "+TWO")
    assert writes(patch, str(tmp_path)) == [(str(tmp_path / "a.txt"), "ONE\ntwo\nthree\nTWO\nfive\n")]


def test_what_cannot_be_worked_out_exactly_is_left_out(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    assert writes(_patch("*** Update File: a.txt", "@@", "-absent", "+x"), str(tmp_path)) == []
    assert writes(_patch("*** Update File: missing.txt", "@@", "-one", "+x"), str(tmp_path)) == []
    assert writes(_patch("*** Delete File: a.txt"), str(tmp_path)) == []
    assert writes(_patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+x"), str(tmp_path)) == []
    assert writes("not a patch", str(tmp_path)) == [] and writes(None, None) == []


def test_several_files_in_one_patch(tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    patch = _patch("*** Add File: /abs/b.txt", "+b", "*** Update File: a.txt", "@@", "-a", "+A", "*** End of File")
    assert writes(patch, str(tmp_path)) == [("/abs/b.txt", "b"), (str(tmp_path / "a.txt"), "A\n")]


def _hook(payload: dict, cwd: Path) -> str:
    proc = subprocess.run([str(RUNNER), "hook", "opencode-pre-tool-use"], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_opencodes_apply_patch_gets_the_planning_write_guard(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".planning").mkdir()
    config = tmp_path / ".planning/config.json"
    config.write_text('{\n  "workflow": {"compact_content": false}\n}\n')
    off = _patch("*** Update File: .planning/config.json", "@@", "-{", '+{"guards": {"secret_read": false},')
    answer = json.loads(_hook({"tool": "apply_patch", "args": {"patchText": off}, "cwd": str(tmp_path)}, tmp_path))
    assert answer["decision"] == "deny" and "of .planning/config.json refused: it changes the `guards` settings" in answer["reason"]
    both = _patch("*** Add File: notes.txt", "+fine", "*** Add File: .planning/config.json", '+{"guards": {"planning_write": false}}')
    assert json.loads(_hook({"tool": "apply_patch", "args": {"patchText": both}, "cwd": str(tmp_path)}, tmp_path))["decision"] == "deny"
    fine = _patch("*** Update File: .planning/config.json", "@@", '-  "workflow": {"compact_content": false}',
                  '+  "workflow": {"compact_content": true}')
    assert _hook({"tool": "apply_patch", "args": {"patchText": fine}, "cwd": str(tmp_path)}, tmp_path) == ""
