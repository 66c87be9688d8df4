"""Issue 45 (seam 6): a workflow that spawns an agent expects the reply the agent's definition
gives. secure-phase (and ui-review) told msd-reviewer to "reply with the path and the counts"
while msd-reviewer's definition ends every pass with `## REVIEW COMPLETE`. Each paragraph of a
spine or detail part that spawns an agent and says how it replies names one of that agent's
own reply headings (the `## ...` lines of its definition's code blocks)."""

from __future__ import annotations

import re

import pytest

from tests.kit.contentkit import CONTENT, CORE

SPAWN = re.compile(r"Spawn\s+`?(msd-[a-z-]+)`?")
REPLY = re.compile(r"\brepl(?:y|ies)\b", re.I)
HEADING = re.compile(r"^## ([A-Z][A-Z ]+)$", re.M)


def reply_headings(agent: str) -> set[str]:
    text = (CONTENT / "agents" / f"{agent}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    return {h for block in blocks for h in HEADING.findall(block)}


def mismatches(text: str) -> list[str]:
    out = []
    for para in re.split(r"\n\s*\n", text):
        m = SPAWN.search(para)
        if not m or not REPLY.search(para[m.end():]):
            continue
        agent = m.group(1)
        if not (CONTENT / "agents" / f"{agent}.md").is_file():
            continue
        if not any(f"## {h}" in para for h in reply_headings(agent)):
            out.append(f"{agent}: {' '.join(para.split())[:120]}")
    return out


def test_the_old_secure_phase_paragraph_is_caught():
    old = ('Spawn msd-reviewer (see spawning-agents) with: "Security pass over phase <n>. Write only '
           '`.planning/drafts/<nn>-security.json`. Reply with the path and the counts."')
    assert mismatches(old) and not mismatches(old.replace("Reply with the path and the counts.\"",
                                                          "\" It replies `## REVIEW COMPLETE` with `file`."))


def test_msd_reviewer_has_one_reply_heading():
    assert reply_headings("msd-reviewer") == {"REVIEW COMPLETE"}


@pytest.mark.parametrize("path", sorted(p.relative_to(CORE).as_posix() for p in (CORE / "workflows").rglob("*.md")))
def test_every_spawn_expects_the_agents_own_reply(path):
    assert mismatches((CORE / path).read_text(encoding="utf-8")) == []
