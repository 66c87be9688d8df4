"""OpenCode's `apply_patch` (the tool it offers GPT models instead of edit and write) judged by msd's
write guard through its adapter (msd_core/hooks/opencode.py): each file the patch touches as the
Write of what it leaves there (msd_core/hooks/patch_edits.py; the patch reading itself is tested
with Codex's in tests/hooks/test_client_write_guard.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUNNER = Path(sys.executable).parent / "msd_run"


def _patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


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
