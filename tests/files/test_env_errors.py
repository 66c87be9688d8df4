"""Environment errors are clear: disk full, file too large, permission denied, a folder
where a file should be give one line naming the path and the cause with the documented
exit code; out-of-range numbers are exit 2; `config set` keeps the file's other bytes."""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files import atomic as fsutil
from tests.kit.hostile import one_clear_line
from tests.kit.installed import make_install, make_project, run_inproc

STATE = "# Project State\n\n## Current Position\nPhase: 1 of 2 (Core)\nStatus: In progress\n"
HUGE = "9" * 5000


@pytest.fixture
def proj(tmp_path):
    p = make_project(tmp_path / "proj", {"mode": "yolo"})
    (p / ".planning" / "STATE.md").write_text(STATE)
    return p


def deny_open(monkeypatch, target: str) -> None:
    """os.open of `target` fails with EACCES (root ignores file modes, so chmod cannot show it)."""
    real_open = os.open

    def denied(path, *a, **k):
        if os.fspath(path) == target:
            raise PermissionError(errno.EACCES, "Permission denied", target)
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "open", denied)


def _temps(folder):
    return [p.name for p in folder.rglob("*") if p.name.endswith(fsutil.TMP_SUFFIX)]


# ---------------------------------------------------------------- disk full, too large, denied

WRITES = [
    (["state", "patch", "--status", "Done, and verified by the whole suite"], ".planning/STATE.md"),
    (["config", "set", "mode", "interactive"], ".planning/config.json"),
]


@pytest.mark.parametrize("argv,file", WRITES, ids=["state patch", "config set"])
def test_disk_full_is_one_line_naming_path_and_cause(proj, monkeypatch, argv, file):
    (proj / ".planning" / ".msd").mkdir()  # the private folder exists; the failing write is the file itself
    before = (proj / file).read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, out, err = run_inproc([*argv, "--cwd", str(proj)])
    assert code == 1 and one_clear_line(err), err
    assert f"cannot write {proj / file}: disk full" in err
    assert (proj / file).read_bytes() == before and _temps(proj) == []


