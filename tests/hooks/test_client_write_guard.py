"""The `.planning/` write guard in the other agent CLIs' hooks: each client's file-writing tools
(msd_core/hooks/copilot.py, qwen.py, gemini.py, kimi.py) and Codex's apply_patch (patch_edits.py,
through msd's own pre-tool-use) judged as Claude Code's Write and Edit are; a bad payload goes ahead
unjudged, never crashes. The real CLIs: tests/runtimes/test_client_write_guard_cli.py."""

from __future__ import annotations

import json
import re

import pytest

from tests.hooks.conftest import STATE, decision, run_hook

OFF = json.dumps({"mode": "interactive", "guards": {"planning_write": False}}, indent=2) + "\n"
WIPED = "# State\n\nNothing yet.\n"
SECTIONS = "drops STATE.md's Position, Decisions, Blockers, Session sections"
GUARDS = "changes the `guards` settings, which are the user's"


def _ask(event: str, payload: dict) -> str | None:
    out, code = run_hook(payload, event)
    assert code == 0
    if not out:
        return None
    answer = json.loads(out)
    if event.startswith("copilot"):
        assert answer["permissionDecision"] == "deny"
        return answer["permissionDecisionReason"]
    if event.startswith("gemini"):
        assert answer["decision"] == "deny"
        return answer["reason"]
    return decision(out)


def _call(client: str, project, tool: str, args) -> str | None:
    """The client's hook asked about its own tool call, in its own payload shape."""
    if client == "copilot":
        return _ask("copilot-pre-tool-use", {"sessionId": "S1", "timestamp": 1, "cwd": str(project), "toolName": tool,
                                             "toolArgs": args})
    return _ask(f"{client}-pre-tool-use", {"session_id": "S1", "cwd": str(project), "hook_event_name": "PreToolUse",
                                           "tool_name": tool, "tool_input": args})


# each client's whole-file write and its edit, as (tool, arguments) builders: (path, content) and (path, old, new)
WRITES = {
    "copilot": lambda p, c: ("create", {"path": p, "file_text": c}),
    "qwen": lambda p, c: ("write_file", {"file_path": p, "content": c}),
    "gemini": lambda p, c: ("write_file", {"file_path": p, "content": c}),
    "kimi": lambda p, c: ("Write", {"path": p, "content": c}),
}
EDITS = {
    "copilot": lambda p, o, n: ("edit", {"path": p, "old_str": o, "new_str": n}),
    "qwen": lambda p, o, n: ("edit", {"file_path": p, "old_string": o, "new_string": n}),
    "gemini": lambda p, o, n: ("replace", {"file_path": p, "instruction": "x", "old_string": o, "new_string": n}),
    "kimi": lambda p, o, n: ("Edit", {"path": p, "old_string": o, "new_string": n}),
}


@pytest.mark.parametrize("client", list(WRITES))
def test_each_clients_whole_file_write_is_judged_by_the_one_write_guard(client, planning_project):
    pl = planning_project / ".planning"
    reason = _call(client, planning_project, *WRITES[client](str(pl / "STATE.md"), WIPED))
    assert reason.startswith("msd guard: Write of .planning/STATE.md refused: ") and SECTIONS in reason, reason
    assert GUARDS in _call(client, planning_project, *WRITES[client](str(pl / "config.json"), OFF))
    assert "an agent never writes there" in _call(client, planning_project, *WRITES[client](str(pl / ".msd/x.json"), "{}"))
    # a path relative to the session's folder is the same file
    assert SECTIONS in _call(client, planning_project, *WRITES[client](".planning/STATE.md", WIPED))
    # normal writes go ahead
    assert _call(client, planning_project, *WRITES[client](str(planning_project / "src/app.py"), "print(1)\n")) is None
    assert _call(client, planning_project, *WRITES[client](str(pl / "STATE.md"), STATE + "\nOne more line.\n")) is None


