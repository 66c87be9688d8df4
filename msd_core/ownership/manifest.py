"""The install manifest: the single record of what msd owns in a config folder.

<config>/msd-core/manifest.json
  {"manifest_version": 1, "package": "msd-core", "version": "0.1.0",
   "scope": "global" | "local", "target": "/abs/config", "runtime": "claude",
   "files": {relpath-under-config: sha256-of-installed-bytes},
   "created_dirs": [relpath, ...],          # folders msd created (removed when empty)
   "registry": {...},                        # see msd_core.shipped.registry
   "settings_permission": "Bash(msd_run *)" | null,
   "profile": "full" | "core"}                # the install profile (msd_core/shipped/profiles.py);
                                             # absent in a manifest older than profiles: full

Reading is standard library only (the resolver reads this on msd_run's hot path).
Every path taken from a manifest is checked to stay inside the config folder, and no
symlink on the way is followed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath

from msd_core.errors import IntegrityError, NotInstalledError
from msd_core.files.atomic import atomic_write_bytes, sha256_bytes
from msd_core.files.bounded import BoundedInputError, loads_json
from msd_core.files.safe_tree import valid_relpath
from msd_core.paths import MANIFEST_NAME, install_root

MANIFEST_VERSION = 1
REBUILD_HINT = ("run `msd install --repair` (with --global or --local) to rebuild it from its bookkeeping copy; "
                "edited files are backed up first")


class Manifest:
    """The parsed manifest (hand-written rather than a dataclass: importing dataclasses pulls
    in `inspect`, several ms on msd_run's hot path). Same constructor, equality and repr."""

    _FIELDS = ("version", "scope", "target", "files", "registry", "created_dirs", "runtime",
               "settings_permission", "profile", "extra")

    def __init__(self, version: str, scope: str, target: str, files: dict[str, str] | None = None,
                 registry: dict | None = None, created_dirs: list[str] | None = None, runtime: str = "claude",
                 settings_permission: str | None = None, extra: dict | None = None, profile: str = "full"):
        self.version = version
        self.scope = scope
        self.target = target
        self.files: dict[str, str] = {} if files is None else files
        self.registry: dict = {} if registry is None else registry
        self.created_dirs: list[str] = [] if created_dirs is None else created_dirs
        self.runtime = runtime
        self.settings_permission = settings_permission
        self.profile = profile
        self.extra: dict = {} if extra is None else extra

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS)
        return f"Manifest({inner})"

    def to_json(self) -> dict:
        out = {
            "manifest_version": MANIFEST_VERSION,
            "package": "msd-core",
            "version": self.version,
            "scope": self.scope,
            "target": self.target,
            "runtime": self.runtime,
            "files": dict(sorted(self.files.items())),
            "created_dirs": sorted(set(self.created_dirs)),
            "registry": self.registry,
            "settings_permission": self.settings_permission,
            "profile": self.profile,
        }
        out.update(self.extra)
        return out

    def dumps(self) -> bytes:
        return (json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def save(self, config: Path) -> None:
        atomic_write_bytes(install_root(Path(config)) / MANIFEST_NAME, self.dumps())


def parse_manifest(data: bytes, where: str = MANIFEST_NAME) -> Manifest:
    """Parse and validate manifest bytes; IntegrityError (exit 3) with a clear message if corrupt."""
    try:
        raw = loads_json(data, f"install manifest {where}")
    except BoundedInputError as exc:
        raise IntegrityError(exc.message, hint=REBUILD_HINT) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IntegrityError(f"install manifest {where} is corrupt ({exc})", hint=REBUILD_HINT) from None
    if not isinstance(raw, dict):
        raise IntegrityError(f"install manifest {where} is not a JSON object", hint=REBUILD_HINT)
    files = raw.get("files")
    if not isinstance(files, dict) or not all(
        valid_relpath(k) and isinstance(v, str) and len(v) == 64 for k, v in files.items()
    ):
        raise IntegrityError(f"install manifest {where} has an invalid 'files' table", hint=REBUILD_HINT)
    registry = raw.get("registry", {})
    if not isinstance(registry, dict):
        raise IntegrityError(f"install manifest {where} has an invalid 'registry'", hint=REBUILD_HINT)
    created = raw.get("created_dirs", [])
    if not isinstance(created, list) or not all(valid_relpath(d) for d in created):
        raise IntegrityError(f"install manifest {where} has an invalid 'created_dirs' list", hint=REBUILD_HINT)
    known = {"manifest_version", "package", "version", "scope", "target", "runtime", "files",
             "created_dirs", "registry", "settings_permission", "profile"}
    return Manifest(
        version=str(raw.get("version", "")),
        scope=str(raw.get("scope", "")),
        target=str(raw.get("target", "")),
        files=dict(files),
        registry=registry,
        created_dirs=list(created),
        runtime=str(raw.get("runtime", "claude")),
        settings_permission=raw.get("settings_permission") if isinstance(raw.get("settings_permission"), str) else None,
        profile=raw["profile"] if isinstance(raw.get("profile"), str) and raw["profile"] else "full",
        extra={k: v for k, v in raw.items() if k not in known},
    )


def load_manifest(config: Path) -> Manifest:
    """Load <config>/msd-core/manifest.json. NotInstalledError if absent, IntegrityError if corrupt."""
    path = install_root(Path(config)) / MANIFEST_NAME
    try:
        data = _read_regular(path)
    except FileNotFoundError:
        raise NotInstalledError(f"no msd-core install at {Path(config)}") from None
    except _NotRegular as exc:
        raise IntegrityError(f"install manifest {path} {exc}") from None
    return parse_manifest(data, str(path))


class _NotRegular(Exception):
    pass


def _read_regular(path: Path) -> bytes:
    """Read a regular file without following a symlink and without blocking on a FIFO or device."""
    import errno

    from msd_core.files.safe_read import NotRegularFile, read_regular

    try:
        return read_regular(path, follow_symlinks=False)
    except FileNotFoundError:
        raise
    except NotRegularFile as exc:
        if exc.errno == errno.ELOOP:
            raise _NotRegular("is a symlink; refusing to follow it") from None
        if exc.errno == errno.EISDIR:
            raise _NotRegular("is not a file") from None
        raise _NotRegular(f"is not a regular file ({exc.strerror.split(',')[0]})") from None
    except OSError as exc:
        raise _NotRegular(f"cannot be read ({exc.strerror})") from None


def safe_path(config: Path, relpath: str) -> Path:
    """The absolute path of `relpath` under `config`, refusing escapes and symlinked components."""
    if not valid_relpath(relpath):
        raise IntegrityError(f"refusing unsafe path {relpath!r} from the manifest")
    base = Path(config)
    current = base
    for part in PurePosixPath(relpath).parts:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return base.joinpath(*PurePosixPath(relpath).parts)
        if stat.S_ISLNK(st.st_mode):
            raise IntegrityError(f"{current} is a symlink; refusing to follow it")
    return current


def read_verified(config: Path, manifest: Manifest, relpath: str) -> bytes:
    """Read an installed file and check its hash against the manifest (IntegrityError otherwise)."""
    expected = manifest.files.get(relpath)
    if expected is None:
        raise IntegrityError(f"{relpath} is not recorded in the install manifest")
    path = safe_path(config, relpath)
    try:
        data = _read_regular(path)
    except FileNotFoundError:
        raise IntegrityError(f"installed file {path} is missing") from None
    except _NotRegular as exc:
        raise IntegrityError(f"installed file {path} {exc}") from None
    if sha256_bytes(data) != expected:
        raise IntegrityError(f"installed file {path} was modified (hash mismatch)")
    return data
