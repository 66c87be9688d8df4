"""Agent Skills (`msd install --runtime agents`): every command a spec-valid skill in
.agents/skills/msd-<name>/ whose detail is its own references/ files, no `$ARGUMENTS` and no shell
line, agents where no client lists them and spawned in prose; the install keeps a user's own skills
and edits, and leaves the folder as it found it. The format's rules are checked by our own check
(tests/runtimes/agent_skills_spec.py) and, where npm is present, by the reference validator."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from msd_core.shipped.profiles import CORE, CORE_COMMANDS
from tests.runtimes.agent_skills_spec import violations

REPO = Path(__file__).resolve().parents[2]
COMMANDS = REPO / "msd_core/content/commands/msd"
SKILLS_REF = ("skills-ref", "0.1.5")  # npm; its validate checks the frontmatter keys, name (= folder) and description


def _skills(t) -> list[Path]:
    return sorted(p for p in (t.config / "skills").iterdir() if p.is_dir())


def _body(skill: Path) -> str:
    return (skill / "SKILL.md").read_text().split("---\n", 2)[2]


@pytest.mark.parametrize("scope", ["global", "local"])
@pytest.mark.parametrize("profile", ["full", "core"])
def test_every_skill_keeps_the_formats_rules(scope, profile, tmp_path):
    t = resolve_target(scope, project_dir=tmp_path, runtime="agents")
    install(t, profile=profile)
    skills = _skills(t)
    want = CORE_COMMANDS if profile == CORE else [p.stem for p in COMMANDS.glob("*.md")]
    assert sorted(s.name for s in skills) == sorted(f"msd-{c}" for c in want)
    for skill in skills:
        assert violations(skill) == [], skill.name
        assert sorted(p.name for p in skill.iterdir()) in (["SKILL.md"], ["SKILL.md", "references"])


def test_the_global_install_is_the_users_agents_folder(tmp_path):
    import os

    t = resolve_target("global", runtime="agents")
    assert t.config == Path(os.environ["HOME"]) / ".agents"
    assert resolve_target("local", project_dir=tmp_path, runtime="agents").config == tmp_path / ".agents"


def test_spec_check_catches_each_kind_of_break(tmp_path):
    def skill(name: str, front: str, body: str, refs: dict[str, str] = {}) -> Path:
        d = tmp_path / name
        d.mkdir()
        (d / "SKILL.md").write_text(f"---\n{front}---\n{body}")
        for rel, text in refs.items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(text)
        return d

    assert violations(skill("ok", "name: ok\ndescription: Does x.\n", "See `references/a.md`.\n", {"references/a.md": "a"})) == []
    got = violations(skill("bad", "name: Bad--x\ndescription: ''\nargument-hint: x\n", "body\n",
                           {"references/deep/b.md": "b", "references/c.md": "c"}))
    assert got == ["key 'argument-hint' is not allowed", "name 'Bad--x': 1-64 lower-case letters, digits and single hyphens",
                   "description: a non-empty string of at most 1,024 characters",
                   "references/c.md is not named in the body", "references/deep: references go one level deep",
                   "references/deep/b.md: references go one level deep"]
    assert violations(skill("other", "name: not-other\ndescription: d\n", "x\n")) == ["name 'not-other' differs from its folder 'other'"]
    assert violations(skill("big", "name: big\ndescription: d\n", "line\n" * 500)) == ["body too large (500 lines, 1000 tokens)"]
    assert violations(skill("wide", "name: wide\ndescription: d\n", "word " * 5001)) == ["body too large (1 lines, 5002 tokens)"]
    assert violations(skill("meta", "name: meta\ndescription: d\nmetadata: {a: 1}\n", "x\n")) == ["metadata: a mapping of strings to strings"]


def test_a_skill_is_a_spine_whose_detail_is_its_references(tmp_path):
    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    install(t)
    for src in COMMANDS.glob("*.md"):
        skill = t.config / "skills" / f"msd-{src.stem}"
        body = _body(skill)
        assert not re.search(r"^[@!]", body, re.M) and "$ARGUMENTS" not in body and "!`" not in body
        assert "/msd-" not in body.replace("msd-core", "")
        source = src.read_text()
        for inc in re.findall(r"^@~/\.claude/(\S+)$", source, re.M):
            copy = skill / "references" / Path(inc).name
            assert f"`references/{Path(inc).name}`" in body
            # the copy is the shipped file as installed in the tree beside it
            assert copy.read_bytes() == (t.config / inc).read_bytes()
        m = re.search(r"^!`msd_run resolve (\S+) --emit", source, re.M)
        if m:
            assert f"run `msd_run resolve {m.group(1)} --root .agents/msd-core --raw` and read each file it lists" in body
        hint = yaml.safe_load(source.split("---\n")[1]).get("argument-hint")
        if hint:
            assert f"Arguments: `{hint}`" in body
        if "spawning-agents.md" in source:
            assert "`msd_run agent-role <name> --root .agents/msd-core --raw`" in body


def test_agents_are_unlisted_and_fetch_their_role(tmp_path, monkeypatch):
    """No client reads msd's agents: they live under msd-core/agents/, the registry says so, and the
    skill payload of each starts with the `msd_run agent-role` line (what a spawned general agent runs)."""
    from msd_core.agents.role import agent_role
    from msd_core.agents.skills import agent_skills

    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    install(t)
    assert not (t.config / "agents").exists()
    shipped = sorted(p.name for p in (REPO / "msd_core/content/agents").glob("msd-*.md"))
    assert sorted(p.name for p in (t.config / "msd-core/agents").iterdir()) == shipped
    registry = load_manifest(t.config).registry
    assert all(e["core"].startswith("msd-core/agents/") for e in registry["agents"].values())
    monkeypatch.chdir(tmp_path)
    path, role = agent_role("planner", ".agents/msd-core")
    assert role.startswith("Role: msd-planner;") and path.endswith("msd-core/agents/msd-planner.md")
    payload = agent_skills("planner", str(t.root))
    assert payload.text.startswith("Run `msd_run agent-role planner --root")


def test_users_own_skills_and_edits_survive_and_uninstall_leaves_the_folder_as_it_was(tmp_path):
    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    mine = t.config / "skills" / "my-skill" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"---\nname: my-skill\ndescription: Mine.\n---\nDo my thing.\n")
    before = {p.relative_to(t.config).as_posix(): p.read_bytes() for p in t.config.rglob("*") if p.is_file()}
    install(t)
    ref = t.config / "skills/msd-plan-phase/references/plan-phase.md"
    edited = ref.read_bytes() + b"\nMy team's note.\n"
    ref.write_bytes(edited)
    r = install(t)  # an update: the user's edit of a reference is theirs to keep
    assert {f["path"]: f["verdict"] for f in r.data["files"]}["skills/msd-plan-phase/references/plan-phase.md"] == "kept"
    assert ref.read_bytes() == edited
    uninstall(t, force=True)
    after = {p.relative_to(t.config).as_posix(): p.read_bytes() for p in t.config.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.relative_to(t.config).as_posix() for p in t.config.rglob("*")) == ["skills", "skills/my-skill", "skills/my-skill/SKILL.md"]


VALIDATE_ALL = """import { validate } from %s;
const out = {};
for (const dir of process.argv.slice(1)) out[dir] = await validate(dir);
console.log(JSON.stringify(out));
"""


def _skills_ref() -> Path:
    """The prefix npm installed skills-ref into (once per machine); skips without npm."""
    from tests.host import hostkit
    from tests.runtimes.clis import cache_root

    if not shutil.which("npm") or not shutil.which("node"):
        pytest.skip("node/npm not installed: cannot run the reference validator skills-ref")
    try:
        return hostkit.npm_install(*SKILLS_REF, cache_root())
    except hostkit.HostUnavailable as exc:
        pytest.skip(str(exc))


def _validate_all(prefix: Path, dirs: list[Path]) -> dict[str, list[str]]:
    """{dir: the errors skills-ref's own `validate` (what its CLI's `validate` calls) finds}, in one node process."""
    lib = json.dumps((prefix / "node_modules/skills-ref/dist/index.js").as_uri())
    proc = subprocess.run(["node", "--input-type=module", "-e", VALIDATE_ALL % lib, *map(str, dirs)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.slow  # installs from npm on a machine's first run, as the real-CLI tests do
@pytest.mark.parametrize("compact", ["0", "1"], ids=["compact-off", "compact-on"])
@pytest.mark.parametrize("profile", ["full", "core"])
@pytest.mark.parametrize("scope", ["global", "local"])
def test_reference_validator_accepts_every_skill(scope, profile, compact, tmp_path, monkeypatch):
    """npm skills-ref (the format's reference validator, a TypeScript port) on every installed skill,
    in each scope and profile, with compact content off and on by default."""
    prefix = _skills_ref()
    monkeypatch.setenv("MSD_COMPACT_DEFAULT", compact)
    t = resolve_target(scope, project_dir=tmp_path, runtime="agents")
    install(t, profile=profile)
    skills = _skills(t)
    assert len(skills) == (len(CORE_COMMANDS) if profile == CORE else len(list(COMMANDS.glob("*.md"))))
    bad = tmp_path / "msd-bad"  # guard: the validator does refuse a broken skill
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: msd-bad\ndescription: d\nargument-hint: x\n---\nx\n")
    got = _validate_all(prefix, [*skills, bad])
    assert any("argument-hint" in e for e in got.pop(str(bad)))
    assert got == {str(s): [] for s in skills}


@pytest.mark.slow
def test_reference_validator_cli_accepts_a_skill_and_refuses_a_broken_one(tmp_path):
    """The validator's own command line, as a person or CI runs it (`skills-ref validate <dir>`)."""
    exe = _skills_ref() / "node_modules" / ".bin" / "skills-ref"
    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    install(t, profile=CORE)
    skill = t.config / "skills/msd-plan-phase"
    proc = subprocess.run([str(exe), "validate", str(skill)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    props = json.loads(subprocess.run([str(exe), "read-properties", str(skill)], capture_output=True, text=True,
                                      timeout=60, check=True).stdout)
    assert props["name"] == skill.name
    bad = tmp_path / "msd-bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: msd-bad\ndescription: d\nargument-hint: x\n---\nx\n")
    proc = subprocess.run([str(exe), "validate", str(bad)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "argument-hint" in proc.stderr


def test_core_listing_stays_within_the_core_budget(tmp_path):
    """Every client lists each skill's name and description every turn: a core install lists only
    the daily loop, within the core budget Claude Code's listing has (msd_core/bench/listing.py)."""
    from msd_core.bench.listing import BUDGETS, listing
    from msd_core.bench.tokenizer import load

    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    install(t, profile=CORE)
    items = listing(t.config, load()[1])
    assert sorted(items) == sorted(f"skill msd-{c}" for c in CORE_COMMANDS)
    # The format has no `disable-model-invocation`: the commands a person starts (Claude Code lists
    # none of them) are listed too. The daily loop stays within Claude Code's core budget; the
    # person-only ones are counted apart (README "Agent Skills": the cost is stated there).
    source = Path(__file__).resolve().parents[2] / "msd_core" / "content" / "commands" / "msd"
    person = {f"skill msd-{c}" for c in CORE_COMMANDS
              if "disable-model-invocation: true" in (source / f"{c}.md").read_text(encoding="utf-8")}
    daily = {k: v for k, v in items.items() if k not in person}
    assert daily and sum(daily.values()) <= BUDGETS["core"], daily


def test_reference_names_keep_two_files_of_one_name_apart():
    from msd_core.runtimes.agents import reference_names

    got = reference_names(["~/.claude/msd-core/workflows/undo.md", "~/.claude/msd-core/references/undo.md",
                           "~/.claude/msd-core/references/git-commits.md"])
    assert list(got.values()) == ["undo.md", "references-undo.md", "git-commits.md"]


def test_a_command_with_a_shell_line_it_cannot_render_is_skipped_with_the_reason(tmp_path):
    from msd_core.install.transform import installed_files

    t = resolve_target("local", project_dir=tmp_path, runtime="agents")
    files = [("commands/msd/odd.md", b"---\ndescription: Odd.\n---\n!`date`\nDo it.\n"),
             ("commands/msd/fine.md", b"---\ndescription: Fine.\n---\n@~/.claude/msd-core/references/a.md\nDo it.\n"),
             ("msd-core/references/a.md", b"Say /msd-odd and /msd-other.\n")]
    out, _warnings, skipped = installed_files(files, t, "0")
    assert not any(rel.startswith("skills/msd-odd/") for rel in out)
    assert skipped == ["commands/msd/odd.md: a shell line the Agent Skills format cannot render"]
    # a copied reference names shipped commands as skills; others are left alone
    assert out["skills/msd-fine/references/a.md"] == b"Say msd-odd and /msd-other.\n"
