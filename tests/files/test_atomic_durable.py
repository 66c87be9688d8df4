"""atomic_write_bytes(durable=False): a cache's write, replaced atomically without an fsync."""

from __future__ import annotations

import os

from msd_core.files import atomic


def test_a_cache_write_replaces_whole_without_fsync(tmp_path, monkeypatch):
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    target = tmp_path / "cache.json"
    atomic.atomic_write_text(target, "old\n", anchor=tmp_path)
    assert synced  # durable by default
    synced.clear()
    atomic.atomic_write_text(target, "new\n", anchor=tmp_path, durable=False)
    assert synced == [] and target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cache.json"]  # no temp file left


def test_drift_keeps_its_caches_without_fsync(tmp_path, monkeypatch):
    """drift.json and drift-state.json are computed again when lost: no fsync on the agent's path."""
    from msd_core.execution.drift import drift
    from tests.execution.test_drift import commit, project

    root = project(tmp_path)
    drift(root)  # the first run makes .planning/.msd/ and its .gitignore (durable, once)
    commit(root, "fix: outside", {"src/habits.py": "h = 2\n"})
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    assert drift(root)["count"] == 2  # the outside commit and the verification it made stale
    assert (root / ".planning/.msd/drift.json").is_file() and (root / ".planning/.msd/drift-state.json").is_file()
    assert synced == []
