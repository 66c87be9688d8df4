"""msd_run history-digest: every SUMMARY variant, filters, skips with reasons, cache, corpus."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from conftest import corpus_tree_names


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


EXPECTED = {
    "phases": {
        "1": {"name": "foundation", "plans": ["01-01"], "provides": ["schema"], "affects": ["api"],
              "patterns": ["migrations first"]},
        "2": {"name": "auth", "plans": ["02-01", "02-02", "02-03"],
              "provides": ["login endpoint", "`refresh` tokens for Bug #12", "@decorated handler"],
              "affects": ["frontend", "api"], "patterns": ["require_user() on every route"]},
        "3.1": {"name": "hotfix", "plans": ["03.1-02", "03.1-hotfix"], "provides": ["hotfix"], "affects": [],
                "patterns": []},
        "12": {"name": "Big Thing", "plans": ["12-big-thing-01"], "provides": ["big"], "affects": ["frontend", "api"],
               "patterns": []},
    },
    "decisions": [
        {"phase": "1", "decision": "Use SQLite"},
        {"phase": "2", "decision": "Sessions expire after 24h"},
        {"phase": "2", "decision": "Decision: rotate keys"},
    ],
    "tech_stack": ["sqlite", "pyjwt", "redis"],
    "skipped": [
        {"file": ".planning/phases/02-auth/02-03-SUMMARY.md", "reason": "no frontmatter"},
        {"file": ".planning/phases/03.1-hotfix/03.1-02-SUMMARY.md", "reason": "unterminated frontmatter"},
    ],
    "lenient": [".planning/phases/02-auth/02-02-SUMMARY.md"],
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
    assert again["phases"]["12"]["provides"] == ["bigger, better"] or again["phases"]["12"]["provides"] == ["bigger", "better"]
    (root / ".planning/.msd/digest-cache.json").write_text("{not json")
    assert json.loads(_digest(msd_run, root).stdout) == again
    f.unlink()
    assert "12" not in json.loads(_digest(msd_run, root).stdout)["phases"]


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


@pytest.mark.parametrize("phase_args,keys", [(["--phase", "2"], ["2"]), (["--phase", "02", "--phase", "03.1"], ["2", "3.1"]),
                                             (["--phase", "7"], [])])
def test_digest_phase_filter(tmp_path, msd_run, phase_args, keys):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root, *phase_args).stdout)
    assert list(out["phases"]) == keys
    assert {d["phase"] for d in out["decisions"]} <= set(keys)


def test_digest_affects_filter(tmp_path, msd_run):
    root = make_tree(tmp_path / "p")
    out = json.loads(_digest(msd_run, root, "--affects", "FRONTEND").stdout)
    assert list(out["phases"]) == ["2", "12"]
    assert out["phases"]["2"]["plans"] == ["02-01"]
    assert out["decisions"] == [{"phase": "2", "decision": "Sessions expire after 24h"}]
    assert out["tech_stack"] == ["pyjwt"]
    assert out["skipped"] == EXPECTED["skipped"]  # unreadable summaries are reported whatever the filter
    sub = json.loads(_digest(msd_run, root, "--affects", "auth").stdout)  # subsystem match
    assert list(sub["phases"]) == ["2"] and sub["phases"]["2"]["plans"] == ["02-01"]


@pytest.mark.parametrize("args,msg", [(["--phase", "  "], "not a phase number"), (["--affects", " "], "needs a value")])
def test_digest_bad_usage(tmp_path, msd_run, args, msg):
    root = make_tree(tmp_path / "p")
    r = _digest(msd_run, root, *args)
    assert r.returncode == 2 and msg in r.stderr and r.stdout == ""


def test_digest_no_project(tmp_path, msd_run):
    r = _digest(msd_run, tmp_path)
    assert r.returncode == 1 and "no .planning/" in r.stderr


def test_digest_empty_project(tmp_path, msd_run):
    (tmp_path / ".planning").mkdir()
    r = _digest(msd_run, tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout) == {"phases": {}, "decisions": [], "tech_stack": [], "skipped": []}


# ------------------------------------------------------------------ corpus

_FM = re.compile(r"\A\ufeff?---\r?\n(.*?)\r?\n---\r?\n", re.S)


@pytest.mark.parametrize("tree", corpus_tree_names() or ["<no corpus>"])
def test_corpus_digest(tree, copy_corpus_tree, msd_run):
    root = copy_corpus_tree(tree)
    r = _digest(msd_run, root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) <= {"phases", "decisions", "tech_stack", "skipped", "lenient"}
    for s in out["skipped"]:
        assert s["reason"].strip() and (root / s["file"]).is_file()
    provides = {p for ph in out["phases"].values() for p in ph["provides"]}
    decisions = {d["decision"] for d in out["decisions"]}
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
        for key, pool in (("provides", provides), ("key-decisions", decisions)):
            for item in data.get(key) or [] if isinstance(data.get(key), list) else []:
                if isinstance(item, str) and item.strip():
                    got = " ".join(item.split())
                    assert got in pool or any(p.startswith(got + " #") for p in pool), (f, key, got)
                    checked += 1
