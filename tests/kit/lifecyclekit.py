"""A git repository holding an msd project, with commits recorded the way `msd_run commit` records them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.gitkit import git, new_repo
from tests.kit.gitkit import run_msd as msd_run  # noqa: F401 (the lifecycle tests import it from here)

ROADMAP = """# Roadmap

## Phases

- [x] **Phase 1: Foundation** - scaffold
- [ ] **Phase 2: Auth** - login

## Phase Details

### Phase 2: Auth
**Goal**: A user can log in with email and password
**Requirements**: AUTH-01
"""

STATE = """# Project State

## Current Position
Phase: 2 of 2 (Auth)
Plan: 1 of 2 in current phase
Status: In progress
Last activity: 2026-11-30 (started)

Progress: [----------] 0%

## Session Continuity
Last session: 2026-11-30 14:00
Stopped at: None
Resume file: None
"""


def project(root: Path, plans=("02-01", "02-02")) -> Path:
    """A committed project: phase 02-auth with PLAN files, src/ files, STATE and ROADMAP."""
    new_repo(root)
    files = {".planning/PROJECT.md": "# P\n", ".planning/ROADMAP.md": ROADMAP, ".planning/STATE.md": STATE,
             ".planning/config.json": "{}\n", "src/a.py": "A = 1\n", "src/b.py": "B = 1\n", "src/c.py": "C = 1\n",
             ".planning/phases/01-foundation/01-01-PLAN.md": "p\n",
             ".planning/phases/01-foundation/01-01-SUMMARY.md": "---\nphase: 01\n---\nScaffold.\n"}
    for pid in plans:
        files[f".planning/phases/02-auth/{pid}-PLAN.md"] = (
            f"---\nphase: 02-auth\nplan: {pid[-2:]}\nrequirements: [AUTH-01]\nfiles_modified: [src/a.py]\n---\nplan\n")
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def commit(root: Path, files: dict[str, str], message: str, plan: str | None = None, task: int | None = None) -> str:
    """Write files and commit them; with `plan`, record the commit as msd_run commit does."""
    from msd_core.execution import run_record

    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git(root, "add", "--", *files)
    mark = ["--trailer", f"Msd-Plan: 02-auth/{plan}"] if plan else []  # what msd_run commit writes (provenance)
    git(root, "commit", "-q", "-m", message, *mark, "--", *files)
    h = head(root)
    if plan:
        run_record.append_commit(root, "02-auth", plan, f".planning/phases/02-auth/{plan}-PLAN.md",
                                 {"hash": h, "files": sorted(files), "message": message, "task": task,
                                  "branch": "main", "worktree": False})
    return h


def tree_state(root: Path) -> tuple[str, str, str]:
    """HEAD, the index and the working tree's tracked changes: equal before and after a refusal."""
    return head(root), git(root, "ls-files", "-s"), git(root, "status", "--porcelain", "--untracked-files=no")


def as_json(proc) -> dict:
    return json.loads(proc.stdout)
