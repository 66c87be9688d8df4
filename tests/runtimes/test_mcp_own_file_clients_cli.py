"""msd's MCP server in the real Gemini CLI, Codex CLI and OpenCode (pinned in tests/runtimes/clis.py),
offline against the stand-in models (tests/runtimes/stand_ins.py): after `msd mcp install --client
gemini|codex|opencode`, the client starts `msd mcp`, its first model request offers each of msd's MCP
tools under the client's own name for them (TOOL_NAME), and when the model calls `config_get` for
`workflow.compact_content` the answer msd gives (the project's setting) reaches the model's next request.

One session per client and compact setting: compact off with the user scope, compact on with the
project scope (each client's own project file: none of the three reads `.mcp.json`). Codex reads a
project's `.codex/config.toml` only in a project trusted in the user's config.toml, so the test trusts
it there the way Codex's prompt does; Gemini CLI runs trusting the workspace (GEMINI_CLI_TRUST_WORKSPACE,
tests/runtimes/test_gemini_cli.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.runtimes import skill_script, stand_ins
from tests.runtimes.agent_clients import env, run_gemini, run_opencode
from tests.runtimes.clis import cli_binary
from tests.runtimes.test_mcp_clients_cli import assert_answer, call_config_get, mcp_install, project_for
from tests.runtimes.test_qwen_mcp_cli import MSD_TOOLS

pytestmark = pytest.mark.slow

TOOL_NAME = {"gemini": "mcp_msd_{}", "codex": "mcp__msd__{}", "opencode": "msd_{}"}  # seen in each client's request
USER_FILE = {"gemini": ".gemini/settings.json", "codex": ".codex/config.toml", "opencode": ".config/opencode/opencode.json"}
PROJECT_FILE = {"gemini": ".gemini/settings.json", "codex": ".codex/config.toml", "opencode": "opencode.json"}


def _home() -> Path:
    return Path(os.environ["HOME"])


def _codex_config(base: str, project: Path, trusted: bool) -> None:
    """The stand-in as Codex's provider (tests/runtimes/test_codex_cli.py), written before msd appends its
    table. Codex sends its first request without waiting for an MCP server that is not `required`
    (seen: a server that starts in 4 s is missing from it; `msd mcp` on a busy machine was, one run in
    four), unless `mcp_optional_startup_grace_ms` gives it time: the test gives 20 s."""
    cfg = _home() / ".codex" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    trust = f'[projects."{project}"]\ntrust_level = "trusted"\n\n' if trusted else ""
    cfg.write_text(f'model = "stand-in"\nmodel_provider = "local"\nmcp_optional_startup_grace_ms = 20000\n\n'
                   f'{trust}[model_providers.local]\nname = "local"\n'
                   f'base_url = "{base}"\nwire_api = "responses"\n')


def _run(client: str, project: Path, base: str, tmp: Path) -> subprocess.CompletedProcess:
    if client == "gemini":
        return run_gemini(project, base, "Say hi.", tmp)
    if client == "opencode":
        return run_opencode(project, base, "Say hi.", tmp)
    return subprocess.run([str(cli_binary("codex")), "exec", "--skip-git-repo-check", "Say hi."], cwd=project,
                          env=env(), capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


def _turns(record: Path, client: str) -> list[tuple[list[str], list]]:
    """(the tool names offered, its tool results) of each model request that offers tools."""
    out = []
    for r in stand_ins.requests(record):
        body, path = r["body"], r["path"].split("?")[0]
        if not isinstance(body, dict) or not body.get("tools"):
            continue
        if client == "gemini" and path.endswith(("GenerateContent", "generateContent")):
            names = [f["name"] for t in body["tools"] for f in t.get("functionDeclarations") or []]
            results = [p["functionResponse"] for c in body.get("contents") or [] for p in c.get("parts") or [] if "functionResponse" in p]
        elif client == "codex" and path.endswith("/responses"):
            names = list(skill_script.responses_tools(body))
            results = [i for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "function_call_output"]
        elif client == "opencode" and path.endswith("/chat/completions"):
            names = [t["function"]["name"] for t in body["tools"]]
            results = [m for m in body.get("messages") or [] if m.get("role") == "tool"]
        else:
            continue
        out.append((names, results))
    return out


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off-user-scope", "compact-on-project-scope"])
@pytest.mark.parametrize("client", sorted(TOOL_NAME))
def test_the_client_lists_msds_mcp_tools_and_a_call_reaches_the_model(client, compact, tmp_path, monkeypatch):
    project = project_for(tmp_path, compact)
    call_config_get(monkeypatch, project)
    with (stand_ins.gemini_api(tmp_path) if client == "gemini" else stand_ins.openai_api(tmp_path)) as (base, record):
        if client == "codex":
            _codex_config(base, project, trusted=compact)
        (_home() / ".config").mkdir(exist_ok=True)  # as in a real home (msd makes ~/.config/opencode, not a missing ~/.config)
        written = mcp_install(project, "project" if compact else "user", client)
        assert written == (project / PROJECT_FILE[client] if compact else _home() / USER_FILE[client])
        proc = _run(client, project, base, tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
        turns = _turns(record, client)
    assert turns, stand_ins.requests(record)[-1:]
    offered = turns[0][0]
    for tool in MSD_TOOLS:
        assert TOOL_NAME[client].format(tool) in offered, (tool, offered)
    # the model called config_get; msd's answer is a tool result of a later request
    results = next((found for _names, found in turns[1:] if found), None)
    assert results, turns[-1]
    assert_answer(results, compact)
