"""Which project a planning command works on, and safe reads of its files.

`project_root(cwd)`: the folder given (default: the current directory) must exist; the project is
the one the project rule names (paths.find_project_root: the nearest `.planning/` at or above
it, never above the git work tree's top; docs/CONTRACTS.md, "Which project").
No project → OperationFailed (exit 1). A folder that is not there → UsageError (exit 2,
paths.named_folder; msd_run's parser refuses it first, naming the flag).

Standard library only.
"""

from __future__ import annotations

import sys
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.paths import find_project_root, named_folder, planning_dir

MAX_STATE_BYTES = 4 * 1024 * 1024


def project_root(cwd: str | None) -> Path:
    base = Path(named_folder(cwd)).expanduser().absolute() if cwd else Path.cwd()
    root = find_project_root(base)
    if root is None:
        raise OperationFailed(f"no .planning/ folder at or above {base}",
                              hint="run it inside a project, or point it at a folder inside one")
    return root


def plan_and_root(plan: str, root: str | None, cwd: str | None) -> tuple[Path, Path, Path]:
    """(base folder, absolute plan path, absolute install root) from a command's arguments.

    Relative paths are taken from `cwd` (default: the current directory); the install
    root defaults to the global install (paths.default_resolve_root).
    """
    from msd_core.paths import default_resolve_root

    base = Path(named_folder(cwd)).expanduser().absolute() if cwd else Path.cwd()
    plan_path = Path(plan).expanduser()
    plan_path = plan_path if plan_path.is_absolute() else base / plan_path
    install = Path(root).expanduser() if root else default_resolve_root()
    install = install if install.is_absolute() else base / install
    return base, plan_path, install


def state_file(root: Path) -> Path:
    return planning_dir(root) / "STATE.md"


def state_lock(root: Path) -> Path:
    return private_dir(root) / "state.lock"


def read_text_file(path: Path, what: str, max_bytes: int = MAX_STATE_BYTES, *, error: type = OperationFailed,
                   follow_symlinks: bool = False, strict_utf8: bool = True) -> tuple[bytes, str]:
    """(raw bytes, text) of a file the user points a command at; one clear line otherwise.

    Refused, with `error` (default OperationFailed, exit 1): a missing file, a folder, a
    FIFO or device (it would block), a file over `max_bytes`, a symlink unless
    `follow_symlinks`, and text that is not UTF-8 when `strict_utf8`.
    """
    import errno

    from msd_core.files.safe_read import FileTooLarge, NotRegularFile, read_regular

    try:
        raw = read_regular(path, max_bytes, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        raise error(f"no {what} at {path}") from None
    except FileTooLarge:
        raise error(f"{what} {path} is larger than {max_bytes} bytes; not read") from None
    except NotRegularFile as exc:
        if exc.errno == errno.ELOOP:
            raise error(f"{what} {path} is a symlink; refusing to follow it") from None
        if exc.errno == errno.EISDIR:
            raise error(f"{what} {path} is a folder, not a file") from None
        raise error(f"{what} {path} is not a regular file ({exc.strerror.split(',')[0]})") from None
    except OSError as exc:
        from msd_core.errors import os_cause

        raise error(f"cannot read {what} {path} ({os_cause(exc)})") from None
    if not strict_utf8:
        return raw, raw.decode("utf-8", errors="replace")
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte {exc.start}); not changed") from None


def warn(message: str) -> None:
    sys.stderr.write(" ".join(message.split()) + "\n")


def private_dir(root: Path) -> Path:
    """`.planning/.msd/`, created on first use (see msd_core.files.private_dir)."""
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(root)
