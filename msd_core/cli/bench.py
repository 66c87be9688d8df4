"""`msd bench tokens`: the offline token benchmark (reporting only, never a gate)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from msd_core.bench import tokenizer
from msd_core.cli.common import console, errors_to_exit
from msd_core.errors import UsageError
from msd_core.files.bounded import read_json
from msd_core.files.safe_read import MAX_DOC_BYTES

bench_app = typer.Typer(help="Offline benchmarks (they report, never gate).", no_args_is_help=True)

DEFAULT_BASELINE = Path("bench/tokens-baseline.json")


def packaged_content_dir() -> Path:
    from importlib.resources import files

    return Path(str(files("msd_core").joinpath("content")))


def _human(report: dict, comparison: dict | None) -> None:
    from rich.table import Table

    from msd_core.bench.tokens import flags

    out = console()
    agg = report["aggregate"]
    out.print(f"[bold]Tokenizer[/bold]: {report['tokenizer']}")
    out.print(
        f"[bold]Aggregate[/bold]: host-rendered window {agg['window']:,} proxy tokens with compact content off "
        f"(the default), {agg['window_compact']:,} with it on; eager (before the host inserts detail parts) {agg['eager']:,}"
    )
    table = Table(title="Commands: the window the host renders (proxy tokens)")
    for col in ("command", "window (compact off)", "compact on", "eager", "flag"):
        table.add_column(col, justify="left" if col in ("command", "flag") else "right")
    for name, c in sorted(report["commands"].items()):
        table.add_row(name, f"{c['window']:,}", f"{c['window_compact']:,}", f"{c['eager']:,}",
                      "over 8,000" if c["window"] > 8000 else "")
    out.print(table)
    biggest = sorted(report["files"].items(), key=lambda kv: -kv[1]["tokens"])[:10]
    ft = Table(title="Largest files")
    for col in ("file", "bytes", "tokens"):
        ft.add_column(col, justify="left" if col == "file" else "right")
    for rel, f in biggest:
        ft.add_row(rel, f"{f['bytes']:,}", f"{f['tokens']:,}")
    out.print(ft)
    if report.get("agents"):
        at = Table(title="Agents: core = prompt + extensions always listed; then each optional extension")
        at.add_column("agent")
        at.add_column("core", justify="right")
        at.add_column("always", justify="left")
        at.add_column("with an optional extension", justify="left")
        for name, a in sorted(report["agents"].items()):
            at.add_row(name, f"{a['core']:,}", ", ".join(a["always"]) or "-",
                       ", ".join(f"{k} {v:,}" for k, v in a["extensions"].items()))
        out.print(at)
    if report.get("history"):
        hist = Table(title="History: SUMMARY files vs history-digest")
        for col in ("tree", "summaries", "digest", "share"):
            hist.add_column(col, justify="left" if col == "tree" else "right")
        for tree, h in sorted(report["history"].items()):
            s = h["digest"] / h["summaries"] * 100 if h["summaries"] else 0.0
            hist.add_row(tree, f"{h['summaries']:,}", f"{h['digest']:,}", f"{s:.1f}%")
        out.print(hist)
    for line in flags(report):
        out.print(f"[yellow]flag[/yellow]: {line}")
    if comparison is not None:
        ct = Table(title="Against the baseline")
        for col in ("item", "baseline", "now", "delta"):
            ct.add_column(col, justify="left" if col == "item" else "right")
        for name, d in comparison["commands"].items():
            for key, v in d.items():
                ct.add_row(f"command {name} ({key})", str(v["baseline"]), str(v["now"]), f"{v['delta']:+,}")
        for rel, v in comparison["files"].items():
            ct.add_row(rel, str(v["baseline"]), str(v["now"]), f"{v['delta']:+,}")
        if not comparison["commands"] and not comparison["files"]:
            out.print("No change against the baseline.")
        else:
            out.print(ct)


@bench_app.command("tokens")
@errors_to_exit
def tokens(
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON (the baseline format)."),
    compare: bool = typer.Option(False, "--compare", help="Show per-file and per-command deltas against the baseline."),
    baseline: Path = typer.Option(DEFAULT_BASELINE, "--baseline", metavar="FILE", help="Baseline JSON to compare against."),
    root: Optional[Path] = typer.Option(None, "--root", metavar="DIR", help="A content tree laid out like msd_core/content (default: the shipped one)."),
    history: bool = typer.Option(False, "--history", help="Add SUMMARY vs history-digest tokens for each corpus tree."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", metavar="DIR", help="Corpus of .planning trees for --history (default ../shared/corpus/planning)."),
    write_docs: Optional[Path] = typer.Option(None, "--write-docs", metavar="FILE", help="Regenerate the 'Context budget' section of this markdown file (default: none)."),
) -> None:
    """Proxy tokens per command of the window the host renders (compact off and on), per agent and per file."""
    from msd_core.bench.tokens import build_report, context_budget_markdown, dumps, history_report, write_docs_section
    from msd_core.bench.tokens import compare as compare_reports

    content = root or packaged_content_dir()
    if not (content / "commands").is_dir() and not (content / "msd-core").is_dir():
        raise UsageError(f"{content} is not a content tree (no commands/ or msd-core/ folder)")
    label, count = tokenizer.load()
    report = build_report(content, count, label)
    if history:
        corpus_dir = corpus or Path("../shared/corpus/planning")
        if not corpus_dir.is_dir():
            raise UsageError(f"no corpus at {corpus_dir}", hint="pass --corpus DIR")
        report["history"] = history_report(corpus_dir, count)
    comparison = None
    if compare:
        if not baseline.is_file():
            raise UsageError(f"no baseline at {baseline}", hint="run `msd bench tokens --json > bench/tokens-baseline.json`")
        try:
            base = read_json(baseline, f"baseline {baseline}", MAX_DOC_BYTES)
        except OSError as exc:
            raise UsageError(f"cannot read baseline {baseline} ({exc.strerror or exc})") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"baseline {baseline} is not valid JSON (line {exc.lineno}, column {exc.colno})") from None
        comparison = compare_reports(report, base)
    if write_docs:
        write_docs_section(write_docs, context_budget_markdown(report))
    if json_output:
        typer.echo(dumps({"report": report, "compare": comparison} if comparison is not None else report), nl=False)
    else:
        _human(report, comparison)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
