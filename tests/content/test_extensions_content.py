"""The shipped agents, their extensions and skill payloads: format, budgets, and agreement with the code."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from msd_core.agents.extensions import EXECUTOR_ORDER, PLANNER_ORDER
from msd_core.files.atomic import sha256_bytes
from msd_core.ownership.manifest import Manifest
from msd_core.shipped.layout import installed_relpath
from msd_core.shipped.registry import build_registry

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"
AGENTS = ["planner", "executor", "verifier", "phase-researcher", "project-researcher",
          "plan-checker", "roadmapper", "codebase-mapper", "debugger", "reviewer", "integration-checker"]
WITH_COMPACT = {"executor", "planner", "verifier"}
CORE_BUDGET = {"executor": 7 * 1024, "planner": 18 * 1024}
OTHER_BUDGET = 16 * 1024
KNOWN_TOOLS = {"Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Task"}
RULES = {"executor": EXECUTOR_ORDER, "planner": PLANNER_ORDER}


def frontmatter(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    m = re.match(r"\A---\n(.*?)\n---\n", text, re.DOTALL)
    assert m, f"{path.name}: no frontmatter"
    data = yaml.safe_load(m.group(1))
    assert isinstance(data, dict), path.name
    return data, text[m.end():]


@pytest.mark.parametrize("agent", AGENTS)
def test_agent_file_format(agent):
    path = CONTENT / "agents" / f"msd-{agent}.md"
    data, body = frontmatter(path)
    assert data["name"] == f"msd-{agent}"
    # listed to the model on every turn (tests/bench/test_listing.py holds the whole listing to its budget):
    # what the agent does, in a short sentence
    assert isinstance(data["description"], str) and 15 <= len(data["description"]) <= 60
    tools = [t.strip() for t in data["tools"].split(",")]
    assert tools and set(tools) <= KNOWN_TOOLS, tools
    assert len(body.strip()) > 1000
    size = path.stat().st_size
    assert size <= CORE_BUDGET.get(agent, OTHER_BUDGET), f"{path.name} is {size} bytes"


def test_no_stray_agent_files():
    shipped = sorted(p.name for p in (CONTENT / "agents").glob("*.md"))
    assert shipped == sorted(f"msd-{a}.md" for a in AGENTS)


@pytest.mark.parametrize("agent", ["executor", "planner"])
def test_extension_files_match_the_rules_exactly(agent):
    shipped = {p.stem for p in (CONTENT / "msd-core" / "agent-ext" / agent).glob("*.md")}
    assert shipped == set(RULES[agent])  # every rule has a file; no file code can never choose
    for p in (CONTENT / "msd-core" / "agent-ext" / agent).glob("*.md"):
        size = p.stat().st_size
        assert 1500 <= size < 32768, f"{p.name}: {size}"
        assert "\n@" not in p.read_text()  # no include lines: nothing would expand them


def test_only_executor_and_planner_have_extensions():
    dirs = {p.name for p in (CONTENT / "msd-core" / "agent-ext").iterdir() if p.is_dir()}
    assert dirs == {"executor", "planner"}


def test_cores_tell_the_agent_to_ask_code_for_extensions():
    ex = (CONTENT / "agents" / "msd-executor.md").read_text()
    pl = (CONTENT / "agents" / "msd-planner.md").read_text()
    assert "msd_run extensions executor --plan <plan-path> --root ~/.claude/msd-core --raw" in ex
    assert "msd_run extensions planner --phase-dir <phase-dir> --root ~/.claude/msd-core --raw" in pl
    for flag in ("--gaps", "--revision", "--new-deps"):
        assert flag in pl
    assert "--completed <n>" in ex
    summary = (CONTENT / "msd-core" / "agent-ext" / "executor" / "summary.md").read_text()
    assert "msd_run template select <plan-path> --root ~/.claude/msd-core" in summary


SUMMARY_KEYS = ["phase", "plan", "subsystem", "tags", "requires", "provides", "affects", "tech-stack",
                "key-files", "key-decisions", "patterns-established", "duration", "completed"]


def test_summary_extension_frontmatter_is_the_contract_and_protected():
    text = (CONTENT / "msd-core" / "agent-ext" / "executor" / "summary.md").read_text()
    block = text.split("<!-- msd:protected:start -->", 1)[1].split("<!-- msd:protected:end -->", 1)[0]
    fm = block.split("---\n", 2)[1]
    data = yaml.safe_load(fm)
    assert list(data) == SUMMARY_KEYS
    assert set(data["key-files"]) == {"created", "modified"} and set(data["tech-stack"]) == {"added", "patterns"}


def test_verifier_format_is_parseable_and_statuses_named():
    text = (CONTENT / "agents" / "msd-verifier.md").read_text()
    block = text.split("<!-- msd:protected:start -->", 1)[1].split("<!-- msd:protected:end -->", 1)[0]
    data = yaml.safe_load(block.split("---\n", 2)[1])
    assert data["status"] in ("passed", "gaps_found", "human_needed")
    gap = data["gaps"][0]
    assert set(gap) == {"id", "truth", "status", "reason", "artifacts", "missing"}
    for word in ("passed", "gaps_found", "human_needed"):
        assert f"`{word}`" in text
    # gap-closure planning reads exactly those keys
    gap_ext = (CONTENT / "msd-core" / "agent-ext" / "planner" / "gap-closure.md").read_text()
    for key in gap:
        assert f"`{key}`" in gap_ext


def test_plan_checker_issue_block_parses_and_matches_revision():
    text = (CONTENT / "agents" / "msd-plan-checker.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 2
    dims = set()
    for b in blocks:
        for issue in yaml.safe_load(b)["issues"]:
            assert set(issue) == {"id", "plan", "dimension", "severity", "description", "fix"}
            dims.add(issue["dimension"])
    revision = (CONTENT / "msd-core" / "agent-ext" / "planner" / "revision.md").read_text()
    table_dims = set(re.findall(r"^\| ([a-z_]+) \|", revision, re.MULTILINE)) - {"dimension"}
    checker_dims = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE))
    assert table_dims == checker_dims and len(checker_dims) == 6 and dims <= checker_dims


@pytest.mark.parametrize("agent", AGENTS)
def test_skill_payloads(agent):
    skills = CONTENT / "msd-core" / "agent-skills"
    canonical = skills / f"{agent}.md"
    size = canonical.stat().st_size
    assert 900 <= size <= 4096, f"{canonical.name}: {size}"
    compact = skills / f"{agent}.compact.md"
    if agent in WITH_COMPACT:
        assert compact.stat().st_size * 2 <= size
    else:
        assert not compact.exists()
    # the report headings a payload names are ones the agent's core defines
    core = (CONTENT / "agents" / f"msd-{agent}.md").read_text()
    for variant in [canonical] + ([compact] if compact.exists() else []):
        heads = set(re.findall(r"## ([A-Z][A-Z ]+[A-Z])\b", variant.read_text()))
        assert heads, variant.name
        for h in heads:
            assert f"## {h}" in core, (variant.name, h)


def test_no_commit_everything_instructions():
    bad = re.compile(r"git add (-A|\.|--all)(?=[\s`]|$)|git commit -a")
    files = list((CONTENT / "agents").glob("msd-*.md")) + list((CONTENT / "msd-core" / "agent-ext").rglob("*.md")) \
        + list((CONTENT / "msd-core" / "agent-skills").glob("*.md"))
    for p in files:
        for line in p.read_text().splitlines():
            for m in bad.finditer(line):
                assert re.search(r"\b[Nn]ever\b", line[max(0, m.start() - 40):m.start()]), (p.name, line)


# ---------------------------------------------------------------- end to end on the shipped tree


@pytest.fixture
def shipped_install(tmp_path):
    """Install the shipped agents, extensions and payloads (not the whole tree) with a manifest."""
    src = tmp_path / "src"
    for sub in ("agents", "msd-core/agent-ext", "msd-core/agent-skills"):
        shutil.copytree(CONTENT / sub, src / sub)
    config = tmp_path / "cfg"
    files = {}
    for p in sorted(src.rglob("*")):
        if p.is_file():
            rel = installed_relpath(p.relative_to(src).as_posix())
            (config / rel).parent.mkdir(parents=True, exist_ok=True)
            (config / rel).write_bytes(p.read_bytes())
            files[rel] = sha256_bytes(p.read_bytes())
    Manifest(version="0", scope="local", target=str(config), files=files, registry=build_registry(src)).save(config)
    return config / "msd-core"


def test_shipped_plan_template_needs_tdd_and_checkpoint_extensions(msd_run, shipped_install, tmp_path):
    template = CONTENT / "msd-core" / "templates" / "plan.md"
    if not template.is_file():
        pytest.skip("templates/plan.md not written yet")
    r = msd_run(["extensions", "executor", "--plan", str(template), "--completed", "1",
                 "--root", str(shipped_install), "--raw"])
    assert r.returncode == 0, r.stderr
    got = [Path(line).stem for line in r.stdout.splitlines()]
    assert got == list(EXECUTOR_ORDER)
    for line in r.stdout.splitlines():
        assert Path(line).read_text().startswith("# Executor extension")


def test_shipped_planner_extensions_end_to_end(msd_run, shipped_install, tmp_path):
    d = tmp_path / "p" / ".planning" / "phases" / "02-auth"
    d.mkdir(parents=True)
    (d / "02-RESEARCH.md").write_text("## Standard Stack\n\nInstallation:\n    uv add \"pyjwt>=2.9,<3\"\n")
    r = msd_run(["extensions", "planner", "--phase-dir", str(d), "--gaps", "--root", str(shipped_install)])
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [e["name"] for e in data["extensions"]] == ["discovery", "gap-closure"]
    assert "pyjwt" in data["extensions"][0]["reason"]


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("agent", ["executor", "roadmapper"])
def test_shipped_payloads_served_by_agent_skills(msd_run, shipped_install, tmp_path, agent, compact):
    """The runtime serves the shipped payload files: compact variant only where one exists."""
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    (proj / ".planning" / "config.json").write_text(json.dumps({"workflow": {"compact_content": compact}}))
    r = msd_run(["agent-skills", agent, "--root", str(shipped_install), "--cwd", str(proj)])
    if r.returncode == 2 and "unknown msd_run command" in r.stderr:  # pragma: no cover
        pytest.skip("agent-skills not available yet")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    skills = CONTENT / "msd-core" / "agent-skills"
    if compact and agent in WITH_COMPACT:
        assert data["text"] == (skills / f"{agent}.compact.md").read_text()
    else:
        assert (skills / f"{agent}.md").read_text().strip() in data["text"]


def test_commands_named_as_installed_skills():
    files = list((CONTENT / "agents").glob("msd-*.md")) + list((CONTENT / "msd-core" / "agent-ext").rglob("*.md")) \
        + list((CONTENT / "msd-core" / "agent-skills").glob("*.md"))
    for p in files:
        assert "/msd:" not in p.read_text(), f"{p.name}: commands are installed as skills, /msd-<name>"


def _msd_run_calls(text: str) -> list[str]:
    calls = []
    for span in re.findall(r"`([^`\n]*msd_run [^`\n]*)`", text):
        calls.append(span[span.index("msd_run"):])
    for block in re.findall(r"```(?:bash|sh)?\n(.*?)```", text, re.DOTALL):
        calls += [line.strip() for line in block.splitlines() if line.strip().startswith("msd_run ")]
    return calls


def test_every_msd_run_call_in_agent_content_parses():
    import shlex

    from msd_core.run.dispatch import COMMANDS, build_command_parser

    files = list((CONTENT / "agents").glob("msd-*.md")) + list((CONTENT / "msd-core" / "agent-ext").rglob("*.md")) \
        + list((CONTENT / "msd-core" / "agent-skills").glob("*.md"))
    seen = 0
    for p in files:
        for call in _msd_run_calls(p.read_text()):
            argv = shlex.split(re.sub(r"<[a-z][a-z0-9-]*>", "x", call.split("||")[0].split("|")[0]))[1:]
            assert argv[0] in COMMANDS, (p.name, call)
            try:
                build_command_parser(argv[0]).parse_args(argv[1:])
            except SystemExit:
                pytest.fail(f"{p.name}: `{call}` does not parse")
            seen += 1
    assert seen >= 15
