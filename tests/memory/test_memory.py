"""Project memory: FTS5 index, incremental re-index, rebuild, precise queries, corpus known answers."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import corpus_tree_names

SUMMARY_A = """---
phase: 01-foundation
plan: 01
subsystem: auth
provides: ["User model", "login endpoint POST /api/login"]
affects: [api]
tech-stack:
  added: [pyjwt]
key-files:
  created: [src/models/user.py]
  modified: [src/app.py]
key-decisions: ["Passwords hashed with argon2"]
patterns-established: ["repository pattern for data access"]
---
# Phase 1 Plan 1 Summary

The login flow is done. Good user experience matters: user-facing errors are short.
"""

SUMMARY_B = """---
phase: 02-billing
plan: 01
subsystem: billing
requires: [{phase: 01-foundation, provides: "User model"}]
provides: ["Invoice model"]
key-files:
  created: [src/models/invoice.py]
key-decisions: ["Invoices are immutable once sent"]
---
# Summary

Invoices reference the User model by id.
"""


def make_project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".planning/phases/01-foundation").mkdir(parents=True)
    (proj / ".planning/phases/02-billing").mkdir(parents=True)
    (proj / ".planning/phases/01-foundation/01-01-SUMMARY.md").write_text(SUMMARY_A)
    (proj / ".planning/phases/02-billing/02-01-SUMMARY.md").write_text(SUMMARY_B)
    (proj / ".planning/phases/02-billing/02-CONTEXT.md").write_text(
        "# Phase 2 Context\n\n## Decisions\n\n- Billing uses Stripe webhooks\n\n## Patterns\n\nRetry webhooks with exponential backoff.\n"
    )
    return proj


def call(msd_run, proj, *args):
    r = msd_run(["memory", *args, "--cwd", str(proj)])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_index_then_incremental_touches_only_changed_files(msd_run, tmp_path):
    proj = make_project(tmp_path)
    first = call(msd_run, proj, "index")
    assert first["indexed"] == 3 and first["unchanged"] == 0
    again = call(msd_run, proj, "index")
    assert again["indexed"] == 0 and again["unchanged"] == 3
    target = proj / ".planning/phases/02-billing/02-01-SUMMARY.md"
    target.write_text(SUMMARY_B.replace("immutable once sent", "immutable once paid"))
    os.utime(target, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    third = call(msd_run, proj, "index")
    assert third["indexed_files"] == [".planning/phases/02-billing/02-01-SUMMARY.md"]
    assert third["unchanged"] == 2
    # touching without changing content re-hashes but does not re-index
    other = proj / ".planning/phases/01-foundation/01-01-SUMMARY.md"
    os.utime(other, ns=(time.time_ns() + 2 * 10**9, time.time_ns() + 2 * 10**9))
    assert call(msd_run, proj, "index")["indexed"] == 0
    (proj / ".planning/phases/02-billing/02-CONTEXT.md").unlink()
    assert call(msd_run, proj, "index")["removed"] == [".planning/phases/02-billing/02-CONTEXT.md"]


def test_queries_reindex_stale_files_first(msd_run, tmp_path):
    proj = make_project(tmp_path)
    call(msd_run, proj, "index")
    ctx = proj / ".planning/phases/02-billing/02-CONTEXT.md"
    ctx.write_text(ctx.read_text() + "\nWe chose Kafka for events.\n")
    os.utime(ctx, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    out = call(msd_run, proj, "search", "Kafka")
    assert out["reindexed"] == 1
    assert out["hits"] and out["hits"][0]["file"].endswith("02-CONTEXT.md")


def test_what_uses_is_precise_where_grep_is_noisy(msd_run, tmp_path):
    proj = make_project(tmp_path)
    hits = call(msd_run, proj, "what-uses", "User")["hits"]
    snippets = " ".join(h["snippet"] for h in hits)
    assert "user experience" not in snippets and "user-facing" not in snippets
    files = {h["file"] for h in hits}
    assert ".planning/phases/01-foundation/01-01-SUMMARY.md" in files  # provides the User model
    assert ".planning/phases/02-billing/02-01-SUMMARY.md" in files  # requires it
    assert hits[0].get("field") in ("provides", "requires")
    for h in hits:
        assert {"file", "phase", "plan", "snippet"} <= set(h) and ("field" in h or "section" in h)


def test_what_uses_file_type_and_decisions_and_patterns(msd_run, tmp_path):
    proj = make_project(tmp_path)
    hits = call(msd_run, proj, "what-uses", "src/models/user.py", "--type", "file")["hits"]
    assert [h["file"] for h in hits] == [".planning/phases/01-foundation/01-01-SUMMARY.md"]
    assert hits[0]["field"] == "key_files" and hits[0]["phase"] == "01" and hits[0]["plan"] == "01"
    dec = call(msd_run, proj, "decisions-affecting", "billing")["hits"]
    texts = [h["snippet"] for h in dec]
    assert "Invoices are immutable once sent" in texts
    assert all("argon2" not in t for t in texts)
    assert any("Stripe" in t for t in texts)  # the CONTEXT file's Decisions section
    pat = call(msd_run, proj, "pattern-for", "data access")["hits"]
    assert pat and "repository pattern" in pat[0]["snippet"]


def test_corrupt_database_is_rebuilt(msd_run, tmp_path):
    proj = make_project(tmp_path)
    call(msd_run, proj, "index")
    db = proj / ".planning/.msd/memory.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    out = call(msd_run, proj, "index")
    assert out["rebuilt"] and out["indexed"] == 3
    assert call(msd_run, proj, "search", "argon2")["hits"]


def test_old_schema_is_rebuilt(msd_run, tmp_path):
    proj = make_project(tmp_path)
    call(msd_run, proj, "index")
    db = proj / ".planning/.msd/memory.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    out = call(msd_run, proj, "index")
    assert "schema version 0" in out["rebuilt"] and out["indexed"] == 3


def test_project_gitignore_never_edited(msd_run, tmp_path):
    proj = make_project(tmp_path)
    (proj / ".gitignore").write_text("node_modules/\r\n")
    call(msd_run, proj, "index")
    call(msd_run, proj, "search", "login")
    assert (proj / ".gitignore").read_bytes() == b"node_modules/\r\n"
    assert (proj / ".planning/.msd/.gitignore").read_text().splitlines()[-1] == "*"  # the folder ignores itself


def test_no_project_and_bad_arguments(msd_run, tmp_path):
    r = msd_run(["memory", "search", "x", "--cwd", str(tmp_path)])
    assert r.returncode == 1 and "no .planning/" in r.stderr
    proj = make_project(tmp_path)
    r = msd_run(["memory", "what-uses", "x", "--type", "bogus", "--cwd", str(proj)])
    assert r.returncode == 2
    r = msd_run(["memory", "search", "x", "--limit", "0", "--cwd", str(proj)])
    assert r.returncode == 2
    assert call(msd_run, proj, "search", "!!!")["hits"] == []  # no words: no FTS syntax error


def _yaml_frontmatter(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end == -1:
        return None
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def _known_answers(project: Path, limit: int = 3):
    """(summary relpath, subsystem, decision, key file) read independently with PyYAML."""
    out = []
    for path in sorted((project / ".planning").rglob("*SUMMARY.md")):
        data = _yaml_frontmatter(path)
        if not data:
            continue
        decisions = data.get("key-decisions") or data.get("key_decisions")
        subsystem = data.get("subsystem")
        kf = data.get("key-files") or data.get("key_files")
        created = kf.get("created") if isinstance(kf, dict) else None
        if (isinstance(decisions, list) and decisions and isinstance(decisions[0], str)
                and isinstance(subsystem, str) and re.search(r"\w", subsystem)
                and isinstance(created, list) and created and isinstance(created[0], str)):
            out.append((path.relative_to(project).as_posix(), subsystem, decisions[0].strip(), created[0].strip()))
        if len(out) >= limit:
            break
    return out


@pytest.mark.parametrize("tree", corpus_tree_names() or ["<no corpus>"])
def test_corpus_tree_indexes_and_answers_known_queries(tree, copy_corpus_tree, msd_run):
    proj = copy_corpus_tree(tree)
    out = call(msd_run, proj, "index")
    assert out["indexed"] > 0
    for s in out["skipped"]:
        assert s["reason"]
    for rel, subsystem, decision, key_file in _known_answers(proj):
        dec = call(msd_run, proj, "decisions-affecting", subsystem, "--limit", "1000")["hits"]
        flat = " ".join(decision.split())
        assert any(h["file"] == rel and flat[:60] in h["snippet"] for h in dec), (rel, subsystem, decision)
        uses = call(msd_run, proj, "what-uses", key_file, "--type", "file", "--limit", "1000")["hits"]
        assert any(h["file"] == rel for h in uses), (rel, key_file)


def test_two_milestones_phase_01_stay_apart(msd_run, tmp_path):
    """An archived milestone's phase 01 and the current phase 01 are two phases in memory."""
    proj = make_project(tmp_path)
    old = proj / ".planning/milestones/v1.0-phases/01-legacy"
    old.mkdir(parents=True)
    (old / "01-01-SUMMARY.md").write_text("---\nphase: 01-legacy\nplan: 01\nprovides: [legacy importer]\n---\n# S\n")
    call(msd_run, proj, "index")
    hits = call(msd_run, proj, "search", "importer")["hits"]
    legacy = [h for h in hits if "legacy" in h["file"]]
    assert legacy and {h["phase"] for h in legacy} == {"v1.0/01"}
    current = call(msd_run, proj, "search", "login")["hits"]
    assert current and all(h["phase"] == "01" for h in current if "01-foundation" in h["file"])


