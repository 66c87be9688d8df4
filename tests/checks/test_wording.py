"""Rule own-wording: a sentence of ours that stands near-verbatim in a peer's text fails; our own
words pass. The fixture peer's sentences are invented for the test (no peer text in the repo);
the slow test holds the shipped content against the real peers, fetched with npm."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.checks import run_checks
from msd_core.checks.wording import PeerText, sentences

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "content"
PEER_SENTENCE = "The review settles WHICH files change, and never asks WHY the design exists at all."
NOTE = "msd-core/references/gate.md"


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "pass", root)
    return root


@pytest.fixture
def peer(tmp_path):
    d = tmp_path / "peer"
    (d / "workflows").mkdir(parents=True)
    (d / "workflows" / "review.md").write_text(
        "# review\n\nSome opening words about reviews that nobody will copy today.\n\n"
        f"**Rule:** {PEER_SENTENCE}\n\n| a | table row that we may share freely with the peer |\n")
    (d / "node_modules" / "dep").mkdir(parents=True)
    (d / "node_modules" / "dep" / "notes.md").write_text("A dependency's words are never the peer's own words here.\n")
    return d


def add_line(root: Path, text: str) -> int:
    """Append a paragraph to the fixture's reference note; returns its 1-based line."""
    path = root / NOTE
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, "", text]) + "\n")
    return len(lines) + 2


def wording(report):
    return [(v.file, v.line) for v in report.violations if v.rule == "own-wording"]


def test_the_fixture_tree_is_clean_against_the_fixture_peer(tree, peer):
    assert run_checks(tree, peers=[peer]).violations == []


def test_a_near_verbatim_sentence_fails_with_file_and_line(tree, peer):
    # the peer's contrast kept, the middle reworded: still the peer's sentence
    line = add_line(tree, "Note: the review settles WHICH files change and never asks WHY the design exists.")
    report = run_checks(tree, peers=[peer])
    assert wording(report) == [(NOTE, line)]
    v = next(v for v in report.violations if v.rule == "own-wording")
    assert "peer/workflows/review.md" in v.message and "WHY the design exists" in v.message
    assert report.exit_code == 1


def test_a_sentence_split_over_two_lines_is_caught_at_its_first_line(tree, peer):
    line = add_line(tree, "The review settles WHICH files change,\nand never asks WHY the design exists at all.")
    assert wording(run_checks(tree, peers=[peer])) == [(NOTE, line)]


def test_the_same_thought_in_our_own_words_passes(tree, peer):
    add_line(tree, "A review decides what changes; the reasons behind the design stay out of it.")
    assert wording(run_checks(tree, peers=[peer])) == []


def test_a_shared_stock_phrase_alone_passes(tree, peer):
    add_line(tree, "Which files change is for the planner to say, once the phase has a goal and a budget.")
    assert wording(run_checks(tree, peers=[peer])) == []


def test_code_tables_and_frontmatter_are_not_compared(tree, peer):
    add_line(tree, f"`{PEER_SENTENCE}`\n\n| {PEER_SENTENCE} |\n\n```\n{PEER_SENTENCE}\n```")
    assert wording(run_checks(tree, peers=[peer])) == []


def test_a_peers_own_dependencies_are_not_its_words(tree, peer):
    add_line(tree, "A dependency's words are never the peer's own words here, we say.")
    assert wording(run_checks(tree, peers=[peer])) == []


def test_without_a_peer_the_rule_compares_nothing(tree):
    add_line(tree, PEER_SENTENCE)
    assert wording(run_checks(tree)) == []


def test_sentences_split_at_ends_lists_and_headings():
    text = "---\ndescription: Not prose at all, only frontmatter here.\n---\n# A heading of words\nOne. Two words?\n- item one\n  goes on\n"
    got = [(line, s) for line, s, _ in sentences(text)]
    assert got == [(4, "# A heading of words"), (5, "One."), (5, "Two words?"), (6, "- item one goes on")]


def test_peer_not_a_folder_is_bad_usage(tree, tmp_path):
    proc = subprocess.run([sys.executable, "scripts/check_content.py", "--root", str(tree), "--peer", str(tmp_path / "absent")],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--peer" in proc.stderr and "Traceback" not in proc.stderr


def test_peer_index_skips_short_sentences(peer):
    text = PeerText([peer])
    assert all(len(words) >= 5 for _, _, words in text.sentences)
    assert any("review.md" in where for where, _, _ in text.sentences)


@pytest.mark.slow
def test_the_shipped_content_is_in_our_own_words_against_the_real_peers():
    from tests.host import hostkit

    try:
        dirs = [hostkit.peer_package_dir(p, v) for p, v in hostkit.PEERS]
    except hostkit.HostUnavailable as exc:
        pytest.skip(str(exc))
    report = run_checks(peers=dirs)
    assert wording(report) == [], "\n".join(f"{v.file}:{v.line}: {v.message}" for v in report.violations)
