"""msd's `.planning/` write guard in the real agent CLIs that run hooks before a tool call (pinned in
tests/runtimes/clis.py), offline against a stand-in model that calls the client's own file-writing
tool twice (tests/runtimes/skill_script.py, MSD_STANDIN_CALLS): first a write that would turn the
guards off in `.planning/config.json`, then a normal write of `notes.txt`. After `msd install
--runtime <client>`, the client refuses the first through msd's hook: the next model request carries
msd's refusal as the tool's result, config.json is byte-identical; the second write lands.

Copilot CLI: its `edit` (its `create` refuses an existing file itself), global install; Qwen Code
and Gemini CLI: `write_file`, local install in a trusted folder; Kimi Code: `Write`, global (the only
hooks it reads); Codex CLI: its freeform `apply_patch` (offered to a model whose catalog entry says
so: the stand-in's entry is Codex's own bundled `gpt-5.5` one, renamed), global, hooks trusted for
the run (`--dangerously-bypass-hook-trust`), and the same patch run through its shell."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.paths import resolve_target
from tests.runtimes import skill_script, stand_ins
from tests.runtimes.agent_clients import CLIENTS
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow

CONFIG = json.dumps({"mode": "interactive"}, indent=2) + "\n"
OFF = json.dumps({"mode": "interactive", "guards": {"planning_write": False}}, indent=2) + "\n"
NOTE = "a normal note\n"
REFUSED = "msd guard: Write of .planning/config.json refused: it changes the `guards` settings"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".planning/config.json").write_text(CONFIG)
    return project


def _calls(client: str, project: Path) -> list:
    config, note = str(project / ".planning/config.json"), str(project / "notes.txt")
    if client == "copilot":
        return [["edit", {"path": config, "old_str": '"mode": "interactive"',
                          "new_str": '"mode": "interactive",\n  "guards": {"planning_write": false}'}],
                ["create", {"path": note, "file_text": NOTE}]]
    if client == "kimi":
        return [["Write", {"path": config, "content": OFF}], ["Write", {"path": note, "content": NOTE}]]
    return [["write_file", {"file_path": config, "content": OFF}], ["write_file", {"file_path": note, "content": NOTE}]]


@pytest.mark.parametrize("client, scope", [("copilot", "global"), ("qwen", "local"), ("gemini", "local"), ("kimi", "global")])
def test_the_client_refuses_a_write_that_turns_the_guards_off(client, scope, tmp_path, monkeypatch):
    project = _project(tmp_path)
    install(resolve_target(scope, project_dir=project, runtime=client), profile="core")  # global: the test's HOME
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps(_calls(client, project)))
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    api = stand_ins.gemini_api if client == "gemini" else stand_ins.openai_api
    with api(tmp_path) as (base, record):
        proc = CLIENTS[client].run(project, base, "Write the two files.", tmp_path)
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    read = skill_script.gemini_results if client == "gemini" else skill_script.chat_results
    results = read(bodies[-1]) if bodies else []
    assert len(results) == 2, (results, proc.stdout[-2000:], proc.stderr[-2000:])
    verb = "Edit" if client == "copilot" else "Write"
    assert REFUSED.replace("Write", verb) in results[0].replace('\\"', '"').replace("\\u2019", "'"), results[0]
    assert (project / ".planning/config.json").read_text() == CONFIG
    assert (project / "notes.txt").read_text() == NOTE, results[1]


def _catalog(tmp_path: Path) -> Path:
    """Codex's own bundled model entry for `gpt-5.5` (freeform apply_patch), as the stand-in's."""
    exe = next(cli_binary("codex").parents[1].glob("@openai/codex-*/vendor/*/bin/codex"), None)  # <prefix>/node_modules
    if exe is None:
        pytest.skip("Codex's native binary (linux x64) is not where its npm package puts it")
    raw = exe.read_bytes()
    start = raw.find(b'{\n  "models": [')
    models, _ = json.JSONDecoder().raw_decode(raw[start:start + (4 << 20)].decode("utf-8", "replace"))
    entry = next(m for m in models["models"] if m.get("slug") == "gpt-5.5")
    out = tmp_path / "catalog.json"
    out.write_text(json.dumps({"models": [{**entry, "slug": "stand-in", "display_name": "stand-in", "prefer_websockets": False}]}))
    return out


@pytest.mark.parametrize("route", ["apply_patch", "shell"])
def test_codex_refuses_a_patch_that_turns_the_guards_off(route, tmp_path, monkeypatch):
    from tests.runtimes.test_codex_cli import _codex

    project = _project(tmp_path)
    install(resolve_target("global", project_dir=project, runtime="codex"), profile="core")
    off = ("*** Begin Patch\n*** Update File: .planning/config.json\n@@\n-  \"mode\": \"interactive\"\n"
           "+  \"mode\": \"interactive\",\n+  \"guards\": {\"planning_write\": false}\n*** End Patch\n")
    note = f"*** Begin Patch\n*** Add File: notes.txt\n+{NOTE.strip()}\n*** End Patch\n"
    if route == "apply_patch":
        calls = [["apply_patch", {"input": off}], ["apply_patch", {"input": note}]]
    else:
        calls = [["exec_command", {"cmd": f"apply_patch <<'EOF'\n{p}EOF\n"}] for p in (off, note)]
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps(calls))
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    home = Path(os.environ["HOME"]) / ".codex"
    catalog = _catalog(tmp_path)
    with stand_ins.openai_api(tmp_path) as (base, record):
        (home / "config.toml").write_text(f'model_catalog_json = "{catalog}"\nmodel = "stand-in"\nmodel_provider = "local"\n'
                                          f'[model_providers.local]\nname = "local"\nbase_url = "{base}"\nwire_api = "responses"\n')
        proc = _codex(cli_binary("codex"), project, "exec", "--dangerously-bypass-hook-trust",
                      "--dangerously-bypass-approvals-and-sandbox", "Write the two files.")  # exec cannot ask for a write
        sent = [r["body"] for r in stand_ins.requests(record) if r["path"].endswith("/responses")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    outputs = [json.dumps(i) for i in sent[-1]["input"] if isinstance(i, dict) and i.get("type", "").endswith("call_output")]
    assert len(outputs) == 2, (outputs, proc.stderr[-2000:])
    assert "msd guard: apply_patch of .planning/config.json refused: it changes the `guards` settings" in outputs[0], outputs[0]
    assert (project / ".planning/config.json").read_text() == CONFIG
    assert (project / "notes.txt").read_text() == NOTE, outputs[1]


def test_copilot_refuses_a_gpt_models_patch_that_turns_the_guards_off(tmp_path, monkeypatch):
    """Copilot CLI 1.0.102 offers a GPT model (here `gpt-5.1-codex`, by name only) Codex's freeform
    apply_patch instead of create/edit; its hook gets the patch as text."""
    from tests.runtimes.agent_clients import _proc, copilot_env

    project = _project(tmp_path)
    install(resolve_target("global", project_dir=project, runtime="copilot"), profile="core")
    off = ("*** Begin Patch\n*** Update File: .planning/config.json\n@@\n-  \"mode\": \"interactive\"\n"
           "+  \"mode\": \"interactive\",\n+  \"guards\": {\"planning_write\": false}\n*** End Patch\n")
    note = f"*** Begin Patch\n*** Add File: notes.txt\n+{NOTE.strip()}\n*** End Patch\n"
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps([["apply_patch", {"input": off}], ["apply_patch", {"input": note}]]))
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = _proc([str(cli_binary("copilot")), "--allow-all-tools", "-p", "Write the two files."], project,
                     {**copilot_env(base), "COPILOT_MODEL": "gpt-5.1-codex"})
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = skill_script.chat_results(bodies[-1]) if bodies else []
    assert len(results) == 2, (results, proc.stdout[-2000:])
    assert "msd guard: apply_patch of .planning/config.json refused: it changes the `guards` settings" in results[0], results[0]
    assert (project / ".planning/config.json").read_text() == CONFIG
    assert (project / "notes.txt").read_text() == NOTE, results[1]
