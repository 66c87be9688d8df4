"""`msd_run config get|set|unset|list` and msd_core.config.store: lookup order, typed writes,
refusals that leave the file byte-identical."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import compact_default
from tests.kit.installed import make_project, run_inproc

CFG = {
    "mode": "yolo",
    "depth": "quick",
    "custom_top": {"z": 1, "a": [1, 2]},
    "workflow": {"research": False, "nyquist_validation": True, "_auto_chain_active": False},
    "parallelization": True,
}


def cfg_path(root: Path) -> Path:
    return root / ".planning" / "config.json"


def user_defaults(home: Path) -> Path:
    return Path(os.environ["MSD_USER_CONFIG_DIR"]) / "defaults.json"


def get(key, cwd, *extra):
    return run_inproc(["config", "get", key, "--cwd", str(cwd), *extra])


# ------------------------------------------------------------------ lookup order


def test_project_beats_user_beats_schema_default(tmp_path, isolated_home):
    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    up = user_defaults(isolated_home)
    up.parent.mkdir(parents=True, exist_ok=True)
    up.write_text(json.dumps({"mode": "interactive", "model_profile": "budget"}), encoding="utf-8")
    assert get("mode", proj) == (0, '"yolo"\n', "")
    assert get("model_profile", proj) == (0, '"budget"\n', "")
    assert get("granularity", proj) == (0, '"standard"\n', "")


def test_compact_default_follows_the_suite_switch(tmp_path):
    proj = make_project(tmp_path / "p", {})
    code, out, _ = get("workflow.compact_content", proj, "--raw")
    assert code == 0 and out.strip() == ("true" if compact_default() else "false")


@pytest.mark.parametrize("env_value, expected", [("true", "true"), ("false", "false"), ("on", "true"), ("0", "false")])
def test_env_flips_schema_default_but_never_a_project_value(tmp_path, msd_run, env_value, expected):
    proj = make_project(tmp_path / "p", {})
    r = msd_run(["config", "get", "workflow.compact_content", "--raw"], cwd=proj, env={"MSD_COMPACT_DEFAULT": env_value})
    assert (r.returncode, r.stdout.strip()) == (0, expected)
    make_project(proj, {"workflow": {"compact_content": expected != "true"}})
    r = msd_run(["config", "get", "workflow.compact_content", "--raw"], cwd=proj, env={"MSD_COMPACT_DEFAULT": env_value})
    assert r.stdout.strip() == ("false" if expected == "true" else "true")


def test_lookup_walks_up_from_a_subfolder(tmp_path, msd_run):
    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    sub = proj / "src" / "deep"
    sub.mkdir(parents=True)
    r = msd_run(["config", "get", "mode", "--raw"], cwd=sub)
    assert (r.returncode, r.stdout) == (0, "yolo\n")


def test_no_project_gives_schema_defaults(tmp_path):
    lone = tmp_path / "lone"
    lone.mkdir()
    assert get("model_profile", lone, "--raw") == (0, "balanced\n", "")


def test_default_option(tmp_path):
    proj = make_project(tmp_path / "p", {"mode": "yolo", "workflow": {"extra_flag": False}})
    assert get("mode", proj, "--default", "interactive", "--raw")[1] == "yolo\n"  # the file wins
    assert get("granularity", proj, "--default", "fine", "--raw")[1] == "fine\n"  # no file sets it
    assert get("not.a.key", proj, "--default", "42") == (0, "42\n", "")  # unknown key answered
    assert get("workflow.extra_flag", proj, "--raw")[1] == "false\n"  # unknown to schema, present in file


def test_enum_case_is_normalised_on_read_not_rewritten(tmp_path):
    proj = make_project(tmp_path / "p", raw='{"mode": "YOLO", "granularity": "Fine"}')
    before = cfg_path(proj).read_bytes()
    assert get("mode", proj, "--raw")[1] == "yolo\n"
    assert get("granularity", proj, "--raw")[1] == "fine\n"
    assert cfg_path(proj).read_bytes() == before


def test_parallelization_bool_and_object_forms(tmp_path):
    a = make_project(tmp_path / "a", {"parallelization": False})
    assert get("parallelization.enabled", a, "--raw")[1] == "false\n"
    assert get("parallelization.max_concurrent_agents", a, "--raw")[1] == "3\n"  # schema default
    b = make_project(tmp_path / "b", {"parallelization": {"enabled": True, "max_concurrent_agents": 7}})
    assert get("parallelization.max_concurrent_agents", b, "--raw")[1] == "7\n"
    assert json.loads(get("parallelization", b)[1]) == {"enabled": True, "max_concurrent_agents": 7}


def test_group_key_returns_the_merged_subtree(tmp_path):
    proj = make_project(tmp_path / "p", {"workflow": {"research": False, "custom": 1}})
    tree = json.loads(get("workflow", proj)[1])
    assert tree["research"] is False and tree["custom"] == 1 and tree["plan_check"] is True


def test_unknown_key_exit_2_names_closest(tmp_path):
    proj = make_project(tmp_path / "p", {})
    code, out, err = get("workflow.reserch", proj)
    assert code == 2 and out == ""
    assert "workflow.research" in err and err.count("\n") == 1


def test_list_shows_every_schema_key_and_kept_unknown_keys(tmp_path):
    proj = make_project(tmp_path / "p", CFG)
    code, out, _ = run_inproc(["config", "list", "--json", "--cwd", str(proj)])
    assert code == 0
    entries = {e["key"]: e for e in json.loads(out)}
    assert entries["mode"]["source"] == "project" and entries["mode"]["value"] == "yolo"
    assert entries["commit_docs"]["source"] == "default"
    assert entries["custom_top.z"]["known"] is False
    assert entries["workflow.nyquist_validation"]["value"] is True
    code, out, _ = run_inproc(["config", "list", "--cwd", str(proj)])
    assert "custom_top.a = [1,2]  (project)  [not in schema, kept]" in out.splitlines()


def test_list_flags_invalid_stored_values_without_failing(tmp_path):
    proj = make_project(tmp_path / "p", {"mode": "turbo", "commit_docs": "yes"})
    code, out, _ = run_inproc(["config", "list", "--json", "--cwd", str(proj)])
    entries = {e["key"]: e for e in json.loads(out)}
    assert code == 0
    assert "interactive, yolo" in entries["mode"]["problem"]
    assert "problem" in entries["commit_docs"]


# ------------------------------------------------------------------ set / unset


def test_set_coerces_and_keeps_other_keys_and_order(tmp_path):
    proj = make_project(tmp_path / "p", CFG)
    code, out, _ = run_inproc(["config", "set", "workflow.research", "yes", "--cwd", str(proj)])
    assert code == 0 and json.loads(out)["value"] is True
    run_inproc(["config", "set", "model_profile", "Quality", "--cwd", str(proj)])
    expected = (
        "{\n"
        '  "mode": "yolo",\n'
        '  "depth": "quick",\n'
        '  "custom_top": {\n    "z": 1,\n    "a": [\n      1,\n      2\n    ]\n  },\n'
        '  "workflow": {\n    "research": true,\n    "nyquist_validation": true,\n    "_auto_chain_active": false\n  },\n'
        '  "parallelization": true,\n'
        '  "model_profile": "quality"\n'
        "}\n"
    )
    assert cfg_path(proj).read_text(encoding="utf-8") == expected


def test_set_keeps_four_space_indent_and_non_ascii(tmp_path):
    proj = make_project(tmp_path / "p", raw='{\n    "mode": "yolo",\n    "note": "≥9 required"\n}')
    assert run_inproc(["config", "set", "commit_docs", "false", "--cwd", str(proj)])[0] == 0
    assert cfg_path(proj).read_text(encoding="utf-8") == (
        '{\n    "mode": "yolo",\n    "note": "≥9 required",\n    "commit_docs": false\n}'
    )


def test_set_int_field_turns_bool_parallelization_into_object(tmp_path):
    proj = make_project(tmp_path / "p", {"parallelization": True})
    assert run_inproc(["config", "set", "parallelization.max_concurrent_agents", "5", "--cwd", str(proj)])[0] == 0
    assert json.loads(cfg_path(proj).read_text())["parallelization"] == {"enabled": True, "max_concurrent_agents": 5}
    assert run_inproc(["config", "set", "parallelization", "false", "--cwd", str(proj)])[0] == 0
    assert json.loads(cfg_path(proj).read_text())["parallelization"] is False


def test_set_under_a_non_object_value_is_refused(tmp_path):
    proj = make_project(tmp_path / "p", {"git": "none"})
    before = cfg_path(proj).read_bytes()
    code, _, err = run_inproc(["config", "set", "git.branching_strategy", "phase", "--cwd", str(proj)])
    assert code == 2 and "not an object" in err
    assert cfg_path(proj).read_bytes() == before


def test_set_object_form_validates_fields(tmp_path):
    proj = make_project(tmp_path / "p", {})
    ok = run_inproc(["config", "set", "parallelization", '{"enabled": true, "max_concurrent_agents": 2}', "--cwd", str(proj)])
    assert ok[0] == 0
    before = cfg_path(proj).read_bytes()
    bad = run_inproc(["config", "set", "parallelization", '{"enabeld": true}', "--cwd", str(proj)])
    assert bad[0] == 2 and "enabled" in bad[2]
    bad = run_inproc(["config", "set", "parallelization", '{"max_concurrent_agents": "many"}', "--cwd", str(proj)])
    assert bad[0] == 2
    assert cfg_path(proj).read_bytes() == before


def test_set_key_unknown_to_schema_but_in_file_keeps_its_type(tmp_path):
    proj = make_project(tmp_path / "p", CFG)
    assert run_inproc(["config", "set", "workflow.nyquist_validation", "off", "--cwd", str(proj)])[0] == 0
    assert json.loads(cfg_path(proj).read_text())["workflow"]["nyquist_validation"] is False
    code, _, err = run_inproc(["config", "set", "workflow.nyquist_validation", "maybe", "--cwd", str(proj)])
    assert code == 2 and "true or false" in err


@pytest.mark.parametrize(
    "key, value, needle",
    [
        ("workflow.reserch", "true", "workflow.research"),  # unknown key: closest named
        ("modee", "yolo", "mode"),
        ("mode", "fast", "interactive, yolo"),  # invalid value: allowed listed
        ("model_profile", "cheap", "quality, balanced, budget, inherit"),
        ("workflow.research", "perhaps", "true or false"),
        ("parallelization.max_concurrent_agents", "0", "1 to 64"),
        ("parallelization.max_concurrent_agents", "three", "whole number"),
        ("workflow", "true", "group"),
        ("a..b", "1", "dotted"),
        ("depth.x", "1", "did you mean depth?"),
    ],
)
def test_refused_set_is_exit_2_and_byte_identical(tmp_path, key, value, needle):
    proj = make_project(tmp_path / "p", CFG)
    before = cfg_path(proj).read_bytes()
    code, out, err = run_inproc(["config", "set", key, value, "--cwd", str(proj)])
    assert code == 2, err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err
    assert cfg_path(proj).read_bytes() == before


@pytest.mark.parametrize(
    "raw, needle",
    [
        ('{\n  "mode": "yolo",\n  "depth": \n}\n', "line 4 column 1"),
        # the position of a trailing comma is Python's: 3.13 points at the comma (column 16)
        ('{"mode": "yolo",}', "line 1 column 17" if sys.version_info < (3, 13) else "line 1 column 16"),
        ("[1, 2]", "JSON object"),
        ("", "empty"),
    ],
)
def test_corrupt_config_is_exit_2_with_position_and_never_rewritten(tmp_path, raw, needle):
    proj = make_project(tmp_path / "p", raw=raw)
    before = cfg_path(proj).read_bytes()
    for argv in (["get", "mode"], ["set", "mode", "yolo"], ["unset", "mode"], ["list"]):
        code, _, err = run_inproc(["config", *argv, "--cwd", str(proj)])
        assert code == 2, (argv, err)
        assert needle in err and "Traceback" not in err
    assert cfg_path(proj).read_bytes() == before


def test_non_utf8_and_oversized_configs_are_refused(tmp_path):
    a = make_project(tmp_path / "a")
    cfg_path(a).write_bytes(b'{"mode": "\xff"}')
    assert run_inproc(["config", "get", "mode", "--cwd", str(a)])[0] == 2
    b = make_project(tmp_path / "b")
    big = b'{"pad": "' + b"x" * (1 << 20) + b'"}'
    cfg_path(b).write_bytes(big)
    code, _, err = run_inproc(["config", "set", "mode", "yolo", "--cwd", str(b)])
    assert code == 2 and "larger than" in err
    assert cfg_path(b).read_bytes() == big


def test_corrupt_user_defaults_named_exit_2(tmp_path, isolated_home):
    up = user_defaults(isolated_home)
    up.parent.mkdir(parents=True, exist_ok=True)
    up.write_text("{oops", encoding="utf-8")
    code, _, err = get("mode", tmp_path)
    assert code == 2 and "user defaults" in err and "line 1 column 2" in err


def test_set_without_project_needs_create(tmp_path):
    lone = tmp_path / "lone"
    lone.mkdir()
    code, _, err = run_inproc(["config", "set", "mode", "yolo", "--cwd", str(lone)])
    assert code == 2 and "--create" in err
    assert not (lone / ".planning").exists()
    code, out, _ = run_inproc(["config", "set", "mode", "yolo", "--create", "--cwd", str(lone)])
    data = json.loads(cfg_path(lone).read_text())
    assert code == 0 and data.pop("evidence")["cutoff"] == {}  # msd made the project: its evidence record (issue 45)
    assert data == {"mode": "yolo"}


def test_set_where_planning_is_a_file_fails_cleanly(tmp_path):
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / ".planning").write_text("not a folder")
    code, _, err = run_inproc(["config", "set", "mode", "yolo", "--create", "--cwd", str(lone)])
    assert code == 1 and "cannot write" in err and err.count("\n") == 1 and "internal error" not in err
    assert (lone / ".planning").read_text() == "not a folder"


def test_set_creates_config_when_planning_exists(tmp_path):
    proj = make_project(tmp_path / "p")
    assert run_inproc(["config", "set", "granularity", "fine", "--cwd", str(proj)])[0] == 0
    text = cfg_path(proj).read_text()
    assert text.startswith('{\n  "granularity": "fine",\n  "evidence": {\n    "since": ') and text.endswith('"cutoff": {}\n  }\n}\n')


def test_unset(tmp_path):
    proj = make_project(tmp_path / "p", CFG)
    code, out, _ = run_inproc(["config", "unset", "workflow.research", "--cwd", str(proj)])
    assert code == 0 and json.loads(out)["removed"] is True
    data = json.loads(cfg_path(proj).read_text())
    assert "research" not in data["workflow"] and data["workflow"]["nyquist_validation"] is True
    before = cfg_path(proj).read_bytes()
    os.utime(cfg_path(proj), (1, 1))
    code, out, _ = run_inproc(["config", "unset", "commit_docs", "--cwd", str(proj)])  # absent known key
    assert code == 0 and json.loads(out)["changed"] is False
    assert cfg_path(proj).read_bytes() == before and cfg_path(proj).stat().st_mtime == 1  # not rewritten
    code, _, err = run_inproc(["config", "unset", "no_such_thing", "--cwd", str(proj)])
    assert code == 2 and cfg_path(proj).read_bytes() == before
    assert run_inproc(["config", "unset", "custom_top.z", "--cwd", str(proj)])[0] == 0  # unknown but present
    assert json.loads(cfg_path(proj).read_text())["custom_top"] == {"a": [1, 2]}


def test_usage_errors_for_wrong_arity(tmp_path):
    proj = make_project(tmp_path / "p", {})
    assert run_inproc(["config", "get", "--cwd", str(proj)])[0] == 2
    assert run_inproc(["config", "set", "mode", "--cwd", str(proj)])[0] == 2
    assert run_inproc(["config", "list", "mode", "--cwd", str(proj)])[0] == 2
    assert run_inproc(["config", "frob"])[0] == 2


def test_held_lock_gives_exit_4_and_no_write(tmp_path, msd_run):
    import filelock

    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    before = cfg_path(proj).read_bytes()
    lock = filelock.FileLock(str(proj / ".planning" / ".msd" / "config.lock"))
    (proj / ".planning" / ".msd").mkdir()
    with lock:
        r = msd_run(["config", "set", "mode", "interactive"], cwd=proj, env={"MSD_LOCK_TIMEOUT": "0.3"})
    assert r.returncode == 4 and "lock" in r.stderr
    assert cfg_path(proj).read_bytes() == before


def test_concurrent_sets_all_land(tmp_path):
    import subprocess
    import sys

    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    keys = ["workflow.research", "workflow.plan_check", "workflow.verifier", "commit_docs", "workflow.tdd",
            "workflow.compact_content"]
    procs = [subprocess.Popen([sys.executable, "-m", "msd_core.run", "config", "set", k, "false", "--cwd", str(proj)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for k in keys]
    for p in procs:
        p.wait(timeout=60)
        assert p.returncode == 0, p.stderr.read()
    data = json.loads(cfg_path(proj).read_text())
    assert data["mode"] == "yolo"
    assert data["commit_docs"] is False
    for k in keys:
        if "." in k:
            top, leaf = k.split(".")
            assert data[top][leaf] is False


def test_store_api_for_other_modules(tmp_path):
    from msd_core.config import store

    proj = make_project(tmp_path / "p", {"workflow": {"research": False}, "mode": "YOLO"})
    assert store.get_value("workflow.research", proj / "x") is False  # walks up from a missing subfolder
    eff = store.load_effective(proj)
    assert eff["workflow"]["research"] is False and eff["mode"] == "yolo" and eff["workflow"]["verifier"] is True
    assert eff["workflow"]["compact_content"] is compact_default()


# ------------------------------------------------------------------ the corpus


def test_every_corpus_config_loads_lists_and_survives_a_set(corpus_dir, copy_corpus_tree):
    from msd_core.config import store
    from tests.conftest import corpus_tree_names

    names = [n for n in corpus_tree_names() if (corpus_dir / n / ".planning" / "config.json").is_file()]
    assert len(names) >= 20
    for name in names:
        src = json.loads((corpus_dir / name / ".planning" / "config.json").read_text(encoding="utf-8"))
        proj = copy_corpus_tree(name)
        entries = store.list_entries(proj)
        keys = {e["key"] for e in entries}
        assert "workflow.compact_content" in keys
        for e in entries:
            store.get_value(e["key"], proj)
        store.set_value("workflow.compact_content", "true", proj)
        after = json.loads(cfg_path(proj).read_text(encoding="utf-8"))
        assert list(after)[: len(src)] == list(src), name  # order kept
        wf = after.pop("workflow")
        src_wf = src.pop("workflow", {})
        assert after == src, name  # every other key untouched
        assert wf == {**src_wf, "compact_content": True}, name


def test_deeply_nested_config_is_refused_not_a_crash(tmp_path):
    proj = make_project(tmp_path / "p", raw='{"a": ' + "[" * 200000 + "]" * 200000 + "}")
    code, _, err = get("mode", proj)
    assert code == 2 and "nested more than 100 levels deep" in err and "Traceback" not in err


@pytest.mark.parametrize("key", ["", ".", "a.", ".a", "x" * 201, "mo\x00de"])
def test_malformed_keys_exit_2(tmp_path, key):
    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    before = cfg_path(proj).read_bytes()
    for verb in (["get", key], ["set", key, "1"], ["unset", key]):
        code, _, err = run_inproc(["config", *verb, "--cwd", str(proj)])
        assert code == 2, (verb, err)
    assert cfg_path(proj).read_bytes() == before


def test_reads_write_nothing(tmp_path):
    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    before = sorted(p.name for p in (proj / ".planning").iterdir())
    get("mode", proj)
    run_inproc(["config", "list", "--cwd", str(proj)])
    assert sorted(p.name for p in (proj / ".planning").iterdir()) == before


def test_an_invalid_stored_value_is_read_as_the_default_with_one_warning(tmp_path, capsys):
    from msd_core.config import store

    store._WARNED.clear()
    planning = tmp_path / ".planning"
    planning.mkdir()
    (planning / "config.json").write_text('{"mode": "turbo", "workflow": {"compact_content": "maybe", "research": "off"}}')
    assert store.get_value("mode", tmp_path) == "interactive"
    assert store.get_with_source("mode", tmp_path) == ("interactive", "default")
    assert store.load_effective(tmp_path)["mode"] == "interactive"
    default = compact_default()  # --compact on|off sets the schema default the suite runs with
    assert store.get_bool("workflow.compact_content", tmp_path) is default  # not a UsageError: the default
    assert store.get_bool("workflow.research", tmp_path) is False  # a bool word is valid as stored
    err = capsys.readouterr().err.splitlines()
    assert err == [f'msd: warning: config mode in {planning / "config.json"}: expected one of interactive, yolo, found '
                   '"turbo"; using the default "interactive" (fix: msd config set mode <value>)',
                   f'msd: warning: config workflow.compact_content in {planning / "config.json"}: expected true or false, '
                   f'found "maybe"; using the default {str(default).lower()} (fix: msd config set workflow.compact_content <value>)']
    listed = {e["key"]: e for e in store.list_entries(tmp_path)}  # the list shows what is stored, and why it is not used
    assert listed["mode"]["value"] == "turbo" and listed["mode"]["problem"].startswith("expected one of")
    assert listed["workflow.research"]["problem"] == "expected true or false, found \"off\""
