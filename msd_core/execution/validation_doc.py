"""`<NN>-VALIDATION.md`: the machine part of a phase's test-coverage record, written by `msd_run validate --write`.

The file is the phase's `<id>-VALIDATION.md`. Its machine part is the frontmatter (`phase`,
`status: passed | gaps_found`, `covered`, `gaps`; no time stamp: the same answer writes the
same bytes, and an unchanged file is not written again) and the lines between
`<!-- msd:validation:start -->` and `<!-- msd:validation:end -->` (a table of every item and
a list of the gaps, each naming the item, its plan and why). Everything else a person or an
agent wrote after the end marker is kept as it is; a file without the markers keeps its old
text below the new part. Written atomically; a symlink there is refused (one line, exit 1).
plan-phase `--gaps` reads the gap list (content: workflows/plan-phase/detail/04-gaps-and-replanning.md).

Standard library only.
"""

from __future__ import annotations

from pathlib import Path

START = "<!-- msd:validation:start -->"
END = "<!-- msd:validation:end -->"
MAX_BYTES = 2 * 1024 * 1024


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")[:160]


def render(report: dict) -> str:
    phase = report["phase"]
    c = report["counts"]
    status = "passed" if report["ok"] else "gaps_found"
    lines = ["---", f"phase: {phase['dir']}", f"status: {status}", f"covered: {c['covered']}", f"gaps: {c['gaps']}",
             "---",
             f"# Phase {phase['phase']}: validation", "", START,
             "| item | kind | status | tests |", "|---|---|---|---|"]
    for it in report["items"]:
        tests = ", ".join(e["file"] + (f" ({', '.join(e['names'][:3])})" if e["names"] else "") for e in it["tests"]) or "—"
        lines.append(f"| {_cell(it['id'])} | {it['kind']} | {it['status']} | {_cell(tests)} |")
    lines += ["", "## Gaps", ""]
    gaps = [it for it in report["items"] if it["status"] == "gap"]
    for n, it in enumerate(gaps, start=1):
        where = f" (plan {it['plan']})" if it.get("plan") else ""
        related = f"; tests importing its files: {', '.join(it['related'][:5])}" if it.get("related") else ""
        lines.append(f"{n}. {it['kind']} {it['id']}{where}: \"{_cell(it['text'])}\" — {it['reason']}{related}")
    for f in report["findings"]:
        lines.append(f"- {f['code']}: {f['message']}")
    if not gaps and not report["findings"]:
        lines.append("None.")
    lines += [END, ""]
    return "\n".join(lines)


def path_of(root: Path, report: dict) -> Path:
    folder = report["phase"]["folder"]
    return Path(root) / folder / f"{report['phase']['phase']}-VALIDATION.md"


def write(root: Path, report: dict) -> tuple[str, bool]:
    """Write the machine part; (the file's path from the root, whether it changed). OperationFailed
    when the phase has no folder or the file cannot be written."""
    from msd_core.errors import OperationFailed, from_os_error
    from msd_core.files.atomic import atomic_write_text
    from msd_core.files.safe_read import read_regular

    if not report["phase"].get("folder"):
        raise OperationFailed(f"phase {report['phase']['phase']} has no folder yet: nothing to write the validation into")
    path = path_of(root, report)
    kept = ""
    try:
        old = read_regular(path, MAX_BYTES, follow_symlinks=False).decode("utf-8", errors="replace")
    except FileNotFoundError:
        old = ""
    except OSError as exc:
        raise OperationFailed(f"cannot replace {path}: {exc.strerror or exc}", hint="move it aside") from None
    if END in old:
        kept = old.split(END, 1)[1].lstrip("\n")
    elif old.strip():
        kept = "## Earlier text\n\n" + old
    text = render(report) + ("\n" + kept if kept.strip() else "")
    rel = Path(path).relative_to(root).as_posix()
    if text == old:
        return rel, False
    try:
        atomic_write_text(path, text, anchor=Path(root))
    except OSError as exc:
        raise from_os_error(exc) from None
    return rel, True
