"""The real Gemini CLI (npm @google/gemini-cli, pinned in tests/runtimes/clis.py) loads what
`msd install --runtime gemini` wrote, offline, against a stand-in Gemini API on 127.0.0.1
(tests/runtimes/gemini_server.py): the command's TOML is found by its name, its `@{...}` files
(the workflow spine and references) and its `!{msd_run resolve ... --emit}` output (the detail
parts) reach the model, and the argument lands in `{{args}}`. Global: the shell line runs
because of our policy file (no approval flag). Local: project-relative paths resolve."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files.jsonedit import loads
from msd_core.install.installer import install
from msd_core.paths import resolve_target
from tests.runtimes import stand_ins
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def gemini_api(tmp_path):
    with stand_ins.gemini_api(tmp_path) as api:
        yield api


def _run(exe: Path, api: str, cwd: Path, args: list[str]) -> subprocess.CompletedProcess:
    home = Path(os.environ["HOME"])
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    # the test's own HOME: choose API-key auth so the base URL is used, and run shell lines without the
    # pseudo-terminal, which can cut a long output short (gemini.py); kept beside what a global install
    # wrote there (msd's guard hook, gemini_settings.py)
    have = loads(settings.read_text()) if settings.exists() else {}
    have.setdefault("security", {"auth": {"selectedType": "gemini-api-key"}})
    have.setdefault("tools", {"shell": {"enableInteractiveShell": False}})
    settings.write_text(json.dumps(have))
    env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": api, "GEMINI_API_KEY": "stand-in", "GEMINI_CLI_TRUST_WORKSPACE": "true",
           "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run([str(exe), *args, "-o", "text"], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def _prompt_text(record: Path) -> str:
    reqs = stand_ins.requests(record)
    main = [r for r in reqs if ":streamGenerateContent" in r["path"]]
    assert main, [r["path"] for r in reqs]
    return "\n".join(p.get("text", "") for c in main[-1]["body"]["contents"] for p in c["parts"])


def _emit(stem: str, root: Path, cwd: Path) -> str:
    out = subprocess.run([str(VENV_BIN / "msd_run"), "resolve", stem, "--emit", "--max-chars", "8000", "--root", str(root)],
                         cwd=cwd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "<!-- msd:part " in out.stdout, out.stderr
    return out.stdout


def test_global_install_command_reaches_the_model_with_its_parts(tmp_path, gemini_api):
    exe = cli_binary("gemini")
    api, record = gemini_api
    project = tmp_path / "project"
    project.mkdir()
    target = resolve_target("global", runtime="gemini")
    install(target)
    proc = _run(exe, api, project, ["--include-directories", str(target.config), "-p", "/msd:plan-phase 7"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "MSD-GEMINI-OK" in proc.stdout
    text = _prompt_text(record)
    spine = (target.config / "msd-core/workflows/plan-phase.md").read_text()
    assert spine.strip()[:400] in text                      # @{...} inserted the spine
    assert _emit("plan-phase", target.root, project).rstrip("\n") in text  # !{...} inserted the detail parts
    assert "Run the plan-phase workflow above, step by step, for: 7" in text  # {{args}}
    assert "confirmation required" not in proc.stderr.lower() and "Blocked" not in text


def test_local_install_resolves_project_relative_paths(tmp_path, gemini_api):
    exe = cli_binary("gemini")
    api, record = gemini_api
    target = resolve_target("local", project_dir=tmp_path, runtime="gemini")
    install(target)
    # workspace-tier policies are not read by this Gemini version: approve the shell line here
    proc = _run(exe, api, tmp_path, ["--approval-mode", "yolo", "-p", "/msd:execute-phase 2"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = _prompt_text(record)
    assert (target.config / "msd-core/workflows/execute-phase.md").read_text().strip()[:400] in text
    assert _emit("execute-phase", Path(".gemini/msd-core"), tmp_path).rstrip("\n") in text
    assert "for: 2" in text and str(tmp_path) + "/.gemini" not in (target.config / "commands/msd/execute-phase.toml").read_text()


def test_without_our_policy_the_shell_line_is_not_run(tmp_path, gemini_api):
    """Guard for the global test: remove the policy file and the CLI refuses to render headless."""
    exe = cli_binary("gemini")
    api, _record = gemini_api
    project = tmp_path / "project"
    project.mkdir()
    target = resolve_target("global", runtime="gemini")
    install(target)
    (target.config / "policies" / "msd-core.toml").unlink()
    proc = _run(exe, api, project, ["--include-directories", str(target.config), "-p", "/msd:plan-phase 7"])
    assert proc.returncode != 0 and "MSD-GEMINI-OK" not in proc.stdout, (proc.stdout, proc.stderr[-1500:])
    assert "msd_run resolve plan-phase" in proc.stderr, proc.stderr[-1500:]  # the refused command is named
