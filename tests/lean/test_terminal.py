"""msd_core.lean.terminal.clean: the one filter of text bound for a terminal, and the boundaries
that use it (msd's console and plain lines, msd_run's output, the status line)."""

from __future__ import annotations

import json

import pytest

from msd_core.lean.terminal import clean
from tests.conftest import run_cli

HOSTILE = ("v1\x1b]0;owned\x07\x1b[2J\x1b[1;1H\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
           "\x9b31m\x9d2;t\x9c\r\x08\x00\x7f\x1bPq#0\x1b\\\x1bc!")


@pytest.mark.parametrize("text, expected", [
    ("plain\ttext\nwith é, 中 and ✓", "plain\ttext\nwith é, 中 and ✓"),
    ("a\x1b[31mred\x1b[0m b", "ared b"),
    ("title\x1b]0;set by a file\x07 end", "title end"),
    ("osc ended by ST\x1b]52;c;Y29weQ==\x1b\\ end", "osc ended by ST end"),
    ("bell\x07, return\r, backspace\x08, DEL\x7f, NEL\x85", "bell, return, backspace, DEL, NEL"),
    ("C1 CSI\x9b2J done", "C1 CSI done"),
    ("an unfinished \x1b[12", "an unfinished "),
    ("a lone ESC\x1b", "a lone ESC"),
    (HOSTILE, "v1click!"),
])
def test_clean_removes_whole_sequences_and_controls_and_keeps_text(text, expected):
    assert clean(text) == expected


def test_clean_leaves_clean_text_as_it_is():
    text = "msd v2.0 · phase 01 · plan-phase: plan · ctx 42%\n"
    assert clean(text) is text


@pytest.fixture()
def hostile_project(tmp_path):
    planning = tmp_path / "proj" / ".planning"
    planning.mkdir(parents=True)
    (planning / "STATE.md").write_text(f"---\nmilestone: {HOSTILE}\n---\n# State\n\nStatus: {HOSTILE}\n")
    (planning / "config.json").write_text(json.dumps({"mode": HOSTILE, "project_code": HOSTILE}))
    return planning.parent


def _plain(out: str) -> None:
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in out), repr(out)


def test_the_status_line_shows_state_md_without_its_escape_sequences(hostile_project):
    r = run_cli("msd_core.run", ["statusline"], cwd=hostile_project, input=json.dumps({"cwd": str(hostile_project)}))
    assert r.returncode == 0 and r.stdout.startswith("msd v1") and r.stdout.count("\n") == 1
    _plain(r.stdout)


def test_msd_run_text_output_holds_no_escape_sequence(hostile_project):
    r = run_cli("msd_core.run", ["state", "get", "Status", "--raw"], cwd=hostile_project)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "v1click!\n"
    whole = run_cli("msd_core.run", ["state", "get", "--raw"], cwd=hostile_project)
    _plain(whole.stdout)
    assert "milestone: v1click!" in whole.stdout


def test_msd_prints_config_values_without_their_escape_sequences(hostile_project):
    got = run_cli("msd_core", ["config", "get", "project_code"], cwd=hostile_project)
    assert got.stdout == "v1click!\n", got.stderr
    listed = run_cli("msd_core", ["config", "list"], cwd=hostile_project)
    assert listed.returncode == 0 and " mode " in listed.stdout
    _plain(listed.stdout + listed.stderr)
