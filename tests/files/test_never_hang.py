"""Never hang: a FIFO, socket, symlink to a FIFO or folder at any path a command reads is
refused (or skipped) promptly with one clear line. Every call runs in a subprocess under
a timeout, so a blocking open fails the test instead of stalling the suite."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files import safe_read
from tests.kit.hostile import KINDS, one_clear_line, plant
from tests.kit.installed import make_world

REPO = Path(__file__).resolve().parents[2]
FLOWS = REPO / "msd_core" / "content" / "msd-core" / "flows"
TIMEOUT = 20


@pytest.fixture
def world(tmp_path):
    inst, proj = make_world(tmp_path)
    (proj / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] Phase 1: Core\n")
    (proj / ".planning" / "PROJECT.md").write_text("# P\n")
    return inst, proj


# (name, path under the project or install that the command reads, argv, allowed exit codes)
READERS = [
    ("config get", ".planning/config.json", ["config", "get", "mode"], {2}),
    ("config set", ".planning/config.json", ["config", "set", "mode", "interactive"], {2}),
    ("config list", ".planning/config.json", ["config", "list"], {2}),
    ("resolve", ".planning/config.json", ["resolve", "plan-phase", "--root", "{root}"], {2}),
    ("state get", ".planning/STATE.md", ["state", "get"], {1}),
    ("state patch", ".planning/STATE.md", ["state", "patch", "--status", "Done"], {1}),
    ("next/state", ".planning/STATE.md", ["next"], {0, 1}),
    ("next/roadmap", ".planning/ROADMAP.md", ["next"], {0, 1}),
    ("history-digest", ".planning/phases/01-core/01-01-SUMMARY.md", ["history-digest"], {0}),
    ("digest cache", ".planning/.msd/digest-cache.json", ["history-digest"], {0}),
    ("memory summary", ".planning/phases/01-core/01-01-SUMMARY.md", ["memory", "index"], {0}),
    ("memory db", ".planning/.msd/memory.sqlite", ["memory", "index"], {1}),
    ("flow state", ".planning/state.json", ["next-step", "--workflow", "plan-phase", "--flows-dir", str(FLOWS)], {2}),
    ("template", ".planning/phases/01-core/01-02-PLAN.md",
     ["template", "select", ".planning/phases/01-core/01-02-PLAN.md", "--root", "{root}"], {1}),
    ("compile-plan", ".planning/phases/01-core/01-02-PLAN.md",
     ["compile-plan", ".planning/phases/01-core/01-02-PLAN.md", "--root", "{root}"], {1}),
    ("compiled plan", ".planning/phases/01-core/01-02-PLAN.compiled.md",
     ["compile-plan", ".planning/phases/01-core/01-02-PLAN.md", "--check", "--root", "{root}"], {1}),
    ("gitignore", ".gitignore", ["memory", "index"], {0}),
    ("manifest", "{install}/manifest.json", ["resolve", "plan-phase", "--root", "{root}"], {3}),
    ("installed part", "{install}/workflows/plan-phase/detail/01-step-1.md", ["resolve", "plan-phase", "--root", "{root}"], {3}),
    ("user defaults", "{home}/.config/msd/defaults.json", ["config", "get", "mode"], {2}),
]


def _target(rel: str, proj: Path, inst, home: Path) -> Path:
    if rel.startswith("{install}/"):
        return inst.root / rel[len("{install}/"):]
    if rel.startswith("{home}/"):
        return home / rel[len("{home}/"):]
    return proj / rel


@pytest.mark.usefixtures("compact_off")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name,rel,argv,codes", READERS, ids=[r[0] for r in READERS])
def test_special_file_at_each_reader_path_is_refused_promptly(world, msd_run, isolated_home, kind, name, rel, argv, codes):
    inst, proj = world
    target = _target(rel, proj, inst, isolated_home)
    plant(target, kind)
    argv = [a.replace("{root}", str(inst.root)) for a in argv]
    r = msd_run(argv, cwd=proj, timeout=TIMEOUT)  # a hang raises TimeoutExpired: the test fails
    if kind == "dir" and name == "memory db":
        codes = {1}
    assert r.returncode in codes, (r.returncode, r.stderr)
    assert one_clear_line(r.stderr), r.stderr


@pytest.mark.usefixtures("compact_off")
@pytest.mark.parametrize("setup", ["fifo-config", "socket-config", "dir-config", "link-fifo-config",
                                   "fifo-planning", "fifo-manifest", "fifo-part", "fifo-msd-dir",
                                   "unreadable-config"])
def test_resolve_emit_keeps_its_promise(world, msd_run, setup):
    """Whatever the project holds: one line on stdout, exit 0, no unverified text."""
    inst, proj = world
    planning = proj / ".planning"
    if setup == "unreadable-config":
        if os.geteuid() == 0:
            pytest.skip("root can read any file")
        (planning / "config.json").chmod(0)
    elif setup == "fifo-planning":
        (planning / "config.json").unlink()
        for p in sorted(planning.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        planning.rmdir()
        os.mkfifo(planning)
    else:
        where = {"config": planning / "config.json", "manifest": inst.root / "manifest.json",
                 "part": inst.root / "workflows/plan-phase/detail/01-step-1.md",
                 "dir": planning / ".msd"}[setup.rsplit("-", 1)[1]]
        kind = {"fifo": "fifo", "socket": "socket", "dir": "dir", "link": "link-to-fifo"}[setup.split("-")[0]]
        plant(where, kind)
    r = msd_run(["resolve", "plan-phase", "--emit", "--root", str(inst.root)], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 0 and r.stderr == ""
    if setup in ("fifo-planning", "fifo-msd-dir"):  # nothing wrong with what resolve reads
        assert "UNIQUE-PLAN-PHASE-PART-01" in r.stdout
        return
    assert r.stdout.count("\n") == 1 and r.stdout.startswith("<!-- msd:notice -->"), r.stdout
    assert "UNIQUE-" not in r.stdout


# ---------------------------------------------------------------- the reader itself


@pytest.mark.parametrize("kind", KINDS)
def test_read_regular_refuses_without_blocking(tmp_path, kind):
    p = plant(tmp_path / "f", kind)
    with pytest.raises(safe_read.NotRegularFile) as info:
        safe_read.read_regular(p)
    assert isinstance(info.value, OSError) and info.value.filename == str(p)
    assert ("folder" if kind == "dir" else "socket" if kind == "socket" else "FIFO") in info.value.strerror


def test_read_regular_refuses_a_device_without_opening_it(monkeypatch):
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    with pytest.raises(safe_read.NotRegularFile, match="device"):
        safe_read.read_regular("/dev/null")
    assert opened == []


def test_symlinks_followed_only_when_asked(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"data")
    link = tmp_path / "link"
    link.symlink_to(real)
    assert safe_read.read_regular(link) == b"data"
    with pytest.raises(safe_read.NotRegularFile, match="symlink"):
        safe_read.read_regular(link, follow_symlinks=False)


def test_size_cap_is_not_read_past(tmp_path):
    p = tmp_path / "big"
    p.write_bytes(b"x" * 100)
    assert safe_read.read_regular(p, 100) == b"x" * 100
    with pytest.raises(safe_read.FileTooLarge, match="larger than 99 bytes"):
        safe_read.read_regular(p, 99)


def test_a_fifo_swapped_in_after_the_check_is_refused_by_fstat(tmp_path, monkeypatch):
    """The race: stat saw a regular file, a FIFO is there at open time. O_NONBLOCK keeps the
    open from blocking; fstat on the descriptor refuses it."""
    regular = tmp_path / "regular"
    regular.write_bytes(b"x")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, **k: real_stat(regular) if str(p) == str(fifo) else real_stat(p, **k))
    with pytest.raises(safe_read.NotRegularFile, match="FIFO"):
        safe_read.read_regular(fifo)


def test_fifo_refused_even_with_a_writer_absent_in_a_child(tmp_path):
    """End to end in a fresh interpreter: reading a FIFO nobody writes returns at once."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    code = f"from msd_core.files import safe_read\ntry:\n safe_read.read_regular({str(fifo)!r})\nexcept OSError as e:\n print(e.strerror)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert "FIFO" in r.stdout
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
