"""`--root .claude/msd-core` (what a local install's content names) run in a `.planning/` root below the
repository's top: the one install at the top serves it (msd_core.run.options, `--root`)."""

from __future__ import annotations

import json

from tests.kit.gitkit import git, new_repo, run_msd
from tests.kit.rootskit import root


def test_a_local_install_at_the_top_serves_a_root_in_a_subfolder(tmp_path, msd):
    top = tmp_path / "mono"
    new_repo(top)
    root(top, ".", {"1": "new"})
    api = root(top, "services/api", {"1": "new"})
    assert msd(["install", "--local"], cwd=top).returncode == 0
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "installed")
    proc = run_msd(["resolve", "execute-phase", "--root", ".claude/msd-core"], api)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["root"] == str(top / ".claude/msd-core")  # compact on lists no parts: the root says it
    proc = run_msd(["next", "--root", ".claude/msd-core"], api / ".planning")  # any folder below the top
    assert proc.returncode == 0, proc.stderr
    # a folder that exists nowhere up to the top is reported as it was named
    proc = run_msd(["resolve", "execute-phase", "--root", ".claude/nowhere", "--raw"], api)
    assert proc.returncode == 2 and "argument --root: " in proc.stderr, proc.stderr
    assert "services/api/.claude/nowhere does not exist" in proc.stderr, proc.stderr