@pytest.mark.parametrize("client", list(EDITS))
def test_each_clients_edit_is_judged_by_the_one_write_guard(client, planning_project):
    pl = planning_project / ".planning"
    config = (pl / "config.json").read_text()
    reason = _call(client, planning_project, *EDITS[client](str(pl / "STATE.md"), "## Decisions\n- Use Postgres\n", ""))
    assert reason.startswith("msd guard: Edit of .planning/STATE.md refused: ") and "drops STATE.md's Decisions section" in reason
    guards_off = config.replace('"mode": "interactive"', '"mode": "interactive", "guards": {"secret_read": false}')
    assert GUARDS in _call(client, planning_project, *EDITS[client](str(pl / "config.json"), config, guards_off))
    assert _call(client, planning_project, *EDITS[client](str(pl / "STATE.md"), "- Use Postgres", "- Use Postgres 16")) is None


def test_copilots_edit_without_new_str_deletes_and_is_judged_so(planning_project):
    state = str(planning_project / ".planning/STATE.md")
    reason = _call("copilot", planning_project, "edit", {"path": state, "old_str": "## Decisions\n- Use Postgres\n"})
    assert "drops STATE.md's Decisions section" in reason


def test_copilots_arguments_as_json_text_are_read_too(planning_project):
    state = str(planning_project / ".planning/STATE.md")
    assert SECTIONS in _call("copilot", planning_project, "create", json.dumps({"path": state, "file_text": WIPED}))


def test_kimis_append_is_judged_as_the_whole_text_it_leaves(planning_project):
    pl = planning_project / ".planning"
    assert _call("kimi", planning_project, "Write", {"path": str(pl / "STATE.md"), "content": "- one more\n", "mode": "append"}) is None
    assert _call("kimi", planning_project, "Write", {"path": "notes.md", "content": "x\n", "mode": "append"}) is None
    assert SECTIONS in _call("kimi", planning_project, "Write", {"path": str(pl / "STATE.md"), "content": WIPED, "mode": "overwrite"})
    assert _call("kimi", planning_project, "Write", {"path": str(pl / "STATE.md"), "content": WIPED, "mode": "append"}) is None


@pytest.mark.parametrize("client", ["gemini", "qwen"])
def test_a_loose_matching_clients_edit_the_guard_cannot_work_out_is_refused(client, planning_project):
    """Gemini's replace and Qwen's edit apply edits their text does not match exactly; Claude Code's
    Edit does not, so the same input in Claude's payload goes ahead (the host refuses it itself)."""
    state = str(planning_project / ".planning/STATE.md")
    reason = _call(client, planning_project, *EDITS[client](state, "## Decisions  \n- Use  Postgres\n", ""))
    assert "the guard cannot work out what this edit leaves in the file" in reason
    assert _call(client, planning_project, *EDITS[client](str(planning_project / "a.md"), "x", "")) is None
    claude = {"session_id": "S1", "cwd": str(planning_project), "tool_name": "Edit",
              "tool_input": {"file_path": state, "old_string": "## Decisions  \n- Use  Postgres\n", "new_string": ""}}
    assert _ask("pre-tool-use", claude) is None


@pytest.mark.parametrize("client", list(WRITES))
@pytest.mark.parametrize("args", [None, [], "not json", "[1]", {}, {"content": WIPED}, {"path": 7, "file_path": 7}])
def test_bad_write_payloads_go_ahead_unjudged(client, args, planning_project):
    tool = WRITES[client]("p", "c")[0]
    assert _call(client, planning_project, tool, args) is None


def test_a_client_payload_cannot_set_the_loose_flag_for_claudes_edit(planning_project):
    state = str(planning_project / ".planning/STATE.md")
    payload = {"session_id": "S1", "cwd": str(planning_project), "tool_name": "write_file", "msd_loose_edits": False,
               "tool_input": {"file_path": state, "content": WIPED}}
    assert SECTIONS in _ask("qwen-pre-tool-use", payload)


def _matcher(module) -> str:
    return module.SETTINGS.matcher if hasattr(module, "SETTINGS") else module.MATCHER


@pytest.mark.parametrize("settings, adapter", [("qwen_settings", "qwen"), ("gemini_settings", "gemini"), ("kimi_config", "kimi")])
def test_each_installed_matcher_sends_every_mapped_tool_to_the_hook(settings, adapter):
    import importlib

    matcher = re.compile(_matcher(importlib.import_module(f"msd_core.runtimes.{settings}")))
    tools = importlib.import_module(f"msd_core.hooks.{adapter}").TOOLS
    assert [t for t in tools if not matcher.search(t)] == []
    assert {"Write", "Edit"} <= {row[0] for row in tools.values()}


