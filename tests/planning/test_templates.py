"""The project-file templates produce files our own runtime reads.

Each template is rendered the way an agent fills it (every `{{...}}` placeholder replaced)
and the runtime command that consumes it is run on the result. Expected values come
from the docs/CONTRACTS.md formats and the config schema data file, never from the code
under test.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "msd_core" / "content" / "msd-core" / "templates"
SCHEMA = REPO / "msd_core" / "config" / "schema.json"
NAMES = ["project.md", "requirements.md", "roadmap.md", "state.md", "plan.md", "context.md",
         "summary-minimal.md", "summary-standard.md", "summary-complex.md", "config.json"]
# docs/CONTRACTS.md, SUMMARY.md frontmatter
SUMMARY_KEYS = {"phase", "plan", "subsystem", "tags", "requires", "provides", "affects", "tech-stack",
                "key-files", "key-decisions", "patterns-established", "duration", "completed"}
# docs/CONTRACTS.md, PLAN.md frontmatter
PLAN_KEYS = {"phase", "plan", "type", "wave", "depends_on", "files_modified", "autonomous",
             "requirements", "user_setup", "must_haves"}
LEGACY_KEYS = {"depth"}  # the schema's older spelling of granularity: a new project writes granularity only
PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")

FILL = {"NN-slug": "02-auth", "PP": "01", "NN": "02", "n": "2", "YYYY-MM-DD": "2026-11-30",
        "path/one": "src/auth.py", "path/two": "src/session.py", "tests/path": "tests/test_auth.py",
        "CAT-NN": "AUTH-01", "Nmin": "25min"}


def fill(text: str, extra: dict | None = None) -> str:
    table = {**FILL, **(extra or {})}

    def one(m: re.Match) -> str:
        key = m.group(1).strip()
        return table.get(key, "filled " + re.sub(r"[^a-z0-9 ]", "", key.lower())[:20].strip())

    return PLACEHOLDER.sub(one, text)


def frontmatter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def schema_keys() -> dict:
    if not SCHEMA.is_file():
        pytest.skip("config schema data file not present yet")
    return json.loads(SCHEMA.read_text(encoding="utf-8"))["keys"]


def missing_schema_keys(config: dict, keys: dict) -> list[str]:
    """Schema keys absent from `config` or not at their default (the object form of
    parallelization counts for the bool key through its `enabled` member)."""
    problems = []
    for key, spec in keys.items():
        if key in LEGACY_KEYS:
            continue
        node = config
        for part in key.split("."):
            node = node.get(part, KeyError) if isinstance(node, dict) else KeyError
        if node is KeyError:
            problems.append(f"{key}: missing")
            continue
        default = spec.get("default")
        if spec.get("type") == "bool_or_object" and isinstance(node, dict):
            node = node.get("enabled", KeyError)
        if node != default:
            problems.append(f"{key}: {node!r} != default {default!r}")
    return problems


# --- all templates ------------------------------------------------------------------------------

def test_every_listed_template_exists_and_nothing_else():
    assert sorted(p.name for p in TEMPLATES.iterdir()) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_placeholders_are_balanced_and_fill_completely(name):
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    assert text.count("{{") == text.count("}}")
    assert "{{" not in fill(text) and "}}" not in fill(text)
    assert len(text.encode()) < 4096  # templates stay small: they are read at every use


# --- config.json ----------------------------------------------------------------------------------

def test_config_template_has_every_schema_key_at_its_default():
    config = json.loads((TEMPLATES / "config.json").read_text(encoding="utf-8"))
    assert missing_schema_keys(config, schema_keys()) == []
    assert config["workflow"]["compact_content"] is False


def test_schema_key_check_fails_on_a_missing_or_changed_key():
    keys = schema_keys()
    config = json.loads((TEMPLATES / "config.json").read_text(encoding="utf-8"))
    del config["workflow"]["verifier"]
    config["mode"] = "yolo"
    problems = missing_schema_keys(config, keys)
    assert "workflow.verifier: missing" in problems
    assert any(p.startswith("mode:") for p in problems)


def test_config_template_reads_through_msd_run(tmp_path, msd_run):
    (tmp_path / ".planning").mkdir()
    shutil.copy(TEMPLATES / "config.json", tmp_path / ".planning" / "config.json")
    res = msd_run(["config", "get", "workflow.compact_content", "--raw", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "false"  # the file's value, whatever the schema default in force
    res = msd_run(["config", "list", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    res = msd_run(["config", "get", "mode", "--raw", "--cwd", str(tmp_path)])
    assert res.stdout.strip() == "interactive"


# --- SUMMARY tiers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["summary-minimal.md", "summary-standard.md", "summary-complex.md"])
def test_summary_templates_carry_the_contract_keys(name):
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    assert set(frontmatter(text)) == SUMMARY_KEYS
    assert set(frontmatter(fill(text))) == SUMMARY_KEYS


@pytest.mark.parametrize("name", ["summary-minimal.md", "summary-standard.md", "summary-complex.md"])
def test_filled_summary_gives_facts(tmp_path, name):
    summary = pytest.importorskip("msd_core.planning.summary")
    phase_dir = tmp_path / ".planning" / "phases" / "02-auth"
    phase_dir.mkdir(parents=True)
    path = phase_dir / "02-01-SUMMARY.md"
    path.write_text(fill((TEMPLATES / name).read_text(encoding="utf-8"),
                         {"capability now available": "login endpoint", "area touched": "api"}))
    facts = summary.summary_facts(path)
    assert not isinstance(facts, summary.Skip), facts
    assert facts.lenient is None
    assert "login endpoint" in facts.provides
    assert "api" in facts.affects
    assert facts.phase and "2" in str(facts.phase)


def test_history_digest_reads_filled_summaries(tmp_path, msd_run):
    pytest.importorskip("msd_core.run.cmd_history_digest", reason="history-digest not written yet")
    phase_dir = tmp_path / ".planning" / "phases" / "02-auth"
    phase_dir.mkdir(parents=True)
    for i, name in enumerate(["summary-minimal.md", "summary-standard.md", "summary-complex.md"], 1):
        text = fill((TEMPLATES / name).read_text(encoding="utf-8"),
                    {"PP": f"0{i}", "capability now available": f"capability {i}"})
        (phase_dir / f"02-0{i}-SUMMARY.md").write_text(text)
    res = msd_run(["history-digest", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert "skipped" not in out
    provides = json.dumps(out["phases"])
    for i in (1, 2, 3):
        assert f"capability {i}" in provides


# --- PLAN -------------------------------------------------------------------------------------------

def filled_plan() -> str:
    return fill((TEMPLATES / "plan.md").read_text(encoding="utf-8"))


def test_plan_template_frontmatter_is_the_contract():
    text = (TEMPLATES / "plan.md").read_text(encoding="utf-8")
    fm = frontmatter(text)
    assert set(fm) == PLAN_KEYS
    assert set(fm["must_haves"]) == {"truths", "artifacts", "key_links"}
    for tag in ("<objective>", "</objective>", "<context>", "<tasks>", "</tasks>", "<verification>", "<success_criteria>"):
        assert tag in text


def test_plan_template_parses_with_the_runtime():
    plan_mod = pytest.importorskip("msd_core.planning.plan")
    plan = plan_mod.parse_plan(filled_plan())
    assert plan.frontmatter_error is None
    assert [t.type for t in plan.tasks] == ["auto", "auto", "checkpoint:human-verify"]
    assert [t.tdd for t in plan.tasks] == [False, True, False]
    assert [t.is_checkpoint for t in plan.tasks] == [False, False, True]
    assert plan.tasks[1].files == ["src/session.py", "tests/test_auth.py"]
    assert plan.frontmatter["phase"] == "02-auth"


def test_template_select_on_filled_plan(tmp_path, msd_run):
    pytest.importorskip("msd_core.run.cmd_template", reason="template select not written yet")
    phase_dir = tmp_path / ".planning" / "phases" / "02-auth"
    phase_dir.mkdir(parents=True)
    plan = phase_dir / "02-01-PLAN.md"
    plan.write_text(filled_plan())
    res = msd_run(["template", "select", str(plan), "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    # 3 tasks, 3 files, no decisions: more than 2 tasks rules out minimal (issue 7's rule)
    assert out["template"] == "summary-standard"


# --- STATE ------------------------------------------------------------------------------------------

def test_state_template_reads_and_patches(tmp_path, msd_run):
    planning = tmp_path / ".planning"
    planning.mkdir()
    text = fill((TEMPLATES / "state.md").read_text(encoding="utf-8"),
                {"n": "2", "total_phases": "5", "phase_name": "Auth"})
    (planning / "STATE.md").write_text(text)
    res = msd_run(["state", "get", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["position"]["Phase"] == "2 of 5 (Auth)"
    res = msd_run(["state", "patch", "--cwd", str(tmp_path), "--position", "3 of 6 (Payments)",
                   "--status", "In progress", "--add-decision", "[Phase 2]: JWT sessions",
                   "--add-blocker", "Phase 3 UAT: 1 issue", "--set-session", "Paused: handoff .planning/.continue-here.md"])
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["not_found"] == []
    after = (planning / "STATE.md").read_text()
    assert "Phase: 3 of 6 (Payments)" in after
    assert "- [Phase 2]: JWT sessions" in after
    assert "Left off: Paused: handoff .planning/.continue-here.md" in after
    res = msd_run(["state", "patch", "--cwd", str(tmp_path), "--resolve-blocker", "Phase 3 UAT"])
    assert res.returncode == 0, res.stderr
    assert "Phase 3 UAT" not in (planning / "STATE.md").read_text()


# --- ROADMAP, CONTEXT, PROJECT, REQUIREMENTS ---------------------------------------------------------

def test_roadmap_template_shapes():
    text = fill((TEMPLATES / "roadmap.md").read_text(encoding="utf-8"), {"Name": "Auth"})
    assert re.search(r"^- \[ \] Phase 1: Auth — ", text, re.M)
    assert re.search(r"^### Phase 1: Auth$", text, re.M)
    for label in ("Goal:", "Depends on:", "Requirements:", "Done when:", "Plans:"):
        assert len(re.findall(rf"^{label}", text, re.M)) == 2, label
    assert "| Phase |" not in text  # no progress table: state sync computes progress


def test_context_template_sections():
    text = (TEMPLATES / "context.md").read_text(encoding="utf-8")
    fm = frontmatter(text)
    assert set(fm) == {"phase", "gathered", "status"}
    for heading in ("## Phase Boundary", "## Decisions", "## Claude's Discretion", "## Deferred Ideas"):
        assert f"\n{heading}\n" in text


def test_requirements_and_project_templates():
    req = (TEMPLATES / "requirements.md").read_text(encoding="utf-8")
    assert "## Traceability" in req and "- [ ] **{{CAT}}-01**" in req
    proj = (TEMPLATES / "project.md").read_text(encoding="utf-8")
    for heading in ("## What This Is", "## Core Value", "### Validated", "### Active", "### Out of Scope", "## Key Decisions"):
        assert heading in proj
