"""Every setting is live or gone: each schema key is read by code or content, and what
reads it changes something (model per role, branch per phase/milestone, migration)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "msd_core/config/schema.json").read_text())["keys"]
CONTENT = REPO / "msd_core/content"
CODE = REPO / "msd_core"
NOT_READERS = {"config/schema.json", "config/schema.py", "config/store.py", "config/coerce.py", "config/migrate.py",
               "content/msd-core/templates/config.json", "content/msd-core/workflows/settings.md",
               "content/msd-core/registry.json"}


SCHEMA_CONSTANTS = dict(re.findall(r'^([A-Z_]+) = "([a-z_.]+)"$', (REPO / "msd_core/config/schema.py").read_text(), re.M))


def _code_reads(text: str, key: str) -> bool:
    """The quoted dotted key, a schema.py constant naming it, or every part quoted in a
    `.get("part")` chain (`cfg.get("workflow")` ... `wf.get("tdd")`)."""
    if re.search(r"[\"']" + re.escape(key) + r"[\"']", text):
        return True
    if any(v == key and f"schema.{k}" in text for k, v in SCHEMA_CONSTANTS.items()):
        return True
    parts = key.split(".")
    return len(parts) > 1 and all(re.search(r"get\([\"']" + re.escape(part) + r"[\"']", text) for part in parts)


def _readers(key: str) -> list[str]:
    """Files outside the config machinery and the settings screen that name the key in a read:
    `config get <key>` or a flow condition `config.<key>` in content, a read in code (_code_reads)."""
    pats = [re.compile(r"config get " + re.escape(key) + r"\b"), re.compile(r"config\." + re.escape(key) + r"\b")]
    hits = []
    for p in sorted(CODE.rglob("*")):
        rel = p.relative_to(CODE).as_posix()
        if not p.is_file() or rel in NOT_READERS or p.suffix not in (".py", ".md", ".toml"):
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        if p.suffix == ".py" and (_code_reads(text, key) or any(x.search(text) for x in pats)):
            hits.append(rel)
        elif p.suffix != ".py" and any(x.search(text) for x in pats):
            hits.append(rel)
    return hits


@pytest.mark.parametrize("key", sorted(SCHEMA))
def test_every_schema_key_is_read(key):
    assert _readers(key), f"{key}: nothing reads it; make it drive a decision or remove it (config/migrate.py)"


def test_reader_finder_fails_on_an_unread_key():
    assert _readers("workflow.no_such_setting") == []
    assert "execution/waves.py" in _readers("parallelization.enabled")  # `msd_run wave plan` decides


def test_removed_keys_are_gone_from_schema_template_and_settings():
    from msd_core.config.migrate import REMOVED

    template = (CONTENT / "msd-core/templates/config.json").read_text()
    rows = re.findall(r"^\| `([a-z_.]+)` \|", (CONTENT / "msd-core/workflows/settings.md").read_text(), re.M)
    for key in REMOVED:
        assert key not in SCHEMA and not any(k.startswith(key + ".") for k in SCHEMA)
        assert f'"{key.split(".")[-1]}"' not in template, key
        assert not any(r == key or r.startswith(key + ".") for r in rows), key


def test_settings_screen_offers_only_schema_keys():
    rows = re.findall(r"^\| `([a-z_.]+)` \|", (CONTENT / "msd-core/workflows/settings.md").read_text(), re.M)
    assert rows and all(r in SCHEMA for r in rows), rows


# ------------------------------------------------------------------ model_profile


@pytest.mark.parametrize("profile,agent,model", [
    ("balanced", "planner", "opus"), ("balanced", "msd-executor", "sonnet"), ("balanced", "codebase-mapper", "haiku"),
    ("quality", "executor", "opus"), ("budget", "planner", "sonnet"), ("budget", "verifier", "haiku"),
    ("inherit", "planner", ""),
])
def test_model_per_profile_and_role(tmp_path, msd_run, profile, agent, model):
    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning/config.json").write_text(json.dumps({"model_profile": profile}))
    r = msd_run(["model", agent, "--raw", "--cwd", str(tmp_path)])
    assert r.returncode == 0 and r.stdout == model + "\n"
    out = json.loads(msd_run(["model", agent, "--cwd", str(tmp_path)]).stdout)
    assert out["model"] == (model or None) and out["profile"] == profile


def test_model_unknown_agent(tmp_path, msd_run):
    (tmp_path / ".planning").mkdir()
    r = msd_run(["model", "../planner", "--cwd", str(tmp_path)])
    assert r.returncode == 2 and "unknown agent" in r.stderr and len(r.stderr.splitlines()) == 1


def test_every_shipped_agent_has_a_model_row():
    from msd_core.agents.models import ROLES

    shipped = {p.stem[4:] for p in (CONTENT / "agents").glob("msd-*.md")}
    assert shipped == set(ROLES)


# ------------------------------------------------------------------ branching


def _git_project(tmp_path: Path, cfg: dict) -> Path:
    root = tmp_path / "proj"
    (root / ".planning/phases/02-user-auth").mkdir(parents=True)
    (root / ".planning/config.json").write_text(json.dumps(cfg))
    (root / ".planning/ROADMAP.md").write_text("# Roadmap v1.2\n- [ ] **Phase 2: User auth**\n- [ ] **Phase 3: Pay**\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty",
                    "-m", "init"], check=True)
    return root


def _branch(msd_run, root, *args):
    r = msd_run(["branch", "--cwd", str(root), *args])
    assert "Traceback" not in r.stderr
    return r


def _current(root):
    return subprocess.run(["git", "-C", str(root), "branch", "--show-current"], capture_output=True, text=True).stdout.strip()


def test_branch_none_does_nothing(tmp_path, msd_run):
    root = _git_project(tmp_path, {})
    before = _current(root)
    out = json.loads(_branch(msd_run, root, "--phase", "2", "--apply").stdout)
    assert out == {"strategy": "none", "branch": None, "for": None, "action": "none"} and _current(root) == before


def test_branch_per_phase(tmp_path, msd_run):
    root = _git_project(tmp_path, {"git": {"branching_strategy": "phase"}})
    out = json.loads(_branch(msd_run, root, "--phase", "2").stdout)
    assert out["branch"] == "msd/phase-02-user-auth" and out["action"] == "report" and _current(root) != out["branch"]
    assert json.loads(_branch(msd_run, root, "--phase", "Phase 2", "--apply").stdout)["action"] == "created"
    assert _current(root) == "msd/phase-02-user-auth"
    assert json.loads(_branch(msd_run, root, "--phase", "02", "--apply").stdout)["action"] == "current"
    third = json.loads(_branch(msd_run, root, "--phase", "3", "--apply").stdout)  # roadmap phase, no folder yet
    assert third["branch"] == "msd/phase-03-pay" and third["action"] == "created"
    assert json.loads(_branch(msd_run, root, "--phase", "2", "--apply").stdout)["action"] == "switched"
    r = _branch(msd_run, root, "--apply")
    assert r.returncode == 2 and "--phase" in r.stderr
    r = _branch(msd_run, root, "--phase", "9", "--apply")
    assert r.returncode == 2 and "names no phase" in r.stderr


def test_branch_per_milestone_and_bad_template(tmp_path, msd_run):
    root = _git_project(tmp_path, {"git": {"branching_strategy": "milestone"}})
    out = json.loads(_branch(msd_run, root, "--apply").stdout)
    assert out["branch"] == "msd/v1.2-milestone" and out["action"] == "created" and _current(root) == "msd/v1.2-milestone"
    (root / ".planning/config.json").write_text(json.dumps(
        {"git": {"branching_strategy": "milestone", "milestone_branch_template": "x/{nope}"}}))
    r = _branch(msd_run, root)
    assert r.returncode == 2 and "placeholder" in r.stderr
    (root / ".planning/config.json").write_text(json.dumps(
        {"git": {"branching_strategy": "milestone", "milestone_branch_template": "bad..name {milestone}"}}))
    r = _branch(msd_run, root)
    assert r.returncode == 2 and "not a valid git branch name" in r.stderr


def test_branch_outside_git_is_one_line(tmp_path, msd_run):
    root = tmp_path / "plain"
    (root / ".planning/phases/02-x").mkdir(parents=True)
    (root / ".planning/config.json").write_text(json.dumps({"git": {"branching_strategy": "phase"}}))
    r = _branch(msd_run, root, "--phase", "2", "--apply")
    assert r.returncode == 1 and "not a git repository" in r.stderr and len(r.stderr.splitlines()) == 1


# ------------------------------------------------------------------ migration


def test_migrate_moves_depth_and_keeps_the_file_valid(tmp_path, msd_run):
    (tmp_path / ".planning").mkdir()
    cfg = tmp_path / ".planning/config.json"
    old = {"mode": "yolo", "depth": "comprehensive", "workflow": {"auto_advance": True},
           "parallelization": {"enabled": True, "task_level": True, "max_concurrent_agents": 4},
           "gates": {"confirm_plan": False}, "safety": {"always_confirm_destructive": True}}
    cfg.write_text(json.dumps(old, indent=2) + "\n")
    r = msd_run(["config", "migrate", "--check", "--cwd", str(tmp_path)])
    assert r.returncode == 0 and json.loads(cfg.read_text()) == old
    out = json.loads(msd_run(["config", "migrate", "--cwd", str(tmp_path)]).stdout)
    assert out["changed"] is True and out["moved"] == [{"from": "depth", "to": "granularity", "value": "fine"}]
    assert {k["key"] for k in out["removed_keys_present"]} == {
        "depth", "workflow.auto_advance", "parallelization.task_level", "gates", "safety"}
    assert json.loads(cfg.read_text()) == {**old, "granularity": "fine"}  # nothing lost
    again = json.loads(msd_run(["config", "migrate", "--cwd", str(tmp_path)]).stdout)
    assert again["changed"] is False
    for key, want in (("granularity", "fine"), ("parallelization.max_concurrent_agents", "4"),
                      ("gates.confirm_plan", "false")):  # removed keys stay readable
        r = msd_run(["config", "get", key, "--raw", "--cwd", str(tmp_path)])
        assert r.returncode == 0 and r.stdout == want + "\n", key
    r = msd_run(["config", "list", "--cwd", str(tmp_path)])
    assert r.returncode == 0 and "gates.confirm_plan = false" in r.stdout


@pytest.mark.parametrize("name", __import__("tests.conftest", fromlist=["corpus_tree_names"]).corpus_tree_names() or ["<no corpus>"])
def test_corpus_configs_migrate_and_stay_readable(name, copy_corpus_tree, msd_run):
    root = copy_corpus_tree(name)
    cfg = root / ".planning/config.json"
    if not cfg.is_file():
        pytest.skip("no config.json")
    before = json.loads(cfg.read_text(encoding="utf-8"))
    r = msd_run(["config", "migrate", "--cwd", str(root)])
    assert r.returncode == 0, r.stderr
    after = json.loads(cfg.read_text(encoding="utf-8"))
    added = {k: v for k, v in after.items() if k not in before}
    assert {k: after[k] for k in before} == before  # nothing the user wrote is lost or changed
    assert set(added) <= {"granularity"}
    if "depth" in before and "granularity" not in before:
        assert added == {"granularity": {"quick": "coarse", "standard": "standard",
                                         "comprehensive": "fine"}[before["depth"].lower()]}
    assert msd_run(["config", "list", "--cwd", str(root)]).returncode == 0


def test_msd_config_migrate_for_people(tmp_path, msd):
    (tmp_path / ".planning").mkdir()
    cfg = tmp_path / ".planning/config.json"
    cfg.write_text('{"depth": "quick", "gates": {"confirm_plan": true}}')
    r = msd(["config", "migrate", "--check", "--cwd", str(tmp_path)])
    assert r.returncode == 0 and "would move depth -> granularity = coarse" in r.stdout
    assert json.loads(cfg.read_text()) == {"depth": "quick", "gates": {"confirm_plan": True}}
    r = msd(["config", "migrate", "--cwd", str(tmp_path)])
    assert r.returncode == 0 and "kept, no longer read: gates" in r.stdout
    assert json.loads(cfg.read_text())["granularity"] == "coarse"
