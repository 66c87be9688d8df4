"""A healthy msd project the health tests break one way each (no tests here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROADMAP = """# Roadmap

## Phases

- [x] **Phase 1: Foundation** - scaffold
- [ ] **Phase 2: Auth** - login
- [ ] **Phase 3: Billing** - pay

## Phase Details

### Phase 2: Auth
**Goal**: A user can log in
"""

STATE = """# Demo: where the work stands

## Position
Focus: Phase 2 (Auth)
Phase: 2 of 3 (Auth)
Plan: Not planned yet
Status: Ready to discuss
Last change: 2026-11-30 (roadmap updated)
Progress: [----------] 0%

## Decisions
None yet.

## Blockers
None yet.

## Session
Last worked: 2026-11-30 14:00
Left off: scaffold
Handoff: None
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.fixture()
def healthy(tmp_path) -> Path:
    """Phase 1 executed (plan + summary), phase 2 and 3 folders empty, STATE re-derived by msd."""
    from msd_core.progress.state_sync import sync

    root = tmp_path / "proj"
    write(root, {".planning/PROJECT.md": "# Demo\n", ".planning/ROADMAP.md": ROADMAP, ".planning/STATE.md": STATE,
                 ".planning/config.json": json.dumps({"workflow": {"verifier": False}}) + "\n",
                 ".planning/phases/01-foundation/01-01-PLAN.md": "---\nphase: 01-foundation\nplan: 01\n---\nplan\n",
                 ".planning/phases/01-foundation/01-01-SUMMARY.md": "---\nphase: 01-foundation\nplan: 01\n---\ndone\n",
                 ".planning/phases/02-auth/.keep": "", ".planning/phases/03-billing/.keep": ""})
    sync(root, warnings=False)
    return root
