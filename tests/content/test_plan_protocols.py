"""The plan template's protocol card, compiled against a real install: each section only where the plan needs it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from msd_core.install import install
from msd_core.paths import resolve_target

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content" / "msd-core"
HEADINGS = {"tdd": "## Test-first tasks", "checkpoint": "## Checkpoint tasks", "user-setup": "## Services the person configures"}


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".planning" / "phases" / "01-core").mkdir(parents=True)
    for name in ("PROJECT.md", "ROADMAP.md"):
        (proj / ".planning" / name).write_text(f"# {name}\n")
    (proj / ".planning" / "phases" / "01-core" / "01-CONTEXT.md").write_text("# Context\n")
    result = install(resolve_target("local", project_dir=proj))
    assert result.exit_code == 0, result.errors
    return proj


def _plan(tdd: bool, checkpoint: bool, user_setup: bool) -> str:
    text = (CONTENT / "templates" / "plan.md").read_text()
    text = re.sub(r"\{\{NN-slug\}\}", "01-core", text)
    text = re.sub(r"\{\{NN\}\}", "01", text)
    text = re.sub(r"\{\{PP\}\}", "01", text)
    text = re.sub(r"\{\{[^{}]*\}\}", "x", text)
    if not tdd:
        text = text.replace(' tdd="true"', "")
    if not checkpoint:
        text = re.sub(r'<task type="checkpoint:[^"]*"[^>]*>.*?</task>\s*', "", text, flags=re.S)
    if user_setup:
        text = text.replace("user_setup: []", 'user_setup: [{service: stripe, why: "payments", env: [STRIPE_SECRET_KEY]}]')
    return text


@pytest.mark.parametrize("tdd,checkpoint,user_setup", [
    (False, False, False), (True, False, False), (False, True, False), (False, False, True), (True, True, True),
])
def test_compiled_plan_keeps_exactly_the_sections_the_plan_needs(project, msd_run, tdd, checkpoint, user_setup):
    plan = project / ".planning" / "phases" / "01-core" / "01-01-PLAN.md"
    plan.write_text(_plan(tdd, checkpoint, user_setup))
    root = project / ".claude" / "msd-core"
    r = msd_run(["compile-plan", str(plan), "--root", str(root), "--cwd", str(project)])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    compiled = Path(out["compiled"]).read_text()
    assert "# Running this plan" in compiled  # the card itself was inlined from the verified install
    wanted = {"tdd": tdd, "checkpoint": checkpoint, "user-setup": user_setup}
    for cond, heading in HEADINGS.items():
        assert (heading in compiled) is wanted[cond], (cond, wanted[cond])
    body = compiled[compiled.find("# Running this plan"):]
    assert "<!-- msd:when" not in body and "<!-- msd:end" not in body  # markers of kept blocks dropped too