def test_codexs_matcher_sends_its_shell_and_its_patch_tool():
    from msd_core.runtimes.codex_hooks import SETTINGS

    assert all(re.search(SETTINGS.matcher, t) for t in ("Bash", "apply_patch"))
    assert not re.search(SETTINGS.matcher, "apply_patch_x")


# ------------------------------------------------------------------ Codex: apply_patch (patch_edits.py)


def _patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch"


DROP_SECTION = ("*** Update File: .planning/STATE.md\n@@ ## Position\n-Focus: Phase 2 (Accounts)\n+Focus: Phase 3\n"
                "@@\n-## Decisions\n-- Use Postgres\n")


def test_codexs_patch_is_judged_file_by_file_as_the_write_it_leaves(planning_project, decide):
    reason = decide(planning_project, "apply_patch", {"command": _patch(DROP_SECTION)})
    assert reason.startswith("msd guard: apply_patch of .planning/STATE.md refused: ") and "Decisions section" in reason
    config = ('*** Update File: .planning/config.json\n@@\n-  "mode": "interactive"\n'
              '+  "mode": "interactive", "guards": {"planning_write": false}\n')
    assert GUARDS in decide(planning_project, "apply_patch", {"command": _patch(config)})
    into_msd = _patch("*** Add File: .planning/.msd/x\n+{}\n")
    assert "an agent never writes there" in decide(planning_project, "apply_patch", {"command": into_msd})
    assert SECTIONS in decide(planning_project, "apply_patch", {"command": _patch("*** Delete File: .planning/STATE.md\n")})
    moved = "*** Update File: .planning/STATE.md\n*** Move to: old-state.md\n@@\n-Status: Ready to plan\n+Status: moved\n"
    assert SECTIONS in decide(planning_project, "apply_patch", {"command": _patch(moved)})
    # the file after a refusal-free file is still judged: the second file refuses
    ok = "*** Add File: src/app.py\n+print(1)\n"
    assert SECTIONS in decide(planning_project, "apply_patch", {"command": _patch(ok, "*** Delete File: .planning/STATE.md\n")})
    # normal patches go ahead
    assert decide(planning_project, "apply_patch", {"command": _patch(ok)}) is None
    small = "*** Update File: .planning/STATE.md\n@@ ## Position\n-Status: Ready to plan\n+Status: Planning\n"
    assert decide(planning_project, "apply_patch", {"command": _patch(small)}) is None


def test_a_patch_codex_runs_as_its_shell_is_judged_the_same(planning_project, decide):
    heredoc = f"apply_patch <<'EOF'\n{_patch(DROP_SECTION)}\nEOF\n"
    assert "Decisions section" in decide(planning_project, "Bash", {"command": heredoc})
    inside = f"cd .planning && apply_patch <<'EOF'\n{_patch(DROP_SECTION.replace('.planning/STATE.md', 'STATE.md'))}\nEOF\n"
    assert "Decisions section" in decide(planning_project, "Bash", {"command": inside})
    assert decide(planning_project, "Bash", {"command": f"echo '{_patch(DROP_SECTION)}' > notes.txt"}) is None


def test_a_planning_patch_the_guard_cannot_apply_is_refused_and_others_go_ahead(planning_project, decide):
    stale = "*** Update File: .planning/STATE.md\n@@\n-Focus: Phase 9 (Gone)\n+Focus: Phase 3\n"
    reason = decide(planning_project, "apply_patch", {"command": _patch(stale)})
    assert "apply_patch of .planning/STATE.md refused: the guard cannot work out what this patch leaves in the file" in reason
    assert decide(planning_project, "apply_patch", {"command": _patch(stale.replace(".planning/", ""))}) is None
    for bad in (None, 7, "", "no patch here", {"x": 1}):
        assert decide(planning_project, "apply_patch", {"command": bad}) is None


