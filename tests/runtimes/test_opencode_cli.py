"""The real OpenCode CLI (npm opencode-ai, pinned in tests/runtimes/clis.py) loads what
`msd install --runtime opencode` wrote, offline, through its own listing commands:
`opencode debug config` (the resolved config: commands with their templates, agents, the
merged permission) and `opencode agent list`. Proven here: the files are found and parsed
in both scopes and our permission entry merges with a user's own opencode.json. And, against a
stand-in OpenAI-compatible server (tests/runtimes/openai_server.py), a command's text, its files
and its rendered detail parts reaching the model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
STEMS = sorted(p.stem for p in (REPO / "msd_core/content/commands/msd").glob("*.md"))
AGENTS = sorted(p.stem for p in (REPO / "msd_core/content/agents").glob("msd-*.md"))


@pytest.fixture(autouse=True)
def _no_registry(monkeypatch):
    """No package registry in reach, failing at once: OpenCode waits for its own `npm install` of
    @opencode-ai/plugin into each config folder before it loads a plugin (msd's guard is one:
    msd_core/runtimes/opencode_plugin.py); with the registry in reach each case downloaded 64 MB."""
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")


def _oc(exe: Path, cwd: Path, *args: str) -> str:
    """Run the CLI with stdout to a file: it exits without draining a pipe, so output
    longer than the pipe buffer (64 KiB; `debug config` with our commands is longer) is cut
    when read through one."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        proc = subprocess.run([str(exe), *args], cwd=cwd, env={**os.environ, "PWD": str(cwd)}, stdout=out,
                              stderr=subprocess.PIPE, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        out.seek(0)
        return out.read().decode("utf-8")


def _check_loaded(exe: Path, cwd: Path, target) -> dict:
    cfg = json.loads(_oc(exe, cwd, "debug", "config"))
    commands = {k: v for k, v in cfg.get("command", {}).items() if k.startswith("msd-")}
    assert sorted(commands) == [f"msd-{s}" for s in STEMS]
    for stem in STEMS:
        body = (target.config / "commands" / f"msd-{stem}.md").read_text().split("---\n", 2)[2]
        assert commands[f"msd-{stem}"]["template"] == body.strip()
        assert commands[f"msd-{stem}"]["description"]
    agents = {k: v for k, v in cfg.get("agent", {}).items() if k.startswith("msd-")}
    assert sorted(agents) == AGENTS and all(a["mode"] == "subagent" for a in agents.values())
    assert cfg["permission"]["bash"]["msd_run *"] == "allow"
    assert (target.config / "plugins/msd-guard.js").as_uri() in cfg.get("plugin", [])  # msd's guard, found by itself
    listed = _oc(exe, cwd, "agent", "list")
    for name in AGENTS:
        assert f"{name} (subagent)" in listed
    return cfg


def test_local_install_is_loaded(tmp_path):
    exe = cli_binary("opencode")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    t = resolve_target("local", project_dir=tmp_path, runtime="opencode")
    install(t)
    _check_loaded(exe, tmp_path, t)
    uninstall(t)
    cfg = json.loads(_oc(exe, tmp_path, "debug", "config"))
    assert not [k for k in cfg.get("command", {}) if k.startswith("msd-")]
    assert not [p for p in cfg.get("plugin", []) if "msd-guard" in p]


def test_global_install_merges_with_the_users_config(tmp_path):
    exe = cli_binary("opencode")
    t = resolve_target("global", runtime="opencode")
    t.config.mkdir(parents=True)
    user = '{\n  // mine\n  "model": "anthropic/claude-x",\n  "permission": {"edit": "ask"},\n}\n'
    (t.config / "opencode.json").write_text(user)
    install(t)
    project = tmp_path / "elsewhere"
    project.mkdir()
    cfg = _check_loaded(exe, project, t)
    assert cfg["model"] == "anthropic/claude-x" and cfg["permission"]["edit"] == "ask"
    assert load_manifest(t.config).extra["settings"]["created_keys"] == ["permission.bash"]
    uninstall(t)
    text = (t.config / "opencode.json").read_text()
    # OpenCode itself may add a "$schema" line to the user's file when it runs; ours is gone, theirs kept
    assert "msd_run" not in text and "// mine" in text and '"permission": {"edit": "ask"}' in text


def test_a_command_reaches_the_model_with_its_files_and_parts(tmp_path):
    """`opencode run --command msd-plan-phase 3` against a stand-in OpenAI-compatible server:
    the spine (an `@` file), the detail parts (the !`msd_run resolve --emit` output, allowed by
    our permission entry) and the argument reach the model."""
    import sys

    from tests.runtimes.stand_ins import openai_api, requests

    exe = cli_binary("opencode")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    t = resolve_target("local", project_dir=project, runtime="opencode")
    install(t)
    with openai_api(tmp_path) as (base, record):
        gcfg = resolve_target("global", runtime="opencode").config
        gcfg.mkdir(parents=True, exist_ok=True)  # the test's own HOME: a provider pointing at the stand-in
        (gcfg / "opencode.json").write_text(json.dumps({
            "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "Local",
                                   "options": {"baseURL": base, "apiKey": "stand-in"}, "models": {"stand-in": {}}}},
            "model": "local/stand-in"}))
        env = {**os.environ, "PWD": str(project),  # OpenCode takes its folder from $PWD
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        proc = subprocess.run([str(exe), "run", "--command", "msd-plan-phase", "3"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "MSD-OPENAI-OK" in proc.stdout
        main = [r for r in requests(record) if r["path"].endswith("/chat/completions")
                and "title generator" not in json.dumps(r["body"]["messages"][0])]
        assert main
        text = "\n".join(m["content"] if isinstance(m["content"], str) else
                         "\n".join(p.get("text", "") for p in m["content"] if isinstance(p, dict))
                         for m in main[-1]["body"]["messages"] if m["role"] == "user")
    emit = subprocess.run([str(Path(sys.executable).parent / "msd_run"), "resolve", "plan-phase", "--emit", "--root", ".opencode/msd-core"],
                          cwd=project, capture_output=True, text=True, timeout=60).stdout
    assert "<!-- msd:part " in emit and emit.strip()[:2000] in text   # the detail parts, rendered by the host
    spine = [ln for ln in (t.config / "msd-core/workflows/plan-phase.md").read_text().splitlines() if len(ln) > 30][:5]
    assert spine and all(ln in text for ln in spine)  # the spine, attached by its `@` line (OpenCode numbers its lines)
    assert "Run the plan-phase workflow above, step by step, for: 3" in text
