"""Every shipped skill, as the real host renders it: loaded, attached, permitted.

Assertions are on what the model received (the first recorded request) and on what the
host did instead of calling the model (a refused shell line is a synthetic reply).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import hostkit
import pytest

from msd_core.checks.includes import include_lines

SHIPPED = hostkit.REPO / "msd_core" / "content"
COMMANDS = sorted(p.stem for p in (SHIPPED / "commands" / "msd").glob("*.md"))
ARG = "ARG-PROBE-7"


def registry(config_dir: Path) -> dict:
    return json.loads((config_dir / "msd-core" / "manifest.json").read_text())["registry"]


def split_workflows() -> list[str]:
    reg = json.loads((SHIPPED / "msd-core" / "registry.json").read_text())
    return sorted(stem for stem, e in reg["workflows"].items() if e["parts"])


def include_targets(host: hostkit.Host, path: Path) -> list[str]:
    """Normalised absolute paths of the `@` include lines of an installed file, as the host
    resolves them (`~/`, `${CLAUDE_SKILL_DIR}` for a skill, else absolute or project-relative)."""
    out = []
    for _, target in include_lines(path.read_text().splitlines()):
        target = target.replace("${CLAUDE_SKILL_DIR}", str(path.parent))
        if target.startswith("~/"):
            target = str(host.home / target[2:])
        elif not target.startswith("/"):
            target = str(host.project / target)
        out.append(os.path.normpath(target))
    return out


def attached(run: hostkit.HostRun) -> dict[str, str]:
    return {os.path.normpath(k): v for k, v in run.attachments.items()}


def skill_body(run: hostkit.HostRun) -> str:
    """The skill text the host delivered (after its own `Base directory` line)."""
    text = run.first_user_text
    head = text.find("Base directory for this skill:")
    assert head >= 0, f"no skill body in the first request:\n{text[-3000:]}"
    return text[head:]


def assert_loaded(run: hostkit.HostRun, name: str):
    assert run.returncode == 0, run.stderr
    assert run.refusals == [], f"/{name}: the host refused the skill: {run.refusals}"
    assert run.model_requests, f"/{name}: the model was never called"
    assert run.permission_denials == []
    assert f"<command-name>/{name}</command-name>" in run.first_user_text
    assert "Shell command" not in run.first_user_text


@pytest.mark.parametrize("scope", ["global", "local"])
def test_every_shipped_skill_loads_and_attaches_every_reference(host, scope):
    config = host.install(scope)
    installed = sorted(p.parent.name for p in (config / "skills").glob("msd-*/SKILL.md"))
    assert installed == [f"msd-{c}" for c in COMMANDS]
    for name in installed:
        skill = config / "skills" / name / "SKILL.md"
        run = host.run(f"/{name} {ARG}")
        assert_loaded(run, name)
        body = skill_body(run)
        # $ARGUMENTS is substituted in the skill's own lines (inserted or attached text keeps it)
        own = [line for line in skill.read_text().splitlines() if "$ARGUMENTS" in line]
        assert own, f"/{name} never passes the user's arguments on"
        for line in own:
            assert line.replace("$ARGUMENTS", ARG) in body, f"/{name}: $ARGUMENTS not substituted in {line!r}"
        got = attached(run)
        targets = include_targets(host, skill)
        assert targets, f"/{name} has no @ reference"
        for target in targets:
            # attached: the host read it and the model got the file's text (none left inert)
            assert target in got, f"/{name}: @{target} was not attached (inert text); attached: {sorted(got)}"
            want = Path(target).read_text().rstrip("\n")
            assert got[target].rstrip("\n") == want, f"/{name}: {target} attached with other text"
            # a file the skill attaches has no @ line of its own the host would leave inert
            nested = [t for t in include_targets(host, Path(target)) if t not in got]
            assert nested == [], f"{target} relies on nested @ expansion: {nested}"
        if scope == "local":
            assert not any(p.startswith(str(host.home)) for p in got), "a local install points at the global one"


def parts(host: hostkit.Host, stem: str) -> list[tuple[str, str]]:
    entry = registry(host.config_dir)["workflows"][stem]
    return [(rel, (host.config_dir / rel).read_text()) for rel in entry["parts"]]


def set_compact(host: hostkit.Host, on: bool):
    (host.project / ".planning").mkdir(exist_ok=True)
    host.msd_run("config", "set", "workflow.compact_content", "true" if on else "false")


@pytest.mark.parametrize("stem", split_workflows())
def test_split_workflow_compact_off_on_tampered_and_no_runtime(host_global, stem):
    host = host_global
    name = f"msd-{stem}"
    spine_rel = registry(host.config_dir)["workflows"][stem]["spine"]
    spine = str(host.config_dir / spine_rel)
    wanted = parts(host, stem)
    assert wanted

    # compact off: every verified part once, in order, in the first request
    set_compact(host, False)
    run = host.run(f"/{name} 1")
    assert_loaded(run, name)
    text = run.first_user_text
    at = -1
    for rel, body in wanted:
        chunk = f"<!-- msd:part {rel} -->\n{body}"
        assert text.count(chunk) == 1, f"{rel}: found {text.count(chunk)} times in the first request"
        assert text.index(chunk) > at, f"{rel} out of order"
        at = text.index(chunk)
    assert spine in run.attachments

    # compact on: the one-line marker, no part text
    set_compact(host, True)
    run = host.run(f"/{name} 1")
    assert_loaded(run, name)
    text = run.first_user_text
    assert text.count("<!-- msd:compact -->") == 1
    assert "<!-- msd:part" not in text
    elsewhere = "\n".join(run.attachments.values())
    for rel, body in wanted:
        own = max((line for line in body.splitlines() if line not in elsewhere), key=len)
        assert len(own) > 30 and own not in text, f"compact on, yet text of {rel} reached the model"
    assert spine in run.attachments

    # a tampered part: the spine and the notice, no part text
    set_compact(host, False)
    rel0 = wanted[0][0]
    (host.config_dir / rel0).write_text(wanted[0][1] + "\nTAMPERED-LINE\n")
    run = host.run(f"/{name} 1")
    assert_loaded(run, name)
    text = run.first_user_text
    assert text.count("<!-- msd:notice -->") == 1 and "msd install" in text
    assert "<!-- msd:part" not in text and "TAMPERED-LINE" not in text
    assert spine in run.attachments
    (host.config_dir / rel0).write_text(wanted[0][1])

    # msd_run not on PATH (and no PATH hook): the skill still loads and the attached gate says what to do
    host.drop_hooks()
    run = host.run(f"/{name} 1", path=[])
    assert_loaded(run, name)
    text = run.first_user_text
    assert "msd_run: command not found" in text
    assert "<!-- msd:part" not in text
    gate = str(host.config_dir / "msd-core" / "references" / "compact-content-gate.md")
    assert spine in run.attachments and gate in run.attachments
    assert re.search(r"`msd_run` not found.*run on\s+the spine", run.attachments[gate], re.DOTALL)


def test_no_subagent_file_relies_on_at_expansion():
    """Content: the host expands no `@` inside a subagent file (see the host proof below), so
    no agent file, agent skill or agent extension has an `@` include line outside fenced code."""
    files = sorted((SHIPPED / "agents").glob("*.md"))
    files += sorted((SHIPPED / "msd-core" / "agent-skills").glob("*.md"))
    files += sorted((SHIPPED / "msd-core" / "agent-ext").rglob("*.md"))
    assert len(files) > 10
    offenders = [f"{p.relative_to(SHIPPED)}:{n}: @{t}" for p in files for n, t in include_lines(p.read_text().splitlines())]
    assert offenders == []


def test_the_content_check_finds_an_at_line_in_an_agent_file():
    """The guard above fails on an agent file carrying an include line outside a fence."""
    lines = ["# agent", "", "@~/.claude/msd-core/references/questioning.md", "```", "@not-an-include", "```"]
    assert include_lines(lines) == [(3, "~/.claude/msd-core/references/questioning.md")]


def test_host_does_not_expand_at_lines_in_a_subagent_file(host_global):
    """Host proof: a subagent whose file has an `@` line gets that line as plain text."""
    host = host_global
    ref = host.config_dir / "msd-core" / "references" / "questioning.md"
    agent = host.config_dir / "agents" / "probe-at.md"
    agent.write_text("---\nname: probe-at\ndescription: probe agent for @ expansion\ntools: Read\n---\n"
                     "PROBE-AGENT-BODY\n@~/.claude/msd-core/references/questioning.md\n")
    try:
        run = host.run("spawn it", [
            {"when_system": "PROBE-AGENT-BODY", "text": "SUBAGENT-DONE"},
            {"tool_use": [{"name": "Agent", "input": {"subagent_type": "probe-at", "description": "probe",
                                                        "prompt": "report"}}]},
            {"when": "SUBAGENT-DONE", "text": "done"},
        ])
    finally:
        agent.unlink()
    assert run.returncode == 0, run.stderr
    sub = [r for r in run.model_requests if "PROBE-AGENT-BODY" in json.dumps(r.get("system"))]
    assert sub, "the subagent was never called"
    everything = json.dumps(sub[0])
    assert "@~/.claude/msd-core/references/questioning.md" in everything
    distinctive = next(line for line in ref.read_text().splitlines() if len(line) > 40)
    assert json.dumps(distinctive)[1:-1] not in everything
    assert str(ref) not in everything
