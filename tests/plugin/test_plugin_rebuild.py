"""A rebuild over an earlier `msd plugin build` removes only what that build recorded as its own
and left unchanged: a user's notes, a `.git/`, an extra skill and an edited file stay (and are
listed); a file the build must write that is not its own is refused with one line; a folder
inside an install's tree is refused; a build killed half-way leaves the earlier build."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from msd_core.errors import UsageError
from msd_core.plugin.build import MARKER, build_plugin


def _tree(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, dirs, names in os.walk(root):
        for n in names:
            p = Path(dirpath, n)
            out[p.relative_to(root).as_posix()] = p.read_bytes()
        for d in dirs:
            p = Path(dirpath, d)
            if not any(p.iterdir()):
                out[p.relative_to(root).as_posix() + "/"] = b""
    return out


@pytest.fixture()
def built(tmp_path):
    out = tmp_path / "mp"
    assert build_plugin(out).exit_code == 0
    return out


def test_a_rebuild_keeps_and_lists_what_the_user_added(built):
    notes = built / "NOTES.md"
    notes.write_text("my notes\n")
    git = built / ".git"
    (git / "objects").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    extra = built / "msd-core" / "skills" / "my-skill" / "SKILL.md"
    extra.parent.mkdir()
    extra.write_text("---\nname: my-skill\n---\nmine\n")
    empty = built / "msd-core" / "scratch"
    empty.mkdir()
    res = build_plugin(built)
    assert res.exit_code == 0
    assert notes.read_text() == "my notes\n"
    assert (git / "HEAD").read_text() == "ref: refs/heads/main\n" and (git / "objects").is_dir()
    assert extra.read_text() == "---\nname: my-skill\n---\nmine\n"
    assert empty.is_dir()
    assert set(res.data["kept"]) == {"NOTES.md", ".git/HEAD", "msd-core/skills/my-skill/SKILL.md"}
    assert any("kept 3 files in" in w for w in res.warnings), res.warnings
    # the build's own files are all there and recorded
    record = json.loads((built / MARKER).read_text())["files"]
    assert "NOTES.md" not in record and "msd-core/skills/msd-plan-phase/SKILL.md" in record


def test_an_unchanged_file_of_the_earlier_build_goes_when_the_new_build_drops_it(built, monkeypatch):
    from msd_core.plugin import build as mod

    real = mod.plugin_files

    def with_extra(source, *a, **kw):
        files, warnings = real(source, *a, **kw)
        files["msd-core/msd-core/references/old-part.md"] = b"from an older version\n"
        files["msd-core/gone/deep/only.md"] = b"x\n"
        return files, warnings

    monkeypatch.setattr(mod, "plugin_files", with_extra)
    build_plugin(built)
    assert (built / "msd-core/msd-core/references/old-part.md").is_file()
    (built / "msd-core/gone/deep/mine.md").write_text("mine\n")
    monkeypatch.setattr(mod, "plugin_files", real)
    res = build_plugin(built)
    assert not (built / "msd-core/msd-core/references/old-part.md").exists()
    assert not (built / "msd-core/gone/deep/only.md").exists()
    assert (built / "msd-core/gone/deep/mine.md").read_text() == "mine\n"  # its folder stays with it
    assert res.data["kept"] == ["msd-core/gone/deep/mine.md"]
    assert res.data["removed"] == ["msd-core/gone/deep/only.md", "msd-core/msd-core/references/old-part.md"]


def test_an_edited_file_the_new_build_drops_is_kept_and_listed(built, monkeypatch):
    from msd_core.plugin import build as mod

    real = mod.plugin_files

    def with_extra(source, *a, **kw):
        files, warnings = real(source, *a, **kw)
        files["msd-core/msd-core/references/old-part.md"] = b"from an older version\n"
        return files, warnings

    monkeypatch.setattr(mod, "plugin_files", with_extra)
    build_plugin(built)
    edited = built / "msd-core/msd-core/references/old-part.md"
    edited.write_text("from an older version\nwith my note\n")
    monkeypatch.setattr(mod, "plugin_files", real)
    res = build_plugin(built)
    assert edited.read_text() == "from an older version\nwith my note\n"
    assert res.data["kept"] == ["msd-core/msd-core/references/old-part.md"]


def test_a_file_the_build_writes_but_does_not_own_is_refused_with_one_line(built, msd):
    skill = built / "msd-core" / "skills" / "msd-plan-phase" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmy edit\n")
    before = _tree(built)
    with pytest.raises(UsageError) as err:
        build_plugin(built)
    assert "msd-core/skills/msd-plan-phase/SKILL.md" in err.value.message
    assert _tree(built) == before  # nothing written, nothing removed
    r = msd(["plugin", "build", str(built)])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "SKILL.md" in r.stderr, r.stderr
    # the user moves the edit aside: the rebuild proceeds and the moved copy stays
    os.replace(skill, skill.with_name("SKILL.mine.md"))
    res = build_plugin(built)
    assert "my edit" in skill.with_name("SKILL.mine.md").read_text()
    assert "msd-core/skills/msd-plan-phase/SKILL.mine.md" in res.data["kept"]
    assert "my edit" not in skill.read_text()


def test_a_symlink_or_folder_where_the_build_writes_is_refused(built, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    agents = built / "msd-core" / "agents"
    os.rename(agents, tmp_path / "agents-moved")
    agents.symlink_to(outside)
    before = _tree(outside)
    with pytest.raises(UsageError) as err:
        build_plugin(built)
    assert "symlink" in err.value.message
    assert _tree(outside) == before
    agents.unlink()
    os.rename(tmp_path / "agents-moved", agents)
    planner = agents / "msd-planner.md"
    planner.unlink()
    planner.mkdir()
    (planner / "mine").write_text("x")
    with pytest.raises(UsageError):
        build_plugin(built)
    assert (planner / "mine").read_text() == "x"


def test_the_same_bytes_written_by_the_user_are_adopted(built):
    plugin_json = built / "msd-core" / ".claude-plugin" / "plugin.json"
    data = plugin_json.read_bytes()
    record = json.loads((built / MARKER).read_text())
    del record["files"]["msd-core/.claude-plugin/plugin.json"]
    (built / MARKER).write_text(json.dumps(record))
    res = build_plugin(built)
    assert plugin_json.read_bytes() == data and res.data["kept"] == []


def test_an_earlier_build_without_a_record_is_read_from_its_manifest(built):
    """Builds before the record (marker without `files`): the plugin's manifest says which content
    files were the build's; its fixed files (marketplace, plugin.json, bin, manifest) are rebuilt."""
    (built / MARKER).write_text(json.dumps({"package": "msd-core", "version": "0.1.0"}) + "\n")
    (built / "NOTES.md").write_text("mine\n")
    res = build_plugin(built)
    assert res.exit_code == 0 and res.data["kept"] == ["NOTES.md"]
    assert "files" in json.loads((built / MARKER).read_text())