def test_patch_edits_finds_a_hunk_as_codex_does():
    from msd_core.hooks.patch_edits import changes, from_shell

    text = {"a.md": "one\n  two  \nthree\nfour\n"}
    patch = _patch("*** Update File: a.md\n@@\n one\n-two\n+TWO\n@@ three\n-four\n+FOUR\n*** End of File\n",
                   "*** Add File: b.md\n+hello\n+world\n", "*** Delete File: c.md\n")
    assert changes(patch, text.get) == [("a.md", "one\nTWO\nthree\nFOUR\n"), ("b.md", "hello\nworld\n"), ("c.md", "")]
    assert changes(_patch("*** Update File: a.md\n@@\n+five\n"), text.get) == [("a.md", "one\n  two  \nthree\nfour\nfive\n")]
    # the newline after `*** End Patch` (Codex's freeform tool sends one) is no hunk line
    assert changes(_patch("*** Update File: a.md\n@@\n-four\n") + "\n", text.get) == [("a.md", "one\n  two  \nthree\n")]
    assert changes(_patch("*** Update File: a.md\n@@\n-nine\n"), text.get) == [("a.md", None)]
    assert changes(_patch("*** Update File: gone.md\n@@\n-x\n"), text.get) == [("gone.md", None)]
    assert from_shell("apply_patch \"" + _patch("") + "\"") == (_patch(""), None)
    assert from_shell(f"cd 'my dir' && applypatch <<EOF\n{_patch('')}\nEOF") == (_patch(""), "my dir")
    assert from_shell(f"cat <<EOF\n{_patch('')}\nEOF") is None and from_shell(None) is None


def test_copilots_apply_patch_for_a_gpt_model_is_judged_as_codexs(planning_project):
    """Copilot CLI 1.0.102 offers a GPT model Codex's freeform apply_patch, its hook the patch as text."""
    assert "Decisions section" in _call("copilot", planning_project, "apply_patch", _patch(DROP_SECTION))
    assert _call("copilot", planning_project, "apply_patch", _patch("*** Add File: src/app.py\n+print(1)\n")) is None


def test_patch_edits_finds_a_hunk_after_its_anchor_among_repeated_lines():
    from msd_core.hooks.patch_edits import changes

    text = {"a.md": "## One\n- x\n## Two\n- x\n"}
    assert changes(_patch("*** Update File: a.md\n@@ ## Two\n-- x\n+- y\n"), text.get) == [("a.md", "## One\n- x\n## Two\n- y\n")]
    assert changes(_patch("*** Update File: a.md\n@@\n-- x\n+- y\n@@\n-- x\n+- z\n"), text.get) == [("a.md", "## One\n- y\n## Two\n- z\n")]
    many = {"a.md": "a\n" * 200_000}  # one substring search a tier: a long run of one line is found at once
    assert changes(_patch("*** Update File: a.md\n@@\n" + " a\n" * 2000 + "-b\n"), many.get) == [("a.md", None)]


@pytest.mark.parametrize("client", ["qwen", "gemini"])
def test_an_edit_that_creates_a_file_is_judged_as_the_file_it_creates(client, planning_project):
    """Qwen's edit and Gemini's replace with an empty old_string create the file with new_string."""
    config = planning_project / ".planning/config.json"
    config.unlink()
    assert GUARDS in _call(client, planning_project, *EDITS[client](str(config), "", OFF))
    assert _call(client, planning_project, *EDITS[client](str(planning_project / ".planning/NOTES.md"), "", "# Notes\n")) is None


def test_an_unworkable_patch_of_a_document_follows_the_guards_settings_and_a_persons_allowance(planning_project, decide):
    from msd_core.hooks import guard_memory

    stale = _patch("*** Update File: .planning/STATE.md\n@@\n-Focus: Phase 9 (Gone)\n+Focus: Phase 3\n")
    assert "msd guard allow .planning/STATE.md" in decide(planning_project, "apply_patch", {"command": stale})
    guard_memory.grant(str(planning_project / ".planning"), "STATE.md", 5)
    assert decide(planning_project, "apply_patch", {"command": stale}) is None  # the one write a person allowed
    (planning_project / ".planning/config.json").write_text(json.dumps({"guards": {"planning_write": False}}))
    assert decide(planning_project, "apply_patch", {"command": stale}) is None
    config = _patch("*** Update File: .planning/config.json\n@@\n-nothing like it\n+x\n")
    assert "cannot work out what this patch leaves" in decide(planning_project, "apply_patch", {"command": config})
