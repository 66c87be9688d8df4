"""Installer behaviour, in process, on small fixture content trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from msd_core.errors import IntegrityError
from msd_core.files.atomic import sha256_bytes
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.installkit import copy_fixture, files_of, snapshot


@pytest.fixture
def content(tmp_path) -> Path:
    """A private, editable copy of the fixture content tree."""
    return copy_fixture(tmp_path / "content")


def src(path: Path) -> ContentSource:
    return ContentSource.from_dir(path)


def local_target(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    return resolve_target("local", project_dir=proj)


def verdicts(result) -> dict[str, str]:
    return {f["path"]: f["verdict"] for f in result.data["files"]}


# --- fresh install ---------------------------------------------------------------------

def test_fresh_local_install_layout_and_rewrite(tmp_path, content):
    t = local_target(tmp_path)
    res = install(t, source=src(content))
    assert res.exit_code == 0
    cfg = t.config
    installed = files_of(cfg)
    for rel in ("skills/msd-hello/SKILL.md", "skills/msd-plain/SKILL.md", "agents/msd-helper.md",
                "msd-core/workflows/hello.md", "msd-core/workflows/hello/detail/01-more.md",
                "msd-core/VERSION", "msd-core/manifest.json", "settings.json"):
        assert rel in installed, rel
    assert not any(p.startswith("commands") for p in installed)
    # no unreplaced ~/.claude/ anywhere in a local install
    for rel in installed:
        assert b"~/.claude/" not in (cfg / rel).read_bytes(), rel
    skill = (cfg / "skills/msd-hello/SKILL.md").read_text()
    assert skill.startswith("---\nname: msd-hello\ndescription: Say hello")
    assert 'argument-hint: "[who]"' in skill and "Bash(msd_run resolve hello --emit *)" in skill
    # portable: the host's skill-folder substitution in skills, project-relative elsewhere
    assert "@${CLAUDE_SKILL_DIR}/../../msd-core/workflows/hello.md" in skill
    assert "--root ${CLAUDE_SKILL_DIR}/../../msd-core ||" in skill
    tpl = json.loads((cfg / "msd-core/templates/config.json").read_text())
    assert tpl["root"] == ".claude/msd-core/"
    for rel in installed:  # no absolute path of this machine in what a project commits
        if not rel.startswith("msd-core/.msd/") and rel != "settings.local.json":  # the per-machine file (host_hooks.py)
            assert str(tmp_path).encode() not in (cfg / rel).read_bytes(), rel


def test_skill_without_frontmatter_gets_name_and_description(tmp_path, content):
    t = local_target(tmp_path)
    res = install(t, source=src(content))
    text = (t.config / "skills/msd-plain/SKILL.md").read_text()
    import yaml

    front = yaml.safe_load(text.split("---\n")[1])
    assert front == {"name": "msd-plain", "description": "Plain command"}
    assert any("no description" in w for w in res.warnings)


def test_default_global_keeps_tilde_paths(content):
    t = resolve_target("global")
    install(t, source=src(content))
    assert t.config == Path(os.path.expanduser("~/.claude"))
    assert "@~/.claude/msd-core/workflows/hello.md" in (t.config / "skills/msd-hello/SKILL.md").read_text()


def test_custom_global_dir_rewrites_to_absolute(tmp_path, content, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    t = resolve_target("global")
    install(t, source=src(content))
    assert t.config == tmp_path / "cc"
    for rel in files_of(t.config):
        assert b"~/.claude/" not in (t.config / rel).read_bytes()


def test_manifest_records_every_written_file_and_registry(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    m = load_manifest(t.config)
    assert m.scope == "local" and m.target == ".claude"  # portable: no absolute path in the manifest
    for rel, h in m.files.items():
        assert sha256_bytes((t.config / rel).read_bytes()) == h
    assert m.registry["workflows"]["hello"] == {
        "spine": "msd-core/workflows/hello.md", "parts": ["msd-core/workflows/hello/detail/01-more.md"]}
    assert "helper" in m.registry["agents"]
    assert m.settings_permission == "Bash(msd_run *)"
    # pristine copies of every file
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO((t.config / "msd-core/.msd/pristine.zip").read_bytes())) as zf:
        assert sorted(zf.namelist()) == sorted(m.files)
        for rel in m.files:
            assert zf.read(rel) == (t.config / rel).read_bytes()
    # folders msd created (the project's .claude did not exist: it is recorded separately)
    assert {"skills", "skills/msd-hello", "agents", "msd-core", "msd-core/workflows"} <= set(m.created_dirs)
    assert m.extra["created_config_dirs"] == [".claude"]  # relative to the project (portable)


def test_shipped_registry_json_is_used_when_present(tmp_path, content):
    reg = {"registry_version": 1, "workflows": {"hello": {"spine": "msd-core/workflows/hello.md", "parts": []}}, "agents": {}}
    (content / "msd-core/registry.json").write_text(json.dumps(reg))
    t = local_target(tmp_path)
    install(t, source=src(content))
    assert load_manifest(t.config).registry == reg


def test_invalid_command_name_is_skipped_with_reason(tmp_path, content):
    (content / "commands/msd/Bad_Name.md").write_text("---\ndescription: x\n---\nbody\n")
    t = local_target(tmp_path)
    res = install(t, source=src(content))
    assert any("Bad_Name" in s for s in res.data["skipped"])
    assert not (t.config / "skills/msd-Bad_Name").exists()


def test_noop_reinstall_writes_nothing(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    before = {p: os.stat(t.config / p).st_mtime_ns for p in files_of(t.config)}
    snap = snapshot(t.config)
    res = install(t, source=src(content))
    assert res.data["changed"] is False
    assert set(verdicts(res).values()) == {"identical"}
    assert snapshot(t.config) == snap
    assert {p: os.stat(t.config / p).st_mtime_ns for p in files_of(t.config)} == before


def test_missing_file_is_restored(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / "msd-core/references/gate.md").unlink()
    res = install(t, source=src(content))
    assert verdicts(res)["msd-core/references/gate.md"] == "create"
    assert (t.config / "msd-core/references/gate.md").exists()


# --- updates ---------------------------------------------------------------------------

def test_update_verdicts_merge_conflict_remove_keep(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    cfg = t.config
    wf = cfg / "msd-core/workflows/hello.md"
    gate = cfg / "msd-core/references/gate.md"
    flow = cfg / "msd-core/flows/hello.toml"
    # user edits: first line of the workflow (merges), the gate (conflicts), the flow (dropped upstream)
    wf.write_text(wf.read_text().replace("# Hello workflow", "# Hello workflow (my notes)"))
    gate.write_text("# Gate\n\nMY OWN GATE TEXT\n")
    flow.write_text(flow.read_text() + "# mine\n")
    # a file the user created inside msd's folder
    mine = cfg / "msd-core/workflows/my-own.md"
    mine.write_text("user file\n")
    # new version of the content
    (content / "msd-core/workflows/hello.md").write_text(
        (content / "msd-core/workflows/hello.md").read_text().replace("Step 5: done.", "Step 5: celebrate."))
    (content / "msd-core/references/gate.md").write_text("# Gate\n\nThe gate is decided in code now.\n")
    (content / "msd-core/flows/hello.toml").unlink()
    (content / "msd-core/templates/config.json").unlink()
    (content / "msd-core/references/new.md").write_text("# New reference\n")
    (content / "agents/msd-helper.md").write_text((content / "agents/msd-helper.md").read_text() + "Be brief.\n")

    res = install(t, source=src(content))
    v = verdicts(res)
    assert v["msd-core/workflows/hello.md"] == "merged"
    assert wf.read_text().startswith("# Hello workflow (my notes)") and "Step 5: celebrate." in wf.read_text()
    assert v["msd-core/references/gate.md"] == "conflict"
    assert gate.read_text() == "# Gate\n\nMY OWN GATE TEXT\n"
    assert (cfg / "msd-core/references/gate.md.msd-new").read_text() == "# Gate\n\nThe gate is decided in code now.\n"
    assert v["msd-core/flows/hello.toml"] == "kept" and flow.read_text().endswith("# mine\n")
    assert v["msd-core/templates/config.json"] == "removed"
    assert not (cfg / "msd-core/templates/config.json").exists()
    assert not (cfg / "msd-core/templates").exists()  # msd created it, now empty
    assert v["msd-core/references/new.md"] == "create"
    assert v["agents/msd-helper.md"] == "update"
    assert v["skills/msd-hello/SKILL.md"] == "identical"
    assert mine.read_text() == "user file\n"
    assert "msd-core/workflows/my-own.md" not in v
    assert res.data["conflicts"] == [{"path": "msd-core/references/gate.md", "new_version": "msd-core/references/gate.md.msd-new"}]
    m = load_manifest(cfg)
    assert "msd-core/flows/hello.toml" not in m.files  # kept: now the user's
    # the merged file still reads as edited: uninstall keeps it
    res_u = uninstall(t)
    kept = {f["path"] for f in res_u.data["files"] if f["verdict"] == "kept"}
    assert kept == {"msd-core/workflows/hello.md", "msd-core/references/gate.md"}
    assert mine.exists() and flow.exists() and wf.exists() and gate.exists()
    assert not (cfg / "msd-core/references/gate.md.msd-new").exists()


def test_edit_unchanged_upstream_is_kept(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    gate = t.config / "msd-core/references/gate.md"
    gate.write_text("mine\n")
    res = install(t, source=src(content))
    assert verdicts(res)["msd-core/references/gate.md"] == "kept"
    assert gate.read_text() == "mine\n"


def test_user_file_where_msd_installs_is_a_conflict_not_overwritten(tmp_path, content):
    t = local_target(tmp_path)
    (t.config / "agents").mkdir(parents=True)
    (t.config / "agents/msd-helper.md").write_text("my own agent\n")
    res = install(t, source=src(content))
    assert verdicts(res)["agents/msd-helper.md"] == "conflict"
    assert (t.config / "agents/msd-helper.md").read_text() == "my own agent\n"
    assert (t.config / "agents/msd-helper.md.msd-new").exists()
    assert "agents" not in load_manifest(t.config).created_dirs
    uninstall(t)
    assert (t.config / "agents/msd-helper.md").read_text() == "my own agent\n"
    assert not (t.config / "agents/msd-helper.md.msd-new").exists()


def test_conflict_resolves_on_next_update(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    gate = t.config / "msd-core/references/gate.md"
    gate.write_text("mine\n")
    (content / "msd-core/references/gate.md").write_text("theirs\n")
    install(t, source=src(content))
    assert (t.config / "msd-core/references/gate.md.msd-new").exists()
    gate.write_text("theirs\n")  # the user accepts the new version
    res = install(t, source=src(content))
    v = verdicts(res)
    assert v["msd-core/references/gate.md"] == "identical"
    assert v["msd-core/references/gate.md.msd-new"] == "removed"
    assert not (t.config / "msd-core/references/gate.md.msd-new").exists()


def test_force_replaces_edits_after_backup(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    gate = t.config / "msd-core/references/gate.md"
    gate.write_text("mine\n")
    (content / "msd-core/references/gate.md").write_text("theirs\n")
    res = install(t, source=src(content), force=True)
    entry = next(f for f in res.data["files"] if f["path"] == "msd-core/references/gate.md")
    assert entry["verdict"] == "update" and gate.read_text() == "theirs\n"
    backup = Path(entry["backup"])
    assert backup.read_text() == "mine\n"
    assert str(backup).startswith(res.data["backup_dir"])
    # the backup holds the only copy of the edit: uninstall keeps it and names it
    res_u = uninstall(t)
    assert res_u.data["backups_kept"] == [res.data["backup_dir"]] and res_u.data["backups_removed"] == []
    assert backup.read_text() == "mine\n"
    # only the flag that names backups deletes them (also once the install is gone)
    res_b = uninstall(t, remove_backups=True)
    assert res_b.data["backups_removed"] == [res.data["backup_dir"]]
    assert not (t.config / "msd-core").exists()


def test_dry_run_writes_nothing_and_reports_same_verdicts(tmp_path, content):
    t = local_target(tmp_path)
    (t.config).mkdir(parents=True)
    (t.config / "settings.json").write_text('{"a": 1}\n')
    before = snapshot(tmp_path / "proj")
    dry = install(t, source=src(content), dry_run=True)
    assert snapshot(tmp_path / "proj") == before
    real = install(t, source=src(content))
    assert verdicts(dry) == verdicts(real)
    # and over an existing install with edits
    (t.config / "msd-core/references/gate.md").write_text("mine\n")
    (content / "msd-core/references/gate.md").write_text("theirs\n")
    before = snapshot(tmp_path / "proj")
    dry = install(t, source=src(content), dry_run=True)
    assert snapshot(tmp_path / "proj") == before
    assert verdicts(dry) == verdicts(install(t, source=src(content)))


def test_dry_run_on_absent_target_creates_nothing(tmp_path, content):
    t = resolve_target("global", tmp_path / "nowhere" / "cc")
    install(t, source=src(content), dry_run=True)
    assert not (tmp_path / "nowhere").exists()


# --- corrupt manifest ------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["not json {", '{"files": {"../../etc/passwd": "' + "0" * 64 + '"}}', "[1, 2]"])
def test_corrupt_manifest_is_a_clear_error_with_repair(tmp_path, content, damage):
    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / "msd-core/references/gate.md").write_text("mine\n")
    (t.config / "msd-core/manifest.json").write_text(damage)
    with pytest.raises(IntegrityError) as exc:
        install(t, source=src(content))
    assert f"msd install --local --config-dir {t.config} --repair" in exc.value.one_line()
    with pytest.raises(IntegrityError) as exc:
        uninstall(t)
    assert f"msd install --local --config-dir {t.config} --repair" in exc.value.one_line()
    res = install(t, source=src(content), repair=True)
    assert any("rebuilt it from its bookkeeping copy" in w for w in res.warnings)
    entry = next(f for f in res.data["files"] if f["path"] == "msd-core/references/gate.md")
    assert Path(entry["backup"]).read_text() == "mine\n"
    load_manifest(t.config)  # valid again
    assert not (tmp_path / "etc").exists()


def test_uninstall_when_not_installed(tmp_path):
    t = local_target(tmp_path)
    t.config.mkdir()
    res = uninstall(t)
    assert res.ok and res.data["nothing_installed"] is True and res.data["target"] == str(t.config)
    assert list(t.config.iterdir()) == []  # nothing written, not even a lock file


# --- settings.json ---------------------------------------------------------------------

def test_settings_key_order_and_other_settings_kept(tmp_path, content):
    t = local_target(tmp_path)
    t.config.mkdir()
    original = {"model": "x", "permissions": {"allow": ["Read"], "deny": ["Bash(rm *)"]}, "env": {"A": "1"}}
    (t.config / "settings.json").write_text(json.dumps(original))
    install(t, source=src(content))
    data = json.loads((t.config / "settings.json").read_text())
    assert list(data) == ["model", "permissions", "env"]
    assert data["permissions"]["allow"] == ["Read", "Bash(msd_run *)"]
    assert data["permissions"]["deny"] == ["Bash(rm *)"] and data["env"] == {"A": "1"}
    # the user changes another setting after install: uninstall removes exactly our entry
    data["model"] = "y"
    (t.config / "settings.json").write_text(json.dumps(data, indent=2) + "\n")
    uninstall(t)
    after = json.loads((t.config / "settings.json").read_text())
    assert after == {"model": "y", "permissions": {"allow": ["Read"], "deny": ["Bash(rm *)"]}, "env": {"A": "1"}}


def test_existing_permission_is_not_duplicated_nor_removed(tmp_path, content):
    t = local_target(tmp_path)
    t.config.mkdir()
    raw = '{"permissions": {"allow": ["Bash(msd_run *)"]}}'
    (t.config / "settings.json").write_text(raw)
    install(t, source=src(content))
    assert (t.config / "settings.json").read_text() == raw
    uninstall(t)
    assert (t.config / "settings.json").read_text() == raw


@pytest.mark.parametrize("raw", ['{"permissions": ', '["not", "an object"]', '{"permissions": {"allow": "Read"}}'])
def test_unparseable_settings_left_untouched_with_warning(tmp_path, content, raw):
    t = local_target(tmp_path)
    t.config.mkdir()
    (t.config / "settings.json").write_text(raw)
    res = install(t, source=src(content))
    assert (t.config / "settings.json").read_text() == raw
    assert any("settings.json" in w and "left untouched" in w for w in res.warnings)
    uninstall(t)
    assert (t.config / "settings.json").read_text() == raw


def test_symlinked_settings_left_untouched(tmp_path, content):
    t = local_target(tmp_path)
    t.config.mkdir()
    real = tmp_path / "dotfiles-settings.json"
    real.write_text("{}")
    (t.config / "settings.json").symlink_to(real)
    res = install(t, source=src(content))
    assert (t.config / "settings.json").is_symlink() and real.read_text() == "{}"
    assert any("symlink" in w for w in res.warnings)


# --- residue ---------------------------------------------------------------------------

def test_install_uninstall_leaves_home_byte_identical(isolated_home, content):
    cfg = isolated_home / ".claude"
    cfg.mkdir()
    (cfg / "settings.json").write_bytes(b'{\n    "theme": "dark",\n    "permissions": {"deny": []}\n}')  # odd formatting on purpose
    before = snapshot(isolated_home)
    t = resolve_target("global")
    install(t, source=src(content))
    assert snapshot(isolated_home) != before
    install(t, source=src(content))  # a reinstall in between changes nothing
    uninstall(t)
    assert snapshot(isolated_home) == before


def test_install_uninstall_of_fresh_config_dir_leaves_nothing(tmp_path, content):
    before = snapshot(tmp_path)
    t = resolve_target("global", tmp_path / "a" / "b" / "cc")
    install(t, source=src(content))
    uninstall(t)
    assert snapshot(tmp_path) == before


def test_uninstall_keeps_user_files_and_their_folders(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / "skills/msd-hello/notes.txt").write_text("mine")
    (t.config / "skills/other").mkdir()
    res = uninstall(t)
    assert (t.config / "skills/msd-hello/notes.txt").read_text() == "mine"
    assert (t.config / "skills/other").is_dir()
    assert not (t.config / "msd-core").exists()
    assert "skills/msd-hello" in res.data["folders_left"]


def test_uninstall_force_removes_edits(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / "msd-core/references/gate.md").write_text("mine\n")
    uninstall(t, force=True)
    assert not (tmp_path / "proj" / ".claude").exists()


def test_uninstall_dry_run_changes_nothing(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    before = snapshot(tmp_path)
    res = uninstall(t, dry_run=True)
    assert snapshot(tmp_path) == before
    assert res.data["counts"]["removed"] == len(load_manifest(t.config).files)


# --- guards ----------------------------------------------------------------------------

def test_symlink_inside_config_is_refused_and_nothing_written(tmp_path, content):
    from msd_core.errors import UsageError

    t = local_target(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    t.config.mkdir()
    (t.config / "skills").symlink_to(elsewhere)
    before = snapshot(tmp_path)
    with pytest.raises(UsageError) as exc:
        install(t, source=src(content))
    assert "symlink" in exc.value.message
    assert snapshot(tmp_path) == before


def test_damaged_pristine_pack_means_conflict_not_crash(tmp_path, content):
    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / "msd-core/.msd/pristine.zip").write_bytes(b"not a zip")
    (t.config / "msd-core/workflows/hello.md").write_text("# Hello workflow (mine)\n")
    (content / "msd-core/workflows/hello.md").write_text("# Hello workflow\nStep 1 only.\n")
    res = install(t, source=src(content))
    assert verdicts(res)["msd-core/workflows/hello.md"] == "conflict"
    assert (t.config / "msd-core/workflows/hello.md").read_text() == "# Hello workflow (mine)\n"


def test_tampered_pristine_copy_is_not_used_as_merge_base(tmp_path, content):
    from msd_core.ownership.record import build_pack, read_pack

    t = local_target(tmp_path)
    install(t, source=src(content))
    pack_path = t.config / "msd-core/.msd/pristine.zip"
    pack = read_pack(t.config)
    wf = "msd-core/workflows/hello.md"
    # a base that would make the merge "clean" and silently drop the user's line
    pack[wf] = b"# Hello workflow (mine)\n"
    pack_path.write_bytes(build_pack(pack))
    (t.config / wf).write_text("# Hello workflow (mine)\n")
    (content / wf).write_text("# Hello v2\n")
    res = install(t, source=src(content))
    assert verdicts(res)[wf] == "conflict"
    assert (t.config / wf).read_text() == "# Hello workflow (mine)\n"


def test_content_dir_must_exist(tmp_path):
    from msd_core.errors import UsageError

    with pytest.raises(UsageError):
        ContentSource.from_dir(tmp_path / "missing")


def test_registry_json_that_does_not_parse_fails_clearly(tmp_path, content):
    from msd_core.errors import OperationFailed

    (content / "msd-core/registry.json").write_text("{oops")
    t = local_target(tmp_path)
    with pytest.raises(OperationFailed) as exc:
        install(t, source=src(content))
    assert "registry.json" in exc.value.message
    assert not t.config.exists()  # the folder msd created for the failed install is gone


def test_progress_reports_every_write(tmp_path, content):
    t = local_target(tmp_path)
    seen = []
    install(t, source=src(content), progress=lambda phase, done, total: seen.append((phase, done, total)))
    writes = [s for s in seen if s[0] == "write"]
    assert writes and writes[-1][1] == writes[-1][2]
    assert [d for _, d, _ in writes] == sorted(d for _, d, _ in writes)


def test_status_reports_an_interrupted_install(tmp_path, content):
    from msd_core.files import txn
    from msd_core.install.health import status

    t = local_target(tmp_path)
    install(t, source=src(content))
    (t.config / txn.TXN_DIRNAME).mkdir()
    info = next(i for i in status(cwd=tmp_path / "proj").data["installs"] if i["scope"] == "local")
    assert info["interrupted"] is True and "msd install --local" in info["fix"]
    res = install(t, source=src(content))
    assert any("staging" in w for w in res.warnings)
    assert not (t.config / txn.TXN_DIRNAME).exists()


def test_replaced_settings_keep_their_permissions(tmp_path, content):
    t = local_target(tmp_path)
    t.config.mkdir()
    settings = t.config / "settings.json"
    settings.write_text('{"env": {"TOKEN": "secret"}}')
    settings.chmod(0o600)
    install(t, source=src(content))
    assert "Bash(msd_run *)" in settings.read_text()
    assert settings.stat().st_mode & 0o777 == 0o600
    uninstall(t)
    assert settings.read_text() == '{"env": {"TOKEN": "secret"}}'
    assert settings.stat().st_mode & 0o777 == 0o600


def test_msd_core_path_that_is_a_file_is_refused(tmp_path, content):
    from msd_core.errors import UsageError

    t = local_target(tmp_path)
    t.config.mkdir()
    (t.config / "msd-core").write_text("not a folder")
    before = snapshot(tmp_path)
    with pytest.raises(UsageError):
        install(t, source=src(content))
    with pytest.raises(UsageError):
        uninstall(t)
    assert snapshot(tmp_path) == before


def test_skills_path_that_is_a_file_fails_cleanly_and_rolls_back(tmp_path, content):
    from msd_core.errors import OperationFailed

    t = local_target(tmp_path)
    t.config.mkdir()
    (t.config / "skills").write_text("a file where msd needs a folder")
    (t.config / "settings.json").write_text("{}")
    before = snapshot(tmp_path)
    with pytest.raises(OperationFailed) as exc:
        install(t, source=src(content))
    assert "nothing was changed" in exc.value.message
    assert snapshot(tmp_path) == before