@pytest.mark.parametrize("where", ["config", "install-root", "deep", "plugin"])
def test_a_folder_inside_an_install_or_a_build_is_refused(tmp_path, where):
    from msd_core.install.installer import install
    from msd_core.paths import Target

    config = tmp_path / "cfg"
    if where == "plugin":
        assert build_plugin(tmp_path / "mp").exit_code == 0
        out = tmp_path / "mp" / "msd-core" / "extra"
        top = tmp_path / "mp"
    else:
        install(Target("global", config))
        out = {"config": config / "plugins-out", "install-root": config / "msd-core" / "plugin",
               "deep": config / "skills" / "x" / "y"}[where]
        top = config
    before = _tree(top)
    with pytest.raises(UsageError) as err:
        build_plugin(out)
    assert "inside" in err.value.message, err.value.message
    assert _tree(top) == before


def test_a_build_killed_half_way_leaves_the_earlier_build_and_the_users_files(built, tmp_path):
    """kill -9 in the middle of writing (the transaction's slow-motion knob spaces its steps):
    the next build rolls back what the killed one began and completes; the user's file survives."""
    (built / "NOTES.md").write_text("mine\n")
    old = json.loads((built / MARKER).read_text())
    code = ("import sys; from msd_core.plugin import build as b; "
            "real = b.plugin_files\n"
            "def f(s, *a, **k):\n"
            "    files, w = real(s, *a, **k)\n"
            "    return {r: d + b'\\n<!-- rebuilt -->\\n' if r.endswith('.md') else d for r, d in files.items()}, w\n"
            "b.plugin_files = f\n"
            "b.build_plugin(sys.argv[1])\n")
    env = {**os.environ, "MSD_TEST_SLOW_INSTALL": "5"}
    proc = subprocess.Popen([sys.executable, "-c", code, str(built)], env=env)
    deadline = time.monotonic() + 60
    journal = built / ".msd-core.txn" / "journal.json"
    while time.monotonic() < deadline and not journal.exists() and proc.poll() is None:
        time.sleep(0.01)
    time.sleep(0.3)
    assert proc.poll() is None, "the build ended before the kill: slow it down further"
    assert journal.exists()  # killed inside the transaction
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    touched = sum(1 for p in built.rglob("*.md") if p.read_bytes().endswith(b"<!-- rebuilt -->\n"))
    assert touched, "the kill came before the first file was replaced"
    assert (built / "NOTES.md").read_text() == "mine\n"
    res = build_plugin(built)
    assert res.exit_code == 0 and res.data["kept"] == ["NOTES.md"]
    assert not (built / ".msd-core.txn").exists()
    new = json.loads((built / MARKER).read_text())["files"]
    assert new == old["files"]
    for rel, sha in new.items():
        from msd_core.files.atomic import sha256_bytes

        assert sha256_bytes((built / rel).read_bytes()) == sha, rel


def test_concurrent_builds_into_one_folder_take_turns(tmp_path):
    """Bounded: 3 rounds of 2 simultaneous builds; each round ends with one whole build and the user's file."""
    out = tmp_path / "mp"
    assert build_plugin(out).exit_code == 0
    (out / "NOTES.md").write_text("mine\n")
    code = "import sys; from msd_core.plugin.build import build_plugin; build_plugin(sys.argv[1])"
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", code, str(out)], stderr=subprocess.PIPE) for _ in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        record = json.loads((out / MARKER).read_text())["files"]
        from msd_core.files.atomic import sha256_bytes

        assert all(sha256_bytes((out / rel).read_bytes()) == sha for rel, sha in record.items())
        assert (out / "NOTES.md").read_text() == "mine\n" and not (out / ".msd-core.txn").exists()
