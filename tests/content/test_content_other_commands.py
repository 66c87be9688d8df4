"""Structure of the eleven non-railroad commands, their workflows and the shared references.

What a reviewer following the workflows on paper would check, mechanically: every include
resolves to a shipped file, every `msd_run` line parses with the real parser, every
`/msd-<name>` command, template and agent named exists, commits name their files, the
budgets hold, and the guardrail sentinels are balanced.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from tests.kit.contentkit import AGENTS, COMMANDS, CONTENT, CORE, INCLUDE_RE, TEMPLATES, command, eager_window, resolve_include, spine

STEMS = [
    "discuss-phase", "verify-work", "progress", "quick", "pause-work", "resume-work",
    "settings", "help", "map-codebase", "add-phase", "complete-milestone", "todo",
]
MY_REFERENCES = ["spawning-agents.md", "untrusted-input.md", "planning-files.md"]
PLACEHOLDER_RE = re.compile(r"<[a-zA-Z][a-zA-Z0-9_-]*>")


def my_files() -> list[Path]:
    files = [command(s) for s in STEMS] + [spine(s) for s in STEMS]
    return files + [CORE / "references" / r for r in MY_REFERENCES]


def msd_run_invocations(text: str) -> list[str]:
    """`msd_run ...` command lines from inline code spans and fenced code blocks."""
    found: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        chunks = [line] if in_fence else re.findall(r"`([^`]+)`", line)
        for chunk in chunks:
            idx = chunk.find("msd_run ")
            if idx < 0:
                continue
            cmd = chunk[idx:]
            cmd = re.split(r"\s(?:\|\||\||&&|;|>)\s", cmd)[0].strip()
            found.append(cmd)
    return found


def parse_error(cmd: str) -> str | None:
    """None when `cmd` parses with msd_run's real parser; else the reason."""
    from msd_core.run import dispatch

    tokens = shlex.split(PLACEHOLDER_RE.sub("1", cmd))
    assert tokens[0] == "msd_run"
    name, rest = tokens[1], tokens[2:]
    if name not in dispatch.COMMANDS:
        return f"unknown msd_run command {name!r}"
    module = dispatch.COMMANDS[name][0]
    try:
        parser = dispatch.build_command_parser(name)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return f"SKIP: {module} not written yet"
        raise
    try:
        parser.parse_args(rest)
    except SystemExit as exc:
        return None if exc.code == 0 else f"argparse exit {exc.code}"
    return None


# --- the checker helpers can fail -------------------------------------------------------------

def test_invocation_extractor_and_parser_catch_bad_lines(capsys):
    text = "Run `msd_run state patch --no-such-flag x` then\n```\nmsd_run config get mode --raw || true\n```\n"
    cmds = msd_run_invocations(text)
    assert cmds == ["msd_run state patch --no-such-flag x", "msd_run config get mode --raw"]
    assert parse_error(cmds[0]) is not None
    assert parse_error(cmds[1]) is None
    assert parse_error("msd_run frobnicate") == "unknown msd_run command 'frobnicate'"


def test_eager_window_counts_includes_once(tmp_path):
    core = tmp_path / "msd-core"
    (core / "workflows").mkdir(parents=True)
    (core / "workflows" / "w.md").write_text("x" * 100 + "\n@~/.claude/msd-core/workflows/w.md\n")
    cmd = tmp_path / "commands" / "msd" / "c.md"
    cmd.parent.mkdir(parents=True)
    cmd.write_text("@~/.claude/msd-core/workflows/w.md\n@~/.claude/msd-core/workflows/w.md\n")
    inc = len((core / "workflows" / "w.md").read_bytes())
    assert eager_window(cmd, tmp_path) == len(cmd.read_bytes()) + inc


# --- commands ------------------------------------------------------------------------------------

