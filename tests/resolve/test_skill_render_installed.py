"""End to end: `msd install --local` of the shipped content, then every installed skill that
carries the resolve shell line rendered the way the host does, compact off and on."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.kit.skill_render import render_file
from tests.resolve.test_skill_render import host_env

SHELL_RE = re.compile(r"!`msd_run resolve ([a-z0-9-]+) --emit --root (\S+) \|\| true`")


@pytest.fixture
def installed_project(tmp_path, msd):
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    r = msd(["install", "--local"], cwd=proj)
    if r.returncode != 0:
        pytest.skip(f"msd install --local is not available here: {r.stderr.strip()[:200]}")
    return proj


def split_skills(proj: Path):
    out = []
    for skill in sorted((proj / ".claude" / "skills").glob("*/SKILL.md")):
        m = SHELL_RE.search(skill.read_text(encoding="utf-8"))
        if m:
            out.append((skill, m.group(1), Path(m.group(2))))
    return out


def registry_parts(proj: Path, stem: str) -> list[Path]:
    manifest = json.loads((proj / ".claude" / "msd-core" / "manifest.json").read_text())
    return [proj / ".claude" / rel for rel in manifest["registry"]["workflows"][stem]["parts"]]


def set_compact(proj: Path, value: bool) -> None:
    (proj / ".planning" / "config.json").write_text(json.dumps({"workflow": {"compact_content": value}}))


def make_shim(tmp_path: Path) -> Path:
    import stat
    import sys

    shim_dir = tmp_path / "shim-bin"
    shim_dir.mkdir()
    script = shim_dir / "msd_run"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m msd_core.run "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return shim_dir


def test_shipped_split_skills_render_their_parts(installed_project, tmp_path):
    shim_dir = make_shim(tmp_path)
    proj = installed_project
    skills = split_skills(proj)
    if not skills:
        pytest.skip("no shipped skill carries the resolve shell line yet")
    for skill, stem, root in skills:
        # a portable root: the host substitutes the skill's folder (no absolute path installed)
        assert str(root) == "${CLAUDE_SKILL_DIR}/../../msd-core", skill
        parts = registry_parts(proj, stem)
        assert parts, stem
        set_compact(proj, False)
        r = render_file(skill, proj, env=host_env(shim_dir))
        out = r.outputs[0]
        assert "msd:notice" not in out, out[:300]
        inlined = [p for p in parts if p.read_text(encoding="utf-8").strip() in out]
        listed = [p for p in parts if str(p) in out.splitlines()]
        assert [*inlined, *listed] == parts, stem  # each part inlined or listed, in reading order
        for p in inlined:
            assert out.count(p.read_text(encoding="utf-8").strip()) == 1
        assert len(out) <= 28000
        set_compact(proj, True)
        r = render_file(skill, proj, env=host_env(shim_dir))
        assert r.outputs[0].startswith("<!-- msd:compact -->") and "\n" not in r.outputs[0]
        for p in parts:
            assert p.read_text(encoding="utf-8").strip() not in r.text
