"""The runtime seam (msd_core/runtimes): every runtime gets install / update with edits /
uninstall with zero residue in both scopes, its own formats, a golden tree, no path of another
runtime or of `~/.claude` where it does not belong, and runtimes side by side."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from pathlib import Path

import pytest
import yaml

from msd_core.errors import UsageError
from msd_core.files.tomlread import loads as toml_loads
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import RUNTIME_DIRS, resolve_target
from msd_core.runtimes import RUNTIMES, get

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import update_runtime_golden as golden  # noqa: E402

SCOPES = ("global", "local")
CASES = [(r, s) for r in RUNTIMES for s in SCOPES]
# One install per runtime and scope per process: the golden, the foreign-reference and the
# golden-check tests read the same trees (a tree is read, never changed)
installed_tree = functools.cache(golden.installed_tree)


def _tree(folder: Path) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            p = Path(dirpath, n)
            out[p.relative_to(folder).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _target(runtime, scope, project):
    return resolve_target(scope, project_dir=project, runtime=runtime)


def foreign_references(runtime: str, scope: str, text: str) -> list[str]:
    """References in installed text that do not belong to this runtime's install."""
    bad = []
    others = [d for r, (d, _e, _g) in RUNTIME_DIRS.items() if r != runtime]
    for d in others:
        if re.search(rf"(?<![\w-]){re.escape(d)}/", text):
            bad.append(f"{d}/")
    if runtime != "claude" and "~/.claude" in text:
        bad.append("~/.claude")
    return bad


# -- formats -----------------------------------------------------------------------------

def test_gemini_commands_are_toml_with_its_placeholders(tmp_path):
    t = _target("gemini", "local", tmp_path)
    install(t)
    cmds = sorted((t.config / "commands" / "msd").glob("*.toml"))
    assert len(cmds) == len(list((REPO / "msd_core/content/commands/msd").glob("*.md")))
    split = 0
    for p in cmds:
        doc = toml_loads(p.read_text())
        assert set(doc) == {"description", "prompt"} and doc["description"].strip()
        prompt = doc["prompt"]
        assert "$ARGUMENTS" not in prompt and "{{args}}" in prompt
        assert not re.search(r"^@(?!\{)", prompt, re.M), "a Claude @include line was left unconverted"
        assert "!`" not in prompt and "|| true" not in prompt
        assert "/msd-" not in prompt.replace("msd-core", "")
        if "!{" in prompt:
            split += 1
            assert re.search(r"^!\{msd_run resolve [a-z-]+ --emit --max-chars 8000 --root \.gemini/msd-core\}$", prompt, re.M)
    assert split >= 3


def test_gemini_agents_carry_only_its_frontmatter_keys(tmp_path):
    t = _target("gemini", "local", tmp_path)
    install(t)
    agents = sorted((t.config / "agents").glob("msd-*.md"))
    assert agents
    known_tools = {"read_file", "write_file", "replace", "run_shell_command", "grep_search", "glob", "web_fetch", "google_web_search"}
    for p in agents:
        text = p.read_text()
        front = yaml.safe_load(text.split("---\n")[1])
        assert set(front) <= {"name", "description", "tools"}
        assert front["name"] == p.stem and front["description"]
        assert set(front["tools"]) <= known_tools and "run_shell_command" in front["tools"]


def test_gemini_policy_is_a_file_of_our_own(tmp_path):
    t = _target("gemini", "global", tmp_path)
    install(t)
    policy = toml_loads((t.config / "policies" / "msd-core.toml").read_text())
    assert policy == {"rule": [{"toolName": "run_shell_command", "commandPrefix": "msd_run", "decision": "allow", "priority": 100}]}


def test_gemini_gate_every_split_workflow_renders_its_parts(tmp_path):
    """Every command whose Claude skill renders detail parts renders them in Gemini too."""
    t = _target("gemini", "global", tmp_path)
    install(t)
    for src in (REPO / "msd_core/content/commands/msd").glob("*.md"):
        m = re.search(r"^!`msd_run resolve (\S+) --emit", src.read_text(), re.M)
        prompt = toml_loads((t.config / "commands/msd" / f"{src.stem}.toml").read_text())["prompt"]
        if m:
            assert f"!{{msd_run resolve {m.group(1)} --emit --max-chars 8000 --root {t.config}/msd-core}}" in prompt
        else:
            assert "!{" not in prompt


# -- golden trees and foreign references ----------------------------------------------------

@pytest.mark.parametrize("runtime,scope", CASES)
def test_golden_tree(runtime, scope):
    want = golden.golden_path(runtime, scope)
    assert want.exists(), "run scripts/update_runtime_golden.py"
    assert golden.render(installed_tree(runtime, scope)) == want.read_text(), "run scripts/update_runtime_golden.py and review the diff"