@pytest.mark.parametrize("stem", STEMS)
def test_command_frontmatter_and_includes(stem):
    text = command(stem).read_text(encoding="utf-8")
    assert text.startswith("---\n")
    _, fm, body = text.split("---\n", 2)
    meta = yaml.safe_load(fm)
    desc = meta["description"]
    assert isinstance(desc, str) and 20 < len(desc) < 200 and desc.endswith(".")
    assert set(meta) <= {"description", "argument-hint", "allowed-tools", "disable-model-invocation"}
    assert meta.get("disable-model-invocation", True) is True  # only ever set to hide a person-only command
    lines = body.splitlines()
    assert lines[0] == f"@~/.claude/msd-core/workflows/{stem}.md"
    includes = [ln for ln in lines if ln.startswith("@")]
    for inc in includes:
        m = INCLUDE_RE.match(inc)
        assert m, inc
        target = resolve_include(m.group(1))
        assert target is not None and target.is_file(), f"{stem}: include {inc} names no shipped file"
    # includes come first, as one block
    assert lines[: len(includes)] == includes
    assert "$ARGUMENTS" in body
    # an unsplit workflow carries no shell-context line and no allowed-tools rule
    assert not (CORE / "workflows" / stem / "detail").exists()
    assert "allowed-tools" not in meta and "!`" not in text


@pytest.mark.parametrize("stem", STEMS)
def test_eager_window_budget(stem):
    assert eager_window(command(stem)) <= 24 * 1024


# --- every file ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", my_files(), ids=lambda p: p.name if "references" in p.parts else f"{p.parent.name}/{p.name}")
def test_file_rules(path):
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    assert len(raw) <= 40_000
    if path.parent.name == "workflows":
        # partition rule for these workflows: whole (unsplit) while under ~12 KB
        assert len(raw) <= 12 * 1024
    assert "\r" not in text
    assert "!`" not in text and "```!" not in text, "no shell context outside split skills"
    # commits name their files
    assert not re.search(r"git add (-A|--all|\.(\s|$|`))|git commit -a|git commit -am", text)
    for line in text.splitlines():
        if "git commit" in line and "`" in line:
            assert re.search(r"git add \S+", line) or "git mv" in line, f"commit without named files: {line}"
    # guardrail sentinels balanced
    assert text.count("<!-- msd:protected:start -->") == text.count("<!-- msd:protected:end -->")
    # no @ line in a workflow other than real includes
    if path.parent.name in ("workflows", "references"):
        assert not [ln for ln in text.splitlines() if ln.startswith("@")]


@pytest.mark.parametrize("path", my_files(), ids=lambda p: p.name if "references" in p.parts else f"{p.parent.name}/{p.name}")
def test_msd_run_lines_parse(path):
    cmds = msd_run_invocations(path.read_text(encoding="utf-8"))
    results = [(c, parse_error(c)) for c in cmds]
    bad = [(c, err) for c, err in results if err and not err.startswith("SKIP")]
    assert not bad, bad
    pending = sorted({err for _, err in results if err and err.startswith("SKIP")})
    if pending:
        pytest.skip("; ".join(pending))


@pytest.mark.parametrize("path", my_files(), ids=lambda p: p.name if "references" in p.parts else f"{p.parent.name}/{p.name}")
def test_named_commands_templates_agents_exist(path):
    text = path.read_text(encoding="utf-8")
    for name in re.findall(r"(?<![\w.~-])/msd-([a-z][a-z-]*[a-z])", text):
        assert name in COMMANDS, f"{path.name} names /msd-{name}"
    for tpl in re.findall(r"msd-core/templates/([\w.-]+\w)", text):
        assert tpl in TEMPLATES and (CORE / "templates" / tpl).is_file(), tpl
    for agent in re.findall(r"\bmsd-([a-z][a-z-]*[a-z])\b", text):
        if agent == "core":
            continue
        assert agent in AGENTS or agent in COMMANDS, f"{path.name} names msd-{agent}"
    for agent in re.findall(r"msd_run agent-skills ([a-z-]+)", text):
        assert agent in AGENTS


def test_named_command_files_exist_for_whole_suite():
    """Every command this content routes to is shipped (fails until the railroad three land)."""
    missing = [c for c in sorted(COMMANDS) if not command(c).is_file()]
    assert not missing, f"commands named in content but not shipped: {missing}"


# --- behaviour the brief asks each workflow to carry ----------------------------------------------

