"""Runtime commands keep their caches in `.planning/.msd/` (which ignores itself) and never
touch the project's own files: every file outside `.planning/.msd/` is byte-identical after
a round of read-and-cache commands, and no `.gitignore` appears or changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tests.planning.test_planning_compile import INSTALLED, make_install, plan_text


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).as_posix().endswith(".planning/.msd")]
        for f in files:
            p = Path(dirpath) / f
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_cache_writing_commands_touch_only_the_private_folder(tmp_path, msd_run):
    root = tmp_path / "proj"
    ph = root / ".planning/phases/02-auth"
    ph.mkdir(parents=True)
    (root / ".planning/PROJECT.md").write_text("PROJECT-BODY\n")
    (root / ".planning/ROADMAP.md").write_text("# Roadmap\n- [ ] **Phase 2: Auth**\n")
    (ph / "02-CONTEXT.md").write_text("CONTEXT-BODY\n")
    plan = ph / "02-01-PLAN.md"
    plan.write_text(plan_text())
    (ph / "02-01-SUMMARY.md").write_text("---\nphase: 02-auth\nprovides: [login]\n---\n# S\n")
    (root / ".gitignore").write_bytes(b"node_modules/\r\n")
    inst = make_install(tmp_path / "cfg", INSTALLED)
    before = _snapshot(root)
    calls = [
        ["compile-plan", str(plan), "--root", str(inst)],
        ["history-digest", "--cwd", str(root)],
        ["memory", "index", "--cwd", str(root)],
        ["memory", "search", "login", "--cwd", str(root)],
        ["next", "--cwd", str(root)],
        ["config", "get", "mode", "--cwd", str(root)],
        ["model", "planner", "--cwd", str(root)],
        ["branch", "--cwd", str(root)],
    ]
    for args in calls:
        r = msd_run(args, cwd=root)
        assert r.returncode == 0, (args, r.stderr)
    assert _snapshot(root) == before
    private = root / ".planning/.msd"
    assert (private / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (private / "compiled/phases/02-auth/02-01-PLAN.compiled.md").is_file()
    assert (private / "digest-cache.json").is_file() and (private / "memory.sqlite").is_file()
