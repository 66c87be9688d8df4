"""One phase identity for every reader: `next`, `state sync`, the phase commands, the history
digest and the memory index see the same current phase folders, and skip the same folders with
the same reason. Checked on a copy of every corpus tree, and on each copy with its phase folders
renamed `<project>-NN-name` (the held-out form that `next` and `state sync` once read as one
phase named after the project, while the phase commands ignored it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from msd_core.planning.discovery import NOT_A_PHASE_NAME, phase_dirs, phase_identity
from tests.conftest import corpus_tree_names

NAMES = corpus_tree_names() or ["<no corpus>"]


@pytest.mark.parametrize("name, number", [
    ("02-auth", "2"), ("3.1-x", "3.1"), ("35.1-hotfix", "35.1"), ("02_auth", "2"), ("7", "7"),
    ("G1-foundation-stabilization", "G1"),
    ("codenexus-04-parity", None), ("notes", None), ("v2-03-api", None), ("-01-x", None), ("01.x-y", None),
])
def test_the_identity_of_a_folder_name(name, number):
    assert phase_identity(name) == number


def _views(root: Path) -> dict:
    """The current phase folders each reader reads, and what each says it skipped."""
    from msd_core.planning.phase_ops import Model
    from msd_core.progress.lifecycle import where

    planning = root / ".planning"
    skipped: list = []
    listed = {d.name for d in phase_dirs(planning, skipped) if d.milestone is None}
    roadmap = (planning / "ROADMAP.md").read_text(errors="replace") if (planning / "ROADMAP.md").is_file() else ""
    w = where(root, verifier=True, roadmap_text=roadmap, read_state=False)
    ordered, route_skipped = w.phases, w.skipped
    out = {"discovery": listed, "route": {p.folder.name for p in ordered if p.folder is not None},
           "skipped": sorted(s.to_dict(root)["file"] for s in skipped if s.milestone is None),
           "route_skipped": sorted(s["file"] for s in route_skipped if "phases/" in s["file"] and s["reason"] == NOT_A_PHASE_NAME)}
    try:
        model = Model(root)
        out["surgery"] = set(model.dirs)
    except Exception as exc:  # noqa: BLE001 - a refusal is a view too
        out["surgery"] = type(exc).__name__
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("name", NAMES)
def test_every_reader_sees_the_same_phase_folders_in_each_corpus_tree(name, copy_corpus_tree):
    root = copy_corpus_tree(name)
    v = _views(root)
    # the route keeps the first of two folders sharing a number; every one it reads is a listed folder
    assert v["route"] <= v["discovery"]
    numbered = {n for n in v["discovery"] if n[:1].isdigit()}
    assert v["surgery"] in ("OperationFailed", "UsageError") or v["surgery"] == numbered  # G1-style ids are never renumbered
    assert v["route_skipped"] == [s for s in v["skipped"] if s.rsplit("/", 1)[-1] != "phases"]


def _rename_like_held_out(root: Path, project: str) -> list[str]:
    phases = root / ".planning" / "phases"
    renamed = []
    if not phases.is_dir():
        return renamed
    for d in sorted(phases.iterdir()):
        if d.is_dir() and not d.is_symlink() and d.name[:1].isdigit():
            os.rename(d, phases / f"{project}-{d.name}")
            renamed.append(f".planning/phases/{project}-{d.name}")
    return renamed


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / ".planning").rglob("*"))
            if p.is_file() and ".msd" not in p.relative_to(root).parts}


@pytest.mark.corpus
@pytest.mark.parametrize("name", NAMES)
def test_project_prefixed_folders_are_skipped_with_one_reason_by_every_reader(name, copy_corpus_tree, msd_run):
    root = copy_corpus_tree(name)
    renamed = _rename_like_held_out(root, "codenexus")
    if not renamed:
        pytest.skip("no current phase folders")
    holding = [r for r in renamed if any(p.name.endswith(("PLAN.md", "SUMMARY.md")) for p in (root / r).iterdir())]
    before = _tree(root)

    nxt = msd_run(["next", "--cwd", str(root)])
    assert nxt.returncode == 0, nxt.stderr
    answer = json.loads(nxt.stdout)
    assert "codenexus" not in json.dumps(answer.get("phase", {})) and answer.get("phase", {}).get("number") != "codenexus"
    said = {s["file"]: s["reason"] for s in answer.get("skipped", [])}
    assert all(said.get(r) == NOT_A_PHASE_NAME for r in renamed), said

    if (root / ".planning" / "STATE.md").is_file():
        sync = msd_run(["state", "sync", "--cwd", str(root)])
        if holding:
            assert sync.returncode == 1 and sync.stderr.count("\n") == 1, sync.stderr
            assert "STATE.md not synced" in sync.stderr and NOT_A_PHASE_NAME in sync.stderr
        else:
            assert sync.returncode == 0, sync.stderr

    digest = json.loads(msd_run(["history-digest", "--skipped", "--no-cache", "--cwd", str(root)]).stdout)
    assert set(digest.get("skipped", {}).get(NOT_A_PHASE_NAME, [])) == set(holding)

    if holding:
        remove = msd_run(["phase", "remove", "1", "--cwd", str(root)])
        assert remove.returncode == 2 and "is not a phase folder" in remove.stderr, (remove.returncode, remove.stderr)
    assert _tree(root) == before  # nothing written over anything


def test_the_memory_index_gives_such_folders_no_phase(tmp_path):
    from msd_core.memory.indexer import phase_labels, phase_plan_from_path

    (tmp_path / ".planning/phases/codenexus-04-parity").mkdir(parents=True)
    (tmp_path / ".planning/phases/04-parity").mkdir(parents=True)
    labels = phase_labels(tmp_path)
    assert phase_plan_from_path(".planning/phases/codenexus-04-parity/04-01-SUMMARY.md", labels) == (None, "01")
    assert phase_plan_from_path(".planning/phases/04-parity/04-01-SUMMARY.md", labels) == ("04", "01")
