"""`msd status --verify`: every installed file against the wheel it came from, not only the manifest.

The manifest's hashes are the install's own record, and a hand that edits a file can edit the
manifest too. --verify starts from the wheel instead, in two steps, the chain a release's
attestation begins (RELEASING.md: checking a release):

 1. The package against its wheel (`package()`): every file of `msd_core/content/` in the
    installed distribution (importlib.metadata.distribution("msd-core")) is hashed and compared
    with its line in the distribution's RECORD, the sha256 and size the wheel was built with.
    `differs`: a content file whose bytes are not RECORD's; `unlisted`: a content file RECORD
    does not name (a file added after the install); `absent`: one RECORD names that is gone.
 2. Each install against the verified package (`install()`): installed files are transformed
    package files (runtimes rewrite commands into skills and `~/.claude/` into the install's
    folder), so the installer's own transform (install/transform.installed_files) of the
    verified content, for the install's folder, runtime, profile and recorded version, gives
    the bytes each installed file must have. Every file the manifest lists is compared byte for
    byte with them, never with the manifest's hash. `differs`: installed bytes that are not the
    transform of their source (your edit or tampering; the check cannot tell which, `msd status`
    without --verify shows your edits against the manifest); `missing`; `from_changed_source`:
    an installed file whose package source failed step 1 (it cannot be verified); `not_shipped`:
    a file the manifest lists that this wheel does not produce. A conflict's `<file>.msd-new` is
    compared with the new version of `<file>`.
Not compared: msd's private bookkeeping (msd-core/.msd/) and the entries msd adds to the host's
settings files (settings.json, settings.local.json), which are yours: `msd status` reports them.
Cannot verify (one line, `unverifiable`): an editable install or a source checkout (RECORD
names no content file), no RECORD, an install made by another msd-core version than this
package (it came from another wheel).
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from msd_core import __version__
from msd_core.install.plan import NEW_SUFFIX

DIST_NAME = "msd-core"
CONTENT_PREFIX = "msd_core/content/"


def _record_hash(data: bytes) -> str:
    """A RECORD hash value: urlsafe base64 of the sha256, no padding (PEP 376/427)."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


class PackageCheck:
    """Step 1's result: the verified content files (source relpath -> bytes) and what failed."""

    def __init__(self):
        self.verified: dict[str, bytes] = {}
        self.differs: list[str] = []
        self.unlisted: list[str] = []
        self.absent: list[str] = []
        self.unverifiable: str | None = None
        self.version: str | None = None
        self.record: str | None = None

    @property
    def failed(self) -> set[str]:
        return {*self.differs, *self.unlisted, *self.absent}

    def to_json(self) -> dict:
        out = {"distribution": DIST_NAME, "version": self.version, "record": self.record}
        if self.unverifiable:
            out["unverifiable"] = self.unverifiable
            return out
        out.update(files=len(self.verified), differs=self.differs, unlisted=self.unlisted, absent=self.absent,
                   ok=not (self.differs or self.unlisted or self.absent))
        return out


def _distribution():
    import importlib.metadata as md

    try:
        return md.distribution(DIST_NAME)
    except md.PackageNotFoundError:
        return None


def package(dist=None, content_root: Path | None = None) -> PackageCheck:
    """Step 1 for distribution `dist` (default: the installed msd-core) whose content folder is
    `content_root` (default: the one this msd_core runs from)."""
    from msd_core.install.source import _skip

    out = PackageCheck()
    dist = dist if dist is not None else _distribution()
    if dist is None:
        out.unverifiable = f"no installed distribution named {DIST_NAME} (running from a source checkout?)"
        return out
    out.version = dist.version
    files = dist.files
    if files is None:
        out.unverifiable = f"the {DIST_NAME} distribution has no RECORD"
        return out
    listed = {str(f)[len(CONTENT_PREFIX):]: f for f in files if str(f).startswith(CONTENT_PREFIX)}
    record = next((f for f in files if str(f).endswith(".dist-info/RECORD")), None)
    out.record = str(dist.locate_file(record)) if record is not None else None
    if not listed:
        out.unverifiable = (f"the installed {DIST_NAME} {dist.version} is an editable install or a checkout: its RECORD "
                            "names no content file, so there is no wheel to verify against")
        return out
    root = Path(content_root) if content_root is not None else Path(__file__).resolve().parents[1] / "content"
    if Path(dist.locate_file(CONTENT_PREFIX)).resolve() != root.resolve():
        out.unverifiable = f"this msd_core runs from {root}, not from the installed {DIST_NAME} distribution"
        return out
    on_disk = set()
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _skip(d))
        for n in sorted(names):
            if not _skip(n):
                on_disk.add(Path(dirpath, n).relative_to(root).as_posix())
    for rel in sorted(on_disk | set(listed)):
        entry = listed.get(rel)
        if entry is None:
            out.unlisted.append(rel)
            continue
        try:
            data = Path(dist.locate_file(entry)).read_bytes()
        except OSError:
            out.absent.append(rel)
            continue
        h = entry.hash
        if h is None or h.mode != "sha256" or h.value != _record_hash(data) or (entry.size is not None and entry.size != len(data)):
            out.differs.append(rel)
            continue
        out.verified[rel] = data
    return out


def install(target, manifest, pkg: PackageCheck) -> dict:
    """Step 2 for one install (msd_core.paths.Target and its loaded manifest)."""
    from msd_core.files.safe_tree import read_installed
    from msd_core.install.transform import agent_relpath, installed_files
    from msd_core.runtimes import get as get_runtime

    if pkg.unverifiable:
        return {"unverifiable": pkg.unverifiable}
    if manifest.version != __version__ or (pkg.version and pkg.version != __version__):
        return {"unverifiable": f"the install was made by msd-core {manifest.version}; this package is {__version__} "
                                "(its wheel is another one): run `msd install` to update it, then verify"}
    rt = get_runtime(target.runtime)
    from_failed = {d for rel in pkg.failed if (d := agent_relpath(rt, rel, manifest.profile))}
    sources = sorted(pkg.verified.items())
    desired, _warnings, _skipped = installed_files(sources, target, manifest.version, profile=manifest.profile)
    out: dict = {"files": len(manifest.files), "matching": 0, "differs": [], "missing": [], "from_changed_source": [],
                 "not_shipped": []}
    for rel in sorted(manifest.files):
        want = desired.get(rel[:-len(NEW_SUFFIX)] if rel.endswith(NEW_SUFFIX) else rel)
        if rel in from_failed:
            out["from_changed_source"].append(rel)
            continue
        if want is None:
            out["not_shipped"].append(rel)
            continue
        try:
            disk = read_installed(target.config, rel)
        except Exception as exc:  # a symlink or unreadable file: not the shipped bytes
            out["differs"].append(f"{rel} ({exc})")
            continue
        if disk is None:
            out["missing"].append(rel)
        elif disk != want:
            out["differs"].append(rel)
        else:
            out["matching"] += 1
    out["ok"] = out["matching"] == out["files"]
    return out


def not_matching(result: dict) -> int:
    """How many installed files step 2 could not match (any reason)."""
    return sum(len(result.get(k, [])) for k in ("differs", "missing", "from_changed_source", "not_shipped"))