def test_golden_check_fails_on_a_stale_file(tmp_path, monkeypatch):
    monkeypatch.setattr(golden, "GOLDEN_DIR", tmp_path)
    monkeypatch.setattr(golden, "REPO", tmp_path)
    monkeypatch.setattr(golden, "installed_tree", installed_tree)  # the script's three passes install once
    assert golden.main([]) == 0
    assert golden.main(["--check"]) == 0
    p = golden.golden_path("gemini", "local")
    p.write_text(p.read_text().replace("policies/msd-core.toml", "policies/other.toml"))
    assert golden.main(["--check"]) == 1


@pytest.mark.parametrize("runtime,scope", CASES)
def test_no_foreign_folder_references(runtime, scope):
    tree = installed_tree(runtime, scope)
    found = {}
    for rel, data in tree.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        bad = foreign_references(runtime, scope, text)
        if scope == "local":
            bad += ["<HOME>"] * ("<HOME>" in text) + ["<PROJECT>"] * ("<PROJECT>" in text)
        if bad:
            found[rel] = bad
    assert found == {}


def test_foreign_reference_guard_catches_each_kind():
    assert foreign_references("gemini", "global", "read ~/.claude/msd-core/x") == [".claude/", "~/.claude"]
    assert foreign_references("gemini", "local", "see .claude/agents") == [".claude/"]
    assert foreign_references("claude", "local", "see .gemini/commands") == [".gemini/"]
    assert foreign_references("gemini", "local", "see .gemini/commands and my-project.claude") == []


# -- install, update with edits, uninstall -------------------------------------------------

