#!/usr/bin/env python3
"""Content coverage: which runtime calls and write instructions of the content the cycle executed.

    python scripts/content_coverage.py [--log FILE] [--check] [--verbose] [--json] [-n WORKERS]

Without --log it runs the whole-cycle tests (tests/cycle: the scenarios and the walker, compact
content off and on) with MSD_COVERAGE_LOG set: tests/kit/cyclekit.py's Agent appends one JSON line
per command it runs and per file it writes. Then it lists the entries of the shipped content and
matches them against that log.

Entries (the granularity), per content file, once per file and key:
- `run`: every `msd_run` invocation in the content's code (code spans, fenced lines, the flows'
  prompts; msd_core.checks.contract's reading), keyed by `msd_run <command> [<verb>]` (a subcommand,
  or the value of a first positional argument with fixed choices: `config get`) and the
  sorted options as written (`msd_run state patch --set-session`). Positional values do not count.
- `mkdir`: a code line starting with `mkdir`, keyed by its path as written.
- `write`: a prose line (outside fenced code) with a write verb (write, writes, create,
  creates, append, appends, save, saves) and no negation before it (never, not, no, don't), keyed by
  the first code span on the line naming a file or folder: a span without spaces holding
  `.planning/`, or a `<placeholder>/` folder, or ending in an upper-case file name (`<NN>-CONTEXT.md`).
  A bare `.planning/` is too general to be an instruction and is left out.

Matching: a `run` entry is covered when the cycle ran a command with the same key (read from the
line as the content wrote it, which the Agent logs beside the filled line); an entry written without
an option (`msd_run state sync`, a bare mention of the command) by any run of that command and
subcommand. The same call written in two files is one behaviour, covered by one run. A `mkdir` or `write` entry is covered when a
directory made or a file written matches its path, each `<placeholder>`, `{placeholder}`, `$VAR`,
`*` and upper-case run of N/P/X (`NN`, `PP`) standing for one path segment part; a folder (a path
ending in `/`) is covered by anything written or made inside it.

Compact off counts every file but the `.compact.md` payloads that have a full sibling; compact on
counts the spines alone (no detail part) and the compact payloads in place of their full sibling.
Each figure is matched against the commands run with that setting (the log records the project's
workflow.compact_content).

Exclusions (tests/cycle/coverage_exclusions.txt): one entry a line, `<file> :: <key> :: <reason>`,
`*` as the file for every file. Entries that cannot run in the cycle (a command a person types, a
host-only step) carry their reason; entries not covered yet say `not yet covered: <why>`, so the
figure can only go up. --check exits 1 when an entry is neither covered nor excluded, or when an
exclusion names nothing uncovered any more (delete that line: the ratchet moves up).

Limits: a key says which command, subcommand and options ran, not with which values or from which
section; git commands are not counted; a write is matched by its path, not by what was written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from msd_core.checks.contract import ParserCache, content_code, invocations  # noqa: E402
from msd_core.checks.model import PART_RE, ContentTree  # noqa: E402
from msd_core.checks.textlines import FENCE_RE  # noqa: E402

EXCLUSIONS = REPO / "tests" / "cycle" / "coverage_exclusions.txt"
CYCLE_TESTS = ("tests/cycle",)
ALL_FILES = "*"
NOT_YET = "not yet covered"
HEADER = "Content coverage exclusions (scripts/content_coverage.py): `<file> :: <key> :: <reason>`, `*` for every file."
_GLOBAL_FLAGS = {"--json-errors"}
_VERB = re.compile(r"\b(write|writes|create|creates|append|appends|save|saves)\b", re.I)
_NEGATION = re.compile(r"\b(never|not|no|don't|do not)\b[^.;:]*$", re.I)
_SPAN = re.compile(r"`([^`\s]+)`")
_UPPER_FILE = re.compile(r"(^|[/-])[A-Z][A-Z0-9_-]*[A-Z]\.(md|json|toml|txt)$")
_PATH_PART = re.compile(r"<[^>]+>|\{[^}]+\}|\$\{?\w+\}?|\*|\b[NPX]{2,3}\b")


@dataclass(frozen=True)
class Entry:
    file: str
    line: int
    kind: str  # run | mkdir | write
    key: str


@dataclass
class Executed:
    kind: str  # run | mkdir | write
    key: str  # run: the key; mkdir/write: the path
    test: str
    invocation: str
    compact: str


@dataclass
class Report:
    compact: str
    entries: list[Entry]
    covered: dict[Entry, Executed] = field(default_factory=dict)
    excluded: dict[Entry, str] = field(default_factory=dict)

    @property
    def uncovered(self) -> list[Entry]:
        return [e for e in self.entries if e not in self.covered and e not in self.excluded]

    def percent(self, less_exclusions: bool = False) -> float:
        total = len(self.entries) - (len([e for e in self.excluded if e not in self.covered]) if less_exclusions else 0)
        return 100.0 * len(self.covered) / total if total else 100.0


# ------------------------------------------------------------------ what the content says


def run_key(body: str, parsers: ParserCache) -> str | None:
    """`msd_run <command> [<subcommand>] <options sorted>` of one invocation (the text after msd_run)."""
    try:
        toks = shlex.split(body)
    except ValueError:
        return None
    while toks and toks[0] in _GLOBAL_FLAGS:
        toks = toks[1:]
    if not toks or toks[0].startswith("-") or toks[0] == "help" or "<" in toks[0]:
        return None
    name, rest = toks[0], toks[1:]
    words = [name]
    parser = parsers.get(name)
    subs = _subcommands(parser) if not isinstance(parser, str) else set()
    if rest and rest[0] in subs:
        words.append(rest[0])
    flags = sorted({t.split("=", 1)[0] for t in rest if t.startswith("-") and len(t) > 1 and not t[1:2].isdigit()
                    and t != "--"})
    return " ".join(["msd_run", *words, *flags])


def _subcommands(parser) -> set[str]:
    """The verbs of a command: its subparsers, or the choices of its first positional argument
    (`msd_run config get|set|...`)."""
    for action in getattr(parser, "_actions", []):
        if action.option_strings:
            continue
        choices = getattr(action, "choices", None)
        return {str(c) for c in choices} if choices else set()
    return set()


def write_key(line: str) -> str | None:
    """The path a prose line tells the agent to write, or None (see the module docstring)."""
    for verb in _VERB.finditer(line):
        if _NEGATION.search(line[: verb.start()]):
            continue
        spans = [m for m in _SPAN.finditer(line) if _is_path(m.group(1))]
        if not spans:
            return None
        after = [m for m in spans if m.start() > verb.start()]
        return (after or spans)[0].group(1)
    return None


def _is_path(span: str) -> bool:
    if span.startswith(("-", "msd_run")) or span in (".planning/", ".planning"):
        return False
    return ".planning/" in span or bool(re.match(r"^<[a-z-]+>/", span)) or bool(_UPPER_FILE.search(span))


def content_entries(root: Path, compact: str) -> list[Entry]:
    """Every entry of the content tree at `root` that the agent reads with compact content off or on."""
    tree = ContentTree(root)
    files = set(tree.files)

    def counted(rel: str) -> bool:
        if rel.endswith(".compact.md"):
            return compact == "on" or rel.replace(".compact.md", ".md") not in files
        if compact == "on" and (PART_RE.match(rel) or rel.replace(".md", ".compact.md") in files):
            return False
        return True

    seen: dict[tuple[str, str, str], Entry] = {}

    def add(rel: str, line: int, kind: str, key: str | None) -> None:
        if key and (rel, kind, key) not in seen:
            seen[(rel, kind, key)] = Entry(rel, line, kind, key)

    parsers = ParserCache()
    for rel, seg in content_code(tree):
        if not counted(rel):
            continue
        text = seg.text.strip()
        if "msd_run" in text:
            for body in invocations(text):
                add(rel, seg.line, "run", run_key(body, parsers))
        elif text.startswith("mkdir "):
            add(rel, seg.line, "mkdir", _mkdir_path(text))
    for rel in tree.markdown_files():
        if not counted(rel):
            continue
        fenced = False
        for i, line in enumerate(tree.lines(rel), 1):
            if FENCE_RE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                add(rel, i, "write", write_key(line))
    return sorted(seen.values(), key=lambda e: (e.file, e.line, e.kind, e.key))


def _mkdir_path(text: str) -> str | None:
    try:
        toks = shlex.split(text.split("&&")[0])
    except ValueError:
        return None
    paths = [t for t in toks[1:] if not t.startswith("-")]
    return paths[0] if paths else None


# ------------------------------------------------------------------ what the cycle ran


def read_log(path: Path, cycle_only: bool = False) -> list[Executed]:
    """What the log says ran; `cycle_only`: only the records of tests/cycle (a whole session's log)."""
    parsers = ParserCache()
    out: list[Executed] = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(raw)
        except ValueError:
            continue  # a line cut short by a killed worker
        if not isinstance(rec, dict):
            continue
        test = str(rec.get("test", ""))
        if cycle_only and not test.startswith(CYCLE_TESTS):
            continue  # a log of a whole test session (CI's step 1) holds other tests' agents too: only the cycle counts
        compact = next((m for m in ("on", "off") if f"compact-{m}" in test), str(rec.get("compact", "off")))
        common = {"test": test, "invocation": str(rec.get("invocation", "")), "compact": compact}
        text, template = str(rec.get("text", "")), str(rec.get("template") or rec.get("text", ""))
        if rec.get("kind") == "write":
            out.append(Executed("write", text, **common))
            continue
        source = template if "msd_run" in template else text
        for body in invocations(source):
            key = run_key(body, parsers)
            if key:
                out.append(Executed("run", key, **common))
        if text.split("&& ")[-1].startswith("mkdir "):
            path = _mkdir_path(text.split("&& ")[-1])
            if path:
                out.append(Executed("mkdir", path, **common))
    return out


def path_pattern(written: str) -> re.Pattern:
    """A path as the content writes it, as a pattern matching real paths (see the module docstring)."""
    folder = written.endswith("/")
    body = written.rstrip("/")
    out, pos = [], 0
    for m in _PATH_PART.finditer(body):
        out.append(re.escape(body[pos:m.start()]))
        out.append(r"[^/]+?")
        pos = m.end()
    out.append(re.escape(body[pos:]))
    tail = r"(/.*)?" if folder else ""
    lead = "" if body.startswith("/") else r"(^|.*/)"
    return re.compile(lead + "".join(out) + tail + "$")


def command_of(key: str) -> str:
    """`msd_run <command> [<subcommand>]` of a run key (the words before the first option)."""
    return " ".join(w for w in key.split() if not w.startswith("-"))


def covers(entry: Entry, done: Executed) -> bool:
    if entry.kind == "run":
        return done.kind == "run" and (done.key == entry.key or (entry.key == command_of(entry.key)
                                                                  and command_of(done.key) == entry.key))
    if done.kind not in ("write", "mkdir"):
        return False
    return bool(path_pattern(entry.key).match(done.key.rstrip("/")))


# ------------------------------------------------------------------ exclusions, report


def read_exclusions(path: Path) -> list[tuple[str, str, str]]:
    """(file or *, key, reason) of each line; blank lines and `#` comments skipped."""
    out = []
    if not Path(path).is_file():
        return out
    for n, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        if len(parts) != 3 or not all(parts):
            raise SystemExit(f"{path}:{n}: not `<file> :: <key> :: <reason>`: {raw}")
        out.append((parts[0], parts[1], parts[2]))
    return out


def measure(entries: list[Entry], executed: list[Executed], exclusions: list[tuple[str, str, str]],
            compact: str) -> Report:
    report = Report(compact, entries)
    runs = [d for d in executed if d.compact == compact]
    by_key: dict[str, Executed] = {}
    for d in runs:
        if d.kind == "run":
            by_key.setdefault(d.key, d)
            by_key.setdefault(command_of(d.key), d)  # a bare mention (no option) names the command itself
    paths = [d for d in runs if d.kind != "run"]
    for e in entries:
        hit = by_key.get(e.key) if e.kind == "run" else next((d for d in paths if covers(e, d)), None)
        if hit is not None:
            report.covered[e] = hit
            continue
        reason = next((r for f, k, r in exclusions if k == e.key and f in (ALL_FILES, e.file)), None)
        if reason is not None:
            report.excluded[e] = reason
    return report


def stale_exclusions(reports: list[Report], exclusions: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Exclusions that take out no uncovered entry in any report (covered now, or gone from the content)."""
    used = {(e.file, e.key) for r in reports for e in r.excluded}
    keys = {e.key for r in reports for e in r.excluded}
    out = []
    for f, k, r in exclusions:
        hit = k in keys if f == ALL_FILES else (f, k) in used
        if not hit:
            out.append((f, k, r))
    return out


def render(reports: list[Report], stale: list[tuple[str, str, str]], verbose: bool) -> str:
    lines = []
    for rep in reports:
        lines.append(f"== compact {rep.compact}: {len(rep.covered)}/{len(rep.entries)} entries covered "
                     f"({rep.percent():.1f} %), {len(rep.excluded)} excluded, {len(rep.uncovered)} uncovered "
                     f"({rep.percent(less_exclusions=True):.1f} % of what the cycle can run)")
        files: dict[str, list[Entry]] = {}
        for e in rep.entries:
            files.setdefault(e.file, []).append(e)
        for rel, ents in files.items():
            done = [e for e in ents if e in rep.covered]
            lines.append(f"  {rel}: {len(done)}/{len(ents)}")
            for e in ents:
                if e in rep.covered:
                    if verbose:
                        d = rep.covered[e]
                        lines.append(f"      ran  {e.kind} {e.key}  <- {d.test} {d.invocation}".rstrip())
                elif e in rep.excluded:
                    if verbose:
                        lines.append(f"      excl {e.kind} {e.key}  ({rep.excluded[e]})")
                else:
                    lines.append(f"      MISS {e.kind} {e.key}  (line {e.line})")
    for f, k, r in stale:
        lines.append(f"stale exclusion (covered now or gone: delete the line): {f} :: {k} :: {r}")
    return "\n".join(lines)


_WORKFLOW_OF = re.compile(r"^(?:commands/msd/|msd-core/workflows/|msd-core/flows/)([^/.]+)")
_AGENT_OF = re.compile(r"^(?:agents/msd-|msd-core/agent-skills/|msd-core/agent-ext/)([^/.]+)")


def why_uncovered(entry: Entry, carried_out: set[str]) -> str:
    """Why the cycle does not reach an entry, from the slash commands it carried out."""
    m = _WORKFLOW_OF.match(entry.file)
    if m:
        stem = m.group(1)
        if stem not in carried_out:
            return f"no scenario or walker move carries out /msd-{stem}"
        return f"/msd-{stem} is carried out, but no step takes the branch that says this"
    m = _AGENT_OF.match(entry.file)
    if m:
        return f"no step plays msd-{m.group(1)} doing this"
    return "no step follows this line"


def floor_lines(reports: list[Report], executed: list[Executed]) -> list[str]:
    """Exclusion lines for every entry uncovered now ('not yet covered: <why>'), for --write-floor."""
    carried_out = {d.invocation.split()[0].lstrip("/").removeprefix("msd-") for d in executed if d.invocation}
    out: dict[tuple[str, str], str] = {}
    for rep in reports:
        for e in rep.uncovered:
            out.setdefault((e.file, e.key), f"{e.file} :: {e.key} :: not yet covered: {why_uncovered(e, carried_out)}")
    return [out[k] for k in sorted(out)]


def write_floor(path: Path, kept: list[tuple[str, str, str]], floor: list[str]) -> None:
    """Rewrite the exclusion file: its comment lines, the exclusions with a reason, then the floor."""
    old = Path(path).read_text(encoding="utf-8").splitlines() if Path(path).is_file() else []
    head = [ln for ln in old if ln.startswith("#")] or [f"# {HEADER}"]
    body = [" :: ".join(x) for x in kept]
    Path(path).write_text("\n".join(head + [""] + body + [""] + floor) + "\n", encoding="utf-8")


def run_cycle(log: Path, workers: str, tests: tuple[str, ...]) -> int:
    # a session of its own, even when a test runs this: no pytest or compact-recorder state of the caller's
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MSD_TEST_COMPACT_"))}
    env["MSD_COVERAGE_LOG"] = str(log)
    env.pop("MSD_COMPACT_DEFAULT", None)  # both compact runs of every scenario
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, *tests]
    return subprocess.run(cmd, cwd=str(REPO), env=env, stdin=subprocess.DEVNULL).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, help="read this coverage log instead of running the cycle")
    parser.add_argument("--root", type=Path, default=REPO / "msd_core" / "content", help="the content tree")
    parser.add_argument("--exclusions", type=Path, default=EXCLUSIONS)
    parser.add_argument("--check", action="store_true", help="exit 1 on an uncovered, unexcluded entry or a stale exclusion")
    parser.add_argument("--cycle-only", action="store_true",
                        help="with --log: count only the records of tests/cycle (a log of a whole test session)")
    parser.add_argument("--verbose", action="store_true", help="also list what covered each entry")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument("--write-floor", action="store_true",
                        help="rewrite the exclusion file: the reasoned lines kept, every entry uncovered now listed "
                             "as 'not yet covered: <why>' (sets the floor; review the diff)")
    parser.add_argument("-n", dest="workers", default="2", help="pytest-xdist workers for the cycle run (default 2)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="msd-coverage-") as tmp:
        log = args.log
        if log is None:
            log = Path(tmp) / "coverage.jsonl"
            code = run_cycle(log, args.workers, CYCLE_TESTS)
            if code != 0:
                print(f"content coverage: the cycle tests failed (exit {code}); no figure", file=sys.stderr)
                return 1
        executed = read_log(log, cycle_only=args.cycle_only)
    exclusions = read_exclusions(args.exclusions)
    if args.write_floor:  # keep the reasons written by hand, list what is uncovered besides them
        exclusions = [x for x in exclusions if not x[2].startswith(NOT_YET)]
    reports = [measure(content_entries(args.root, c), executed, exclusions, c) for c in ("off", "on")]
    if args.write_floor:
        write_floor(args.exclusions, exclusions, floor_lines(reports, executed))
        print(render(reports, [], False).split("\n")[0])
        print(next(ln for ln in render(reports, [], False).splitlines() if ln.startswith("== compact on")))
        return 0
    stale = stale_exclusions(reports, exclusions)
    if args.json:
        print(json.dumps({r.compact: {"covered": len(r.covered), "total": len(r.entries), "excluded": len(r.excluded),
                                      "uncovered": [f"{e.file} :: {e.key}" for e in r.uncovered],
                                      "percent": round(r.percent(), 1)} for r in reports} |
                         {"stale": [" :: ".join(s) for s in stale]}, indent=2))
    else:
        print(render(reports, stale, args.verbose))
    if args.check and (any(r.uncovered for r in reports) or stale):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
