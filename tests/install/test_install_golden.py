"""Golden lists of installed paths, and an install of the real shipped tree.

tests/golden/installed-paths-fixture.txt is written by hand for the fixture tree.
tests/golden/installed-paths.txt follows the shipped content: when the content changes,
regenerate it with `.venv/bin/python scripts/update_golden.py` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.installkit import FIXTURE, snapshot
from tests.kit.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"
REGEN = "regenerate with `.venv/bin/python scripts/update_golden.py` and review the diff"


def _installed(target) -> list[str]:
    return sorted(k for k in snapshot(target.config) if not k.endswith("/") and not k.startswith("msd-core/.msd/"))


def test_fixture_tree_matches_hand_written_golden(tmp_path):
    target = resolve_target("local", project_dir=tmp_path)
    install(target, source=ContentSource.from_dir(FIXTURE))
    expected = (GOLDEN / "installed-paths-fixture.txt").read_text().splitlines()
    assert _installed(target) == expected


def _load_script():
    return load_script("update_golden")


@pytest.fixture
def real_install(tmp_path):
    src = ContentSource.packaged()
    if not any(rel.startswith("commands/msd/") for rel, _ in src.files()):
        pytest.skip("the shipped content has no commands yet")
    target = resolve_target("local", project_dir=tmp_path)
    res = install(target, source=src)
    assert res.exit_code == 0
    return target, res


def test_real_tree_matches_golden(real_install):
    target, _ = real_install
    golden = GOLDEN / "installed-paths.txt"
    expected = golden.read_text().splitlines() if golden.exists() else []
    actual = _installed(target)
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    assert not missing and not extra, f"installed paths changed (missing {missing[:5]}, new {extra[:5]}): {REGEN}"


def test_update_golden_script_check_mode_agrees(real_install):
    assert _load_script().main(["--check"]) == 0, REGEN


def test_real_tree_installs_valid_skills_without_home_refs(real_install):
    target, res = real_install
    cfg = target.config
    skills = sorted((cfg / "skills").glob("msd-*/SKILL.md"))
    commands = sorted((REPO / "msd_core/content/commands/msd").glob("*.md"))
    assert len(skills) == len(commands) > 0
    for skill in skills:
        text = skill.read_text(encoding="utf-8")
        assert text.startswith("---\n")
        front = yaml.safe_load(text.split("---\n", 2)[1])
        assert front["name"] == skill.parent.name
        assert isinstance(front.get("description"), str) and front["description"].strip()
    for rel in load_manifest(cfg).files:
        assert b"~/.claude/" not in (cfg / rel).read_bytes(), rel
    reg_src = REPO / "msd_core/content/msd-core/registry.json"
    if reg_src.exists():
        assert load_manifest(cfg).registry == json.loads(reg_src.read_text())
    assert res.data["skipped"] == [], res.data["skipped"]


def test_real_tree_uninstall_leaves_nothing(real_install, tmp_path):
    target, _ = real_install
    uninstall(target)
    assert not target.config.exists()
