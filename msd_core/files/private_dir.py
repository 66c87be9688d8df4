"""`<project>/.planning/.msd/`: msd's private per-project folder (locks, caches, traces, memory db).

Created on first use with its own `.gitignore` of `*`, so git never sees it whichever msd
command made it; made by a command that then refuses, it is taken back (msd_core.files.fresh). A symlink or a file where the folder should be is refused: a repository
must not be able to point msd's writes somewhere else. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.paths import project_state_dir

IGNORE_BODY = b"# msd's private per-project files\n*\n"


def ensure_private_dir(project_root: Path) -> Path:
    root = Path(project_root)
    folder = project_state_dir(root)
    from msd_core.files.atomic import SymlinkRefused, atomic_write_bytes, ensure_dir

    made = [f for f in (folder.parent, folder) if not os.path.lexists(f)]
    try:
        ensure_dir(folder, anchor=root)  # no symlink below the project root is followed
    except SymlinkRefused as exc:
        raise OperationFailed(f"cannot write msd's private folder {folder}: {exc.filename} {exc.strerror}",
                              hint="replace it with a real folder") from None
    except OSError:
        return folder  # read-only project: callers that need to write will report it
    if made:
        from msd_core.files import fresh

        for f in made:
            fresh.note(f)  # taken back if this command refuses (files.fresh)
    ignore = folder / ".gitignore"
    if not os.path.lexists(ignore):
        try:
            atomic_write_bytes(ignore, IGNORE_BODY, anchor=root)
        except OSError:
            pass
    return folder
