"""The stand-in model's part in the real-CLI spine tests (tests/runtimes/skill_script.py): it calls
the client's own skill tool, then runs exactly the `msd_run` command the spine names with the
client's shell tool, then stops; and calls nothing where it is not asked to or cannot."""

from __future__ import annotations

import json

from tests.runtimes import skill_script as ss

RESOLVE = "msd_run resolve plan-phase --root .agents/msd-core --raw"
SPINE = f"Read these files.\n\nThen run `{RESOLVE}` and read each file it lists.\n"
BASH = {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"},
                                         "timeout": {"type": "number"}}, "required": ["command", "description", "timeout"]}
TOOLS = {"skill": {"properties": {"skill": {"type": "string"}}, "required": ["skill"]}, "bash": BASH, "read": {}}


def test_it_activates_the_skill_then_runs_the_spines_call_then_stops(monkeypatch):
    monkeypatch.setenv("MSD_STANDIN_SKILL", "msd-plan-phase")
    assert ss.next_call(TOOLS, []) == ("skill", {"skill": "msd-plan-phase"})
    # the command, exactly; a required string gets a filler, a required number none
    assert ss.next_call(TOOLS, [SPINE]) == ("bash", {"command": RESOLVE, "description": "msd step"})
    # the spine after the result (Copilot CLI, Kimi Code) is read the same way
    assert ss.next_call(TOOLS, ["Skill loaded."], "Skill loaded.\n" + SPINE) == ("bash", {"command": RESOLVE, "description": "msd step"})
    assert ss.next_call(TOOLS, [SPINE, "/x/01-load-context.md"]) is None


def test_it_calls_nothing_unasked_or_without_the_tool(monkeypatch):
    monkeypatch.delenv("MSD_STANDIN_SKILL", raising=False)
    assert ss.next_call(TOOLS, []) is None
    monkeypatch.setenv("MSD_STANDIN_SKILL", "msd-plan-phase")
    assert ss.next_call({"read": {}}, []) is None  # no skill tool offered
    assert ss.next_call({"skill": {}, "read": {}}, [SPINE]) is None  # no shell tool offered
    assert ss.next_call(TOOLS, ["Skill loaded; no command named."]) is None
    assert ss.next_call({}, []) is None


def test_it_reads_both_request_shapes():
    chat = {"tools": [{"type": "function", "function": {"name": "bash", "parameters": BASH}}],
            "messages": [{"role": "user", "content": "go"},
                         {"role": "assistant", "tool_calls": [{"id": "1"}]},
                         {"role": "tool", "content": "loaded"},
                         {"role": "user", "content": SPINE}]}
    assert ss.chat_tools(chat) == {"bash": BASH}
    assert ss.chat_results(chat) == ["loaded"]
    assert ss.chat_after_call(chat) == "loaded\n" + SPINE
    gemini = {"tools": [{"functionDeclarations": [{"name": "run_shell_command", "parametersJsonSchema": BASH}]}],
              "contents": [{"role": "user", "parts": [{"text": "go"}]},
                           {"role": "model", "parts": [{"functionCall": {"name": "activate_skill", "args": {}}}]},
                           {"role": "user", "parts": [{"functionResponse": {"name": "activate_skill", "response": {"output": SPINE}}}]}]}
    assert ss.gemini_tools(gemini) == {"run_shell_command": BASH}
    assert [json.loads(r)["response"]["output"] for r in ss.gemini_results(gemini)] == [SPINE]
    assert RESOLVE in ss.gemini_after_call(gemini).replace('\\"', '"')


def test_it_makes_the_scripted_calls_one_a_turn_while_the_tool_is_offered(monkeypatch):
    monkeypatch.delenv("MSD_STANDIN_SKILL", raising=False)
    monkeypatch.setenv("MSD_STANDIN_CALLS", json.dumps([["write_file", {"file_path": "a", "content": "x"}], ["bash", {"command": "ls"}]]))
    tools = {"write_file": {}, "bash": BASH}
    assert ss.next_call(tools, []) == ("write_file", {"file_path": "a", "content": "x"})
    assert ss.next_call(tools, ["refused"]) == ("bash", {"command": "ls"})
    assert ss.next_call(tools, ["refused", "listed"]) is None
    assert ss.next_call({"bash": BASH}, []) is None  # its tool not offered: the plain answer


def test_a_freeform_custom_tool_is_offered_too():
    """Copilot CLI offers a GPT model Codex's freeform apply_patch as a `custom` chat tool."""
    chat = {"tools": [{"type": "custom", "custom": {"name": "apply_patch", "format": {"type": "grammar"}}},
                      {"type": "function", "function": {"name": "bash", "parameters": BASH}}]}
    assert ss.chat_tools(chat) == {"apply_patch": {"custom": True}, "bash": BASH}
