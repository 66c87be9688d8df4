"""msd's secret-read guard in the real agent CLIs that run hooks before a tool call (pinned in
tests/runtimes/clis.py), offline against a stand-in model that runs `cat .env`, then `ls`, with the
client's shell tool (tests/runtimes/skill_script.py, MSD_STANDIN_SHELL). After `msd install
--local --runtime <client>`, the client refuses `cat .env` through msd's hook: the next model
request carries msd's refusal as the tool's result and not the secret; `ls` runs. One client
session per case; Copilot's user-level hook (`~/.copilot/hooks/`, a global install) runs in a folder
it was never told to trust; Codex's runs only once its hooks are trusted (its own case shows both).
Kimi Code reads hooks only from its user config.toml: its case is a global install (the provider the
run adds sits above msd's [[hooks]] table there)."""

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

SECRET = "MSD-GUARD-SECRET-7f3a"


def tool_results(bodies: list[dict]) -> list[str]:
    """The tool results of the last model request (OpenAI chat shape), in order."""
    return skill_script.chat_results(bodies[-1]) if bodies else []


@pytest.mark.parametrize("client, scope", [("copilot", "local"), ("copilot", "global"), ("qwen", "local"),
                                                  ("kimi", "global")])
def test_the_client_refuses_a_secret_read_through_msds_hook(client, scope, tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".env").write_text(f"API_KEY={SECRET}\n")
    (project / "listed-file.txt").write_text("x\n")
    install(resolve_target(scope, project_dir=project, runtime=client), profile="core")  # global: the test's HOME
    monkeypatch.setenv("MSD_STANDIN_SHELL", "cat .env\nls")
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    if scope == "local":  # Copilot runs a repository's hooks only in a folder it trusts: COPILOT_ALLOW_ALL=true
        monkeypatch.setenv("COPILOT_ALLOW_ALL", "true")  # trusts the working folder (`copilot help environment`)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = CLIENTS[client].run(project, base, "Run the two shell commands.", tmp_path)
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = tool_results(bodies)
    assert len(results) == 2, (results, proc.stdout[-2000:])
    refused, listed = results
    assert "msd guard: this command is refused: it would print .env" in refused, refused
    assert SECRET not in json.dumps(bodies), "the secret reached the model"
    assert "listed-file.txt" in listed, listed


def test_gemini_refuses_a_secret_read_through_msds_hook(tmp_path, monkeypatch):
    """Gemini CLI runs a project's hooks only in a folder it trusts (GEMINI_CLI_TRUST_WORKSPACE=true,
    set by its runner); msd's refusal reaches the model as the shell call's error."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".env").write_text(f"API_KEY={SECRET}\n")
    (project / "listed-file.txt").write_text("x\n")
    install(resolve_target("local", project_dir=project, runtime="gemini"), profile="core")
    monkeypatch.setenv("MSD_STANDIN_SHELL", "cat .env\nls")
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    with stand_ins.gemini_api(tmp_path) as (base, record):
        proc = CLIENTS["gemini"].run(project, base, "Run the two shell commands.", tmp_path)
        bodies = [r["body"] for r in stand_ins.requests(record) if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = skill_script.gemini_results(bodies[-1]) if bodies else []
    assert len(results) == 2, (results, proc.stdout[-2000:])
    refused, listed = results
    assert "msd guard: this command is refused: it would print .env" in refused, refused
    assert SECRET not in json.dumps(bodies), "the secret reached the model"
    assert "listed-file.txt" in listed, listed


@pytest.mark.parametrize("scope, trusted", [("global", True), ("local", True), ("global", False)])
def test_codex_refuses_a_secret_read_through_msds_hook_once_trusted(scope, trusted, tmp_path, monkeypatch):
    """Codex CLI 0.171.0 runs msd's own pre-tool-use hook from hooks.json (Claude Code's payload and
    answer) only once its hooks are trusted: `--dangerously-bypass-hook-trust` stands in for the
    user's review in its `/hooks` panel; untrusted, the hook is skipped and the secret is read. A
    project's `.codex/hooks.json` loads only in a project trusted in config.toml as well."""
    from tests.runtimes.test_codex_cli import _codex

    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".env").write_text(f"API_KEY={SECRET}\n")
    (project / "listed-file.txt").write_text("x\n")
    install(resolve_target(scope, project_dir=project, runtime="codex"), profile="core")  # global: the test's HOME
    monkeypatch.setenv("MSD_STANDIN_SHELL", "cat .env\nls")
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # a local hook's msd_run
    home = Path(os.environ["HOME"]) / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    trust = f'[projects."{project}"]\ntrust_level = "trusted"\n' if scope == "local" else ""
    with stand_ins.openai_api(tmp_path) as (base, record):
        (home / "config.toml").write_text(f'model = "stand-in"\nmodel_provider = "local"\n{trust}[model_providers.local]\n'
                                          f'name = "local"\nbase_url = "{base}"\nwire_api = "responses"\n')
        args = ["--dangerously-bypass-hook-trust"] * trusted
        proc = _codex(cli_binary("codex"), project, "exec", *args, "Run the two shell commands.")
        sent = [r["body"] for r in stand_ins.requests(record) if r["path"].endswith("/responses")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    outputs = [json.dumps(i) for i in sent[-1]["input"] if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert len(outputs) == 2, (outputs, proc.stderr[-2000:])
    refused, listed = outputs
    if not trusted:  # the guard's fixture: without the trust Codex reads the file
        assert SECRET in refused, refused
        return
    assert "Command blocked by PreToolUse hook: msd guard: this command is refused: it would print .env" in refused, refused
    assert SECRET not in json.dumps(sent), "the secret reached the model"
    assert "listed-file.txt" in listed, listed
