"""`msd bench tokens`: bytes and proxy tokens per content file, the window the host renders per command.

Report shape (pinned by tests/bench/test_bench_tokens.py):
  {"tokenizer": "proxy: o200k_base via <package>==<version>",
   "files":    {source relpath: {"bytes", "tokens"}},
   "commands": {name: {"window", "window_compact", "eager", "with_details"}},
   "agents":   {name: {"core", "core_file", "always", "extensions": {ext: core + ext}}},
   "host_rendered": {stem: {"off", "on"}},   # split workflows: the window with compact off / on
   "aggregate": {"window", "window_compact", "eager", "with_details"}}
  plus, with --history, "history": {tree: {"summaries", "digest"}} for the corpus trees.

The headline is `window`: what the model receives when the host renders the skill with
compact content off (the default): the command, everything it `@`-includes, and for a
split workflow the detail parts the host inserts by running the skill's
`msd_run resolve <stem> --emit` line (the same text, rendered by msd_core.resolve.emit).
`window_compact` is the same with compact content on (the spine and one line).
`eager` (the command and its `@`-includes, before the host inserts anything) and
`with_details` (eager plus the bare parts) are kept, labelled, for comparison.
An agent's `core` is its prompt plus the extensions `msd_run extensions` lists for it
whatever the plan or phase (`always`); `core_file` is the prompt alone; `extensions`
adds each optional extension to `core`. The 8,000-token flag applies to `window`.

Deterministic: sorted keys, no timestamps, LF-normalised text; two runs on unchanged
content print identical bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.agents import extensions
from msd_core.bench.eager import eager_closure
from msd_core.shipped.registry import build_registry

EAGER_FLAG_TOKENS = 8000  # applies to the host-rendered window
FILE_FLAG_TOKENS = 10000


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")


def content_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts and p.suffix in (".md", ".toml", ".json")
    )


class _Emitted:
    """What msd_core.resolve.emit.render reads of a resolved workflow and its parts."""

    def __init__(self, stem: str, compact: bool, parts: list, relpath: str = "", data: bytes = b"", path: str = ""):
        self.stem, self.compact, self.parts = stem, compact, parts
        self.relpath, self.data, self.path = relpath, data, path


def emit_text(root: Path, parts: list[str], stem: str = "", compact: bool = False) -> str:
    """The text `msd_run resolve <stem> --emit` prints for these parts (compact off), or its
    one line (compact on): rendered by the runtime's own emit module."""
    from msd_core.resolve.emit import render

    items = [_Emitted(stem, False, [], rel, _text(root / rel).encode("utf-8"), f"~/.claude/{rel}") for rel in parts]
    return render(_Emitted(stem, compact, items))


def always_loaded(agent: str) -> list[str]:
    """Extensions `msd_run extensions <agent>` lists whatever the input: what its rules choose
    for the plainest one (a plan with one auto task; an empty phase folder, no flags)."""
    import tempfile


    if agent == "executor":
        chosen, _ = extensions.executor_rules('<task type="auto"><name>t</name></task>\n', None)
    elif agent == "planner":
        with tempfile.TemporaryDirectory() as empty:
            chosen, _ = extensions.planner_rules(Path(empty), False, False, False)
    else:
        return []
    return [name for name, _reason in chosen]


