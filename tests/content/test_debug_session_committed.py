"""Issue 45 (seam 2): a debug session file stayed uncommitted through milestone close: /msd-debug
committed it only when closing it, so a session left open (or planned into a phase) never was.
debug.md's Step 3 now commits the session whatever the user chooses, and complete-milestone's
readiness step names the open sessions. Run here as the content names it, against the runtime."""

from __future__ import annotations

import json
import re
import shlex

from tests.kit.contentkit import spine
from tests.kit.gitkit import git, new_repo, run_msd


def _section(stem: str, heading: str) -> str:
    text = spine(stem).read_text(encoding="utf-8")
    start = text.index(f"## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _commit_line(section: str) -> str:
    found = re.findall(r"`(msd_run commit --files \.planning/debug/<slug>\.md [^`]*)`", section)
    assert found, "no commit of the session file in this section"
    return found[0]


def test_a_session_left_open_is_committed_as_the_debug_workflow_says(tmp_path):
    root = new_repo(tmp_path / "p")
    (root / ".planning").mkdir()
    (root / ".planning/PROJECT.md").write_text("# P\n")
    (root / ".planning/config.json").write_text('{"commit_docs": true}\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    r = run_msd(["debug", "start", "login cookie lost after reload"], root)
    assert r.returncode == 0, r.stderr
    session = root / json.loads(r.stdout)["file"]
    session.write_text(session.read_text() + "\n- experiment 1: the cookie path is /api/login\n")  # the debugger's notes
    slug = session.stem
    line = _commit_line(_section("debug", "Step 3"))  # "3. leave it open" ends here too
    argv = [a.replace("<slug>", slug).replace("<status>", "investigating") for a in shlex.split(line)]
    r = run_msd(argv[1:], root)
    assert r.returncode == 0, r.stderr
    assert git(root, "status", "--porcelain") == ""
    assert f".planning/debug/{slug}.md" in git(root, "ls-files", ".planning/debug")


def test_complete_milestone_names_the_open_sessions_and_their_commit():
    section = _section("complete-milestone", "Step 1")
    assert "msd_run debug list" in section
    _commit_line(section)
