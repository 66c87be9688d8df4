"""msd_run history-digest: every SUMMARY variant, filters, skips with reasons, cache, corpus."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import corpus_tree_names


def _w(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8"))
    return p


def make_tree(root: Path) -> Path:
    pl = ".planning/"
    _w(root, pl + "milestones/v1.0-phases/01-foundation/01-01-SUMMARY.md",
       "---\nphase: 01-foundation\nplan: 01\nsubsystem: db\nprovides: [schema]\naffects: [api]\n"
       "tech-stack:\n  added: [sqlite]\nkey-decisions: [\"Use SQLite\"]\npatterns-established: [migrations first]\n---\n# S\n")
    _w(root, pl + "milestones/v1.1-phases/01-rework/01-01-SUMMARY.md",
       "---\nphase: 01-rework\nplan: 01\nprovides: [reworked schema]\nkey-decisions: [Drop the old tables]\n---\n")
    _w(root, pl + "phases/02-auth/02-01-SUMMARY.md",
       "---\r\nphase: 2\r\nplan: 1\r\nsubsystem: auth\r\ndependency_graph:\r\n  requires:\r\n    - phase: 01-foundation\r\n"
       "      provides: schema\r\n  provides: [login endpoint]\r\n  affects: [frontend]\r\ntech_stack:\r\n  added:\r\n"
       "    - name: pyjwt\r\n      version: 2\r\nkey_decisions:\r\n  - Sessions expire after 24h\r\n"
       "patterns_established: [\"require_user() on every route\"]\r\n---\r\nbody\r\n")
    _w(root, pl + "phases/02-auth/02-02-SUMMARY.md",
       "---\nphase: 02-auth\nprovides:\n  - `refresh` tokens for Bug #12\n  - @decorated handler\naffects: [api]\n"
       "decisions:\n  - Decision: rotate keys\n---\n")
    _w(root, pl + "phases/02-auth/02-03-SUMMARY.md", "# Old style summary without frontmatter\n")
    _w(root, pl + "phases/03.1-hotfix/SUMMARY.md",
       "---\nphase: 3.1\nprovides: [hotfix]\ntech-stack:\n  added: [sqlite, redis]\n---\n")
    _w(root, pl + "phases/03.1-hotfix/03.1-02-SUMMARY.md", "---\nphase: 3.1\nprovides: [never closed\n")
    _w(root, pl + "phases/12-big-thing/12-big-thing-01-SUMMARY.md",
       "---\nphase: \"12\"\nname: Big Thing\nprovides: [big]\naffects: [frontend, api]\n---\n")
    _w(root, pl + "phases/12-big-thing/12-01-PLAN.md", "---\nphase: 12\n---\n")
    return root


LEGEND = "p=provides a=affects t=patterns d=decisions; one fact per line"
EXPECTED = {
    "fields": LEGEND,
    "where": {"v1.0": ".planning/milestones/v1.0-phases", "v1.1": ".planning/milestones/v1.1-phases",
              "": ".planning/phases"},
    "phases": {
        "v1.0/01-foundation": {"p": "schema", "a": "api", "t": "migrations first", "d": "Use SQLite"},
        "v1.1/01-rework": {"p": "reworked schema", "d": "Drop the old tables"},
        "02-auth": {"p": "login endpoint\n`refresh` tokens for Bug #12\n@decorated handler", "a": "frontend\napi",
                    "t": "require_user() on every route", "d": "Sessions expire after 24h"},
        "03.1-hotfix": {"p": "hotfix"},
        "12-big-thing": {"name": "Big Thing", "p": "big", "a": "frontend\napi"},
    },
    "tech_stack": "sqlite\npyjwt\nredis",
    "skipped": {"no frontmatter": 1, "unterminated frontmatter": 1},
}
SKIPPED_DETAIL = {
    "no frontmatter": [".planning/phases/02-auth/02-03-SUMMARY.md"],
    "unterminated frontmatter": [".planning/phases/03.1-hotfix/03.1-02-SUMMARY.md"],
}


def _digest(msd_run, root, *extra):
    r = msd_run(["history-digest", "--cwd", str(root), *extra])
    assert "Traceback" not in r.stderr
    return r


def test_digest_all_variants(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    r = _digest(msd_run, root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == EXPECTED
    # compact: no whitespace between tokens
    assert r.stdout == json.dumps(EXPECTED, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_digest_cache_warm_equals_cold_and_tracks_edits(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    cold = _digest(msd_run, root, "--no-cache").stdout
    assert not (root / ".planning/.msd/digest-cache.json").exists()
    first = _digest(msd_run, root).stdout
    warm = _digest(msd_run, root).stdout
    assert cold == first == warm
    assert (root / ".planning/.msd/.gitignore").read_text().strip().endswith("*")
    f = root / ".planning/phases/12-big-thing/12-big-thing-01-SUMMARY.md"
    f.write_text(f.read_text().replace("[big]", "[bigger, better]"))
    again = json.loads(_digest(msd_run, root).stdout)
    assert again["phases"]["12-big-thing"]["p"] == "bigger\nbetter"
    (root / ".planning/.msd/digest-cache.json").write_text("{not json")
    assert json.loads(_digest(msd_run, root).stdout) == again
    f.unlink()
    assert "12-big-thing" not in json.loads(_digest(msd_run, root).stdout)["phases"]


def test_digest_cache_with_wrong_shapes_is_ignored(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    _digest(msd_run, root)
    cache = root / ".planning/.msd/digest-cache.json"
    data = json.loads(cache.read_text())
    for v in data["files"].values():
        v["k"] = [0, 0, 0, 0]  # every entry now stale
    cache.write_text(json.dumps(data))
    assert json.loads(_digest(msd_run, root).stdout) == EXPECTED


def test_digest_read_only_project(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    pl = root / ".planning"
    os.chmod(pl, 0o555)
    try:
        r = _digest(msd_run, root)
    finally:
        os.chmod(pl, 0o755)
    assert r.returncode == 0 and json.loads(r.stdout) == EXPECTED


def test_digest_skipped_detail(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root, "--skipped").stdout)
    assert out["skipped"] == SKIPPED_DETAIL and out["lenient"] == [".planning/phases/02-auth/02-02-SUMMARY.md"]
    for files in out["skipped"].values():
        assert all((root / f).is_file() for f in files)


@pytest.mark.parametrize("phase_args,keys", [
    (["--phase", "2"], ["02-auth"]),
    (["--phase", "02", "--phase", "03.1"], ["02-auth", "03.1-hotfix"]),
    (["--phase", "Phase 12"], ["12-big-thing"]),
    (["--phase", "02-auth"], ["02-auth"]),
    (["--phase", "1"], ["v1.0/01-foundation", "v1.1/01-rework"]),  # two milestones' phase 01: two entries
    (["--phase", "v1.1/01"], ["v1.1/01-rework"]),
])
def test_digest_phase_filter(tmp_path, msd_run, phase_args, keys):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root, *phase_args).stdout)
    assert list(out["phases"]) == keys


def test_digest_milestones_never_merge(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root).stdout)["phases"]
    assert out["v1.0/01-foundation"]["d"] == "Use SQLite" and out["v1.1/01-rework"]["d"] == "Drop the old tables"


def test_digest_roadmap_phase_without_summaries_is_no_error(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    _w(root, ".planning/ROADMAP.md", "# Roadmap\n- [ ] **Phase 7: Later** - soon\n")
    r = _digest(msd_run, root, "--phase", "7")
    assert r.returncode == 0 and json.loads(r.stdout)["phases"] == {}


def test_digest_affects_filter(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root, "--affects", "FRONTEND").stdout)
    assert list(out["phases"]) == ["02-auth", "12-big-thing"]
    assert out["phases"]["02-auth"] == {"p": "login endpoint", "a": "frontend", "t": "require_user() on every route",
                                        "d": "Sessions expire after 24h"}
    assert out["tech_stack"] == "pyjwt"
    assert out["skipped"] == EXPECTED["skipped"]  # unreadable summaries are reported whatever the filter
    sub = json.loads(_digest(msd_run, root, "--affects", "auth").stdout)  # subsystem match
    assert list(sub["phases"]) == ["02-auth"] and sub["phases"]["02-auth"]["p"] == "login endpoint"


@pytest.mark.parametrize("args,msg", [
    (["--phase", "  "], "not a phase reference"),
    (["--phase", "x"], "not a phase reference"),
    (["--phase", "7"], "names no phase"),
    (["--phase", "v2.0/1"], "names no phase"),
    (["--affects", " "], "needs a value"),
])
def test_digest_bad_usage(tmp_path, msd_run, args, msg):
    root = make_tree(tmp_path / "p")
    r = _digest(msd_run, root, *args)
    assert r.returncode == 2 and msg in r.stderr and r.stdout == "" and len(r.stderr.splitlines()) == 1


def test_digest_no_project(tmp_path, msd_run):
    r = _digest(msd_run, tmp_path)
    assert r.returncode == 1 and "no .planning/" in r.stderr


def test_digest_empty_project(tmp_path, msd_run):
    (tmp_path / ".planning").mkdir()
    r = _digest(msd_run, tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout) == {"fields": LEGEND, "where": {}, "phases": {}, "tech_stack": ""}


# ------------------------------------------------------------------ corpus

_FM = re.compile(r"\A\ufeff?---\r?\n(.*?)\r?\n---\r?\n", re.S)


@pytest.mark.parametrize("tree", corpus_tree_names() or ["<no corpus>"])
def test_corpus_digest(tree, copy_corpus_tree, msd_run):
    root = copy_corpus_tree(tree)
    r = _digest(msd_run, root)
    assert r.returncode == 0, r.stderr
    out = json.loads(_digest(msd_run, root, "--skipped").stdout)
    assert set(out) <= {"fields", "where", "phases", "tech_stack", "skipped", "lenient"}
    for files in (out.get("skipped") or {}).values():
        assert all((root / f).is_file() for f in files)
    provides = {p for ph in out["phases"].values() for p in ph.get("p", "").split("\n")}
    decisions = {d for ph in out["phases"].values() for d in ph.get("d", "").split("\n")}
    affects = {d for ph in out["phases"].values() for d in ph.get("a", "").split("\n")}
    patterns = {d for ph in out["phases"].values() for d in ph.get("t", "").split("\n")}
    # Independent check: every plain string a YAML reader finds under provides / key-decisions
    # in a current phase summary is in the digest.
    checked = 0
    for f in sorted((root / ".planning" / "phases").glob("*/*SUMMARY.md")):
        if f.is_symlink() or not (f.name == "SUMMARY.md" or f.name.endswith("-SUMMARY.md")):
            continue
        m = _FM.match(f.read_text(encoding="utf-8", errors="replace"))
        if not m:
            continue
        try:
            data = yaml.safe_load(m.group(1))
        except yaml.YAMLError:
            continue
        if not isinstance(data, dict):
            continue
        graph = data.get("dependency-graph") if isinstance(data.get("dependency-graph"), dict) else {}
        stack = data.get("tech-stack") if isinstance(data.get("tech-stack"), dict) else {}
        for key, value, pool in (("provides", data.get("provides"), provides),
                                 ("key-decisions", data.get("key-decisions"), decisions),
                                 ("affects", data.get("affects"), affects),
                                 ("graph affects", graph.get("affects"), affects),
                                 ("graph provides", graph.get("provides"), provides),
                                 ("patterns-established", data.get("patterns-established"), patterns),
                                 ("tech-stack.added", stack.get("added"), set(out["tech_stack"].split("\n")))):
            for item in value if isinstance(value, list) else []:
                if isinstance(item, str) and item.strip().lower() not in ("", "none", "n/a", "null", "[]"):
                    got = " ".join(item.split())
                    assert got in pool or any(p.startswith(got + " #") for p in pool), (f, key, got)
                    checked += 1


def test_corpus_digest_within_budget(corpus_dir):
    """history-digest output is at most 10% of the SUMMARY bytes it reads, over the corpus
    (the bytes counted here by walking the folders, not by the code under test)."""
    from msd_core.planning.digest import build_digest

    summary_bytes = digest_bytes = 0
    for name in corpus_tree_names():
        root = corpus_dir / name
        for dirpath, _dirs, files in os.walk(root / ".planning"):
            if "/phases" not in dirpath.replace(os.sep, "/") and "-phases" not in dirpath:
                continue
            summary_bytes += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files
                                 if (f.endswith("-SUMMARY.md") or f == "SUMMARY.md")
                                 and not os.path.islink(os.path.join(dirpath, f)))
        out = build_digest(root, cache=False)
        digest_bytes += len(json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()) + 1
    assert summary_bytes > 1_000_000
    assert digest_bytes <= 0.10 * summary_bytes, (digest_bytes, summary_bytes, digest_bytes / summary_bytes)
