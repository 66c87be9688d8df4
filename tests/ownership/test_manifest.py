"""The manifest reader: corrupt files, symlinks, FIFOs, escapes and tampering are refused clearly."""

from __future__ import annotations

import os

import pytest

from msd_core.errors import IntegrityError, NotInstalledError
from msd_core.files.atomic import sha256_bytes
from msd_core.ownership.manifest import Manifest, load_manifest, parse_manifest, read_verified, safe_path


def _install(tmp_path, files: dict[str, bytes]) -> tuple:
    config = tmp_path / "cfg"
    for rel, data in files.items():
        p = config / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    m = Manifest(version="0", scope="global", target=str(config), files={k: sha256_bytes(v) for k, v in files.items()})
    m.save(config)
    return config, m


def test_roundtrip_and_verified_read(tmp_path):
    config, m = _install(tmp_path, {"msd-core/a.md": b"alpha"})
    loaded = load_manifest(config)
    assert loaded.files == m.files
    assert read_verified(config, loaded, "msd-core/a.md") == b"alpha"


def test_missing_install_names_msd_install(tmp_path):
    with pytest.raises(NotInstalledError) as err:
        load_manifest(tmp_path / "nothing")
    assert "msd install" in err.value.one_line()


@pytest.mark.parametrize("payload", [b"{not json", b"[]", b'{"files": {"../x": "' + b"0" * 64 + b'"}}',
                                     b'{"files": {"a": "short"}}', b'{"files": {}, "registry": []}', b"\xff\xfe"])
def test_corrupt_manifest_is_integrity_error(payload):
    with pytest.raises(IntegrityError) as err:
        parse_manifest(payload)
    assert "msd install --repair" in err.value.one_line()  # plain `msd install` refuses a corrupt manifest


def test_tampered_missing_unlisted_symlink_and_fifo_are_refused(tmp_path):
    config, m = _install(tmp_path, {"msd-core/a.md": b"alpha", "msd-core/b.md": b"beta", "msd-core/c.md": b"gamma"})
    (config / "msd-core/a.md").write_bytes(b"evil")
    with pytest.raises(IntegrityError, match="modified"):
        read_verified(config, m, "msd-core/a.md")
    (config / "msd-core/b.md").unlink()
    with pytest.raises(IntegrityError, match="missing"):
        read_verified(config, m, "msd-core/b.md")
    (config / "msd-core/planted.md").write_bytes(b"x")
    with pytest.raises(IntegrityError, match="not recorded"):
        read_verified(config, m, "msd-core/planted.md")
    target = tmp_path / "elsewhere.md"
    target.write_bytes(b"gamma")
    (config / "msd-core/c.md").unlink()
    (config / "msd-core/c.md").symlink_to(target)
    with pytest.raises(IntegrityError, match="symlink"):
        read_verified(config, m, "msd-core/c.md")
    (config / "msd-core/c.md").unlink()
    os.mkfifo(config / "msd-core/c.md")
    with pytest.raises(IntegrityError, match="regular"):
        read_verified(config, m, "msd-core/c.md")


def test_fifo_manifest_does_not_block(tmp_path):
    config = tmp_path / "cfg"
    (config / "msd-core").mkdir(parents=True)
    os.mkfifo(config / "msd-core" / "manifest.json")
    with pytest.raises(IntegrityError, match="regular"):
        load_manifest(config)


def test_safe_path_refuses_escapes_and_symlinked_folders(tmp_path):
    config = tmp_path / "cfg"
    (config / "msd-core").mkdir(parents=True)
    for bad in ("../x", "/etc/passwd", "a/../../x", "a\\b", "a\x00b", ""):
        with pytest.raises(IntegrityError):
            safe_path(config, bad)
    (tmp_path / "out").mkdir()
    (config / "linked").symlink_to(tmp_path / "out")
    with pytest.raises(IntegrityError, match="symlink"):
        safe_path(config, "linked/file.md")


def test_relpath_check_agrees_with_purepath_reading():
    """The string check of manifest paths decides as reading them with PurePosixPath does
    (not absolute, no `..` part; empty and `.` parts dropped), over a grid of odd paths."""
    import itertools
    from pathlib import PurePosixPath

    from msd_core.files.safe_tree import valid_relpath as _valid_relpath

    def by_purepath(rel):
        if not isinstance(rel, str) or not rel or "\x00" in rel or "\\" in rel:
            return False
        p = PurePosixPath(rel)
        return not p.is_absolute() and all(part not in ("", ".", "..") for part in p.parts)

    pieces = ["a", "..", ".", "", "...", "..a", "a..", "b c", "\\", "\x00", "é"]
    checked = 0
    for n in (1, 2, 3):
        for combo in itertools.product(pieces, repeat=n):
            for lead in ("", "/", "//"):
                rel = lead + "/".join(combo)
                assert _valid_relpath(rel) == by_purepath(rel), rel
                checked += 1
    assert checked > 3000
    assert _valid_relpath(None) is False and _valid_relpath(3) is False