REQUIRED = {
    "todo": ["msd_run todo add", "msd_run todo list", "--after <n>", "msd_run todo promote <id> --quick", "/msd-quick"],
    "discuss-phase": ["templates/context.md", "<NN>-CONTEXT.md", "Deferred", "Claude's Discretion", "/msd-plan-phase"],
    "verify-work": ["<NN>-UAT.md", "/msd-plan-phase <n> --gaps", "One test at a time", "msd-debugger"],
    "progress": ["msd_run state get", "msd_run history-digest --phase <n>", "msd_run next", "--next"],
    "quick": [".planning/quick/<NNN>-<slug>", "msd-executor", "msd_run state patch", "msd_run commit --files <dir>/<nnn>-PLAN.md",
              "--research", "--check"],
    "pause-work": [".planning/phases/<NN>-<slug>/.continue-here.md", ".planning/.continue-here.md",
                   'msd_run state patch --set-session "'],
    "resume-work": ["msd_run state get", "msd_run next", ".continue-here.md"],
    "settings": ["msd_run config list", "msd_run config set <key> <value>",
                 "msd_run config set workflow.compact_content true", "less context is used up front"],
    "help": ["/msd-new-project", "/msd-complete-milestone", "Typical path"],
    "map-codebase": ["msd-codebase-mapper", "STACK.md", "ARCHITECTURE.md", "CONVENTIONS.md", "CONCERNS.md",
                     "in ONE message"],
    "add-phase": ["### Phase <n>: <Name>", "Done when:", ".planning/phases/<NN>-<slug>",
                  "msd_run state patch"],
    "complete-milestone": [".planning/milestones/<version>-ROADMAP.md", ".planning/milestones/<version>-REQUIREMENTS.md",
                           ".planning/milestones/<version>-phases/", "PROJECT.md", "git tag -a <tag>",
                           "<root>/<version>"],
}


@pytest.mark.parametrize("stem", STEMS)
def test_workflow_carries_its_job(stem):
    text = spine(stem).read_text(encoding="utf-8")
    missing = [s for s in REQUIRED[stem] if s not in text]
    assert not missing, missing


def test_help_lists_every_command():
    text = spine("help").read_text(encoding="utf-8")
    assert {c for c in COMMANDS if f"/msd-{c}" not in text} == set()


# --- formats other workflows and code parse ---------------------------------------------------------

def _fenced_markdown(stem: str) -> str:
    text = spine(stem).read_text(encoding="utf-8")
    m = re.search(r"```markdown\n(.*?)\n```", text, re.S)
    assert m, f"{stem} has no ```markdown example"
    return m.group(1)


def test_uat_example_parses():
    example = _fenced_markdown("verify-work")
    fm = yaml.safe_load(example.split("---\n")[1])
    assert fm["status"] == "testing" and fm["phase"] == "03-payments"
    gaps = yaml.safe_load(example.split("## Gaps\n", 1)[1])
    assert isinstance(gaps, list) and gaps
    issue_tests = {int(n) for n, r in re.findall(r"^### (\d+)\.[^\n]*\n(?:[^\n]*\n)*?result: (\w+)", example, re.M)
                   if r == "issue"}
    assert issue_tests == {int(g["id"][1:]) for g in gaps if g["id"].startswith("U")} == {2}
    for gap in gaps:
        # the verifier's gap keys, so the planner's gap closure reads both files alike
        assert {"id", "truth", "status", "reason", "artifacts", "missing"} <= set(gap)
        assert {"severity", "root_cause"} <= set(gap)
    tally = re.search(r"^Tally: (\d+) tests · (\d+) pass · (\d+) issue · (\d+) skipped · (\d+) pending$", example, re.M)
    assert tally, "the Tally line is missing or changed shape"
    total, *parts = map(int, tally.groups())
    assert total == sum(parts)
    assert re.search(r"^Asking: test \d+", example, re.M)


def test_handoff_example_parses():
    example = _fenced_markdown("pause-work")
    fm = yaml.safe_load(example.split("---\n")[1])
    assert set(fm) == {"paused", "phase", "plan", "task", "state"}
    assert fm["state"] in ("mid-task", "blocked", "between-steps")
    for heading in ("## Next", "## Where it stands", "## Working tree", "## Keep in mind"):
        assert f"\n{heading}\n" in example
    # resume-work reads `paused` and `## Next`, and still names the older spellings
    resume = spine("resume-work").read_text(encoding="utf-8")
    assert "`paused`" in resume and "`## Next`" in resume and "last_updated" in resume