@pytest.mark.parametrize("runtime,scope", CASES)
def test_install_update_uninstall_zero_residue(runtime, scope, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    t = _target(runtime, scope, project)
    assert not t.config.exists()
    r = install(t)
    assert r.data["runtime"] == runtime and r.data["counts"]["create"] > 0
    m = load_manifest(t.config)
    assert m.runtime == runtime and m.scope == scope
    # an edit to a command survives an update (kept, unchanged upstream)
    cmd = next(rel for rel in m.files if rel.startswith(("skills/", "commands/")))
    edited = (t.config / cmd).read_bytes() + b"\n# my note\n"
    (t.config / cmd).write_bytes(edited)
    r2 = install(t)
    assert (t.config / cmd).read_bytes() == edited
    assert {f["path"]: f["verdict"] for f in r2.data["files"]}[cmd] == "kept"
    # uninstall would keep the edit; --force removes everything: zero residue
    u = uninstall(t, dry_run=True)
    assert u.data["kept"] == [cmd] and (t.config / cmd).read_bytes() == edited
    uninstall(t, force=True)
    assert not t.config.exists()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_update_replaces_an_unedited_file_whose_content_changed(runtime, tmp_path):
    t = _target(runtime, "local", tmp_path)
    install(t)
    m = load_manifest(t.config)
    rel = next(r for r in m.files if r.startswith(("agents/", "msd-core/agents/")))  # agents: unlisted
    # simulate an older shipped version: the file on disk equals what the manifest recorded
    old = b"old version\n"
    (t.config / rel).write_bytes(old)
    m.files[rel] = hashlib.sha256(old).hexdigest()
    (t.config / "msd-core/manifest.json").write_bytes(m.dumps())
    r = install(t)
    assert {f["path"]: f["verdict"] for f in r.data["files"]}[rel] == "update"
    assert (t.config / rel).read_bytes() != old


# -- side by side, shared files, CLI ------------------------------------------------------

def test_two_runtimes_side_by_side_and_one_removed(tmp_path):
    claude, gem = _target("claude", "local", tmp_path), _target("gemini", "local", tmp_path)
    install(claude)
    install(gem)
    before = _tree(claude.config)
    uninstall(gem)
    assert not gem.config.exists()
    assert _tree(claude.config) == before
    install(gem)
    g_before = _tree(gem.config)
    uninstall(claude)
    assert not claude.config.exists() and _tree(gem.config) == g_before


def test_gemini_leaves_users_own_config_files_byte_identical(tmp_path):
    t = _target("gemini", "global", tmp_path)
    t.config.mkdir(parents=True)
    settings = b'{\n  // my settings\n  "model": {"name": "x"}\n}\n'
    (t.config / "settings.json").write_bytes(settings)
    (t.config / "policies").mkdir()
    mine = b'[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 900\n'
    (t.config / "policies" / "mine.toml").write_bytes(mine)
    (t.config / "commands").mkdir()
    (t.config / "commands" / "mine.toml").write_bytes(b'prompt = "hi"\n')
    install(t)
    install(t)
    installed = (t.config / "settings.json").read_bytes()  # msd's guard hook group only (gemini_settings.py)
    assert installed.startswith(b'{\n  // my settings\n  "model": {"name": "x"}') and b"gemini-pre-tool-use" in installed
    assert (t.config / "policies" / "mine.toml").read_bytes() == mine
    uninstall(t)
    assert _tree(t.config) == {
        "settings.json": hashlib.sha256(settings).hexdigest(),
        "policies/mine.toml": hashlib.sha256(mine).hexdigest(),
        "commands/mine.toml": hashlib.sha256(b'prompt = "hi"\n').hexdigest(),
    }


def test_a_folder_holding_another_runtimes_install_is_refused(tmp_path):
    folder = tmp_path / "cfg"
    install(resolve_target("local", config_dir=folder, runtime="claude"))
    with pytest.raises(UsageError, match="runtime 'claude'"):
        install(resolve_target("local", config_dir=folder, runtime="gemini"))
    with pytest.raises(UsageError):
        uninstall(resolve_target("local", config_dir=folder, runtime="gemini"))
    assert load_manifest(folder).runtime == "claude"


def test_unknown_runtime_is_refused():
    with pytest.raises(ValueError):
        get("vim")
    with pytest.raises(ValueError):
        resolve_target("local", runtime="vim")


def test_cli_installs_several_runtimes_and_records_each(msd, tmp_path):
    proc = msd(["install", "--local", "--runtime", "claude,gemini", "--json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [r["runtime"] for r in json.loads(proc.stdout)["runtimes"]] == ["claude", "gemini"]
    assert load_manifest(tmp_path / ".claude").runtime == "claude"
    assert load_manifest(tmp_path / ".gemini").runtime == "gemini"
    st = msd(["status", "--json"], cwd=tmp_path)
    data = json.loads(st.stdout)
    assert {(i["runtime"], i["scope"]) for i in data["installs"] if i.get("installed")} >= {("claude", "local"), ("gemini", "local")}
    gem = next(i for i in data["installs"] if i["runtime"] == "gemini" and i["scope"] == "local")
    assert gem["modified"] == [] and gem["missing"] == [] and gem["unexpected"] == []
    proc = msd(["uninstall", "--local", "--runtime", "gemini"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / ".gemini").exists() and (tmp_path / ".claude" / "msd-core").is_dir()


def test_cli_rejects_an_unknown_runtime(msd, tmp_path):
    proc = msd(["install", "--local", "--runtime", "emacs"], cwd=tmp_path)
    assert proc.returncode == 2 and "unknown runtime 'emacs'" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / ".claude").exists()


def test_status_flags_an_unexpected_file_in_a_gemini_area(tmp_path):
    from msd_core.install.health import inspect

    t = _target("gemini", "local", tmp_path)
    install(t)
    (t.config / "commands" / "msd" / "stray.toml").write_text('prompt = "x"\n')
    (t.config / "commands" / "other.toml").write_text('prompt = "x"\n')  # not ours: not listed
    assert inspect(t)["unexpected"] == ["commands/msd/stray.toml"]


def test_malformed_command_frontmatter_is_skipped_with_a_reason(tmp_path):
    from msd_core.install.transform import installed_files

    files = [("commands/msd/bad.md", b"---\ndescription: [unclosed\n---\nbody $ARGUMENTS\n"),
             ("commands/msd/good.md", b"---\ndescription: fine\n---\nbody $ARGUMENTS\n")]
    out, _warn, skipped = installed_files(files, _target("gemini", "local", tmp_path), "1.0")
    assert "commands/msd/good.toml" in out and "commands/msd/bad.toml" not in out
    assert any("bad.md" in s and "YAML" in s for s in skipped)


def test_repair_hints_name_the_runtime(tmp_path):
    from msd_core.ownership.hints import command_for

    g = _target("gemini", "global", tmp_path)
    install(g)
    assert command_for("install", g.config, "global") == "msd install --global --runtime gemini"
    loc = _target("gemini", "local", tmp_path)
    assert command_for("uninstall", loc.config, "local") == f"msd uninstall --local --runtime gemini --config-dir {loc.config}"
    c = _target("claude", "global", tmp_path)
    assert command_for("install", c.config, "global") == "msd install --global"


def test_command_references_are_rewritten_only_for_shipped_commands(tmp_path):
    from msd_core.install.transform import installed_files

    files = [("commands/msd/go.md", b"---\ndescription: d\n---\nthen /msd-go and /msd-other\n"),
             ("msd-core/x.md", b"run /msd-go; see ~/.claude/msd-core/y.md and /srv/msd-go-data/\n")]
    folder = tmp_path / "msd-go"  # a folder whose name looks like a command
    out, _w, _s = installed_files(files, resolve_target("global", config_dir=folder, runtime="gemini"), "1")
    assert b"then /msd:go and /msd-other" in out["commands/msd/go.toml"]
    assert out["msd-core/x.md"] == f"run /msd:go; see {folder}/msd-core/y.md and /srv/msd-go-data/\n".encode()


def test_runtime_gate_check_catches_a_missing_gate(tmp_path):
    import shutil

    from msd_core.checks import run_checks

    root = tmp_path / "content"
    shutil.copytree(REPO / "msd_core/content", root)
    assert not [v for v in run_checks(root).violations if v.rule == "runtime-gate"]
    cmd = root / "commands/msd/plan-phase.md"
    cmd.write_text(cmd.read_text().replace("description:", "description: [broken", 1))
    bad = [v for v in run_checks(root).violations if v.rule == "runtime-gate"]
    assert bad and all("plan-phase" in v.file for v in bad)
