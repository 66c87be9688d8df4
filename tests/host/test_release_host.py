"""What the real host does with a portable local install and with `msd plugin build`.

Host facts the installer and the plugin builder rely on (each asserted here):
- `${CLAUDE_SKILL_DIR}` is substituted in a project skill's `@` lines and `!` lines;
  `${CLAUDE_PROJECT_DIR}` is the launch folder (a subfolder when claude starts there), so
  the installer does not use it.
- A skill's `!` line runs with the PATH claude was started with; ~/.bashrc does not add to it.
- In a plugin, `${CLAUDE_PLUGIN_ROOT}` is substituted in skills and agents, the plugin's
  `bin/` is on PATH, and the variable is not set in the shell environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import hostkit
import pytest

PART_MARK = "<!-- msd:part msd-core/workflows/plan-phase/detail/"


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def sent(run: hostkit.HostRun) -> str:
    return "\n".join(hostkit.request_text(b) for b in run.model_requests)


def test_host_substitutions_and_path_the_installer_relies_on(host):
    proj = host.project
    skill = proj / ".claude" / "skills" / "probe"
    skill.mkdir(parents=True)
    (proj / "sub").mkdir()
    (proj / ".claude" / "x.md").write_text("INCLUDED-THROUGH-SKILL-DIR\n")
    bashrc_bin = host.root / "bashrc-bin"
    bashrc_bin.mkdir()
    (bashrc_bin / "probe_tool").write_text("#!/bin/sh\necho PROBE-TOOL-RAN\n")
    (bashrc_bin / "probe_tool").chmod(0o755)
    (host.home / ".bashrc").write_text(f'export PATH="{bashrc_bin}:$PATH"\n')
    skill.joinpath("SKILL.md").write_text(
        "---\nname: probe\ndescription: probe\nallowed-tools: Bash(echo *), Bash(probe_tool *)\n---\n"
        "@${CLAUDE_SKILL_DIR}/../../x.md\n"
        '!`echo "skill-dir=${CLAUDE_SKILL_DIR} project-dir=${CLAUDE_PROJECT_DIR}"`\n'
        "!`probe_tool x || echo PROBE-TOOL-MISSING`\n")
    git_init(proj)
    host.project = proj / "sub"  # claude started in a subfolder of the project
    run = host.run("/probe")
    assert run.returncode == 0, run.stderr
    text = run.first_user_text
    assert f"skill-dir={skill} project-dir={proj / 'sub'}" in text  # the launch folder, not the project
    assert "INCLUDED-THROUGH-SKILL-DIR" in text
    assert "PROBE-TOOL-MISSING" in text and "PROBE-TOOL-RAN" not in text  # ~/.bashrc's PATH is not used


def test_local_install_works_copied_to_another_folder_and_another_home(host, claude_cli, tmp_path):
    (host.project / ".planning").mkdir()
    host.install("local")
    other = hostkit.Host(claude_cli, tmp_path / "machine-b")  # another HOME and folder
    clone = other.root / "clone"
    shutil.copytree(host.project, clone, ignore=shutil.ignore_patterns(".msd"))  # what a commit carries
    (clone / "src").mkdir()
    git_init(clone)
    for cwd in (clone, clone / "src"):  # from the project folder and from a subfolder
        other.project = cwd
        run = other.run("/msd-plan-phase 01")
        assert run.returncode == 0, run.stderr
        text = sent(run)
        assert PART_MARK in text, "the split skill's parts were not rendered"
        assert str(host.project) not in text and str(host.home) not in text, "the copy names the first machine"
        paths = list(run.attachments)
        assert paths and all(os.path.normpath(p).startswith(str(clone / ".claude")) for p in paths), paths
    other.project = clone
    st = json.loads(other.msd("status", "--json").stdout)
    local = [i for i in st["installs"] if i["scope"] == "local"][0]
    assert local["moved"].startswith("copied here") and "msd install --local" in local["fix"]


@pytest.fixture
def plugin_out(host):
    out = host.root / "marketplace"
    host.msd("plugin", "build", str(out))
    return out


def test_plugin_loads_with_plugin_dir_and_runs_a_split_workflow_without_msd_run_on_path(host, plugin_out):
    (host.project / ".planning").mkdir()
    git_init(host.project)
    plugin = plugin_out / "msd-core"
    script = [
        {"tool_use": [{"name": "Agent", "input": {"description": "plan", "prompt": "say ok",
                                                  "subagent_type": "msd-core:msd-planner"}}]},
        {"when_system": "msd_run extensions planner", "text": "PLANNED"},
        {"text": "done"},
    ]
    run = host.run("/msd-core:msd-plan-phase 01", script, path=[], args=["--plugin-dir", str(plugin)])
    assert run.returncode == 0, run.stderr
    text = run.first_user_text
    assert PART_MARK in text, "bin/msd_run did not resolve the parts"
    assert f"msd-core plugin folder: `{plugin}`" in text
    assert run.attachments and all(p.startswith(str(plugin)) for p in run.attachments)
    planner = [hostkit.text_of(b.get("system")) for b in run.model_requests
               if "msd_run extensions planner" in hostkit.text_of(b.get("system"))]
    assert planner, "the planner agent was not spawned"
    assert f"--root {plugin}/msd-core --raw" in planner[0] and "${CLAUDE_PLUGIN_ROOT}" not in planner[0]


def test_plugin_installs_through_the_marketplace_commands(host, plugin_out):
    env = host.env(path=[])
    for cmd in (["plugin", "marketplace", "add", str(plugin_out)], ["plugin", "install", "msd-core@msd-core-local"]):
        r = subprocess.run([str(host.claude), *cmd], env=env, cwd=str(host.project), capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, (cmd, r.stdout, r.stderr)
    installed = json.loads((host.config_dir / "plugins" / "installed_plugins.json").read_text())
    assert "msd-core@msd-core-local" in installed["plugins"]
    (host.project / ".planning").mkdir()
    git_init(host.project)
    script = [{"tool_use": [{"name": "Bash", "input": {"command": "msd_run config get mode", "description": "mode"}}]},
              {"text": "done"}]
    run = host.run("/msd-core:msd-plan-phase 01", script, path=[])
    assert run.returncode == 0, run.stderr
    assert PART_MARK in run.first_user_text
    # the agent's own msd_run calls are allowed while a plugin skill runs (no settings.json entry)
    assert run.permission_denials == []
    assert [(name, err) for name, _, _, err in run.tool_results] == [("Bash", False)]
