"""The pristine copies: what msd shipped for each installed file, the base of later merges.

Kept in one uncompressed zip, <config>/msd-core/.msd/pristine.zip, built deterministically
(sorted names, fixed timestamps), so an unchanged set gives identical bytes and a no-op
reinstall writes nothing. One file instead of one per installed file keeps installs fast and
uninstall simple.
"""

from __future__ import annotations

import io
import zipfile

from msd_core.files.safe_tree import read_installed

PACK_REL = "msd-core/.msd/pristine.zip"
_EPOCH = (1980, 1, 1, 0, 0, 0)


def build_pack(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for rel in sorted(entries):
            info = zipfile.ZipInfo(rel, date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            zf.writestr(info, entries[rel])
    return buf.getvalue()


def read_pack(tree) -> dict[str, bytes]:
    """Every pristine copy, by installed relpath. A missing or damaged pack gives {} (no merge base)."""
    data = read_installed(tree, PACK_REL)
    if not data:
        return {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return {name: zf.read(name) for name in zf.namelist()}
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        return {}
