"""The one byte editor (msd_core/files/jsonedit.py) on other programs' files: an entry msd adds
and then takes out again leaves every byte as it was (formatting, CRLF, BOM, tabs, number
spellings, escapes, duplicate keys, inline objects, comments and trailing commas), an edit the
user made in between survives, and what cannot be edited in place is refused, not reformatted."""

from __future__ import annotations

import copy
import json
import random

import pytest

from msd_core.files.jsonedit import BOM, EditError, blank_jsonc, edit_bytes, loads, rewrite

OURS = "Bash(msd_run *)"
HOOK = {"hooks": [{"type": "command", "command": "/opt/venv it's/bin/msd_run", "args": ["hook", "session-start"]}]}


def _add(obj: dict) -> dict:
    out = copy.deepcopy(obj)
    out.setdefault("permissions", {}).setdefault("allow", []).append(OURS)
    out.setdefault("hooks", {}).setdefault("SessionStart", []).append(HOOK)
    return out


def _remove(obj: dict, created: set[str]) -> dict:
    out = copy.deepcopy(obj)
    out["permissions"]["allow"].remove(OURS)
    out["hooks"]["SessionStart"].remove(HOOK)
    for outer, inner in (("permissions", "allow"), ("hooks", "SessionStart")):
        if f"{outer}.{inner}" in created and not out[outer][inner]:
            del out[outer][inner]
        if outer in created and not out[outer]:
            del out[outer]
    return out


def _created(obj: dict) -> set[str]:
    out = set()
    for outer, inner in (("permissions", "allow"), ("hooks", "SessionStart")):
        if outer not in obj:
            out |= {outer, f"{outer}.{inner}"}
        elif inner not in obj[outer]:
            out.add(f"{outer}.{inner}")
    return out


USER_FILES = {
    "crlf-inline-dupes-escapes-numbers": (
        '{\r\n  "model": "x", "n": 1.50e3, "big": 12345678901234567890, "s": "caf\\u00e9 \\/ \\"q\\"",\r\n'
        '  "permissions": {"allow": ["Read"], "allow": ["Bash(ls)"]},\r\n'
        '  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}\r\n}\r\n'),
    "tabs": '{\n\t"a": 1,\n\t"permissions": {\n\t\t"allow": [\n\t\t\t"Read"\n\t\t]\n\t}\n}',
    "one-line": '{"a":1,"permissions":{"deny":[]}}',
    "empty": "{}",
    "empty-newline": "{}\n",
    "empty-open": "{\n}\n",
    "empty-spaced": "{ }",
    "empty-lists": '{\n  "permissions": {\n    "allow": [\n    ]\n  },\n  "hooks": {}\n}\n',
    "jsonc": '{\n  // comment\n  "a": 1, /* x */\n  "permissions": {\n    "allow": [], // trailing\n  },\n}\n',
    "claude-code": json.dumps({"numStartups": 3, "projects": {"/p": {"allowedTools": []}}, "permissions": {"allow": ["Read"]}}, indent=2),
    "four-spaces-unicode": '{\n    "name": "é ✓",\n    "hooks": {\n        "SessionStart": [\n            {"matcher": "startup", "hooks": []}\n        ]\n    }\n}\n',
}


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_added_then_removed_gives_back_every_byte(name):
    text = USER_FILES[name]
    before = loads(text)
    after = _add(before)
    mid = rewrite(text, before, after)
    assert mid is not None and loads(mid) == after
    assert rewrite(mid, after, _remove(after, _created(before))) == text


def test_only_the_owned_bytes_move():
    text = USER_FILES["crlf-inline-dupes-escapes-numbers"]
    mid = rewrite(text, loads(text), _add(loads(text)))
    assert "1.50e3" in mid and "12345678901234567890" in mid and 'caf\\u00e9 \\/ \\"q\\"' in mid
    assert '"allow": ["Read"], "allow": ["Bash(ls)", "Bash(msd_run *)"]' in mid  # the last copy: what readers keep
    assert "\n" not in mid.replace("\r\n", "")  # CRLF throughout
    assert mid.startswith(text[: text.index('"permissions"')])