@pytest.mark.parametrize("argv,file", WRITES, ids=["state patch", "config set"])
def test_file_too_large_is_one_line(proj, msd_run, argv, file):
    """A real EFBIG: the file-size limit (RLIMIT_FSIZE) is below what the write needs."""
    (proj / ".planning" / ".msd").mkdir()
    (proj / ".planning" / ".msd" / ".gitignore").write_text("*\n")
    limit = (proj / file).stat().st_size  # the new content is larger than the old

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    r = subprocess.run([sys.executable, "-m", "msd_core.run", *argv], cwd=proj, capture_output=True, text=True,
                       timeout=30, preexec_fn=small_files, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 1 and one_clear_line(r.stderr), r.stderr
    assert f"cannot write {proj / file}: file too large" in r.stderr
    assert _temps(proj) == []


@pytest.mark.parametrize("argv,file,code", [
    (["state", "get"], ".planning/STATE.md", 1),
    (["state", "patch", "--status", "Done"], ".planning/STATE.md", 1),
    (["config", "get", "mode"], ".planning/config.json", 2),
])
def test_permission_denied_reading_is_one_line(proj, monkeypatch, argv, file, code):
    target = str(proj / file)
    deny_open(monkeypatch, target)
    got, out, err = run_inproc([*argv, "--cwd", str(proj)])
    assert got == code and one_clear_line(err), err
    assert target in err and "permission denied" in err


def test_permission_denied_writing_the_folder_is_one_line(proj, monkeypatch):
    (proj / ".planning" / ".msd").mkdir()
    real_open = os.open

    def denied(path, flags, *a, **k):
        if "dir_fd" in k and str(path).endswith(fsutil.TMP_SUFFIX):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", denied)
    code, out, err = run_inproc(["state", "patch", "--status", "Done", "--cwd", str(proj)])
    assert code == 1 and one_clear_line(err), err
    assert f"cannot write {proj / '.planning/STATE.md'}: permission denied" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_permission_denied_for_real(proj, msd_run):
    (proj / ".planning").chmod(0o555)
    try:
        r = msd_run(["state", "patch", "--status", "Done"], cwd=proj)
    finally:
        (proj / ".planning").chmod(0o755)
    assert r.returncode == 1 and one_clear_line(r.stderr) and "permission denied" in r.stderr


# ---------------------------------------------------------------- a folder where a file should be


def test_folder_where_state_should_be(proj, msd_run):
    (proj / ".planning" / "STATE.md").unlink()
    (proj / ".planning" / "STATE.md").mkdir()
    for argv in (["state", "get"], ["state", "patch", "--status", "Done"]):
        r = msd_run(argv, cwd=proj)
        assert r.returncode == 1 and one_clear_line(r.stderr) and "folder" in r.stderr, r.stderr


def test_file_where_private_folder_should_be(proj, msd_run):
    (proj / ".planning" / ".msd").write_text("x")
    for argv in (["state", "patch", "--status", "Done"], ["config", "set", "mode", "interactive"], ["memory", "index"]):
        r = msd_run(argv, cwd=proj)
        assert r.returncode == 1 and one_clear_line(r.stderr), r.stderr
        assert ".msd" in r.stderr and "file where a folder should be" in r.stderr


def test_folder_where_compiled_plan_should_be(proj, msd_run, tmp_path):
    inst = make_install(tmp_path / "cfg")
    phase = proj / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text("---\nphase: 01-core\nplan: 01\n---\n<tasks></tasks>\n")
    argv = ["compile-plan", str(phase / "01-01-PLAN.md"), "--root", str(inst.root)]
    first = msd_run(argv, cwd=proj)
    assert first.returncode == 0, first.stderr
    out = Path(json.loads(first.stdout)["compiled"])
    out.unlink()
    out.mkdir()  # a folder where the compiled plan belongs
    r = msd_run(argv, cwd=proj)
    assert r.returncode == 1 and one_clear_line(r.stderr), r.stderr
    assert out.name in r.stderr and "folder where a file should be" in r.stderr


def test_writer_names_a_folder_in_the_way(tmp_path):
    (tmp_path / "f").mkdir()
    with pytest.raises(IsADirectoryError) as info:
        fsutil.atomic_write_bytes(tmp_path / "f", b"x", anchor=tmp_path)
    assert info.value.filename == str(tmp_path / "f")
    assert _temps(tmp_path) == []


# ---------------------------------------------------------------- out-of-range numbers


@pytest.mark.parametrize("argv", [
    ["memory", "search", "x", "--limit", HUGE],
    ["memory", "search", "x", "--limit", str(10 ** 30)],
    ["memory", "search", "x", "--limit", "-1"],
    ["memory", "search", "x", "--limit", "0"],
    ["memory", "what-uses", "x", "--limit", "1001"],
    ["extensions", "executor", "--plan", "p.md", "--completed", HUGE],
    ["extensions", "executor", "--plan", "p.md", "--completed", "-3"],
    ["config", "set", "mode", HUGE],
    ["config", "set", "parallelization.max_concurrent_agents", HUGE],
])
def test_out_of_range_numbers_are_exit_2_on_one_short_line(proj, msd_run, argv):
    r = msd_run(argv, cwd=proj)
    assert r.returncode == 2 and one_clear_line(r.stderr), r.stderr
    assert len(r.stderr) < 400


def test_huge_number_for_a_key_the_file_holds_as_a_number(proj, msd_run):
    cfg = proj / ".planning" / "config.json"
    cfg.write_text('{"mode": "yolo", "custom_count": 3}\n')
    r = msd_run(["config", "set", "custom_count", HUGE], cwd=proj)
    assert r.returncode == 2 and one_clear_line(r.stderr) and len(r.stderr) < 400, r.stderr
    assert cfg.read_text() == '{"mode": "yolo", "custom_count": 3}\n'


def test_config_file_holding_a_huge_number_is_exit_2(proj, msd_run):
    (proj / ".planning" / "config.json").write_text('{"mode": "yolo", "n": ' + HUGE + "}\n")
    r = msd_run(["config", "get", "mode"], cwd=proj)
    assert r.returncode == 2 and one_clear_line(r.stderr) and len(r.stderr) < 400, r.stderr


def test_huge_default_is_kept_as_text(proj, msd_run):
    r = msd_run(["config", "get", "not_a_key", "--default", HUGE], cwd=proj)
    assert r.returncode == 0 and r.stdout.strip() == json.dumps(HUGE)


def test_emit_stays_one_line_with_a_huge_budget(proj, msd_run, tmp_path):
    inst = make_install(tmp_path / "cfg")
    r = msd_run(["resolve", "plan-phase", "--emit", "--max-chars", HUGE, "--root", str(inst.root)], cwd=proj)
    assert r.returncode == 0 and r.stdout.count("\n") == 1 and "--max-chars" in r.stdout


# ---------------------------------------------------------------- config set keeps the file's bytes

ORIGINAL = (b'{\r\n  "mode":   "yolo",\r\n  "ratio": 1e5,\r\n  "name": "caf\\u00e9",\r\n'
            b'  "workflow": {\r\n    "research": true\r\n  }\r\n}\r\n')


def test_config_set_keeps_crlf_and_every_other_byte(proj, msd_run):
    cfg = proj / ".planning" / "config.json"
    cfg.write_bytes(ORIGINAL)
    r = msd_run(["config", "set", "workflow.research", "false"], cwd=proj)
    assert r.returncode == 0, r.stderr
    assert cfg.read_bytes() == ORIGINAL.replace(b'"research": true', b'"research": false')
    r = msd_run(["config", "set", "workflow.plan_check", "true"], cwd=proj)
    assert r.returncode == 0, r.stderr
    assert cfg.read_bytes() == ORIGINAL.replace(b'"research": true',
                                                b'"research": false,\r\n    "plan_check": true')
    assert msd_run(["config", "unset", "workflow.plan_check"], cwd=proj).returncode == 0
    assert msd_run(["config", "set", "workflow.research", "true"], cwd=proj).returncode == 0
    assert cfg.read_bytes() == ORIGINAL  # round trip: byte for byte


def test_config_set_new_group_in_crlf_file(proj, msd_run):
    cfg = proj / ".planning" / "config.json"
    cfg.write_bytes(b'{\r\n  "mode": "yolo"\r\n}\r\n')
    assert msd_run(["config", "set", "workflow.research", "false"], cwd=proj).returncode == 0
    raw = cfg.read_bytes()
    assert b"\n" not in raw.replace(b"\r\n", b"")  # no bare LF anywhere
    assert json.loads(raw) == {"mode": "yolo", "workflow": {"research": False}}
    assert raw.startswith(b'{\r\n  "mode": "yolo",\r\n  "workflow": {\r\n    "research": false\r\n  }')


def test_memory_database_that_cannot_grow_is_one_line(proj, msd_run):
    """SQLite reports a write past the file-size limit as 'database or disk is full'."""
    phase = proj / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-SUMMARY.md").write_text("---\nphase: 01-core\nplan: 01\n---\n# S\n" + "word " * 20000)
    (proj / ".planning" / ".msd").mkdir()
    (proj / ".planning" / ".msd" / ".gitignore").write_text("*\n")

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    r = subprocess.run([sys.executable, "-m", "msd_core.run", "memory", "index"], cwd=proj, capture_output=True,
                       text=True, timeout=30, preexec_fn=small_files, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 1 and one_clear_line(r.stderr), r.stderr
    assert "memory database" in r.stderr and "memory.sqlite" in r.stderr


def test_emit_with_an_unreadable_config_is_one_notice(proj, monkeypatch, tmp_path):
    inst = make_install(tmp_path / "cfg")
    deny_open(monkeypatch, str(proj / ".planning" / "config.json"))
    code, out, err = run_inproc(["resolve", "plan-phase", "--emit", "--root", str(inst.root), "--cwd", str(proj)])
    assert code == 0 and err == "" and out.count("\n") == 1
    assert out.startswith("<!-- msd:notice -->") and "permission denied" in out


def test_msd_cli_boundary_names_path_and_cause_for_os_errors(capsys):
    """`msd` commands: an OSError that reaches the boundary is one line with the path, exit 1,
    never "internal error"."""
    import typer

    from msd_core.cli.common import errors_to_exit

    @errors_to_exit
    def boom():
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/settings.json")

    with pytest.raises(typer.Exit) as info:
        boom()
    err = capsys.readouterr().err
    assert info.value.exit_code == 1
    assert err.count("\n") == 1 and "/somewhere/settings.json" in err and "disk full" in err
    assert "internal error" not in err
