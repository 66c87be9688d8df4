"""`msd_run second-opinion` with the real Codex, Gemini and OpenCode CLIs (pinned in
tests/runtimes/clis.py) against the stand-in APIs: each accepts msd's headless, read-only
command line, the brief (the plan's text) reaches the model, and the model's answer is kept
beside the plan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtimes import stand_ins
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow
VENV_BIN = Path(sys.executable).parent
PLAN = "---\nphase: 01-auth\nplan: 01\n---\n# Login\nTask 1: MSD-REVIEWED-PLAN-TEXT\n"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".planning/phases/01-auth").mkdir(parents=True)
    (project / ".planning/ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Auth** - log in\n")
    (project / ".planning/phases/01-auth/01-01-PLAN.md").write_text(PLAN)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def _second_opinion(cli: str, project: Path, env: dict) -> subprocess.CompletedProcess:
    exe = cli_binary(cli)
    env = {**os.environ, **env, "PATH": f"{exe.parent}{os.pathsep}{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(VENV_BIN / "msd_run"), "second-opinion", "--cli", cli, "--timeout", "150", "--plan",
                           ".planning/phases/01-auth/01-01-PLAN.md"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=200)


def _kept(project: Path, cli: str, reply: str) -> None:
    kept = (project / f".planning/phases/01-auth/01-01-OPINION-{cli}.md").read_text()
    assert kept.startswith(f"---\nreviewer: {cli}\n") and reply in kept


def test_codex(tmp_path):
    project = _project(tmp_path)
    home = Path(os.environ["HOME"]) / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    with stand_ins.openai_api(tmp_path) as (base, record):
        (home / "config.toml").write_text(f'model = "stand-in"\nmodel_provider = "local"\n[model_providers.local]\n'
                                          f'name = "local"\nbase_url = "{base}"\nwire_api = "responses"\n')
        proc = _second_opinion("codex", project, {})
        assert proc.returncode == 0, proc.stderr[-2000:]
        sent = [r for r in stand_ins.requests(record) if r["path"].endswith("/responses")]
    assert sent and "MSD-REVIEWED-PLAN-TEXT" in json.dumps(sent[-1]["body"])
    _kept(project, "codex", "MSD-OPENAI-OK")


def test_gemini(tmp_path):
    project = _project(tmp_path)
    settings = Path(os.environ["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    with stand_ins.gemini_api(tmp_path) as (api, record):
        proc = _second_opinion("gemini", project, {"GOOGLE_GEMINI_BASE_URL": api, "GEMINI_API_KEY": "stand-in",
                                                   "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1"})
        assert proc.returncode == 0, proc.stderr[-2000:]
        sent = [r for r in stand_ins.requests(record) if ":streamGenerateContent" in r["path"]]
    assert sent and "MSD-REVIEWED-PLAN-TEXT" in json.dumps(sent[-1]["body"])
    _kept(project, "gemini", "MSD-GEMINI-OK")


def test_opencode(tmp_path):
    from msd_core.paths import resolve_target

    project = _project(tmp_path)
    with stand_ins.openai_api(tmp_path) as (base, record):
        gcfg = resolve_target("global", runtime="opencode").config
        gcfg.mkdir(parents=True, exist_ok=True)
        (gcfg / "opencode.json").write_text(json.dumps({
            "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "Local",
                                   "options": {"baseURL": base, "apiKey": "stand-in"}, "models": {"stand-in": {}}}},
            "model": "local/stand-in"}))
        proc = _second_opinion("opencode", project, {})
        assert proc.returncode == 0, proc.stderr[-2000:]
        sent = [r for r in stand_ins.requests(record) if r["path"].endswith("/chat/completions")]
    assert sent and "MSD-REVIEWED-PLAN-TEXT" in json.dumps([r["body"] for r in sent])
    _kept(project, "opencode", "MSD-OPENAI-OK")
