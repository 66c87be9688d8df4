"""The per-turn listing (what Claude Code lists to the model every turn: skills and agents) stays
within its budget per profile (msd_core/bench/listing.py), and the guard fails when a listed
command is added; a person-only one is free. The lines themselves are checked against the real
host in tests/host/test_listing_host.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from msd_core.bench.listing import BUDGETS, lines, listing
from msd_core.bench.tokenizer import load
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.paths import resolve_target

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"
COUNT = load()[1]


def installed(tmp_path, profile: str, source=None) -> Path:
    target = resolve_target("global", tmp_path / f"cfg-{profile}")
    install(target, source=source or ContentSource.packaged(), profile=profile)
    return target.config


@pytest.mark.parametrize("profile", ["core", "full"])
def test_the_listing_is_within_its_budget(tmp_path, profile):
    items = listing(installed(tmp_path, profile), COUNT)
    assert sum(items.values()) <= BUDGETS[profile], items


def test_core_lists_its_eight_commands_and_no_agent(tmp_path):
    items = lines(installed(tmp_path, "core"))  # its person-only commands (ui-phase, ...) are not listed
    assert sorted(items) == [f"skill msd-{c}" for c in sorted(
        ["new-project", "discuss-phase", "plan-phase", "execute-phase", "verify-work", "progress", "map-codebase",
         "settings"])]


def test_every_shipped_command_is_listed_in_full_unless_person_only(tmp_path):
    items = lines(installed(tmp_path, "full"))
    for command in (CONTENT / "commands" / "msd").glob("*.md"):
        person_only = "\ndisable-model-invocation: true\n" in command.read_text()
        assert (f"skill msd-{command.stem}" in items) is not person_only, command.stem


def _with_command(tmp_path, front: str) -> ContentSource:
    tree = tmp_path / "content"
    shutil.copytree(CONTENT, tree)
    desc = "Use this command whenever the user asks for anything at all about " + "their project plans " * 8
    (tree / "commands" / "msd" / "extra-thing.md").write_text(f"---\ndescription: {desc.strip()}\n{front}---\nDo it.\n")
    return ContentSource.from_dir(tree)


def test_the_guard_fails_when_a_listed_command_is_added(tmp_path):
    items = listing(installed(tmp_path, "full", _with_command(tmp_path, "")), COUNT)
    assert "skill msd-extra-thing" in items
    assert sum(items.values()) > BUDGETS["full"]


def test_a_person_only_command_costs_nothing(tmp_path):
    base = sum(listing(installed(tmp_path / "a", "full"), COUNT).values())
    items = listing(installed(tmp_path / "b", "full", _with_command(tmp_path, "disable-model-invocation: true\n")), COUNT)
    assert "skill msd-extra-thing" not in items
    assert sum(items.values()) == base
