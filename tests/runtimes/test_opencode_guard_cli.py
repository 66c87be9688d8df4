"""msd's guard in the real OpenCode (npm opencode-ai, pinned in tests/runtimes/clis.py), through the
plugin file `msd install --runtime opencode` writes (msd_core/runtimes/opencode_plugin.py), offline
against a stand-in model (tests/runtimes/skill_script.py, MSD_STANDIN_CALLS) that calls, one a turn:
`bash` `cat .env`, `bash` `ls`, `write` of `.planning/config.json` turning the secret-read guard off,
`edit` of it doing the same, and `write` of a new `.planning/notes.md`. The model's last request
carries msd's refusal as the result of the first, third and fourth (never the secret), `ls`'s
listing, and the new file is written while config.json is left as it was. Local and global, one
OpenCode session each; and the guard's fixture: with the plugin file taken away the same session reads
the secret and writes the guards off. No package registry is in reach (OpenCode's own `npm install` of
@opencode-ai/plugin into its config folders fails at once: `npm_config_fetch_retries=0`), so the
plugin is shown to load without one."""

from __future__ import annotations

import json
import subprocess

import pytest

from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from msd_core.runtimes.opencode_plugin import PLUGIN_REL
from tests.runtimes import skill_script, stand_ins
from tests.runtimes.agent_clients import CLIENTS

pytestmark = pytest.mark.slow

SECRET = "MSD-GUARD-SECRET-5c1e"
CONFIG = '{"workflow": {"compact_content": false}}\n'


@pytest.mark.parametrize("scope, plugin", [("local", True), ("global", True), ("local", False)])
def test_opencode_refuses_through_msds_plugin(scope, plugin, tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".env").write_text(f"API_KEY={SECRET}\n")
    (project / "listed-file.txt").write_text("x\n")
    config = project / ".planning" / "config.json"
    config.write_text(CONFIG)
    target = resolve_target(scope, project_dir=project, runtime="opencode")
    install(target, profile="core")  # global: the test's HOME
    assert (target.config / PLUGIN_REL).is_file()
    if not plugin:
        (target.config / PLUGIN_REL).unlink()
    off = json.dumps({"guards": {"secret_read": False}, "workflow": {"compact_content": False}})
    calls = [
        ["bash", {"command": "cat .env", "description": "show env"}],
        ["bash", {"command": "ls", "description": "list"}],
        ["write", {"filePath": str(config), "content": off}],
        ["edit", {"filePath": str(config), "oldString": '{"workflow"', "newString": '{"guards": {"secret_read": false}, "workflow"'}],
        ["write", {"filePath": str(project / ".planning" / "notes.md"), "content": "# Notes\n\nA normal write.\n"}],
    ]
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps(calls))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # no registry: the plugin needs none
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = CLIENTS["opencode"].run(project, base, "Do the five steps.", tmp_path)
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = skill_script.chat_results(bodies[-1]) if bodies else []
    assert len(results) == 5, (results, proc.stderr[-2000:])
    cat, listed, write, edit, normal = results
    if not plugin:  # the fixture: nothing of msd's stops a call
        assert SECRET in cat and "msd guard" not in json.dumps(results), results
        assert '"secret_read": false' in config.read_text()
        return
    assert "msd guard: this command is refused: it would print .env" in cat, cat
    assert SECRET not in json.dumps(bodies), "the secret reached the model"
    assert "listed-file.txt" in listed, listed
    assert "msd guard: Write of .planning/config.json refused: it changes the `guards` settings" in write, write
    assert "msd guard: Edit of .planning/config.json refused: it changes the `guards` settings" in edit, edit
    assert config.read_text() == CONFIG
    assert (project / ".planning" / "notes.md").read_text() == "# Notes\n\nA normal write.\n", normal
    uninstall(target)
    assert not (target.config / PLUGIN_REL).exists()


def test_opencode_gives_gpt_models_apply_patch_and_msds_plugin_judges_it(tmp_path, monkeypatch):
    """With a model id OpenCode takes for a GPT model (`gpt-5-stand-in`) it offers `apply_patch` instead
    of `edit` and `write`: a patch turning the secret-read guard off in `.planning/config.json` is refused
    (the file unchanged), a patch adding a new `.planning/notes.md` is applied."""
    from tests.runtimes.agent_clients import run_opencode

    project = tmp_path / "project"
    (project / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    config = project / ".planning" / "config.json"
    config.write_text(CONFIG)
    install(resolve_target("local", project_dir=project, runtime="opencode"), profile="core")
    off = ["*** Begin Patch", "*** Update File: .planning/config.json", "@@", '-{"workflow": {"compact_content": false}}',
           '+{"guards": {"secret_read": false}, "workflow": {"compact_content": false}}', "*** End Patch"]
    new = ["*** Begin Patch", "*** Add File: .planning/notes.md", "+# Notes", "+", "+A patched file.", "*** End Patch"]
    calls = [["apply_patch", {"patchText": "\n".join(off)}], ["apply_patch", {"patchText": "\n".join(new)}]]
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps(calls))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = run_opencode(project, base, "Patch the two files.", tmp_path, model="gpt-5-stand-in")
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    offered = skill_script.chat_tools(bodies[0])
    assert "apply_patch" in offered and "edit" not in offered and "write" not in offered, sorted(offered)
    results = skill_script.chat_results(bodies[-1])
    assert len(results) == 2, (results, proc.stderr[-2000:])
    assert "msd guard: apply_patch of .planning/config.json refused: it changes the `guards` settings" in results[0], results[0]
    assert config.read_text() == CONFIG
    assert (project / ".planning" / "notes.md").read_text().startswith("# Notes\n\nA patched file."), results[1]
