"""No edit is ever lost (issue 13 item 1): backups and edited .msd-new files survive every later
command, and a conflict the user resolved is accepted by the next install instead of raised again."""

from __future__ import annotations

from pathlib import Path

import pytest

from msd_core.files.atomic import sha256_bytes
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.installkit import copy_fixture, snapshot

GATE = "msd-core/references/gate.md"
WF = "msd-core/workflows/hello.md"


@pytest.fixture
def content(tmp_path) -> Path:
    return copy_fixture(tmp_path / "content")


@pytest.fixture
def target(tmp_path):
    (tmp_path / "proj").mkdir()
    return resolve_target("local", project_dir=tmp_path / "proj")


def src(path: Path) -> ContentSource:
    return ContentSource.from_dir(path)


def verdict(result, rel: str) -> dict:
    return next(f for f in result.data["files"] if f["path"] == rel)


def local_status(tmp_path) -> dict:
    return next(i for i in status(cwd=tmp_path / "proj").data["installs"] if i["scope"] == "local")


def _conflict(target, content, mine: str = "mine\n", theirs: str = "theirs\n"):
    """Install, edit the gate, ship a new gate: the next install conflicts."""
    install(target, source=src(content))
    (target.config / GATE).write_text(mine)
    (content / GATE).write_text(theirs)
    res = install(target, source=src(content))
    assert verdict(res, GATE)["verdict"] == "conflict"
    return res


# --- backups ---------------------------------------------------------------------------------

@pytest.mark.parametrize("later", ["reinstall", "update", "uninstall", "uninstall-force", "force-again"])
def test_force_backup_survives_every_later_command(tmp_path, target, content, later):
    install(target, source=src(content))
    (target.config / GATE).write_text("my only copy\n")
    (content / GATE).write_text("theirs\n")
    res = install(target, source=src(content), force=True)
    backup = Path(verdict(res, GATE)["backup"])
    assert backup.read_text() == "my only copy\n"
    if later == "reinstall":
        install(target, source=src(content))
    elif later == "update":
        (content / GATE).write_text("theirs v3\n")
        install(target, source=src(content))
    elif later == "uninstall":
        out = uninstall(target)
        assert out.data["backups_kept"] == [res.data["backup_dir"]]
        assert any("--remove-backups" in w for w in out.warnings)
    elif later == "uninstall-force":
        uninstall(target, force=True)
    else:
        (target.config / GATE).write_text("second edit\n")
        res2 = install(target, source=src(content), force=True)
        assert Path(verdict(res2, GATE)["backup"]).read_text() == "second edit\n"
    assert backup.read_text() == "my only copy\n"


def test_two_backups_in_one_second_never_overwrite_each_other(tmp_path, target, content, monkeypatch):
    import msd_core.install.installer as installer

    monkeypatch.setattr(installer.time, "strftime", lambda *a: "20260101-000000")  # same stamp twice
    install(target, source=src(content))
    (target.config / GATE).write_text("first\n")
    first = Path(verdict(install(target, source=src(content), force=True), GATE)["backup"])
    (target.config / GATE).write_text("second\n")
    second = Path(verdict(install(target, source=src(content), force=True), GATE)["backup"])
    assert first != second
    assert (first.read_text(), second.read_text()) == ("first\n", "second\n")


def test_remove_backups_is_the_only_way_backups_go(tmp_path, target, content):
    before = snapshot(tmp_path / "proj")
    install(target, source=src(content))
    (target.config / GATE).write_text("mine\n")
    res = install(target, source=src(content), repair=True)
    backup_dir = Path(res.data["backup_dir"])
    uninstall(target, force=True)
    assert backup_dir.is_dir()
    assert local_status(tmp_path)["backups"] == [str(backup_dir)]  # status names them after the uninstall
    out = uninstall(target, remove_backups=True)
    assert out.data["backups_removed"] == [str(backup_dir)]
    assert snapshot(tmp_path / "proj") == before  # msd's folders went with them


# --- edited .msd-new -------------------------------------------------------------------------

@pytest.mark.parametrize("force", [False, True])
def test_edited_new_version_survives_uninstall_even_forced(tmp_path, target, content, force):
    _conflict(target, content)
    side = target.config / (GATE + ".msd-new")
    side.write_text("theirs, with my merge notes\n")
    out = uninstall(target, force=force)
    assert side.read_text() == "theirs, with my merge notes\n"
    assert GATE + ".msd-new" in out.data["kept"]


def test_edited_new_version_is_not_overwritten_by_the_same_version(tmp_path, target, content):
    _conflict(target, content)
    side = target.config / (GATE + ".msd-new")
    side.write_text("theirs, being merged by hand\n")
    res = install(target, source=src(content))  # the same new version again
    assert side.read_text() == "theirs, being merged by hand\n"
    assert res.data["backup_dir"] is None


def test_edited_new_version_is_backed_up_before_a_newer_version_replaces_it(tmp_path, target, content):
    _conflict(target, content)
    side = target.config / (GATE + ".msd-new")
    side.write_text("theirs, being merged by hand\n")
    (content / GATE).write_text("theirs v3\n")
    res = install(target, source=src(content))
    assert side.read_text() == "theirs v3\n"
    saved = Path(res.data["backup_dir"]) / (GATE + ".msd-new")
    assert saved.read_text() == "theirs, being merged by hand\n"


# --- resolved conflicts ----------------------------------------------------------------------