def _project_from_templates(root: Path) -> Path:
    """A two-phase project rendered from the shipped templates, phase 1 planned and summarised."""

    tpl = CORE / "templates"
    values = {"Name": "Auth", "n": "1", "total_phases": "2", "phase_name": "Auth", "project_name": "Demo"}

    def fill(text: str) -> str:
        return re.sub(r"\{\{([^{}]*)\}\}", lambda m: values.get(m.group(1).strip(), "filled"), text)

    planning = root / ".planning"
    planning.mkdir(parents=True)
    for src, dst in [("project.md", "PROJECT.md"), ("requirements.md", "REQUIREMENTS.md"),
                     ("roadmap.md", "ROADMAP.md"), ("state.md", "STATE.md")]:
        (planning / dst).write_text(fill((tpl / src).read_text(encoding="utf-8")))
    shutil.copy(tpl / "config.json", planning / "config.json")
    phase = planning / "phases" / "01-auth"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text("---\nphase: 01-auth\nplan: 01\n---\n<tasks></tasks>\n")
    (phase / "01-01-SUMMARY.md").write_text("---\nphase: 01-auth\nplan: 01\n---\n# Summary\n")
    return phase


@pytest.mark.parametrize("status, route, rows", [("issues_found", "plan-gaps", "as written"), ("diagnosed", "plan-gaps", "as written"),
                                                 ("complete", "discuss-phase", "all pass"),
                                                 # the example's issue row stays: its rows, not the word, decide
                                                 ("complete", "plan-gaps", "as written")])
def test_router_reads_the_uat_status_this_workflow_writes(tmp_path, msd_run, status, route, rows):
    pytest.importorskip("msd_core.run.cmd_next", reason="msd_run next not written yet")
    phase = _project_from_templates(tmp_path)
    example = _fenced_markdown("verify-work")
    example = re.sub(r"^status: testing.*$", f"status: {status}", example, count=1, flags=re.M)
    if rows == "all pass":
        example = example.replace("result: issue", "result: pass")
    (phase / "01-UAT.md").write_text(example + "\n")
    res = msd_run(["next", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["route"] == route, out
    if route == "plan-gaps":
        assert out["command"] == "/msd-plan-phase 1 --gaps"


@pytest.mark.parametrize("where", [".planning/.continue-here.md", ".planning/phases/01-auth/.continue-here.md"])
def test_router_resumes_from_the_handoff_pause_work_writes(tmp_path, msd_run, where):
    pytest.importorskip("msd_core.run.cmd_next", reason="msd_run next not written yet")
    _project_from_templates(tmp_path)
    (tmp_path / where).write_text(_fenced_markdown("pause-work") + "\n")
    res = msd_run(["next", "--cwd", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["route"] == "resume-work" and out["command"] == "/msd-resume-work", out


def test_partition_rules_record_every_workflow_and_match_the_tree():
    doc = (CONTENT.parents[1] / "docs" / "PARTITION-RULES.md").read_text(encoding="utf-8")
    decisions = dict(re.findall(r"^\| ([a-z][a-z-]*) \| (whole|\*\*split\*\*)", doc, re.M))
    shipped = sorted(p.stem for p in (CORE / "workflows").glob("*.md"))
    assert sorted(decisions) == shipped
    for stem, decision in decisions.items():
        split_on_disk = (CORE / "workflows" / stem / "detail").is_dir()
        assert split_on_disk == (decision != "whole"), stem


def test_installed_skills_name_only_installed_files(tmp_path, msd):
    """After a real `msd install --local`, every path my skills and workflows name exists."""
    project = tmp_path / "proj"
    project.mkdir()
    res = msd(["install", "--local"], cwd=project)
    if res.returncode != 0 and "No such command" in (res.stderr + res.stdout):
        pytest.skip("installer not available")
    assert res.returncode == 0, res.stderr
    config = project / ".claude"
    seen = 0
    for stem in STEMS:
        skill = config / "skills" / f"msd-{stem}" / "SKILL.md"
        # a local install is portable: the host substitutes the skill's folder in a skill
        # (tests/host/test_release_host.py); other files name `.claude/` relative to the project
        texts = [skill.read_text(encoding="utf-8").replace("${CLAUDE_SKILL_DIR}", str(skill.parent)),
                 (config / "msd-core" / "workflows" / f"{stem}.md").read_text(encoding="utf-8")]
        for text in texts:
            assert "~/.claude/" not in text
            refs = re.findall(r"(?:" + re.escape(str(skill.parent)) + r"/\.\./\.\./|(?<![\w/])\.claude/)[\w./-]+\w", text)
            seen += len(refs)
            for ref in refs:
                assert (project / ref).exists(), f"msd-{stem} names {ref}, which the install does not have"
        includes = [ln[1:] for ln in texts[0].splitlines() if ln.startswith("@")]
        assert includes and all(Path(p).is_file() for p in includes)
    assert seen > len(STEMS)
