"""`msd usage`: what this project's work really cost, from the host's own session transcripts
(msd_core.usage): per phase, plan, agent and command; the executor's context at its first task
and at its peak as a share of the window; a chart in the terminal, or `--json`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from msd_core import paths
from msd_core.cli.common import console, errors_to_exit, print_envelope
from msd_core.errors import UsageError
from msd_core.usage import locate, project

KIND_STYLE = (("input", "cyan"), ("cache_read", "green"), ("cache_write", "yellow"), ("output", "magenta"))
BAR = 40
GOAL_SHARE = 0.5  # the design's goal: plans complete within 50 % of the context window


def _n(x: int) -> str:
    return f"{x:,}"


def _pct(entry: dict | None) -> str:
    return f"{entry['share'] * 100:.1f}%" if entry else "-"


def _bars(out, rows: list[dict], label: str) -> None:
    """One stacked bar per row: its tokens by kind, scaled to the largest row."""
    from rich.text import Text

    top = max((r["total"] for r in rows), default=0)
    if not top:
        return
    width = max(len(str(r.get(label) or "-")) for r in rows)
    for r in rows:
        line = Text(f"  {str(r.get(label) or '-'):<{width}} ")
        for kind, style in KIND_STYLE:
            line.append("█" * round(BAR * r[kind] / top), style=style)
        line.append(f" {_n(r['total'])}")
        out.print(line)
    legend = Text("  ")
    for kind, style in KIND_STYLE:
        legend.append("█ ", style=style)
        legend.append(kind.replace("_", " ") + "  ")
    out.print(legend)


def _context_bars(out, rows: list[dict]) -> None:
    """The executor's context at its first task and at its peak, against the window (| = 50 %)."""
    from rich.text import Text

    shown = [r for r in rows if r.get("executor_start") or r.get("executor_peak")]
    if not shown:
        return
    out.print("[bold]Executor context, share of the window[/bold] (start █, peak ▒, | at 50 %)")
    width = max(len(r["plan"]) for r in shown)
    for r in shown:
        start = (r.get("executor_start") or {}).get("share", 0.0)
        peak = max((r.get("executor_peak") or {}).get("share", 0.0), start)
        cells = []
        for i in range(BAR):
            at = (i + 0.5) / BAR
            cells.append("█" if at <= start else ("▒" if at <= peak else " "))
        cells[int(BAR * GOAL_SHARE)] = "|" if cells[int(BAR * GOAL_SHARE)] == " " else cells[int(BAR * GOAL_SHARE)]
        line = Text(f"  {r['plan']:<{width}} ")
        line.append("".join(cells), style="red" if peak > GOAL_SHARE else "green")
        line.append(f" {start * 100:.1f}% → {peak * 100:.1f}%")
        out.print(line)


def _human(d: dict) -> None:
    from rich.table import Table

    out = console()
    t = d["totals"]
    out.print(f"[bold]{d['project']}[/bold]: {d['sessions']} session(s), {d['transcripts']} transcript(s), "
              f"{_n(t['requests'])} requests, {_n(t['total'])} tokens "
              f"(input {_n(t['input'])}, cache read {_n(t['cache_read'])}, cache write {_n(t['cache_write'])}, output {_n(t['output'])})",
              soft_wrap=True)
    u = d.get("unattributed") or {}
    if u.get("total"):
        out.print(f"  and {_n(u['total'])} tokens the host counted with no request line in the transcripts, such as "
                  f"compaction summaries (input {_n(u['input'])}, cache read {_n(u['cache_read'])}, cache write "
                  f"{_n(u['cache_write'])}, output {_n(u['output'])})", soft_wrap=True)
    lines = d["lines"]
    skipped = lines["malformed"] + lines["unknown"] + lines["oversized"]
    if skipped:
        out.print(f"[yellow]skipped {skipped} of {_n(lines['read'])} transcript lines[/yellow] "
                  f"({lines['malformed']} malformed, {lines['unknown']} of an unknown type, {lines['oversized']} oversized)")
    if not t["requests"]:
        out.print(f"No request recorded in {d['transcripts_folder']} (Claude Code writes transcripts there unless "
                  "CLAUDE_CODE_SKIP_PROMPT_HISTORY is set).", soft_wrap=True)
        return
    for title, rows, first in (("By phase", d["by_phase"], "phase"), ("By plan", d["by_plan"], "plan"),
                               ("By agent", d["by_agent"], "agent"), ("By command", d["by_command"], "command")):
        if not rows:
            continue
        table = Table(title=title, title_justify="left", box=None, header_style="bold")
        cols = [first, "requests", "input", "cache read", "cache write", "output", "total"]
        if first in ("phase", "plan"):
            cols += ["executor start", "executor peak"]
        for c in cols:
            table.add_column(c, justify="left" if c == first else "right")
        for r in rows:
            cells = [str(r.get(first) or "-")] + [_n(r[k]) for k in ("requests", "input", "cache_read", "cache_write", "output", "total")]
            if first in ("phase", "plan"):
                cells += [_pct(r.get("executor_start")), _pct(r.get("executor_peak"))]
            table.add_row(*cells)
        out.print(table)
        if first == "phase":
            _bars(out, rows, "phase")
        if first == "plan":
            _context_bars(out, rows)


def register(app: typer.Typer) -> None:
    @app.command("usage")
    @errors_to_exit
    def usage(
        json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        cwd: Optional[Path] = typer.Option(None, "--cwd", metavar="DIR", help="The project (default: the one holding the current directory)."),
        config_dir: Optional[Path] = typer.Option(None, "--config-dir", metavar="DIR",
                                                  help="Claude Code's config folder holding projects/ (default $CLAUDE_CONFIG_DIR or ~/.claude)."),
    ) -> None:
        """Tokens this project's sessions used, from Claude Code's own transcripts: per phase, plan, agent and command."""

        base = (cwd or Path.cwd()).absolute()
        if not base.is_dir():
            raise UsageError(f"--cwd {base} is not a folder")
        root = paths.find_project_root(base) or base
        configured = None
        if (root / ".planning").is_dir():
            from msd_core.config import store

            value = store.get_value("usage.context_window", root)
            configured = value if isinstance(value, int) and value > 0 else None
        data = project.project_report(root, locate.config_dir(config_dir), configured)
        if json_output:
            print_envelope("usage", data)
        else:
            _human(data)
