"""Finishing an interrupted phase change before anything reads the project.

Phase surgery (msd_core.planning.phase_ops) changes ROADMAP.md, REQUIREMENTS.md, STATE.md and
the phase folders in one transaction, which also writes `.planning/.msd/state-due`; STATE.md's
derived lines are re-derived right after (state_sync) and the record removed. A process killed
inside the transaction leaves its journal; one killed between the transaction and the
re-derivation leaves the record, and STATE.md naming phases by their old numbers.

`settle(root)` is what every msd_run call runs first when something is pending
(msd_core.run.dispatch checks that with two lstat calls, without importing this module): under the state lock it rolls back or finishes the transaction, then re-derives
STATE.md while the record is there and removes it. When STATE.md cannot be re-derived it
refuses (OperationFailed, one line): no command answers from a STATE.md that names a phase
that is gone.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.paths import PLANNING_DIRNAME, PROJECT_STATE_DIRNAME, STATE_DUE_NAME, TXN_DIRNAME


def pending(root: Path) -> bool:
    planning = os.path.join(root, PLANNING_DIRNAME)
    return (os.path.lexists(os.path.join(planning, TXN_DIRNAME))
            or os.path.lexists(os.path.join(planning, PROJECT_STATE_DIRNAME, STATE_DUE_NAME)))


def settle(root: Path) -> str | None:
    """Finish an interrupted phase change (see the module doc); what was done, or None."""
    if not pending(root):
        return None
    from msd_core.errors import MsdError, OperationFailed
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.planning import phase_ops, project
    from msd_core.progress.state_sync import sync

    root = Path(root)
    with locked(project.state_lock(root), lock_timeout_from_env(), what="the phase list"):
        done = phase_ops.recover(root)
        record = phase_ops.state_due(root)
        if record is None:
            return done
        if not project.state_file(root).is_file():  # nothing to re-derive
            phase_ops.clear_state_due(root, record)
            return done
        try:
            sync(root, warnings=False, lock_held=True)
        except MsdError as exc:
            raise OperationFailed(f"STATE.md is out of date after an interrupted phase change and cannot be "
                                  f"re-derived: {exc.message}",
                                  hint="fix that, then run `msd_run state sync`") from None
        phase_ops.clear_state_due(root, record)
    return f"{done or 'finished an interrupted phase change'}; STATE.md re-derived"
