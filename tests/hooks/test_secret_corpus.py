"""The labelled corpus of the secret-read guard (tests/hooks/guard_corpus/secret_reads.json): every
case, through the command hook and through the guard server, gets the verdict its label says, in
a project holding the files the cases name (.env, .env.local, its template, a key, sources)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "guard_corpus" / "secret_reads.json"
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))
CLASSES = {"wrapper", "program", "redirection", "sourcing", "substitution", "padding", "grep", "glob", "case", "benign"}


@pytest.fixture
def corpus_project(tmp_path):
    proj = tmp_path / "app"
    for name, text in {".env": "API_KEY=sk-live-1\n", ".env.local": "API_KEY=sk-live-2\n", ".env.example": "API_KEY=\n",
                       "config/master.key": "k\n", "id_ed25519": "k\n", "id_ed25519.pub": "ssh-ed25519 AAAA\n",
                       "src/app.py": "print('hi')  # TODO\n", "README.md": "# App\n", "docs/setup.md": "cp .env.example .env\n",
                       "logs/app.log": "started\n", "package.json": "{}\n", ".planning/config.json": "{}\n"}.items():
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text(text)
    return proj


def test_the_corpus_keeps_its_format():
    """The format every guard_corpus file shares (scripts/bench_guards.py --accuracy reads them all)."""
    assert isinstance(CASES, list) and len(CASES) >= 68
    for case in CASES:
        assert set(case) == {"class", "tool", "input", "expect", "note"}, case
        assert case["class"] in CLASSES and case["tool"] in ("Bash", "Read", "Grep", "Glob"), case
        assert case["expect"] in ("allow", "deny") and isinstance(case["input"], dict) and isinstance(case["note"], str)
    assert sum(c["expect"] == "allow" for c in CASES) >= 40
    assert sum(c["expect"] == "deny" for c in CASES) >= 28


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['class']}" for i, c in enumerate(CASES)])
def test_each_case_gets_its_label(corpus_project, decide, case):
    reason = decide(corpus_project, case["tool"], case["input"])
    if case["expect"] == "allow":
        assert reason is None, (case, reason)
    else:
        assert reason and reason.startswith("msd guard: "), case
        assert "sk-live" not in reason
        assert "Ask the user" in reason or "ask the user" in reason or "shorter commands" in reason, reason
