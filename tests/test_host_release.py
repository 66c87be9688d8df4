"""The real Claude Code CLI (2.1.332) against a local stand-in for the model API (stub_api):
what the host does with our portable local install and our plugin.

Pinned host facts our installer relies on (each asserted below):
- `${CLAUDE_SKILL_DIR}` is substituted in a project skill's `@` lines and `!` lines, and the
  permission rule in allowed-tools still matches; `${CLAUDE_PROJECT_DIR}` is the launch
  folder (a subfolder when claude starts there), so the installer does not use it.
- A skill's `!` line runs with the PATH claude was started with; ~/.bashrc does not add to it.
- In a plugin, `${CLAUDE_PLUGIN_ROOT}` is substituted in skills and agents, the plugin's
  `bin/` is on PATH, and the variable is not set in the shell environment.

Skipped when the CLI is absent (`npm install --prefix /tmp/cc-h @anthropic-ai/claude-code@2.1.332`,
or set MSD_CLAUDE_BIN).
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from stub_api import StubAPI, claude_binary, host_env

pytestmark = pytest.mark.slow

CLAUDE = claude_binary()
if CLAUDE is None:
    pytest.skip("the Claude Code CLI is not installed (npm install --prefix /tmp/cc-h @anthropic-ai/claude-code@2.1.332)",
                allow_module_level=True)

BASE_PATH = "/usr/bin:/bin"
PART_MARK = "<!-- msd:part msd-core/workflows/plan-phase/detail/"


def runner_dir(tmp_path: Path) -> Path:
    """A folder holding only `msd_run` (this environment's runtime), for the host's PATH."""
    d = tmp_path / "runner-bin"
    d.mkdir(exist_ok=True)
    script = d / "msd_run"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m msd_core.run "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return d


def run_host(prompt: str, cwd: Path, home: Path, path: str, *extra: str, responder=None) -> tuple[subprocess.CompletedProcess, StubAPI]:
    home.mkdir(parents=True, exist_ok=True)
    with StubAPI(responder=responder) as stub:
        r = subprocess.run([CLAUDE, "-p", prompt, *extra], cwd=str(cwd), env=host_env(home, stub.url, path),
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    return r, stub


def sent(stub: StubAPI) -> str:
    return json.dumps([q["body"] for q in stub.requests])


def read_paths(stub: StubAPI) -> list[str]:
    """Files the host attached for `@` lines (it reports them as Read tool calls)."""
    out = []
    for text in stub.user_texts():
        marker = 'Called the Read tool with the following input: '
        if marker in text:
            out.append(json.loads(text.split(marker, 1)[1].split("\n", 1)[0])["file_path"])
    return out


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


# --- host facts -------------------------------------------------------------------------

def test_host_substitutions_and_path_the_installer_relies_on(tmp_path):
    proj = tmp_path / "proj"
    skill = proj / ".claude" / "skills" / "probe"
    skill.mkdir(parents=True)
    (proj / "sub").mkdir()
    (proj / ".claude" / "x.md").write_text("INCLUDED-THROUGH-SKILL-DIR\n")
    bashrc_bin = tmp_path / "bashrc-bin"
    bashrc_bin.mkdir()
    tool = bashrc_bin / "probe_tool"
    tool.write_text("#!/bin/sh\necho PROBE-TOOL-RAN\n")
    tool.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(f'export PATH="{bashrc_bin}:$PATH"\n')
    skill.joinpath("SKILL.md").write_text(
        "---\nname: probe\ndescription: probe\nallowed-tools: Bash(echo *), Bash(probe_tool *)\n---\n"
        "@${CLAUDE_SKILL_DIR}/../../x.md\n"
        '!`echo "skill-dir=${CLAUDE_SKILL_DIR} project-dir=${CLAUDE_PROJECT_DIR}"`\n'
        "!`probe_tool x || echo PROBE-TOOL-MISSING`\n")
    git_init(proj)
    r, stub = run_host("/probe", proj / "sub", home, BASE_PATH)
    assert r.returncode == 0, r.stderr
    text = sent(stub)
    assert f"skill-dir={skill} project-dir={proj / 'sub'}" in text  # launch folder, not the project
    assert "INCLUDED-THROUGH-SKILL-DIR" in text
    assert "PROBE-TOOL-MISSING" in text and "PROBE-TOOL-RAN" not in text  # ~/.bashrc's PATH is not used


# --- portable local install -------------------------------------------------------------

def test_local_install_works_copied_to_another_folder_and_another_home(tmp_path, msd):
    a = tmp_path / "machine-a" / "proj"
    (a / ".planning").mkdir(parents=True)
    r = msd(["install", "--local"], cwd=a)
    assert r.returncode == 0, r.stderr
    b = tmp_path / "machine-b" / "clone"
    shutil.copytree(a, b, ignore=shutil.ignore_patterns(".msd"))  # what a commit carries
    (b / "src").mkdir()
    git_init(b)
    for cwd in (b, b / "src"):  # from the project folder and from a subfolder
        r, stub = run_host("/msd-plan-phase 01", cwd, tmp_path / "home-b", f"{runner_dir(tmp_path)}:{BASE_PATH}")
        assert r.returncode == 0, r.stderr
        text = sent(stub)
        assert PART_MARK in text, "the split skill's parts were not rendered"
        assert str(a) not in text, "the copy still names the machine it was installed on"
        reads = read_paths(stub)
        assert reads and all(p.startswith(str(b / ".claude")) for p in reads), reads
    st = msd(["status", "--json"], cwd=b)
    local = [i for i in json.loads(st.stdout)["installs"] if i["scope"] == "local"][0]
    assert local["moved"].startswith("copied here") and "msd install --local" in local["fix"]


# --- plugin -------------------------------------------------------------------------------

@pytest.fixture
def plugin_out(tmp_path, msd):
    out = tmp_path / "marketplace"
    r = msd(["plugin", "build", str(out)])
    assert r.returncode == 0, r.stderr
    return out


def test_plugin_loads_with_plugin_dir_and_runs_a_split_workflow_without_msd_run_on_path(tmp_path, plugin_out):
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    git_init(proj)
    plugin = plugin_out / "msd-core"
    spawned = []

    def responder(body):  # the "model" spawns the planner once, to see the agent as the host loads it
        if not spawned and any(t.get("name") == "Agent" for t in body.get("tools", [])):
            spawned.append(1)
            return {"tool": "Agent", "input": {"description": "plan", "prompt": "say ok", "subagent_type": "msd-core:msd-planner"}}
        return None

    r, stub = run_host("/msd-core:msd-plan-phase 01", proj, tmp_path / "home", BASE_PATH, "--plugin-dir", str(plugin),
                       responder=responder)
    assert r.returncode == 0, r.stderr
    text = sent(stub)
    assert PART_MARK in text, "bin/msd_run did not resolve the parts"
    assert f"msd-core plugin folder: `{plugin}`" in text
    assert all(p.startswith(str(plugin)) for p in read_paths(stub))
    planner = [t for t in stub.system_texts() if "msd_run extensions planner" in t]
    assert planner, "the planner agent was not spawned"
    assert f"--root {plugin}/msd-core --raw" in planner[0] and "${CLAUDE_PLUGIN_ROOT}" not in planner[0]


def test_plugin_installs_through_the_marketplace_commands(tmp_path, plugin_out):
    home = tmp_path / "home"
    home.mkdir()
    env = host_env(home, "http://127.0.0.1:9", BASE_PATH)
    for cmd in (["plugin", "marketplace", "add", str(plugin_out)], ["plugin", "install", "msd-core@msd-core-local"]):
        r = subprocess.run([CLAUDE, *cmd], env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, (cmd, r.stdout, r.stderr)
    installed = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    assert "msd-core@msd-core-local" in installed["plugins"]
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    git_init(proj)
    r, stub = run_host("/msd-core:msd-plan-phase 01", proj, home, BASE_PATH)
    assert r.returncode == 0, r.stderr
    assert PART_MARK in sent(stub)