def build_report(root: Path, count, label: str, always=always_loaded) -> dict:
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
        window, window_compact = eager, eager
        for r in closure:
            for stem, entry in workflows.items():
                if entry["spine"] == r and entry["parts"]:
                    parts.extend(entry["parts"])
                    window += count(emit_text(root, entry["parts"], stem))
                    window_compact += count(emit_text(root, entry["parts"], stem, compact=True))
                    host_rendered[stem] = {"off": eager + count(emit_text(root, entry["parts"], stem)),
                                           "on": eager + count(emit_text(root, entry["parts"], stem, compact=True))}
        details = sum(tokens.get(p, 0) for p in parts)
        commands[path.stem] = {"window": window, "window_compact": window_compact,
                               "eager": eager, "with_details": eager + details}

    agents: dict[str, dict] = {}
    for name, entry in sorted(registry.get("agents", {}).items()):
        core_file = tokens.get(entry["core"], 0)
        fixed = [e for e in always(name) if e in entry["extensions"]]
        core = core_file + sum(tokens.get(entry["extensions"][e], 0) for e in fixed)
        agents[name] = {
            "core": core,
            "core_file": core_file,
            "always": fixed,
            "extensions": {ext: core + tokens.get(p, 0) for ext, p in sorted(entry["extensions"].items())
                           if ext not in fixed},
        }

    return {
        "tokenizer": label,
        "files": files,
        "commands": commands,
        "agents": agents,
        "host_rendered": host_rendered,
        "aggregate": {key: sum(c[key] for c in commands.values())
                      for key in ("window", "window_compact", "eager", "with_details")},
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
    for key in ("window", "eager", "with_details"):
        for name, d in delta(report["commands"], baseline.get("commands", {}), key).items():
            cmd.setdefault(name, {})[key] = d
    return {
        "tokenizer": report["tokenizer"],
        "baseline_tokenizer": baseline.get("tokenizer"),
        "files": delta(report["files"], baseline.get("files", {}), "tokens"),
        "commands": cmd,
        "aggregate": {
            k: {"baseline": baseline.get("aggregate", {}).get(k), "now": report["aggregate"][k]}
            for k in ("window", "eager", "with_details")
        },
    }


def flags(report: dict) -> list[str]:
    out = []
    for name, c in sorted(report["commands"].items()):
        if c["window"] > EAGER_FLAG_TOKENS:
            out.append(f"command {name}: host-rendered window {c['window']} > {EAGER_FLAG_TOKENS} proxy tokens")
    for rel, f in sorted(report["files"].items()):
        if f["tokens"] > FILE_FLAG_TOKENS:
            out.append(f"file {rel}: {f['tokens']} > {FILE_FLAG_TOKENS} proxy tokens")
    return out


def context_budget_markdown(report: dict) -> str:
    """The "Context budget" section of docs/PERFORMANCE.md, generated from one run."""
    agg = report["aggregate"]
    lines = [
        "## Context budget",
        "",
        f"Generated by `msd bench tokens --write-docs`; tokenizer: {report['tokenizer']}.",
        "`window` is what the model receives when Claude Code renders the skill with compact content",
        "off (the default): the command, everything it `@`-includes, and for a split workflow the",
        "detail parts the host inserts by running the skill's `msd_run resolve <stem> --emit` line.",
        "`compact on` is the same window with `workflow.compact_content` on. `eager` (the command and",
        "its `@`-includes, before the host inserts anything) is kept for comparison.",
        "",
        f"Aggregate over all commands: window {agg['window']:,} (compact on {agg['window_compact']:,}; "
        f"eager {agg['eager']:,}) proxy tokens.",
        "",
        "| command | window (compact off) | compact on | eager |",
        "|---|---:|---:|---:|",
    ]
    for name, c in sorted(report["commands"].items()):
        flag = " (over 8,000)" if c["window"] > EAGER_FLAG_TOKENS else ""
        lines.append(f"| {name} | {c['window']:,}{flag} | {c['window_compact']:,} | {c['eager']:,} |")
    if report.get("agents"):
        lines += ["", "Agents: `core` is the prompt plus the extensions always listed for it; the last",
                  "column adds the largest optional extension.", "",
                  "| agent | core | always-loaded extensions | prompt alone | core + largest optional |",
                  "|---|---:|---|---:|---:|"]
        for name, a in sorted(report["agents"].items()):
            biggest = max(a["extensions"].values(), default=a["core"])
            lines.append(f"| {name} | {a['core']:,} | {', '.join(a['always']) or '-'} | {a['core_file']:,} | {biggest:,} |")
    fl = flags(report)
    lines += ["", "Flags: " + ("; ".join(fl) if fl else "none") + "."]
    return "\n".join(lines) + "\n"


def write_docs_section(doc: Path, section: str, heading: str = "## Context budget") -> None:
    """Replace (or append) the section under `heading` of docs/PERFORMANCE.md."""
    from msd_core.files.atomic import atomic_write_text

    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n\n"
    start = text.find(heading + "\n")
    if start == -1:
        new = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + 1)
        new = text[:start] + section + (text[nxt + 1:] if nxt != -1 else "")
    atomic_write_text(doc, new)
