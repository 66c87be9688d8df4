"""`msd_run resolve STEM --emit`: verified text or one notice line, always exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.hostile import HOSTILE
from tests.kit.installed import make_install, make_project, part_text, run_inproc

NOTICE = "<!-- msd:notice -->"
COMPACT = "<!-- msd:compact -->"
BY_PATH = "<!-- msd:parts-by-path -->"




def emit(stem, root, cwd, *extra):
    return run_inproc(["resolve", stem, "--emit", "--root", str(root), "--cwd", str(cwd), *extra])


def off(tmp_path):
    return make_project(tmp_path / "off", {"workflow": {"compact_content": False}})


def on(tmp_path):
    return make_project(tmp_path / "on", {"workflow": {"compact_content": True}})


def assert_one_notice(code, out, err, forbidden=()):
    assert code == 0
    assert out.count("\n") == 1 and out.startswith(NOTICE), out
    assert "Traceback" not in out + err
    for text in forbidden:
        assert text not in out


def test_compact_off_emits_each_part_once_in_order_with_markers(tmp_path, inst):
    code, out, err = emit("plan-phase", inst.root, off(tmp_path))
    assert code == 0 and err == ""
    expected = "".join(f"<!-- msd:part {rel} -->\n{text}" for rel, text in
                       zip(inst.part_relpaths("plan-phase"), inst.part_texts("plan-phase")))
    assert out == expected


def test_compact_on_emits_one_line(tmp_path, inst):
    code, out, _ = emit("plan-phase", inst.root, on(tmp_path))
    assert code == 0 and out.count("\n") == 1 and out.startswith(COMPACT) and "plan-phase" in out
    assert "UNIQUE-" not in out


def test_workflow_without_parts_emits_nothing(tmp_path, inst):
    assert emit("execute-phase", inst.root, off(tmp_path)) == (0, "", "")


def test_part_without_final_newline_keeps_markers_on_their_own_line(tmp_path):
    wf = {"w": {"spine": "s\n", "parts": {"01-a.md": "no newline", "02-b.md": "B\n"}}}
    inst = make_install(tmp_path / "cfg", workflows=wf, agents={})
    code, out, _ = emit("w", inst.root, off(tmp_path))
    assert out.splitlines() == ["<!-- msd:part msd-core/workflows/w/detail/01-a.md -->", "no newline",
                                "<!-- msd:part msd-core/workflows/w/detail/02-b.md -->", "B"]


# ------------------------------------------------------------------ budget


def big_install(tmp_path, sizes):
    parts = {f"0{i}-p.md": part_text("big", i, size) for i, size in enumerate(sizes, 1)}
    return make_install(tmp_path / "cfg", workflows={"big": {"spine": "s\n", "parts": parts}}, agents={})


def test_over_budget_inlines_a_prefix_and_lists_the_rest_by_path(tmp_path):
    inst = big_install(tmp_path, [12000, 12000, 12000])
    code, out, _ = emit("big", inst.root, off(tmp_path))
    assert code == 0 and len(out) <= 28000
    texts, paths = inst.part_texts("big"), inst.part_paths("big")
    assert out.count(texts[0]) == 1 and out.count(texts[1]) == 1
    assert texts[2] not in out and "UNIQUE-BIG-PART-03" not in out
    tail = out[out.index(BY_PATH):].splitlines()
    assert len(tail) == 2 and "before the step that needs it" in tail[0]
    assert tail[1:] == [paths[2]]


def test_first_part_too_big_lists_every_part(tmp_path):
    inst = big_install(tmp_path, [40000, 100])
    code, out, _ = emit("big", inst.root, off(tmp_path))
    assert out.splitlines()[1:] == inst.part_paths("big") and out.startswith(BY_PATH)
    assert "UNIQUE-BIG" not in out


@pytest.mark.parametrize("budget", [1000, 2000, 5000, 20000])
def test_max_chars_is_respected(tmp_path, budget):
    inst = big_install(tmp_path, [300, 700, 2000, 6000])
    code, out, _ = emit("big", inst.root, off(tmp_path), "--max-chars", str(budget))
    assert code == 0 and len(out) <= budget
    inlined = [t for t in inst.part_texts("big") if t in out]
    listed = [p for p in inst.part_paths("big") if p in out.splitlines()]
    assert len(inlined) + len(listed) == 4  # every part either inlined or listed, in order
    assert inlined == inst.part_texts("big")[: len(inlined)]


def test_paths_are_never_dropped_even_past_a_tiny_budget(tmp_path):
    inst = big_install(tmp_path, [300, 700, 2000, 6000])
    code, out, _ = emit("big", inst.root, off(tmp_path), "--max-chars", "1")  # raised to the 200 minimum
    assert code == 0 and out.splitlines()[1:] == inst.part_paths("big")


def test_exactly_at_budget_is_inlined(tmp_path):
    inst = big_install(tmp_path, [1000, 1000])
    full = emit("big", inst.root, off(tmp_path))[1]
    assert emit("big", inst.root, off(tmp_path), "--max-chars", str(len(full)))[1] == full
    assert BY_PATH in emit("big", inst.root, off(tmp_path), "--max-chars", str(len(full) - 1))[1]


# ------------------------------------------------------------------ every failure: one notice, exit 0


def test_tampered_part_notice_and_no_text_at_all(tmp_path, inst):
    p = Path(inst.part_paths("plan-phase")[2])
    p.write_text(p.read_text() + "EVIL\n")
    code, out, err = emit("plan-phase", inst.root, off(tmp_path))
    assert_one_notice(code, out, err, forbidden=["UNIQUE-", "EVIL"])
    assert "modified" in out


def test_missing_part_notice(tmp_path, inst):
    Path(inst.part_paths("plan-phase")[0]).unlink()
    assert_one_notice(*emit("plan-phase", inst.root, off(tmp_path)), forbidden=["UNIQUE-"])


def test_no_install_notice_names_msd_install(tmp_path):
    code, out, err = emit("plan-phase", tmp_path / "none" / "msd-core", off(tmp_path))
    assert_one_notice(code, out, err)
    assert "msd install" in out


def test_corrupt_manifest_notice(tmp_path, inst):
    inst.manifest_path.write_text("{nope")
    assert_one_notice(*emit("plan-phase", inst.root, off(tmp_path)), forbidden=["UNIQUE-"])


def test_corrupt_config_notice(tmp_path, inst):
    proj = make_project(tmp_path / "bad", raw='{"workflow": ')
    before = (proj / ".planning" / "config.json").read_bytes()
    assert_one_notice(*emit("plan-phase", inst.root, proj), forbidden=["UNIQUE-"])
    assert (proj / ".planning" / "config.json").read_bytes() == before


def test_unknown_stem_notice(tmp_path, inst):
    assert_one_notice(*emit("plan-phas", inst.root, off(tmp_path)))


@pytest.mark.parametrize("stem", HOSTILE)
def test_hostile_stem_notice_single_line(tmp_path, stem):
    code, out, err = run_inproc(["resolve", stem, "--emit", "--root", str(tmp_path / "no" / "msd-core")])
    assert_one_notice(code, out, err)
    assert "\x00" not in out and not (tmp_path / "no").exists()


@pytest.mark.parametrize("argv", [
    ["resolve", "--emit"],  # no stem
    ["resolve", "plan-phase", "--emit", "--max-chars", "lots"],
    ["resolve", "plan-phase", "--emit", "--bogus-flag"],
    ["resolve", "plan-phase", "extra-arg", "--emit"],
])
def test_bad_arguments_with_emit_are_a_notice(tmp_path, inst, argv):
    assert_one_notice(*run_inproc([*argv, "--root", str(inst.root), "--cwd", str(off(tmp_path))]))


def test_bad_arguments_without_emit_stay_usage_errors(tmp_path, inst):
    code, out, err = run_inproc(["resolve", "plan-phase", "--bogus-flag", "--root", str(inst.root)])
    assert code == 2 and out == "" and "unrecognized" in err


def test_internal_error_is_a_notice(tmp_path, inst, monkeypatch):
    import msd_core.resolve.emit as emit_mod

    monkeypatch.setattr(emit_mod, "render", lambda *a, **k: 1 / 0)
    code, out, err = emit("plan-phase", inst.root, off(tmp_path))
    assert_one_notice(code, out, err)
    assert "ZeroDivisionError" in out


def test_notice_strips_control_characters_and_is_bounded():
    from msd_core.resolve.emit import NOTICE_MAX, notice

    line = notice("bad\nthing\x00\x1b[31m" + "x" * 5000)
    assert "\n" not in line and "\x00" not in line and "\x1b" not in line
    assert len(line) < NOTICE_MAX + 200


def test_emit_through_a_real_subprocess(tmp_path, inst, msd_run):
    r = msd_run(["resolve", "plan-phase", "--emit", "--root", str(inst.root)], cwd=off(tmp_path))
    assert r.returncode == 0 and all(t in r.stdout for t in inst.part_texts("plan-phase"))
    r = msd_run(["resolve", "../etc", "--emit"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith(NOTICE) and r.stderr == ""
