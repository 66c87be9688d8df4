"""Drift per root: in a repository holding three `.planning/` roots, each sees the commits of its own folder."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.gitkit import git
from tests.kit.gitkit import run_msd as msd_run
from tests.kit.rootskit import three_roots


def commit(top: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text(text, encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", message)
    return git(top, "rev-parse", "HEAD").strip()


def drift(folder: Path) -> dict:
    proc = msd_run(["drift", "--json"], cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def outside(result: dict) -> dict[str, list[str]]:
    return {f["subject"]: [x["path"] for x in f["files"]] for f in result["findings"] if f["kind"] == "outside-commit"}


def test_each_root_sees_only_its_own_commits(tmp_path):
    top = three_roots(tmp_path / "mono", api_stage="executed")
    plan = top / "services/api/.planning/phases/01-part/01-01-PLAN.md"
    plan.write_text("---\nphase: 01-part\nplan: 1\nwave: 1\nfiles_modified: [src/a.py]\n---\n# Plan\n", encoding="utf-8")
    commit(top, {"services/api/src/a.py": "a = 1\n", "services/api/.planning/phases/01-part/01-01-PLAN.md": plan.read_text()},
           "feat(01-01): a\n\nMsd-Plan: 01-01")
    commit(top, {"services/api/src/a.py": "a = 2\n"}, "api hotfix")
    commit(top, {"apps/web/src/w.py": "w = 1\n"}, "web hotfix")
    commit(top, {"docs/top.md": "top\n"}, "top docs")

    api = drift(top / "services" / "api")
    assert outside(api) == {"api hotfix": ["src/a.py"]}  # paths as the root's plans name them
    hotfix = api["findings"][0]
    assert hotfix["files"][0]["plans"] == ["01-01"] and hotfix["phases"] == ["01"]
    assert outside(drift(top / "apps" / "web")) == {}  # its history starts at its first msd commit: none yet
    assert outside(drift(top)) == {"top docs": ["docs/top.md"]}  # the web and api commits are theirs

    # run from a folder inside a root, drift acts on that root
    (top / "services/api/src/deep").mkdir()
    assert outside(drift(top / "services/api/src/deep")) == {"api hotfix": ["src/a.py"]}


def test_the_root_at_the_top_alone_reads_history_as_before(tmp_path):
    from msd_core.execution.drift import scope

    top = three_roots(tmp_path / "mono")
    assert scope(top) == ([], ("apps/web/", "services/api/"))
    assert scope(top / "services" / "api") == (["."], ())
    single = tmp_path / "single"
    git(tmp_path, "init", "-q", str(single))
    (single / ".planning").mkdir()
    assert scope(single) == ([], ())