def test_bom_is_kept_and_a_missing_file_gets_claude_codes_layout():
    data = BOM + USER_FILES["tabs"].encode()
    before = loads(USER_FILES["tabs"])
    new = edit_bytes(data, before, _add(before))
    assert new.startswith(BOM) and json.loads(new[3:]) == _add(before)
    assert edit_bytes(new, _add(before), before) == data
    assert edit_bytes(None, {}, {"a": [1]}) == b'{\n  "a": [\n    1\n  ]\n}\n'


def test_a_user_edit_made_in_between_survives_the_removal():
    text = USER_FILES["claude-code"]
    before = loads(text)
    mid = rewrite(text, before, _add(before))
    edited = mid.replace('"numStartups": 3', '"numStartups": 4')
    edited_obj = loads(edited)
    edited_obj["permissions"]["allow"].append("Write")
    edited = rewrite(edited, loads(edited), edited_obj)
    back = rewrite(edited, edited_obj, _remove(edited_obj, _created(before)))
    want = json.loads(text)
    want["numStartups"] = 4
    want["permissions"]["allow"].append("Write")
    assert loads(back) == want
    assert back == rewrite(text, before, want)  # as if msd had never been there


def test_removing_a_duplicated_key_removes_every_copy():
    text = '{"a": 1, "b": 2, "a": 3}'
    assert rewrite(text, {"a": 3, "b": 2}, {"b": 2}) == '{"b": 2}'


def test_comments_and_strings_that_look_like_structure_are_not_members():
    text = '{"a": "} // {", /* "permission": 1 */ "permission": {"bash": {"x": "ask"}}}'
    before = loads(text)
    assert before == {"a": "} // {", "permission": {"bash": {"x": "ask"}}}
    after = copy.deepcopy(before)
    after["permission"]["bash"]["msd_run *"] = "allow"
    mid = rewrite(text, before, after)
    assert mid == text.replace('"ask"}', '"ask", "msd_run *": "allow"}')
    assert rewrite(mid, after, before) == text
    assert blank_jsonc('{"a": 1, // c\n}') == '{"a": 1      \n}'  # same length: positions kept


@pytest.mark.parametrize("text", ['{"a": 1,, }', '{"a": "unterminated}', "[1, 2]", '{"a": 1} trailing'])
def test_what_does_not_parse_or_is_no_object_is_refused(text):
    assert rewrite(text, {"a": 1}, {"a": 1, "b": 2}) is None
    with pytest.raises(EditError):
        edit_bytes(text.encode(), {"a": 1}, {"a": 1, "b": 2})


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(EditError, match="not UTF-8"):
        edit_bytes(b'{"a": "\xff"}', {"a": "?"}, {})


def test_random_documents_round_trip_byte_for_byte():
    """Bounded: 400 random documents in random layouts; msd's entries in and out again."""
    rng = random.Random(29)
    words = ["a", "b", "permissions", "hooks", "allow", "SessionStart", "x"]

    def value(depth):
        r = rng.random()
        if depth < 3 and r < 0.25:
            return {k: value(depth + 1) for k in rng.sample(words, rng.randint(0, 3))}
        if depth < 3 and r < 0.4:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return rng.choice([True, None, 0, -2.5, 1e21, "s", "é\n\t", ""])

    done = 0
    for _ in range(400):
        doc = {k: value(1) for k in rng.sample(words, rng.randint(0, 4))}
        for key, inner in (("permissions", "allow"), ("hooks", "SessionStart")):
            if key in doc and not isinstance(doc[key], dict):
                doc[key] = {}
            if key in doc and inner in doc[key] and not isinstance(doc[key][inner], list):
                del doc[key][inner]
        layout = rng.choice([{"indent": 2}, {"indent": "\t"}, {"indent": 4}, {"separators": (",", ":")}, {}])
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5, **layout)
        if rng.random() < 0.3:
            text = text.replace("\n", "\r\n")
        if rng.random() < 0.3:
            text += "\n"
        mid = rewrite(text, doc, _add(doc))
        assert mid is not None, text
        assert json.loads(mid) == _add(doc)
        assert rewrite(mid, _add(doc), _remove(_add(doc), _created(doc))) == text, text
        done += 1
    assert done == 400


def test_deep_input_is_refused_not_a_recursion_error():
    deep = '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}"
    assert rewrite(deep, {"a": []}, {"a": [], "b": 1}) is None
    with pytest.raises(EditError):
        edit_bytes(deep.encode(), {"a": []}, {"a": [], "b": 1})
