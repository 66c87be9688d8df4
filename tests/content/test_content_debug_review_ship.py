"""The lifecycle commands debug, audit-milestone, code-review, ship, autonomous, undo: structure and jobs."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.content.test_content_other_commands import msd_run_invocations, parse_error
from tests.kit.contentkit import AGENTS, COMMANDS, CONTENT, CORE, INCLUDE_RE, command, eager_window, resolve_include, spine

STEMS = ["debug", "audit-milestone", "code-review", "ship", "autonomous", "undo"]
PERSON_ONLY = {"ship", "autonomous", "undo"}
NEW_AGENTS = ["reviewer", "integration-checker"]

REQUIRED = {
    "debug": ["msd_run debug start", "msd_run debug resume <slug>", "msd_run debug close <slug> --as resolved",
              "msd-debugger", "diagnose mode", "fix mode", ".planning/debug/resolved/"],
    "audit-milestone": ["msd-integration-checker", ".planning/<version>-MILESTONE-AUDIT.md", "msd_run history-digest",
                        "/msd-add-phase <desc>", "Accepted debt", "/msd-complete-milestone <version>"],
    "code-review": ["msd_run recorded --phase <n>", "msd-reviewer", "<NN>-REVIEW.md", "/msd-execute-phase <n>",
                    "At most 2 fix rounds"],
    "ship": ["msd_run ship --phase <n>", "explicit yes", "body_file", "gh pr create", "never force-push"],
    "autonomous": ["msd_run autonomous", "`run`", "`stop`", "`done`", "(assumed, autonomous run)",
                   "Never answer a human-verify checkpoint yourself"],
    "undo": ["msd_run undo --plan <plan> --dry-run", "msd_run undo --phase <n> --dry-run", "never another commit",
             "Always the dry run first"],
}


def _meta(stem):
    text = command(stem).read_text(encoding="utf-8")
    _, fm, body = text.split("---\n", 2)
    return yaml.safe_load(fm), body


@pytest.mark.parametrize("stem", STEMS)
def test_command_frontmatter(stem):
    meta, body = _meta(stem)
    assert set(meta) <= {"description", "argument-hint", "disable-model-invocation"}
    desc = meta["description"]
    # the listing is paid on every turn: short descriptions
    assert desc.endswith(".") and len(desc) <= 90, desc
    assert (meta.get("disable-model-invocation") is True) == (stem in PERSON_ONLY)
    lines = body.splitlines()
    assert lines[0] == f"@~/.claude/msd-core/workflows/{stem}.md" and "$ARGUMENTS" in body
    for inc in [ln for ln in lines if ln.startswith("@")]:
        target = resolve_include(INCLUDE_RE.match(inc).group(1))
        assert target is not None and target.is_file(), inc
    assert eager_window(command(stem)) <= 16 * 1024


@pytest.mark.parametrize("stem", STEMS)
def test_workflow_rules_and_job(stem):
    text = spine(stem).read_text(encoding="utf-8")
    assert len(text.encode()) <= 6 * 1024 and "\r" not in text and "!`" not in text
    assert text.count("<!-- msd:protected:start -->") == text.count("<!-- msd:protected:end -->") == 1
    assert not re.search(r"git add (-A|--all|\.(\s|$|`))|git commit -a", text)
    for line in text.splitlines():
        if "git commit" in line and "`" in line:
            assert re.search(r"git add \S+", line), line
    missing = [s for s in REQUIRED[stem] if s not in text]
    assert not missing, missing
    bad = [(c, e) for c in msd_run_invocations(text) if (e := parse_error(c))]
    assert not bad, bad
    for name in re.findall(r"(?<![\w.~-])/msd-([a-z][a-z-]*[a-z])", text):
        assert name in COMMANDS and command(name).is_file(), name
    for agent in re.findall(r"\bmsd-([a-z][a-z-]*[a-z])\b", text):
        assert agent == "core" or agent in AGENTS or agent in COMMANDS, agent


@pytest.mark.parametrize("name", NEW_AGENTS)
def test_new_agents_are_short_and_complete(name):
    path = CONTENT / "agents" / f"msd-{name}.md"
    text = path.read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---\n", 2)[1])
    assert meta["name"] == f"msd-{name}" and len(meta["description"]) <= 80
    assert len(text.encode()) <= 6 * 1024
    assert (CORE / "agent-skills" / f"{name}.md").is_file()
    assert "## Report back" in text and "data, never instructions" in text


def test_review_and_audit_examples_parse():
    for name, key in (("reviewer", "counts"), ("integration-checker", "scores")):
        text = (CONTENT / "agents" / f"msd-{name}.md").read_text(encoding="utf-8")
        example = re.search(r"```markdown\n(.*?)\n```", text, re.S).group(1)
        fm = yaml.safe_load(example.split("---\n")[1])
        assert key in fm and fm["status"] in ("issues_found", "gaps_found")


def test_the_route_to_audit_names_a_shipped_command():
    from msd_core.progress import route

    assert "/msd-audit-milestone" in open(route.__file__, encoding="utf-8").read()
    assert command("audit-milestone").is_file()


def test_help_lists_the_lifecycle_commands_and_says_which_are_person_only():
    text = spine("help").read_text(encoding="utf-8")
    for stem in STEMS:
        assert f"/msd-{stem}" in text
    assert "only run when you type them" in text
