"""`msd_run resolve STEM`: static stems only, parts from the manifest registry only, each
hash-checked; compact on/off x global / CLAUDE_CONFIG_DIR / local / --config-dir installs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import compact_default
from tests.kit.hostile import HOSTILE
from tests.kit.installed import compact_project, make_install, make_project, run_inproc


def resolve(stem, root, cwd, *extra):
    return run_inproc(["resolve", stem, "--root", str(root), "--cwd", str(cwd), *extra])




def expect_compact(compact):
    return compact_default() if compact is None else compact


# ------------------------------------------------------------------ happy paths, every install kind


@pytest.mark.parametrize("compact", [True, False, None])
@pytest.mark.parametrize("kind", ["default-global", "claude-config-dir", "local", "config-dir"])
def test_resolve_each_install_kind(tmp_path, isolated_home, msd_run, kind, compact):
    proj = compact_project(tmp_path, compact)
    env = {}
    args = ["resolve", "plan-phase"]
    if kind == "default-global":
        inst = make_install(isolated_home / ".claude")  # no --root: the global default
    elif kind == "claude-config-dir":
        inst = make_install(tmp_path / "claude-elsewhere")
        env["CLAUDE_CONFIG_DIR"] = str(inst.config)
    elif kind == "local":
        inst = make_install(proj / ".claude")
        args += ["--root", str(proj / ".claude" / "msd-core")]
    else:
        inst = make_install(tmp_path / "custom" / "dir")
        args += ["--root", str(inst.root)]
    r = msd_run(args, cwd=proj, env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    want_compact = expect_compact(compact)
    assert data == {
        "stem": "plan-phase",
        "compact": want_compact,
        "root": str(inst.root),
        "parts": [] if want_compact else inst.part_paths("plan-phase"),
    }


def test_root_with_tilde_is_expanded(tmp_path, isolated_home):
    inst = make_install(isolated_home / ".claude")
    proj = compact_project(tmp_path, False)
    code, out, _ = resolve("plan-phase", "~/.claude/msd-core", proj)
    assert code == 0 and json.loads(out)["parts"] == inst.part_paths("plan-phase")


def test_raw_lists_paths_or_nothing(tmp_path, inst):
    off = make_project(tmp_path / "off", {"workflow": {"compact_content": False}})
    on = make_project(tmp_path / "on", {"workflow": {"compact_content": True}})
    assert resolve("plan-phase", inst.root, off, "--raw") == (0, "".join(p + "\n" for p in inst.part_paths("plan-phase")), "")
    assert resolve("plan-phase", inst.root, on, "--raw") == (0, "", "")


def test_workflow_without_parts(tmp_path, inst):
    proj = compact_project(tmp_path, False)
    code, out, _ = resolve("execute-phase", inst.root, proj)
    assert code == 0 and json.loads(out)["parts"] == []


def test_reading_order_is_registry_order(tmp_path):
    wf = {"w": {"spine": "s\n", "parts": {"10-b.md": "b\n", "02-a.md": "a\n", "01-z.md": "z\n"}}}
    inst = make_install(tmp_path / "cfg", workflows=wf, agents={})
    code, out, _ = resolve("w", inst.root, compact_project(tmp_path, False))
    assert [Path(p).name for p in json.loads(out)["parts"]] == ["01-z.md", "02-a.md", "10-b.md"]


# ------------------------------------------------------------------ hostile names: exit 2 before any filesystem access


@pytest.mark.parametrize("stem", HOSTILE)
def test_hostile_stem_exit_2_without_touching_the_filesystem(tmp_path, stem):
    # the root does not exist: a lookup would give exit 3, so exit 2 proves the name was refused first
    missing_root = tmp_path / "nowhere" / "msd-core"
    code, out, err = run_inproc(["resolve", stem, "--root", str(missing_root), "--cwd", str(tmp_path)])
    assert code == 2, err
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "nowhere").exists()


def test_hostile_stem_never_reaches_open(tmp_path, monkeypatch, inst):
    import builtins

    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a[0]) or pytest.fail("os.open called"))
    for stem in HOSTILE:
        code, _, _ = resolve(stem, inst.root, tmp_path)
        assert code == 2
    assert not [p for p in opened if "msd-core" in str(p) or "config.json" in str(p)]


def test_unknown_but_valid_stem_exit_2_with_suggestion(tmp_path, inst):
    code, out, err = resolve("plan-phas", inst.root, compact_project(tmp_path, False))
    assert code == 2 and out == "" and "plan-phase" in err


def test_file_in_tree_but_not_in_registry_is_not_a_stem(tmp_path, inst):
    (inst.root / "workflows" / "evil.md").write_text("evil spine\n")
    (inst.root / "workflows" / "evil" / "detail").mkdir(parents=True)
    (inst.root / "workflows" / "evil" / "detail" / "01-x.md").write_text("EVIL\n")
    code, out, err = resolve("evil", inst.root, compact_project(tmp_path, False))
    assert code == 2 and "EVIL" not in out


# ------------------------------------------------------------------ planted, tampered, missing, symlinked


def test_planted_files_are_never_returned(tmp_path, inst):
    proj = compact_project(tmp_path, False)
    planted_local = proj / ".claude" / "msd-core" / "workflows" / "plan-phase" / "detail"
    planted_local.mkdir(parents=True)
    (planted_local / "00-evil.md").write_text("EVIL\n")
    (inst.root / "workflows" / "plan-phase" / "detail" / "02b-planted.md").write_text("EVIL\n")
    code, out, _ = resolve("plan-phase", inst.root, proj)
    assert code == 0
    parts = json.loads(out)["parts"]
    assert parts == inst.part_paths("plan-phase")
    assert not any(Path(p).name in ("00-evil.md", "02b-planted.md") for p in parts)


@pytest.mark.parametrize("damage", ["tamper", "missing", "symlink", "symlinked-dir", "replaced-by-dir"])
def test_damaged_part_exit_3_names_msd_install(tmp_path, inst, damage):
    target = Path(inst.part_paths("plan-phase")[1])
    text = target.read_text()
    if damage == "tamper":
        target.write_text(text + "EVIL\n")
    elif damage == "missing":
        target.unlink()
    elif damage == "symlink":
        copy = tmp_path / "copy.md"
        copy.write_text(text)  # same bytes: only the symlink is wrong
        target.unlink()
        target.symlink_to(copy)
    elif damage == "symlinked-dir":
        detail = target.parent
        moved = tmp_path / "moved-detail"
        shutil.move(str(detail), str(moved))
        detail.symlink_to(moved, target_is_directory=True)
    else:
        target.unlink()
        target.mkdir()
    code, out, err = resolve("plan-phase", inst.root, compact_project(tmp_path, False))
    assert code == 3, err
    assert out == "" and "msd install" in err and err.count("\n") == 1


def test_tampered_part_is_not_checked_when_compact_lists_nothing(tmp_path, inst):
    Path(inst.part_paths("plan-phase")[0]).write_text("EVIL\n")
    code, out, _ = resolve("plan-phase", inst.root, compact_project(tmp_path, True))
    assert code == 0 and json.loads(out)["parts"] == []


def test_registry_path_escaping_the_tree_is_refused(tmp_path, inst):
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET\n")
    data = json.loads(inst.manifest_path.read_text())
    data["registry"]["workflows"]["plan-phase"]["parts"] = ["msd-core/workflows/plan-phase/../../../secret.md"]
    inst.manifest_path.write_text(json.dumps(data))
    code, out, err = resolve("plan-phase", inst.root, compact_project(tmp_path, False))
    assert code == 3 and "SECRET" not in out


def test_part_registered_but_absent_from_files_table_is_refused(tmp_path, inst):
    data = json.loads(inst.manifest_path.read_text())
    extra = "msd-core/workflows/plan-phase/detail/04-extra.md"
    (inst.config / extra).write_text("EXTRA\n")
    data["registry"]["workflows"]["plan-phase"]["parts"].append(extra)
    inst.manifest_path.write_text(json.dumps(data))
    code, out, err = resolve("plan-phase", inst.root, compact_project(tmp_path, False))
    assert code == 3 and "not recorded" in err


# ------------------------------------------------------------------ no install, corrupt manifest


def test_no_install_names_msd_install(tmp_path):
    code, out, err = resolve("plan-phase", tmp_path / "cfg" / "msd-core", compact_project(tmp_path, False))
    assert code == 3 and "msd install" in err and out == ""


def test_no_global_install_by_default(tmp_path, msd_run):
    r = msd_run(["resolve", "plan-phase"], cwd=compact_project(tmp_path, False))
    assert r.returncode == 3 and "msd install" in r.stderr and "Traceback" not in r.stderr


def test_root_not_named_msd_core_is_a_usage_error_naming_it(tmp_path, inst):
    code, _, err = resolve("plan-phase", inst.config, compact_project(tmp_path, False))
    assert code == 2 and f"argument --root: {inst.config} is not an installed msd-core folder" in err
    code, _, err = resolve("plan-phase", tmp_path / "typo", compact_project(tmp_path, False))
    assert code == 2 and f"argument --root: {tmp_path / 'typo'} does not exist" in err


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[]", b'{"files": {"../x": "00"}}', b'{"files": {}, "registry": []}', b"\xff\xfe",
     b'{"files": {}, "registry": {"workflows": {"plan-phase": "x"}}}',
     b'{"files": {}, "registry": {"workflows": []}}'],
)
def test_corrupt_manifest_exit_3(tmp_path, inst, content):
    inst.manifest_path.write_bytes(content)
    code, out, err = resolve("plan-phase", inst.root, compact_project(tmp_path, False))
    assert code == 3, err
    assert out == "" and "Traceback" not in err and err.count("\n") == 1


def test_symlinked_manifest_is_refused(tmp_path, inst):
    real = tmp_path / "real-manifest.json"
    shutil.copy(inst.manifest_path, real)
    inst.manifest_path.unlink()
    inst.manifest_path.symlink_to(real)
    code, _, err = resolve("plan-phase", inst.root, compact_project(tmp_path, False))
    assert code == 3 and "symlink" in err


def test_corrupt_project_config_exit_2(tmp_path, inst):
    proj = make_project(tmp_path / "p", raw="{bad")
    code, _, err = resolve("plan-phase", inst.root, proj)
    assert code == 2 and "line 1 column 2" in err


def test_non_bool_compact_value_is_read_as_its_default_with_a_warning(tmp_path, inst):
    proj = make_project(tmp_path / "p", {"workflow": {"compact_content": "sometimes"}})
    code, out, err = resolve("plan-phase", inst.root, proj)
    default = compact_default()  # --compact on|off sets the schema default the suite runs with
    assert code == 0 and json.loads(out)["compact"] is default
    assert 'config workflow.compact_content in ' in err and f'using the default {str(default).lower()}' in err


# ------------------------------------------------------------------ trace


def trace_lines(proj):
    log = proj / ".planning" / ".msd" / "loads.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_trace_by_env(tmp_path, inst, monkeypatch):
    proj = compact_project(tmp_path, False)
    resolve("plan-phase", inst.root, proj)
    assert trace_lines(proj) == []
    monkeypatch.setenv("MSD_TRACE", "1")
    resolve("plan-phase", inst.root, proj)
    run_inproc(["agent-skills", "executor", "--root", str(inst.root), "--cwd", str(proj)])
    lines = trace_lines(proj)
    assert [ln["command"] for ln in lines] == ["resolve", "agent-skills"]
    assert lines[0]["stem"] == "plan-phase" and lines[0]["compact"] is False
    assert lines[0]["files"] == inst.part_paths("plan-phase")
    assert lines[1]["agent"] == "executor" and lines[1]["files"] == [str(inst.root / "agent-skills" / "executor.md")]
    assert lines[0]["time"].endswith("Z")


def test_trace_by_config_key(tmp_path, inst):
    proj = make_project(tmp_path / "p", {"workflow": {"trace_loads": True, "compact_content": True}})
    assert resolve("plan-phase", inst.root, proj)[0] == 0
    assert trace_lines(proj) == [{**trace_lines(proj)[0], "command": "resolve", "stem": "plan-phase", "compact": True, "files": []}]


def test_trace_needs_a_project_and_never_fails_the_command(tmp_path, inst, monkeypatch):
    monkeypatch.setenv("MSD_TRACE", "1")
    lone = tmp_path / "lone"
    lone.mkdir()
    assert resolve("plan-phase", inst.root, lone)[0] == 0
    assert not list(tmp_path.rglob("loads.jsonl"))
    # .planning/.msd is a symlink elsewhere: not followed, command still succeeds
    proj = compact_project(tmp_path, False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (proj / ".planning" / ".msd").symlink_to(elsewhere, target_is_directory=True)
    assert resolve("plan-phase", inst.root, proj)[0] == 0
    assert not (elsewhere / "loads.jsonl").exists()


def test_trace_log_over_the_cap_is_left_alone(tmp_path, inst, monkeypatch):
    from msd_core.resolve import trace

    monkeypatch.setenv("MSD_TRACE", "1")
    proj = compact_project(tmp_path, False)
    log = proj / ".planning" / ".msd" / "loads.jsonl"
    log.parent.mkdir()
    with open(log, "wb") as fh:
        fh.truncate(trace.MAX_LOG_BYTES + 1)  # sparse: cheap
    assert resolve("plan-phase", inst.root, proj)[0] == 0
    assert log.stat().st_size == trace.MAX_LOG_BYTES + 1
    log.unlink()
    log.symlink_to(tmp_path / "target.jsonl")
    assert resolve("plan-phase", inst.root, proj)[0] == 0
    assert not (tmp_path / "target.jsonl").exists()


def test_config_folder_reached_through_a_symlink_still_resolves(tmp_path, isolated_home):
    """~/.claude may itself be a symlink (dotfiles); only links inside the install are refused."""
    inst = make_install(tmp_path / "dotfiles" / "claude")
    link = isolated_home / ".claude"
    link.symlink_to(inst.config, target_is_directory=True)
    code, out, err = resolve("plan-phase", "~/.claude/msd-core", compact_project(tmp_path, False))
    assert code == 0, err
    assert json.loads(out)["parts"] == [str(link / "msd-core" / rel.split("msd-core/", 1)[1])
                                        for rel in inst.part_relpaths("plan-phase")]


def test_concurrent_traced_calls_write_whole_lines(tmp_path, inst):
    import subprocess
    import sys
    import time

    proj = compact_project(tmp_path, False)
    env = {**os.environ, "MSD_TRACE": "1"}
    n, deadline = 8, time.monotonic() + 60
    procs = [subprocess.Popen([sys.executable, "-m", "msd_core.run", "resolve", "plan-phase", "--root", str(inst.root),
                               "--cwd", str(proj)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for _ in range(n)]
    for p in procs:
        p.wait(timeout=max(1, deadline - time.monotonic()))
        assert p.returncode == 0
    lines = trace_lines(proj)
    assert len(lines) == n and all(ln["files"] == inst.part_paths("plan-phase") for ln in lines)
