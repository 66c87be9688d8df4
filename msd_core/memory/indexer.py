"""Incremental indexing of a project's SUMMARY, CONTEXT, RESEARCH and VERIFICATION files.

A file is re-read only when its size or mtime changed AND its sha256 differs from the
one recorded; removed files leave the index. Facts come from the same tolerant
frontmatter reading history-digest uses (msd_core.planning.summary.summary_facts).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.safe_read import read_whole

MAX_INDEX_BYTES = 8 << 20  # a planning file larger than this is skipped, not indexed
from msd_core.lean.record import field, record
from msd_core.planning.discovery import phase_identity

KINDS = (("SUMMARY", "summary"), ("CONTEXT", "context"), ("RESEARCH", "research"), ("VERIFICATION", "verification"))
FACT_FIELDS = ("provides", "affects", "requires", "patterns", "decisions", "tech_stack", "key_files", "tags")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
PHASE_DIR_RE = re.compile(r"^(\d+(?:\.\d+)*)[-_]")
PLAN_FILE_RE = re.compile(r"^\d+(?:\.\d+)*-(?:[a-z0-9-]*?-)?(\d+)-(?:SUMMARY|PLAN)", re.I)


@record
class IndexReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    rebuilt: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {
            "indexed": len(self.indexed),
            "indexed_files": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "skipped": self.skipped,
            "rebuilt": self.rebuilt or None,
            "seconds": round(self.seconds, 4),
        }


def kind_of(name: str) -> str | None:
    if not name.endswith(".md") or name.endswith(".compiled.md"):
        return None
    for marker, kind in KINDS:
        if marker in name:
            return kind
    return None


def candidate_files(project: Path) -> list[Path]:
    """Every indexable file under .planning/, skipping msd's own folder and symlinks."""
    planning = project / ".planning"
    out = []
    from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

    for dirpath, dirnames, filenames in walk(planning):
        dirnames[:] = sorted(d for d in dirnames if d != ".msd" and not os.path.islink(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            if kind_of(name):  # (a Path only for candidates: every query walks the tree)
                full = os.path.join(dirpath, name)
                if not os.path.islink(full):
                    out.append(Path(full))
    return out


def phase_labels(project: Path) -> dict[str, str]:
    """{phase folder relative to the project: phase label} from the shared phase identity:
    `01` for a current phase, `v1.1/01` for an archived one (never merged)."""
    from msd_core.planning.discovery import folder_prefix_of, phase_dirs

    out = {}
    for d in phase_dirs(project / ".planning"):
        try:
            rel = d.path.relative_to(project).as_posix()
        except ValueError:
            continue
        pid = folder_prefix_of(d.name)
        out[rel] = f"{d.milestone}/{pid}" if d.milestone else pid
    return out


def phase_plan_from_path(rel: str, labels: dict[str, str] | None = None) -> tuple[str | None, str | None]:
    """(phase label, plan number) of a file: the label of its phase folder (phase_labels),
    else the number its path shows."""
    if labels:
        folder = rel.rsplit("/", 1)[0]
        if folder in labels:
            m = PLAN_FILE_RE.match(rel.rsplit("/", 1)[-1])
            return labels[folder], (m.group(1) if m else None)
    parts = rel.split("/")
    phase = None
    m = PLAN_FILE_RE.match(parts[-1])
    plan = m.group(1) if m else None
    for i, segment in enumerate(parts[:-1]):
        if i and (parts[i - 1] == "phases" or parts[i - 1].endswith("-phases")) and phase_identity(segment) is None:
            return None, plan  # in a folder where phases live whose name gives no phase: no phase, as for every reader
    for segment in reversed(parts[:-1]):
        m = PHASE_DIR_RE.match(segment)
        if m:
            phase = m.group(1)
            break
    if phase is None:
        m2 = re.match(r"^(\d+(?:\.\d+)*)-", parts[-1])
        phase = m2.group(1) if m2 else None
    return phase, plan


def sections_of(body: str) -> list[tuple[str, str]]:
    """(heading, text) pairs; text before the first heading gets the heading ''."""
    out: list[tuple[str, list[str]]] = [("", [])]
    fence = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        m = None if fence else HEADING_RE.match(line)
        if m:
            out.append((m.group(2).strip(), []))
        else:
            out[-1][1].append(line)
    return [(h, "\n".join(lines).strip()) for h, lines in out if "\n".join(lines).strip() or h]


def _as_strings(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        out = []
        for v in value:
            out.extend(_as_strings(v))
        return out
    if isinstance(value, dict):
        return [", ".join(f"{k}: {v}" for k, v in value.items())]
    text = str(value).strip()
    return [text] if text else []


def read_facts(path: Path, text: str, kind: str, raw: bytes | None = None) -> tuple[dict, str, str | None]:
    """(facts by field, body, skip reason) of the file's text as read once (`raw`: its bytes).
    Shares history-digest's tolerant reader."""
    from msd_core.planning.frontmatter import split_frontmatter

    data, body, error = split_frontmatter(text)
    facts: dict[str, list[str]] = {}
    if kind == "summary":
        from msd_core.planning.summary import summary_facts

        result = summary_facts(path, raw=text.encode("utf-8") if raw is None else raw)
        if not hasattr(result, "provides"):  # a Skip: its reason says why no facts were read
            return facts, body, getattr(result, "reason", None) or error
        for name in FACT_FIELDS:
            facts[name] = _as_strings(getattr(result, name, None))
        facts["subsystem"] = _as_strings(result.subsystem)
        return facts, body, None
    if isinstance(data, dict):
        for key in ("subsystem", "tags", "affects", "provides"):
            if key in data:
                facts[key] = _as_strings(data[key])
    return facts, body, error


def index_project(conn: sqlite3.Connection, project: Path) -> IndexReport:
    started = time.perf_counter()
    report = IndexReport()
    known = {row[0]: row for row in conn.execute("SELECT path, id, sha256, size, mtime_ns FROM files")}
    seen: set[str] = set()
    labels = None  # read the phase folders only when a file needs (re)indexing
    prefix = len(str(project)) + 1
    for path in candidate_files(project):
        rel = str(path)[prefix:].replace(os.sep, "/")  # candidate_files yields paths under project
        seen.add(rel)
        try:
            st = os.stat(path)
        except OSError as exc:
            report.skipped.append({"file": rel, "reason": f"cannot stat: {exc.strerror}"})
            continue
        row = known.get(rel)
        if row and row[3] == st.st_size and row[4] == st.st_mtime_ns:
            report.unchanged += 1
            continue
        try:  # once, whole: a file rewritten in place while read is read again, else skipped until next time
            data, st = read_whole(path, MAX_INDEX_BYTES, follow_symlinks=False)
        except OSError as exc:
            report.skipped.append({"file": rel, "reason": f"cannot read: {exc.strerror}"})
            continue
        digest = sha256_bytes(data)
        if row and row[2] == digest:
            conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (st.st_size, st.st_mtime_ns, row[1]))
            report.unchanged += 1
            continue
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        kind = kind_of(path.name) or "summary"
        facts, body, reason = read_facts(path, text, kind, data)
        if labels is None:
            labels = phase_labels(project)
        phase, plan = phase_plan_from_path(rel, labels)
        subsystem = (facts.get("subsystem") or [None])[0]
        if row:
            _drop(conn, row[1])
        cur = conn.execute(
            "INSERT INTO files(path, kind, phase, plan, subsystem, sha256, size, mtime_ns, skipped) VALUES (?,?,?,?,?,?,?,?,?)",
            (rel, kind, phase, plan, subsystem, digest, st.st_size, st.st_mtime_ns, reason),
        )
        file_id = cur.lastrowid
        for fname, values in facts.items():
            for value in values:
                conn.execute("INSERT INTO facts(file_id, field, value) VALUES (?,?,?)", (file_id, fname, value))
                conn.execute("INSERT INTO facts_fts(value, field, file_id) VALUES (?,?,?)", (value, fname, file_id))
        for heading, section in sections_of(body):
            conn.execute(
                "INSERT INTO sections(body, heading, path, file_id) VALUES (?,?,?,?)", (section, heading, rel, file_id)
            )
        if reason:
            report.skipped.append({"file": rel, "reason": f"frontmatter not read: {reason}; text still indexed"})
        report.indexed.append(rel)
    for rel, row in known.items():
        if rel not in seen:
            _drop(conn, row[1])
            report.removed.append(rel)
    conn.commit()
    report.seconds = time.perf_counter() - started
    return report


def _drop(conn: sqlite3.Connection, file_id: int) -> None:
    conn.execute("DELETE FROM facts WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM facts_fts WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM sections WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))
