"""`<project>/.planning/.msd/`: msd's private per-project folder (locks, caches, traces, memory db).

Created on first use with its own `.gitignore` of `*`, so git never sees it whichever msd
command made it. A symlink or a file where the folder should be is refused: a repository
must not be able to point msd's writes somewhere else. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.paths import project_state_dir

IGNORE_BODY = b"# msd's private per-project files\n*\n"


def ensure_private_dir(project_root: Path) -> Path:
    folder = project_state_dir(Path(project_root))
    if os.path.islink(folder) or (os.path.lexists(folder) and not folder.is_dir()):
        raise OperationFailed(f"{folder} is a symlink or a file; refusing to write msd's private files through it",
                              hint="remove it; msd recreates the folder")
    ignore = folder / ".gitignore"
    if not os.path.lexists(ignore):
        try:
            from msd_core.fsutil import atomic_write_bytes

            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(ignore, IGNORE_BODY)
        except OSError:
            pass  # read-only project: callers that need to write will report it
    return folder
