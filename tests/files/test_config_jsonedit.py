"""The minimal JSON editor behind `config set/unset`: only the changed members' bytes move."""

from __future__ import annotations

import json
import random

import pytest

from msd_core.files.jsonedit import rewrite


def _edit(text: str, change) -> str | None:
    before = json.loads(text)
    after = json.loads(text)
    change(after)
    return rewrite(text, before, after)


def test_changed_value_is_replaced_in_place():
    text = '{\r\n  "a":1e5,\r\n  "b" : "caf\\u00e9",\r\n  "c": true\r\n}\r\n'
    out = _edit(text, lambda d: d.__setitem__("c", False))
    assert out == text.replace("true", "false")


def test_new_member_follows_the_last_in_the_files_style():
    text = '{\n\t"w": {\n\t\t"a": true\n\t}\n}\n'
    out = _edit(text, lambda d: d["w"].__setitem__("b", 3))
    assert out == '{\n\t"w": {\n\t\t"a": true,\n\t\t"b": 3\n\t}\n}\n'


def test_single_line_file_stays_single_line():
    text = '{"a":1,"w":{"x":true}}'
    out = _edit(text, lambda d: d["w"].__setitem__("y", False))
    assert out == '{"a":1,"w":{"x":true,"y":false}}'


def test_nested_group_created_in_an_empty_object_and_at_top():
    # an empty `{}` stays on its line: taking the member out again gives back exactly `{}`
    assert _edit('{\n  "w": {}\n}\n', lambda d: d["w"].__setitem__("r", 1)) == '{\n  "w": {"r": 1}\n}\n'
    assert _edit("{}", lambda d: d.__setitem__("a", {"b": 1})) == '{"a": {"b": 1}}'


def test_removal_takes_its_comma_and_round_trips():
    text = '{\r\n  "a": 1,\r\n  "b": 2,\r\n  "c": 3\r\n}\r\n'
    for key in "abc":
        out = _edit(text, lambda d, k=key: d.pop(k))
        assert json.loads(out) == {k: v for k, v in json.loads(text).items() if k != key}
        back = _edit(out, lambda d, k=key: d.__setitem__(k, json.loads(text)[k]))
        assert json.loads(back) == json.loads(text)
    assert _edit(text, lambda d: d.pop("c")) == '{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n'


def test_duplicate_key_edits_the_one_json_reads():
    text = '{"a": 1, "a": 2}'
    out = _edit(text, lambda d: d.__setitem__("a", 5))
    assert out == '{"a": 1, "a": 5}' and json.loads(out) == {"a": 5}


@pytest.mark.parametrize("text", ["[1, 2]", '{"a": 1} trailing', '{"a": 1,,}', ""])
def test_what_it_cannot_edit_is_none(text):
    assert rewrite(text, {"a": 1}, {"a": 2}) is None


def test_random_edits_always_parse_to_the_wanted_object():
    """Bounded: 300 random documents and edits; the result parses to `after` (or None)."""
    rng = random.Random(13)
    keys = ["a", "b", "c", "d"]

    def doc(depth=0):
        out = {}
        for k in rng.sample(keys, rng.randint(0, 3)):
            out[k] = doc(depth + 1) if depth < 2 and rng.random() < 0.3 else rng.choice([True, 1, 2.5, "x", None])
        return out

    done = 0
    for _ in range(300):
        before = doc()
        style = rng.choice([{"indent": 2}, {"indent": "\t"}, {"separators": (",", ":")}, {}])
        text = json.dumps(before, **style)
        if rng.random() < 0.5:
            text = text.replace("\n", "\r\n")
        after = json.loads(json.dumps(before))
        node = after
        while isinstance(node, dict) and node and rng.random() < 0.5:
            k = rng.choice(list(node))
            if not isinstance(node[k], dict):
                break
            node = node[k]
        if node and rng.random() < 0.3:
            node.pop(rng.choice(list(node)))
        else:
            node[rng.choice(keys)] = rng.choice([False, 7, "y", {"z": 1}])
        out = rewrite(text, before, after)
        if out is not None:
            assert json.loads(out) == after
            if "\r\n" in text:
                assert "\n" not in out.replace("\r\n", "")
            done += 1
    assert done > 250  # it handles nearly every case itself


def test_indent_of_reads_the_first_indented_line():
    from msd_core.files.jsonedit import indent_of

    assert indent_of('{\n    "a": 1\n}\n') == 4
    assert indent_of('{\n\t"a": {\n\t\t"b": 1\n\t}\n}') == "\t"
    assert indent_of('{\n"a": 1,\n  "b": 2\n}') == 2  # the first line that is indented at all
    assert indent_of('{"a": 1}') == 2 and indent_of('{"a": 1}', None) is None  # nothing indented: the default