def test_resolved_conflict_is_accepted_and_recorded(tmp_path, target, content):
    _conflict(target, content)
    gate = target.config / GATE
    gate.write_text("mine and theirs\n")  # resolve by hand ...
    (target.config / (GATE + ".msd-new")).unlink()  # ... and say so by deleting the new version
    res = install(target, source=src(content))
    assert verdict(res, GATE) == {"path": GATE, "verdict": "kept", "detail": "your resolution of the conflict kept"}
    assert not (target.config / (GATE + ".msd-new")).exists()
    assert res.data["conflicts"] == []
    m = load_manifest(target.config)
    assert m.extra["resolved"] == {GATE: {"sha256": sha256_bytes(b"mine and theirs\n"),
                                          "shipped": sha256_bytes(b"theirs\n"), "yours": False}}
    assert m.files[GATE] == sha256_bytes(b"theirs\n")  # your file is now your edit of the version you resolved
    assert GATE + ".msd-new" not in m.files
    # never raised again for the same shipped version, and nothing is written
    snap = snapshot(target.config)
    again = install(target, source=src(content))
    assert verdict(again, GATE)["verdict"] == "kept" and again.data["changed"] is False
    assert snapshot(target.config) == snap
    assert local_status(tmp_path)["resolved"] == [GATE]
    assert local_status(tmp_path)["pending_conflicts"] == []
    assert gate.read_text() == "mine and theirs\n"
    # uninstall keeps it as your edit
    assert GATE in uninstall(target).data["kept"]


def test_resolved_conflict_merges_into_a_newer_version_against_what_you_resolved(tmp_path, target, content):
    _conflict(target, content, mine="# Gate\nmine\n", theirs="# Gate\ntheirs\n\nend\n")
    gate = target.config / GATE
    gate.write_text("# Gate (resolved)\ntheirs\n\nend\n")
    (target.config / (GATE + ".msd-new")).unlink()
    install(target, source=src(content))
    (content / GATE).write_text("# Gate\ntheirs\n\nend, v3\n")  # changes a line you did not touch
    res = install(target, source=src(content))
    assert verdict(res, GATE)["verdict"] == "merged"
    assert gate.read_text() == "# Gate (resolved)\ntheirs\n\nend, v3\n"
    assert "resolved" not in load_manifest(target.config).extra


def test_resolved_conflict_with_a_newer_conflicting_version_is_a_new_conflict(tmp_path, target, content):
    _conflict(target, content)
    (target.config / GATE).write_text("resolved\n")
    (target.config / (GATE + ".msd-new")).unlink()
    install(target, source=src(content))
    (content / GATE).write_text("theirs v3\n")
    res = install(target, source=src(content))
    assert verdict(res, GATE)["verdict"] == "conflict"
    assert (target.config / GATE).read_text() == "resolved\n"
    assert (target.config / (GATE + ".msd-new")).read_text() == "theirs v3\n"
    # the base of the next merge is the version you resolved against
    assert load_manifest(target.config).files[GATE] == sha256_bytes(b"theirs\n")


def test_unresolved_conflict_is_raised_again_without_rewriting(tmp_path, target, content):
    _conflict(target, content)
    side = target.config / (GATE + ".msd-new")
    mtime = side.stat().st_mtime_ns
    res = install(target, source=src(content))
    assert verdict(res, GATE)["verdict"] == "conflict" and side.stat().st_mtime_ns == mtime
    st = local_status(tmp_path)
    assert st["pending_conflicts"] == [{"path": GATE, "new_version": GATE + ".msd-new"}]
    assert st["new_versions"] == [GATE + ".msd-new"]


def test_your_own_file_in_the_way_stays_yours_after_you_resolve(tmp_path, target, content):
    agent = target.config / "agents/msd-helper.md"
    agent.parent.mkdir(parents=True)
    agent.write_text("my own agent\n")
    res = install(target, source=src(content))
    assert verdict(res, "agents/msd-helper.md")["verdict"] == "conflict"
    (target.config / "agents/msd-helper.md.msd-new").unlink()  # keep mine
    res = install(target, source=src(content))
    assert verdict(res, "agents/msd-helper.md")["verdict"] == "kept"
    assert not (target.config / "agents/msd-helper.md.msd-new").exists()
    m = load_manifest(target.config)
    assert "agents/msd-helper.md" not in m.files and m.extra["resolved"]["agents/msd-helper.md"]["yours"] is True
    assert verdict(install(target, source=src(content)), "agents/msd-helper.md")["verdict"] == "kept"
    uninstall(target, force=True)  # msd never owned it: even --force leaves it
    assert agent.read_text() == "my own agent\n"


def test_status_human_output_lists_conflicts_new_versions_and_backups(msd, tmp_path):
    from tests.kit.installkit import FIXTURE

    content = copy_fixture(tmp_path / "content", FIXTURE)
    args = ["--local", "--content-dir", str(content)]
    (tmp_path / "proj").mkdir()
    assert msd(["install", *args], cwd=tmp_path / "proj").returncode == 0
    cfg = tmp_path / "proj/.claude"
    (cfg / GATE).write_text("mine\n")
    (content / GATE).write_text("theirs\n")
    assert msd(["install", *args], cwd=tmp_path / "proj").returncode == 0
    (cfg / WF).write_text("my workflow\n")
    assert msd(["install", "--force", *args], cwd=tmp_path / "proj").returncode == 0
    (cfg / GATE).write_text("mine again\n")
    (content / GATE).write_text("theirs v3\n")
    assert msd(["install", *args], cwd=tmp_path / "proj").returncode == 0
    out = msd(["status"], cwd=tmp_path / "proj").stdout
    assert f"conflict: {GATE} (new version beside it: {GATE}.msd-new" in out
    backups = sorted((cfg / "msd-core/.msd/backups").iterdir())
    assert len(backups) == 1 and f"backup of replaced edits: {backups[0]}" in out
