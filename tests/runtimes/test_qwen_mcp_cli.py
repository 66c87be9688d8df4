"""MCP in the real Qwen Code (pinned in tests/runtimes/clis.py): Qwen Code 0.24.4 reads a project's
`.mcp.json` (its bundled PROJECT_MCP_FILENAME), the file `msd mcp install --scope project` writes
for Claude Code, so that one registration serves Qwen too: offline against the stand-in model, it
starts `msd mcp` and its first request names each of msd's MCP tools (as deferred tools, under
"MCP servers", "msd"); without the registration it names none."""

from __future__ import annotations

import html
import json
import subprocess

import pytest

from tests.runtimes import stand_ins
from tests.runtimes.agent_clients import VENV_BIN, env, run_qwen
from tests.runtimes.test_agents_spine_cli import turns_of

pytestmark = pytest.mark.slow

# msd's MCP server's tools (msd_core/mcp/server.py), as Qwen names them
MSD_TOOLS = ("config_get", "memory_decisions_affecting", "memory_pattern_for", "memory_search",
             "memory_what_uses", "resolve")


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "not-registered"])
def test_qwen_lists_msds_mcp_tools_from_the_projects_mcp_json(registered, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    if registered:
        r = subprocess.run([str(VENV_BIN / "msd"), "mcp", "install", "--scope", "project"], cwd=project, env=env(),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        assert "msd" in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = run_qwen(project, base, "Say hi.", tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        first = turns_of(record, "chat")[0]
    text = html.unescape(json.dumps(first, ensure_ascii=False))
    for tool in MSD_TOOLS:
        assert (f"mcp__msd__{tool}" in text) == registered, tool
