"""`msd plugin build OUT`: the layout, the paths, the manifest the runtime verifies, the
bin/msd_run entry, and what happens to an OUT folder that is not ours."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from msd_core.errors import UsageError
from msd_core.files.atomic import sha256_bytes
from msd_core.install.source import ContentSource
from msd_core.plugin.build import MARKER, _allow_runtime, build_plugin, plugin_files

SHELL = "/usr/bin:/bin"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("mp") / "out"
    res = build_plugin(out)
    assert res.exit_code == 0
    return out


def run(cmd, cwd, path=SHELL):
    return subprocess.run(cmd, cwd=str(cwd), env={**os.environ, "PATH": path}, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_layout_and_the_two_json_files(built):
    market = json.loads((built / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == "msd-core-local"
    (entry,) = market["plugins"]
    assert entry["name"] == "msd-core" and entry["source"] == "./msd-core"
    plugin = built / "msd-core"
    meta = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    from msd_core import __version__

    assert meta["name"] == "msd-core" and meta["version"] == __version__ == entry["version"]
    assert (plugin / "skills" / "msd-plan-phase" / "SKILL.md").is_file()
    assert (plugin / "agents" / "msd-planner.md").is_file()
    assert (plugin / "msd-core" / "workflows" / "plan-phase.md").is_file()
    assert (plugin / "msd-core" / "VERSION").read_text().strip() == __version__
    assert os.stat(plugin / "bin" / "msd_run").st_mode & stat.S_IXUSR


def test_paths_go_through_the_plugin_root_and_name_no_machine_folder(built):
    plugin = built / "msd-core"
    for p in plugin.rglob("*"):
        if p.is_file() and p.parent.name != "bin":
            data = p.read_bytes()
            assert b"~/.claude/" not in data, p
            assert str(built).encode() not in data, p
    skill = (plugin / "skills" / "msd-plan-phase" / "SKILL.md").read_text()
    body = skill.split("\n---\n", 1)[1]
    assert body.startswith("msd-core plugin folder: `${CLAUDE_PLUGIN_ROOT}`")
    assert "@${CLAUDE_PLUGIN_ROOT}/msd-core/workflows/plan-phase.md" in body
    assert "--root ${CLAUDE_PLUGIN_ROOT}/msd-core || true`" in body
    assert skill.startswith("---\nname: msd-plan-phase\n")


def test_manifest_hashes_every_file_and_carries_the_registry(built):
    plugin = built / "msd-core"
    m = json.loads((plugin / "msd-core" / "manifest.json").read_text())
    assert m["scope"] == "plugin" and m["target"] == "${CLAUDE_PLUGIN_ROOT}"
    for rel, h in m["files"].items():
        assert sha256_bytes((plugin / rel).read_bytes()) == h, rel
    assert m["registry"]["workflows"]["plan-phase"]["parts"]


@pytest.mark.usefixtures("compact_off")
def test_bin_msd_run_maps_the_unset_root_to_the_plugin_and_verifies_parts(built, tmp_path):
    plugin = built / "msd-core"
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    r = run([str(plugin / "bin" / "msd_run"), "resolve", "plan-phase", "--root", "/msd-core"], proj)
    assert r.returncode == 0, r.stderr
    listed = json.loads(r.stdout)
    flat = json.dumps(listed)
    assert str(plugin / "msd-core" / "workflows" / "plan-phase" / "detail") in flat
    # a tampered part is refused: the manifest is what the runtime trusts
    copy = tmp_path / "copy"
    build_plugin(copy)
    part = next((copy / "msd-core" / "msd-core" / "workflows" / "plan-phase" / "detail").glob("*.md"))
    part.write_text(part.read_text() + "\ninjected\n")
    r = run([str(copy / "msd-core" / "bin" / "msd_run"), "resolve", "plan-phase", "--root", "/msd-core"], proj)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)


def _write(files: dict[str, bytes], out: Path) -> None:
    for rel, data in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (out / "msd-core" / "bin" / "msd_run").chmod(0o755)


def test_bin_msd_run_falls_back_to_path_and_never_runs_itself(tmp_path):
    files, _ = plugin_files(ContentSource.packaged(), runner=tmp_path / "gone" / "msd_run")
    out = tmp_path / "out"
    _write(files, out)
    entry = out / "msd-core" / "bin" / "msd_run"
    # only the plugin's own bin on PATH, and the runtime it was built with is gone: one clear line, exit 1
    r = run([str(entry), "--help"], tmp_path, path=f"{entry.parent}:{SHELL}")
    assert r.returncode == 1 and r.stderr.startswith("msd_run: the msd-core runtime is not installed"), r.stderr
    # another msd_run on PATH is used
    other = tmp_path / "other"
    other.mkdir()
    (other / "msd_run").write_text('#!/bin/sh\necho "OTHER $*"\n')
    (other / "msd_run").chmod(0o755)
    r = run([str(entry), "state", "get", "--root", "/msd-core"], tmp_path, path=f"{entry.parent}:{other}:{SHELL}")
    assert r.stdout.strip() == f"OTHER state get --root {out / 'msd-core' / 'msd-core'}"
    r = run([str(entry), "a b", "--root", "/elsewhere"], tmp_path, path=f"{other}:{SHELL}")
    assert r.stdout.strip() == "OTHER a b --root /elsewhere"  # other arguments pass through untouched


def test_out_folder_that_is_not_ours_is_refused_and_untouched(tmp_path):
    out = tmp_path / "busy"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(UsageError):
        build_plugin(out)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(UsageError):
        build_plugin(f)


def test_an_earlier_build_is_rebuilt_in_place(tmp_path):
    out = tmp_path / "mp"
    build_plugin(out)
    (out / "msd-core" / "stale.txt").write_text("old")
    res = build_plugin(out)
    assert (out / MARKER).is_file() and (out / "msd-core" / "stale.txt").read_text() == "old"  # not the build's: kept
    assert res.data["kept"] == ["msd-core/stale.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["mp"]  # no temp or old folder left behind
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".msd")) == [".msd-plugin-build", ".msd-plugin-build.lock"]


def test_cli_prints_the_commands_to_add_and_install(tmp_path, msd):
    r = msd(["plugin", "build", str(tmp_path / "mp")])
    assert r.returncode == 0, r.stderr
    assert f"/plugin marketplace add {tmp_path / 'mp'}" in r.stdout
    assert "/plugin install msd-core@msd-core-local" in r.stdout
    bad = msd(["plugin", "build", str(tmp_path)])  # holds mp/: not empty, not a build
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


@pytest.mark.parametrize("front, want", [
    (["description: d", "allowed-tools: Read, Bash(msd_run resolve x --emit *)"],
     ["description: d", "allowed-tools: Read, Bash(msd_run resolve x --emit *), Bash(msd_run *)"]),
    (["allowed-tools: [Read, Grep]", "model: sonnet"], ["allowed-tools: [Read, Grep, Bash(msd_run *)]", "model: sonnet"]),
    (["allowed-tools:", "    - Read", "    - Grep", "model: sonnet"],
     ["allowed-tools:", "    - Read", "    - Grep", "    - Bash(msd_run *)", "model: sonnet"]),
    (["description: d"], ["description: d", "allowed-tools: Bash(msd_run *)"]),
])
def test_each_plugin_skill_grants_the_runtime_permission(front, want):
    import yaml

    assert _allow_runtime(front) == want
    tools = yaml.safe_load("\n".join(want))["allowed-tools"]
    assert "Bash(msd_run *)" in (tools if isinstance(tools, list) else [t.strip() for t in tools.split(",")])


def test_built_skills_grant_the_permission(built):
    import yaml

    for skill in (built / "msd-core" / "skills").glob("*/SKILL.md"):
        front = yaml.safe_load(skill.read_text().split("---\n")[1])
        assert "Bash(msd_run *)" in front["allowed-tools"], skill
