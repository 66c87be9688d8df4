"""`msd bench tokens`: bytes and proxy tokens per content file, eager windows per command.

Report shape (pinned by tests/test_bench_tokens.py):
  {"tokenizer": "proxy: o200k_base via <package>==<version>",
   "files":    {source relpath: {"bytes", "tokens"}},
   "commands": {name: {"eager", "with_details"}},
   "agents":   {name: {"core", "extensions": {ext: core + ext}}},
   "host_rendered": {stem: {"off", "on"}},   # what a skill of a split workflow delivers when the host
                                              # runs its `msd_run resolve --emit` line (issue 10)
   "aggregate": {"eager", "with_details"}}
  plus, with --history, "history": {tree: {"summaries", "digest"}} for the corpus trees.

Deterministic: sorted keys, no timestamps, LF-normalised text; two runs on unchanged
content print identical bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.bench.eager import eager_closure
from msd_core.registry import build_registry

EAGER_FLAG_TOKENS = 8000
FILE_FLAG_TOKENS = 10000
SPINE_ONLY_NOTICE = "msd: compact content is on for this project: this workflow runs on its spine alone."


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")


def content_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts and p.suffix in (".md", ".toml", ".json")
    )


def emit_text(root: Path, parts: list[str]) -> str:
    """The text `msd_run resolve --emit` inserts with compact content off: a marker line, then each part."""
    chunks = []
    for rel in parts:
        chunks.append(f"<!-- msd:part {rel} -->\n")
        chunks.append(_text(root / rel))
    return "".join(chunks)


def build_report(root: Path, count, label: str) -> dict:
    root = Path(root)
    registry = build_registry(root)
    files: dict[str, dict] = {}
    tokens: dict[str, int] = {}
    for rel in content_files(root):
        text = _text(root / rel)
        n = count(text)
        tokens[rel] = n
        files[rel] = {"bytes": len(text.encode("utf-8")), "tokens": n}

    workflows = registry.get("workflows", {})
    commands: dict[str, dict] = {}
    host_rendered: dict[str, dict] = {}
    cmd_dir = root / "commands" / "msd"
    for path in sorted(cmd_dir.glob("*.md")) if cmd_dir.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        closure = eager_closure(root, rel)
        eager = sum(tokens.get(r, 0) for r in closure)
        parts: list[str] = []
        for r in closure:
            for stem, entry in workflows.items():
                if entry["spine"] == r:
                    parts.extend(entry["parts"])
        details = sum(tokens.get(p, 0) for p in parts)
        commands[path.stem] = {"eager": eager, "with_details": eager + details}
        for r in closure:
            for stem, entry in workflows.items():
                if entry["spine"] == r and entry["parts"]:
                    host_rendered[stem] = {
                        "off": eager + count(emit_text(root, entry["parts"])),
                        "on": eager + count(SPINE_ONLY_NOTICE + "\n"),
                    }

    agents: dict[str, dict] = {}
    for name, entry in sorted(registry.get("agents", {}).items()):
        core = tokens.get(entry["core"], 0)
        agents[name] = {
            "core": core,
            "extensions": {ext: core + tokens.get(p, 0) for ext, p in sorted(entry["extensions"].items())},
        }

    return {
        "tokenizer": label,
        "files": files,
        "commands": commands,
        "agents": agents,
        "host_rendered": host_rendered,
        "aggregate": {
            "eager": sum(c["eager"] for c in commands.values()),
            "with_details": sum(c["with_details"] for c in commands.values()),
        },
    }


def history_report(corpus: Path, count) -> dict:
    """Proxy tokens of all SUMMARY files vs the history-digest output, per corpus tree."""
    from msd_core.planning.digest import build_digest  # the planning runtime
    from msd_core.planning.discovery import project_summaries

    out: dict[str, dict] = {}
    for tree in sorted(p for p in Path(corpus).iterdir() if (p / ".planning").is_dir()):
        summaries = [f for _, f in project_summaries(tree / ".planning")]
        total = sum(count(_text(p)) for p in summaries)
        digest = build_digest(tree, cache=False)  # the corpus is read-only: no cache written
        out[tree.name] = {
            "summary_files": len(summaries),
            "summaries": total,
            "digest": count(json.dumps(digest, ensure_ascii=False, separators=(",", ":"))),
        }
    return out


def dumps(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def compare(report: dict, baseline: dict) -> dict:
    """Per-file and per-command token deltas against a baseline report."""

    def delta(new: dict, old: dict, key: str) -> dict:
        out = {}
        for name in sorted(set(new) | set(old)):
            a = old.get(name, {}).get(key) if name in old else None
            b = new.get(name, {}).get(key) if name in new else None
            if a != b:
                out[name] = {"baseline": a, "now": b, "delta": (b or 0) - (a or 0)}
        return out

    cmd = {}
    for key in ("eager", "with_details"):
        for name, d in delta(report["commands"], baseline.get("commands", {}), key).items():
            cmd.setdefault(name, {})[key] = d
    return {
        "tokenizer": report["tokenizer"],
        "baseline_tokenizer": baseline.get("tokenizer"),
        "files": delta(report["files"], baseline.get("files", {}), "tokens"),
        "commands": cmd,
        "aggregate": {
            k: {"baseline": baseline.get("aggregate", {}).get(k), "now": report["aggregate"][k]}
            for k in ("eager", "with_details")
        },
    }


def flags(report: dict) -> list[str]:
    out = []
    for name, c in sorted(report["commands"].items()):
        if c["eager"] > EAGER_FLAG_TOKENS:
            out.append(f"command {name}: eager window {c['eager']} > {EAGER_FLAG_TOKENS} proxy tokens")
    for rel, f in sorted(report["files"].items()):
        if f["tokens"] > FILE_FLAG_TOKENS:
            out.append(f"file {rel}: {f['tokens']} > {FILE_FLAG_TOKENS} proxy tokens")
    return out


def context_budget_markdown(report: dict) -> str:
    """The "Context budget" section of docs/PERFORMANCE.md, generated from one run."""
    agg = report["aggregate"]
    share = (agg["eager"] / agg["with_details"] * 100) if agg["with_details"] else 100.0
    lines = [
        "## Context budget",
        "",
        f"Generated by `msd bench tokens --write-docs`; tokenizer: {report['tokenizer']}.",
        "`eager` is what the host loads before the first step (the command and everything it",
        "`@`-includes); `with_details` adds the detail parts its spines list (compact content off).",
        "",
        f"Aggregate over all commands: eager {agg['eager']:,} vs with details {agg['with_details']:,} "
        f"proxy tokens ({share:.0f}%).",
        "",
        "| command | eager | with details | eager share |",
        "|---|---:|---:|---:|",
    ]
    for name, c in sorted(report["commands"].items()):
        s = c["eager"] / c["with_details"] * 100 if c["with_details"] else 100.0
        lines.append(f"| {name} | {c['eager']:,} | {c['with_details']:,} | {s:.0f}% |")
    if report.get("host_rendered"):
        lines += ["", "Host-rendered skills (what the model receives at invocation):", "",
                  "| workflow | compact off | compact on |", "|---|---:|---:|"]
        for stem, h in sorted(report["host_rendered"].items()):
            lines.append(f"| {stem} | {h['off']:,} | {h['on']:,} |")
    if report.get("agents"):
        lines += ["", "| agent | core | largest core + extension |", "|---|---:|---:|"]
        for name, a in sorted(report["agents"].items()):
            biggest = max(a["extensions"].values(), default=a["core"])
            lines.append(f"| {name} | {a['core']:,} | {biggest:,} |")
    fl = flags(report)
    lines += ["", "Flags: " + ("; ".join(fl) if fl else "none") + "."]
    return "\n".join(lines) + "\n"


def write_docs_section(doc: Path, section: str, heading: str = "## Context budget") -> None:
    """Replace (or append) the section under `heading` of docs/PERFORMANCE.md."""
    from msd_core.fsutil import atomic_write_text

    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n\n"
    start = text.find(heading + "\n")
    if start == -1:
        new = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + 1)
        new = text[:start] + section + (text[nxt + 1:] if nxt != -1 else "")
    atomic_write_text(doc, new)
