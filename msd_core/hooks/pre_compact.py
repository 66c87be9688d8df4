"""PreCompact: the workflow's checkpoint, written before the host compacts the conversation.

`.planning/.msd/checkpoint.json`: the position (position.py: workflow, step, visit, action, phase,
phase folder, plan, wave, last step and result, open question, the next command), the session,
the trigger (manual or auto) and the time. The SessionStart hook that follows the compaction
reads the live state again (it is the record msd trusts); the checkpoint is what a person or
`msd status` can read of where the session was when its context was cut. No workflow in
progress: nothing is written and an older checkpoint is removed. Prints nothing.
"""

from __future__ import annotations

import json
import os
import time

NAME = "checkpoint.json"


def handle(payload: dict, ctx) -> None:
    from msd_core import paths
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.hooks.payload import project_root
    from msd_core.hooks.position import position

    root = project_root(payload)
    if root is None:
        return None
    target = paths.project_state_dir(root) / NAME
    pos = position(root, ctx.install_root)
    if pos is None:
        if os.path.lexists(target):
            os.unlink(target)
        return None
    doc = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "session_id": payload.get("session_id"),
           "trigger": payload.get("trigger"), **pos}
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(target, (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8"), anchor=root)
    return None
