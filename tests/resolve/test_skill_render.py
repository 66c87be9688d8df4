"""What the model receives when the host renders an installed skill of a split workflow
(issue 10): the contract's shell line runs `msd_run resolve <stem> --emit` through bash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import compact_default, repo_env
from tests.kit.installed import CONTRACT_SHELL_LINE, compact_project, make_install, make_project, part_text
from tests.kit.skill_render import RenderError, render_file, render_skill

REPO = Path(__file__).resolve().parents[2]
BASE_PATH = "/usr/bin:/bin"




def host_env(shim_dir: Path | None) -> dict:
    return repo_env(PATH=(f"{shim_dir}:" if shim_dir else "") + BASE_PATH)




def render(inst, proj, shim_dir, **kw):
    return render_file(inst.skill_path("plan-phase"), proj, env=host_env(shim_dir), **kw)


def spine_line():
    return "SPINE-PLAN-PHASE run the workflow step by step."


def shell_output(rendered) -> str:
    assert len(rendered.outputs) == 1
    return rendered.outputs[0]


# ------------------------------------------------------------------ the renderer itself


def test_renderer_substitutes_inline_and_fenced_commands(tmp_path):
    text = "---\nname: x\n---\nA !`echo one` B\n```!\necho two\necho three\n```\nnot!`echo no` here\n"
    r = render_skill(text, tmp_path, env=host_env(None))
    assert r.text == "A one B\ntwo\nthree\nnot!`echo no` here\n"


def test_renderer_runs_in_the_project_folder_and_expands_includes(tmp_path):
    (tmp_path / "inc.md").write_text("INCLUDED\n")
    r = render_skill(f"@{tmp_path}/inc.md\n!`pwd`\n", tmp_path, env=host_env(None))
    assert r.text == f"INCLUDED\n{tmp_path}\n"


def test_renderer_fails_like_the_host_on_a_failing_command(tmp_path):
    with pytest.raises(RenderError):
        render_skill("!`exit 3`\n", tmp_path, env=host_env(None))
    with pytest.raises(RenderError):
        render_skill("```!\necho x\n", tmp_path, env=host_env(None))


def test_installed_skill_carries_the_contract_line(tmp_path):
    inst = make_install(tmp_path / "cfg")
    text = inst.skill_path("plan-phase").read_text()
    line = CONTRACT_SHELL_LINE.format(stem="plan-phase").replace("~/.claude/", f"{inst.config}/")
    assert line in text.splitlines()
    assert "allowed-tools: Bash(msd_run resolve plan-phase --emit *)" in text


# ------------------------------------------------------------------ compact off / on


@pytest.mark.parametrize("compact", [False, True, None])
def test_render_by_compact_setting(tmp_path, shim, compact):
    inst = make_install(tmp_path / "cfg")
    proj = compact_project(tmp_path, compact)
    r = render(inst, proj, shim)
    effective = compact_default() if compact is None else compact
    assert r.text.count(spine_line()) == 1
    texts = inst.part_texts("plan-phase")
    if effective:
        for t in texts:
            assert t.strip() not in r.text
        assert "UNIQUE-" not in r.text
        assert shell_output(r).startswith("<!-- msd:compact -->") and "\n" not in shell_output(r)
    else:
        positions = [r.text.index(t.strip()) for t in texts]
        assert positions == sorted(positions)
        for t in texts:
            assert r.text.count(t.strip()) == 1
        assert r.text.index(spine_line()) < positions[0]
        assert "msd:notice" not in r.text


def test_render_from_a_default_global_install_with_the_literal_tilde_root(tmp_path, shim, isolated_home):
    inst = make_install(isolated_home / ".claude")
    skill = CONTRACT_SHELL_LINE.format(stem="plan-phase") + "\n"
    r = render_skill(skill, compact_project(tmp_path, False), env=host_env(shim))
    assert all(r.text.count(t.strip()) == 1 for t in inst.part_texts("plan-phase"))


def test_render_from_a_local_install(tmp_path, shim):
    proj = compact_project(tmp_path, False)
    inst = make_install(proj / ".claude")
    r = render(inst, proj, shim)
    assert all(r.text.count(t.strip()) == 1 for t in inst.part_texts("plan-phase"))


# ------------------------------------------------------------------ failures keep the spine floor


def assert_spine_and_notice_only(r, forbidden=("UNIQUE-", "EVIL")):
    assert r.text.count(spine_line()) == 1
    out = shell_output(r)
    assert "\n" not in out
    for bad in forbidden:
        assert bad not in r.text
    return out


def test_msd_run_missing_from_path(tmp_path):
    inst = make_install(tmp_path / "cfg")
    proj = compact_project(tmp_path, False)
    r = render(inst, proj, None)  # no shim: `|| true` keeps the render alive
    assert assert_spine_and_notice_only(r) == ""
    r = render(inst, proj, None, include_stderr=True)  # a host that shows stderr: one line
    out = assert_spine_and_notice_only(r)
    assert "msd_run" in out and "not found" in out


def test_tampered_part(tmp_path, shim):
    inst = make_install(tmp_path / "cfg")
    p = Path(inst.part_paths("plan-phase")[1])
    p.write_text(p.read_text() + "EVIL\n")
    r = render(inst, compact_project(tmp_path, False), shim)
    assert assert_spine_and_notice_only(r).startswith("<!-- msd:notice -->")


def test_no_install(tmp_path, shim):
    inst = make_install(tmp_path / "cfg")
    inst.manifest_path.unlink()  # the skill and spine files remain, the install record is gone
    r = render(inst, compact_project(tmp_path, False), shim)
    out = assert_spine_and_notice_only(r)
    assert out.startswith("<!-- msd:notice -->") and "msd install" in out


def test_corrupt_config(tmp_path, shim):
    inst = make_install(tmp_path / "cfg")
    proj = make_project(tmp_path / "proj", raw="{\n  \"workflow\": {\n")
    r = render(inst, proj, shim)
    assert assert_spine_and_notice_only(r).startswith("<!-- msd:notice -->")


def test_hostile_stem_in_the_shell_line_renders_a_notice(tmp_path, shim):
    inst = make_install(tmp_path / "cfg")
    text = f"@{inst.spine_path('plan-phase')}\n!`msd_run resolve ../../etc/passwd --emit --root {inst.root} || true`\n"
    r = render_skill(text, compact_project(tmp_path, False), env=host_env(shim))
    out = assert_spine_and_notice_only(r, forbidden=("UNIQUE-", "root:"))
    assert out.startswith("<!-- msd:notice -->")


def test_big_parts_fall_back_to_paths(tmp_path, shim):
    parts = {f"0{i}-big.md": part_text("plan-phase", i, 13000) for i in (1, 2, 3)}
    inst = make_install(tmp_path / "cfg", workflows={"plan-phase": {"spine": "# plan-phase spine\n\n" + spine_line() + "\n",
                                                                    "parts": parts}}, agents={})
    r = render(inst, compact_project(tmp_path, False), shim)
    out = shell_output(r)
    assert len(out) <= 28000
    texts, paths = inst.part_texts("plan-phase"), inst.part_paths("plan-phase")
    assert out.count(texts[0].strip()) == 1 and out.count(texts[1].strip()) == 1
    assert "UNIQUE-PLAN-PHASE-PART-03" not in out
    assert out.splitlines()[-1] == paths[2] and Path(paths[2]).is_file()
    assert "before the step that needs it" in out.splitlines()[-2]
