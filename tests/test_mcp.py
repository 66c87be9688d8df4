"""`msd mcp`: a real MCP client session over stdio lists the tools and calls each one."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from conftest import compact_default  # noqa: E402
from test_memory import make_project  # noqa: E402

EXPECTED_TOOLS = {
    "memory_search", "memory_what_uses", "memory_pattern_for", "memory_decisions_affecting", "config_get", "resolve",
}


def _payload(result) -> dict:
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    if isinstance(structured, dict):
        return structured.get("result", structured) if set(structured) == {"result"} else structured
    for block in result.content:
        text = getattr(block, "text", None)
        if text:
            return json.loads(text)
    raise AssertionError(f"no payload in {result!r}")


async def _session(project, calls):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "msd_core", "mcp", "--cwd", str(project)], env=dict(os.environ), cwd=str(project)
    )
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = {}
            for name, args in calls:
                results[name] = _payload(await session.call_tool(name, args))
            return {t.name for t in tools.tools}, results


def test_mcp_session_lists_and_calls_every_tool(tmp_path):
    project = make_project(tmp_path)
    calls = [
        ("memory_search", {"text": "argon2"}),
        ("memory_what_uses", {"symbol": "User"}),
        ("memory_pattern_for", {"domain": "data access"}),
        ("memory_decisions_affecting", {"subsystem": "billing"}),
        ("config_get", {"key": "workflow.compact_content"}),
        ("resolve", {"stem": "plan-phase", "root": str(tmp_path / "no-install")}),
    ]
    names, results = asyncio.run(asyncio.wait_for(_session(project, calls), timeout=60))
    assert EXPECTED_TOOLS <= names
    assert results["memory_search"]["hits"][0]["file"].endswith("01-01-SUMMARY.md")
    assert any(h["file"].endswith("02-01-SUMMARY.md") for h in results["memory_what_uses"]["hits"])
    assert "repository pattern" in results["memory_pattern_for"]["hits"][0]["snippet"]
    assert "Invoices are immutable once sent" in [h["snippet"] for h in results["memory_decisions_affecting"]["hits"]]
    assert results["config_get"]["value"] is compact_default()
    # no install at that root: a clear error naming `msd install`, not a crash of the server
    assert results["resolve"].get("exit_code") == 3 and "msd install" in results["resolve"]["error"]