def _wreck_pages(db: Path, *names: str) -> None:
    """Overwrite the b-tree pages of the named tables/indexes with garbage (the header,
    the schema and the other tables stay readable)."""
    conn = sqlite3.connect(db)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    marks = ",".join("?" * len(names))
    roots = [r[0] for r in conn.execute(f"SELECT rootpage FROM sqlite_master WHERE name IN ({marks})", names)]
    conn.close()
    assert len(roots) == len(names)
    with open(db, "r+b") as fh:
        for page in roots:
            fh.seek((page - 1) * size)
            fh.write(b"\x07garbage" * (size // 8))


def test_query_meeting_damage_the_cheap_check_misses_rebuilds_and_answers(msd_run, tmp_path):
    # A query checks only the header, schema version and tables; damage deeper in the
    # file surfaces as a corruption error during the query, which then runs the full
    # integrity check, rebuilds, and answers from the rebuilt index.
    proj = make_project(tmp_path)
    call(msd_run, proj, "index")
    db = proj / ".planning/.msd/memory.sqlite"
    _wreck_pages(db, "facts", "facts_field", "facts_file")
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        conn.execute("SELECT file_id, value FROM facts WHERE field = 'decisions'").fetchall()
    conn.close()
    out = call(msd_run, proj, "decisions-affecting", "billing")
    assert out["rebuilt"] and ("integrity check failed" in out["rebuilt"] or "malformed" in out["rebuilt"])
    assert any("immutable once sent" in h["snippet"] for h in out["hits"])
    assert out["reindexed"] == 3


def test_index_runs_the_full_integrity_check(msd_run, tmp_path):
    proj = make_project(tmp_path)
    call(msd_run, proj, "index")
    _wreck_pages(proj / ".planning/.msd/memory.sqlite", "facts", "facts_field", "facts_file")
    out = call(msd_run, proj, "index")
    assert ("integrity check failed" in out["rebuilt"] or "malformed" in out["rebuilt"]) and out["indexed"] == 3
