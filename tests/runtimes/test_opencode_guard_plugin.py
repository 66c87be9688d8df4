"""msd's guard in OpenCode without OpenCode: the plugin file `msd install --runtime opencode` writes
(msd_core/runtimes/opencode_plugin.py) with the install guarantees (a manifest record, the user's own
plugins kept, uninstall giving the tree back byte for byte), the plugin itself run by Node as OpenCode
calls it (what it does when msd refuses, allows, or cannot run), and the adapter
(msd_core/hooks/opencode.py) answering OpenCode's tool calls with msd's one guard decision. The real
OpenCode: tests/runtimes/test_opencode_guard_cli.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.hooks import opencode as adapter
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from msd_core.runtimes.opencode_plugin import PLUGIN_REL

RUNNER = Path(sys.executable).parent / "msd_run"
CONFIG = '{"workflow": {"compact_content": false}}\n'


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git/" not in str(p.relative_to(root)) + "/"}


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".env").write_text("API_KEY=x\n")
    (project / ".planning/config.json").write_text(CONFIG)
    return project


def _command(plugin: Path) -> list:
    line = next(ln for ln in plugin.read_text().splitlines() if ln.startswith("const COMMAND = "))
    return json.loads(line.split("= ", 1)[1])


# ------------------------------------------------------------------ the install: an owned plugin file


def test_local_install_adds_its_plugin_and_uninstall_gives_the_tree_back(tmp_path):
    project = _project(tmp_path)
    mine = project / ".opencode/plugins/mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({})\n")
    before = _tree(project)
    t = resolve_target("local", project_dir=project, runtime="opencode")
    install(t, profile="core")
    plugin = t.config / PLUGIN_REL
    assert _command(plugin) == ["msd_run", "hook", "opencode-pre-tool-use", "--root", ".opencode/msd-core"]
    assert PLUGIN_REL in load_manifest(t.config).files
    assert mine.read_text() == "export const Mine = async () => ({})\n"
    uninstall(t)
    assert _tree(project) == before


def test_global_plugin_names_this_msd_run_and_the_absolute_root(tmp_path):
    t = resolve_target("global", project_dir=tmp_path, runtime="opencode")
    install(t, profile="core")
    assert _command(t.config / PLUGIN_REL) == [str(RUNNER), "hook", "opencode-pre-tool-use", "--root", str(t.config / "msd-core")]
    uninstall(t)
    assert not (t.config / PLUGIN_REL).exists()


def test_a_users_edit_of_the_plugin_outlives_reinstall_and_uninstall(tmp_path):
    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime="opencode")
    install(t, profile="core")
    plugin = t.config / PLUGIN_REL
    edited = plugin.read_text().replace("const TIMEOUT_MS = 30000", "const TIMEOUT_MS = 5000")
    plugin.write_text(edited)
    install(t, profile="core")
    assert plugin.read_text() == edited
    uninstall(t)
    assert plugin.read_text() == edited  # the user's bytes are never deleted


# ------------------------------------------------------------------ the plugin, run as OpenCode runs it

HARNESS = """\
const [plugin, directory, tool, args] = process.argv.slice(2)
const mod = await import(plugin)
const hooks = await mod.MsdGuard({ directory })
try {
  await hooks["tool.execute.before"]({ tool, sessionID: "s", callID: "c" }, { args: JSON.parse(args) })
  console.log(JSON.stringify({ refused: null }))
} catch (e) {
  console.log(JSON.stringify({ refused: e.message }))
}
"""


@pytest.fixture
def run_plugin(tmp_path):
    node = shutil.which("node")
    if not node:
        pytest.skip("node not installed: cannot run the plugin")
    project = _project(tmp_path)
    install(resolve_target("local", project_dir=project, runtime="opencode"), profile="core")
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS)

    def run(tool: str, args: dict, path: str, **env: str) -> str | None:
        environ = {**{k: v for k, v in os.environ.items() if k != "MSD_GUARDS"}, "PATH": path, **env}
        proc = subprocess.run([node, str(harness), str(project / ".opencode" / PLUGIN_REL), str(project), tool, json.dumps(args)],
                              capture_output=True, text=True, env=environ, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["refused"]

    run.project = project
    return run


def test_the_plugin_refuses_what_msd_refuses_and_lets_the_rest_go(run_plugin):
    path = f"{RUNNER.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    refused = run_plugin("bash", {"command": "cat .env"}, path)
    assert refused and refused.startswith("msd guard: this command is refused: it would print .env"), refused
    assert run_plugin("bash", {"command": "ls"}, path) is None
    config = str(run_plugin.project / ".planning/config.json")
    refused = run_plugin("write", {"filePath": config, "content": '{"guards": {"secret_read": false}}'}, path)
    assert refused and "Write of .planning/config.json refused" in refused, refused
    assert run_plugin("todowrite", {"todos": []}, path) is None


def test_the_plugin_refuses_a_call_msd_cannot_check_unless_the_guards_are_off(run_plugin, tmp_path):
    empty = tmp_path / "no-msd"  # a PATH without msd_run
    empty.mkdir()
    path = f"{empty}{os.pathsep}/usr/bin{os.pathsep}/bin"
    if shutil.which("msd_run", path=path):
        pytest.skip("msd_run is installed system-wide")
    refused = run_plugin("bash", {"command": "ls"}, path)
    assert refused and refused.startswith("msd guard: this call is refused because msd could not check it (msd_run was not found)"), refused
    assert "MSD_GUARDS=off" in refused
    assert run_plugin("bash", {"command": "ls"}, path, MSD_GUARDS="off") is None


def test_the_plugin_refuses_when_msd_run_fails(run_plugin, tmp_path):
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "msd_run").write_text("#!/bin/sh\necho 'broken install' >&2\nexit 3\n")
    (fake / "msd_run").chmod(0o755)
    refused = run_plugin("bash", {"command": "ls"}, f"{fake}{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert refused and "msd_run ended with exit code 3: broken install" in refused, refused
    # a tool msd's guard does not judge starts no msd_run at all
    assert run_plugin("todowrite", {"todos": []}, f"{fake}{os.pathsep}/usr/bin{os.pathsep}/bin") is None


# ------------------------------------------------------------------ the adapter


def _hook(payload: dict, cwd: Path) -> str:
    proc = subprocess.run([str(RUNNER), "hook", "opencode-pre-tool-use"], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=cwd, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("tool, args, refused", [
    ("bash", {"command": "cat .env"}, "this command is refused: it would print .env"),
    ("bash", {"command": "ls"}, None),
    ("read", {"filePath": "{p}/.env"}, "reading {p}/.env is refused"),
    ("read", {"filePath": "{p}/README.md"}, None),
    ("grep", {"pattern": "KEY", "include": ".env"}, "this search is refused"),
    ("write", {"filePath": "{p}/.planning/config.json", "content": '{"guards": {"secret_read": false}}'},
     "Write of .planning/config.json refused: it changes the `guards` settings"),
    ("edit", {"filePath": "{p}/.planning/config.json", "oldString": '{"workflow"',
              "newString": '{"guards": {"planning_write": false}, "workflow"'},
     "Edit of .planning/config.json refused: it changes the `guards` settings"),
    ("write", {"filePath": "{p}/.planning/notes.md", "content": "# Notes\n"}, None),
    ("task", {"prompt": "cat .env"}, None),
])
def test_opencodes_tools_get_msds_one_decision_in_the_plugins_answer(tool, args, refused, tmp_path):
    project = _project(tmp_path)
    args = {k: v.replace("{p}", str(project)) if isinstance(v, str) else v for k, v in args.items()}
    out = _hook({"tool": tool, "args": args, "cwd": str(project), "session_id": "s"}, project)
    if refused is None:
        assert out == ""
        return
    answer = json.loads(out)
    assert answer["decision"] == "deny" and answer["reason"].startswith("msd guard: "), answer
    assert refused.replace("{p}", str(project)) in answer["reason"], answer


def test_the_plugin_asks_msd_about_exactly_the_tools_the_adapter_maps():
    from msd_core.runtimes.opencode_plugin import CHECKED

    assert sorted(CHECKED) == sorted(adapter.JUDGED)


def test_bash_is_judged_in_the_folder_its_workdir_names(tmp_path):
    project = tmp_path / "p"
    mapped = adapter.as_claude({"tool": "bash", "args": {"command": "cat .env", "workdir": "sub"}, "cwd": str(project)})
    assert mapped == {"tool_name": "Bash", "tool_input": {"command": "cat .env"}, "cwd": str(project / "sub")}
    mapped = adapter.as_claude({"tool": "bash", "args": {"command": "ls", "workdir": "/elsewhere"}, "cwd": str(project)})
    assert mapped["cwd"] == "/elsewhere"
    mapped = adapter.as_claude({"tool": "edit", "args": {"filePath": "/x", "oldString": "a", "newString": "b", "replaceAll": True}})
    assert mapped == {"tool_name": "Edit", "tool_input": {"file_path": "/x", "old_string": "a", "new_string": "b", "replace_all": True}}
    assert adapter.as_claude({"tool": "webfetch", "args": {"url": "x"}}) is None


# ------------------------------------------------------------------ msd status on the plugin


def test_status_reports_a_plugin_that_no_longer_asks_about_a_guarded_tool(tmp_path):
    from msd_core.install.client_hooks_status import status_of

    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime="opencode")
    install(t, profile="core")
    hook = status_of(t)
    assert hook["present"] and hook["matcher"] == "^(apply_patch|bash|edit|grep|read|write)$" and hook["runner"] == "msd_run"
    assert any("npm install of @opencode-ai/plugin" in n for n in hook["notes"])
    plugin = t.config / PLUGIN_REL
    plugin.write_text(plugin.read_text().replace('"grep", "read", ', '"grep", '))
    hook = status_of(t)
    assert hook["ok"] is False
    assert hook["problem"].startswith(f"msd's guard hook in {plugin} no longer matches read: those calls go unguarded; "
                                      "run `msd install --local --runtime opencode ")
    assert hook["problem"].endswith(" --repair` (your edit is backed up first)")
    install(t, profile="core", repair=True)
    assert status_of(t)["matcher"] == "^(apply_patch|bash|edit|grep|read|write)$"


def test_status_reads_an_edited_plugins_lists_through_the_bounds(tmp_path):
    """A plugin file a person edited into a list nested 100,000 deep: status says it does not parse,
    it does not crash (the lists go through files.bounded.loads_json), and the file is left as it is."""
    from msd_core.install.client_hooks_status import status_of

    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime="opencode")
    install(t, profile="core")
    plugin = t.config / PLUGIN_REL
    lines = plugin.read_text().splitlines(keepends=True)
    deep = "[" * 100_000 + "]" * 100_000
    edited = "".join(f"const COMMAND = {deep}\n" if ln.startswith("const COMMAND = ") else ln for ln in lines)
    plugin.write_text(edited)
    hook = status_of(t)
    assert hook["ok"] is False and "does not parse" in hook["problem"], hook
    assert plugin.read_text() == edited
