"""What installed bytes are: skill frontmatter and the ~/.claude/ rewrite (unit level)."""

from __future__ import annotations

import json

import yaml

from msd_core.install.transform import installed_files
from msd_core.paths import Target
from msd_core.shipped.text import rewrite_home, skill_from_command


def _front(data: bytes) -> dict:
    text = data.decode().replace("\r\n", "\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_name_is_replaced_and_other_keys_kept_verbatim():
    src = b"---\nname: msd:plan\ndescription: Plan things\nallowed-tools:\n  - Read\n  - Bash(msd_run *)\nargument-hint: \"<phase>\"\nmodel: sonnet\n---\nBody line\n"
    out, warns = skill_from_command("plan", src)
    assert warns == []
    assert out == b"---\nname: msd-plan\ndescription: Plan things\nallowed-tools:\n  - Read\n  - Bash(msd_run *)\nargument-hint: \"<phase>\"\nmodel: sonnet\n---\nBody line\n"


def test_crlf_command_keeps_crlf():
    src = b"---\r\ndescription: Windows file\r\n---\r\nBody\r\n"
    out, _ = skill_from_command("win", src)
    assert out == b"---\r\nname: msd-win\r\ndescription: Windows file\r\n---\r\nBody\r\n"
    assert _front(out) == {"name": "msd-win", "description": "Windows file"}


def test_description_fallback_is_valid_yaml_even_with_colons_and_quotes():
    out, warns = skill_from_command("odd", b'# Do this: "now" # really\n\nbody\n')
    assert _front(out)["description"] == 'Do this: "now" # really'
    assert warns and "no description" in warns[-1]


def test_unterminated_frontmatter_is_treated_as_body():
    out, warns = skill_from_command("x", b"---\ndescription: never closed\nbody\n")
    front = _front(out)
    assert front == {"name": "msd-x", "description": "description: never closed"}
    assert b"never closed" in out


def test_rewrite_only_touches_the_token_and_leaves_binary_alone():
    assert rewrite_home(b"@~/.claude/msd-core/x.md and ~/.claude-other", "/abs/cfg/") == b"@/abs/cfg/msd-core/x.md and ~/.claude-other"
    binary = b"\xff\xfe~/.claude/\x00"
    assert rewrite_home(binary, "/abs/") == binary
    assert rewrite_home(b"~/.claude/x", "~/.claude/") == b"~/.claude/x"


def test_json_rewrite_escapes_odd_paths(tmp_path):
    weird = tmp_path / 'we"ird\\dir' / "cfg"
    target = Target("global", weird)
    files = [("msd-core/templates/config.json", b'{"root": "~/.claude/msd-core/"}\n')]
    out, _, _ = installed_files(files, target, "9.9")
    assert json.loads(out["msd-core/templates/config.json"])["root"] == f"{weird}/msd-core/"


def test_non_utf8_command_is_skipped_with_reason_and_version_file_added(tmp_path):
    target = Target("local", tmp_path / ".claude")
    files = [("commands/msd/bin.md", b"\xff\xfe---"), ("msd-core/data.bin", b"\x00\x01"), ("README.md", b"x")]
    out, _, skipped = installed_files(files, target, "1.2.3")
    assert "skills/msd-bin/SKILL.md" not in out
    assert out["msd-core/data.bin"] == b"\x00\x01"
    assert out["msd-core/VERSION"] == b"1.2.3\n"
    assert any("bin.md" in s and "UTF-8" in s for s in skipped)
    assert any(s.startswith("README.md") for s in skipped)


def test_whitespace_in_target_warns(tmp_path):
    target = Target("local", tmp_path / "my project" / ".claude")
    _, warns, _ = installed_files([("msd-core/a.md", b"~/.claude/msd-core/a.md")], target, "1")
    assert any("whitespace" in w for w in warns)


def test_content_cannot_overwrite_msd_bookkeeping(tmp_path):
    target = Target("local", tmp_path / ".claude")
    files = [("msd-core/manifest.json", b"{}"), ("msd-core/.msd/pristine.zip", b"x"), ("msd-core/a.md.msd-new", b"x"),
             ("msd-core/ok.md", b"fine")]
    out, _, skipped = installed_files(files, target, "1")
    assert sorted(out) == ["msd-core/VERSION", "msd-core/ok.md"]
    assert len(skipped) == 3 and all("reserved" in s for s in skipped)


def test_local_install_is_portable_skills_use_the_skill_dir_others_the_project(tmp_path):
    target = Target("local", tmp_path / "proj" / ".claude")
    files = [("commands/msd/plan.md", b"---\ndescription: d\n---\n@~/.claude/msd-core/w.md\n!`msd_run resolve w --emit --root ~/.claude/msd-core || true`\n"),
             ("agents/msd-planner.md", b"Start from `~/.claude/msd-core/templates/plan.md`.\n"),
             ("msd-core/flows/f.toml", b"# msd_run next-step --root ~/.claude/msd-core\n")]
    out, _, _ = installed_files(files, target, "1")
    skill = out["skills/msd-plan/SKILL.md"].decode()
    assert "@${CLAUDE_SKILL_DIR}/../../msd-core/w.md\n" in skill
    assert "!`msd_run resolve w --emit --root ${CLAUDE_SKILL_DIR}/../../msd-core || true`" in skill
    assert out["agents/msd-planner.md"] == b"Start from `.claude/msd-core/templates/plan.md`.\n"
    assert out["msd-core/flows/f.toml"] == b"# msd_run next-step --root .claude/msd-core\n"
    for data in out.values():
        assert str(tmp_path).encode() not in data and b"~/.claude/" not in data


def test_local_install_with_an_odd_config_folder_and_global_installs_stay_absolute(tmp_path):
    files = [("agents/msd-a.md", b"~/.claude/msd-core/x\n"), ("commands/msd/c.md", b"---\ndescription: d\n---\n@~/.claude/msd-core/x\n")]
    for target in (Target("local", tmp_path / "elsewhere"), Target("global", tmp_path / "g")):
        out, _, _ = installed_files(files, target, "1")
        assert out["agents/msd-a.md"] == f"{target.config}/msd-core/x\n".encode()
        assert f"@{target.config}/msd-core/x".encode() in out["skills/msd-c/SKILL.md"]
