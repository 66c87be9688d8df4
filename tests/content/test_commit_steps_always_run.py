"""Issue 45 (seam 7): a commit step always runs and `msd_run commit` decides what `commit_docs`
allows (docs/CONTRACTS.md: "Commit steps always run"). No shipped spine or detail part may say
otherwise: plan-phase's detail part once said "with `commit_docs` false the flow never offers
this step" while its spine said the step runs always."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"
# a sentence tying commit_docs to a commit step that is not offered, skipped or left out
CONTRADICTS = re.compile(r"commit_docs`?\s+(?:is\s+)?(?:false|off)[^.]*?\b(?:never\s+offers|does\s+not\s+offer|skips?|"
                         r"is\s+skipped|no\s+commit\s+step)\b", re.I)


def contradictions(text: str) -> list[int]:
    """Lines where such a sentence starts (a sentence may wrap onto the next line)."""
    flat = [" ".join(line.split()) for line in text.splitlines()] + [""]
    out = []
    for i, line in enumerate(flat[:-1], 1):
        m = CONTRADICTS.search(line + " " + flat[i])
        if m and m.start() < len(line):
            out.append(i)
    return out


@pytest.mark.parametrize("text, bad", [
    ("`{\"committed\": false, \"reason\": \"not a git repository\"}`. (With `commit_docs`\n"
     "  false the flow never offers this step.)", True),
    ("Always (with `commit_docs` false, 3 commits nothing and says so).", False),
    ("(with `commit_docs` false it commits nothing and says so).", False),
    ("With commit_docs false the flow skips the commit step.", True),
])
def test_the_pattern_tells_a_contradiction_from_the_contract(text, bad):
    assert bool(contradictions(text)) is bad


def test_no_shipped_workflow_says_a_commit_step_is_not_offered():
    found = []
    for path in sorted(CONTENT.rglob("*")):
        if path.suffix in (".md", ".toml"):
            found += [f"{path.relative_to(CONTENT)}:{n}" for n in contradictions(path.read_text(encoding="utf-8"))]
    assert found == []
