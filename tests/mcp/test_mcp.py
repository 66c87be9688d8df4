"""`msd mcp`: a real MCP client session over stdio lists the tools and calls each one;
concurrent calls each get their own answer; failed calls come back flagged as errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.conftest import compact_default  # noqa: E402
from tests.memory.test_memory import make_project  # noqa: E402

EXPECTED_TOOLS = {
    "memory_search", "memory_what_uses", "memory_pattern_for", "memory_decisions_affecting", "config_get", "resolve",
}


def _is_error(result) -> bool:
    return bool(getattr(result, "isError", None) or getattr(result, "is_error", None))


def _text(result) -> str:
    return "".join(getattr(b, "text", "") or "" for b in result.content)


def _payload(result) -> dict:
    assert not _is_error(result), _text(result)
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    if isinstance(structured, dict):
        return structured.get("result", structured) if set(structured) == {"result"} else structured
    for block in result.content:
        text = getattr(block, "text", None)
        if text:
            return json.loads(text)
    raise AssertionError(f"no payload in {result!r}")


async def _with_session(project, body):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "msd_core", "mcp", "--cwd", str(project)], env=dict(os.environ), cwd=str(project)
    )
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def _run(project, body, timeout=90):
    return asyncio.run(asyncio.wait_for(_with_session(project, body), timeout=timeout))


def test_mcp_session_lists_and_calls_every_tool(tmp_path):
    project = make_project(tmp_path)
    calls = [
        ("memory_search", {"text": "argon2"}),
        ("memory_what_uses", {"symbol": "User"}),
        ("memory_pattern_for", {"domain": "data access"}),
        ("memory_decisions_affecting", {"subsystem": "billing"}),
        ("config_get", {"key": "workflow.compact_content"}),
    ]

    async def body(session):
        tools = await session.list_tools()
        results = {name: _payload(await session.call_tool(name, args)) for name, args in calls}
        missing = await session.call_tool("resolve", {"stem": "plan-phase", "root": str(tmp_path / "no-install" / "msd-core")})
        return {t.name: t.description for t in tools.tools}, results, missing

    described, results, missing = _run(project, body)
    assert EXPECTED_TOOLS <= set(described)
    for name in EXPECTED_TOOLS:  # every description says what the tool returns
        assert "Returns" in described[name], name
    assert results["memory_search"]["hits"][0]["file"].endswith("01-01-SUMMARY.md")
    assert any(h["file"].endswith("02-01-SUMMARY.md") for h in results["memory_what_uses"]["hits"])
    assert "repository pattern" in results["memory_pattern_for"]["hits"][0]["snippet"]
    assert "Invoices are immutable once sent" in [h["snippet"] for h in results["memory_decisions_affecting"]["hits"]]
    assert results["config_get"]["value"] is compact_default()
    # no install at that root: an error result naming `msd install` and exit code 3, not a crash of the server
    assert _is_error(missing)
    assert "msd install" in _text(missing) and "exit code 3" in _text(missing)


def test_an_unknown_config_key_is_an_error_result(tmp_path):
    project = make_project(tmp_path)

    async def body(session):
        bad = await session.call_tool("config_get", {"key": "no.such.key"})
        good = await session.call_tool("config_get", {"key": "workflow.compact_content"})
        return bad, good

    bad, good = _run(project, body)
    assert _is_error(bad) and "unknown config key 'no.such.key'" in _text(bad) and "exit code 2" in _text(bad)
    assert _payload(good)["value"] is compact_default()  # the server lives on after an error


def test_concurrent_calls_each_get_their_own_answer(tmp_path):
    """Many calls in flight at once: every answer belongs to its own call, errors stay errors.

    Bounded: 48 calls, 120 s. Before the fix (process-wide stdout redirection) calls
    received each other's JSON or `{}`."""
    project = make_project(tmp_path)
    rounds = 8
    plan = []
    for i in range(rounds):
        plan += [
            ("search", "memory_search", {"text": "argon2"}),
            ("uses", "memory_what_uses", {"symbol": "User"}),
            ("pattern", "memory_pattern_for", {"domain": "data access"}),
            ("decisions", "memory_decisions_affecting", {"subsystem": "billing"}),
            ("config", "config_get", {"key": "workflow.compact_content"}),
            ("bad", "config_get", {"key": f"no.such.key{i}"}),
        ]

    async def body(session):
        await session.call_tool("memory_search", {"text": "warm"})  # build the index once, outside the race
        return await asyncio.gather(*(session.call_tool(tool, args) for _, tool, args in plan))

    answers = _run(project, body, timeout=120)
    assert len(answers) == len(plan)
    for (kind, _tool, args), result in zip(plan, answers):
        if kind == "bad":
            assert _is_error(result) and f"'{args['key']}'" in _text(result), _text(result)
            continue
        got = _payload(result)
        if kind == "config":
            assert got == {"value": compact_default()}
        elif kind == "search":
            assert got["query"] == "search" and got["term"] == "argon2"
        elif kind == "uses":
            assert got["query"] == "what-uses" and got["term"] == "User"
        elif kind == "pattern":
            assert got["query"] == "pattern-for" and got["term"] == "data access"
        else:
            assert got["query"] == "decisions-affecting" and got["term"] == "billing"


def test_values_that_look_like_options_stay_values(tmp_path):
    """"--help" or "--emit" as a tool's text is searched for / named, never parsed as an
    option (which would print help or emitted text into the protocol stream)."""
    project = make_project(tmp_path)

    async def body(session):
        out = {}
        for name, args in [("memory_search", {"text": "--help"}), ("memory_what_uses", {"symbol": "-x"}),
                           ("config_get", {"key": "--help"}), ("resolve", {"stem": "--emit"}),
                           ("config_get", {"key": "workflow.compact_content"})]:
            out.setdefault(name, []).append(await session.call_tool(name, args))
        return out

    got = _run(project, body)
    search = _payload(got["memory_search"][0])
    assert search["term"] == "--help" and search["hits"] == []
    assert _payload(got["memory_what_uses"][0])["term"] == "-x"
    assert _is_error(got["config_get"][0]) and "unknown config key '--help'" in _text(got["config_get"][0])
    assert _is_error(got["resolve"][0]) and "exit code" in _text(got["resolve"][0])
    assert _payload(got["config_get"][1])["value"] is compact_default()  # the stream is intact after all of them


def test_call_prints_nothing_even_for_help(capsys):
    from msd_core.run.dispatch import call

    code, value = call(["config", "--help"])
    assert capsys.readouterr().out == ""
    assert code == 2 and value["exit_code"] == 2 and "help" in value["message"]
