"""msd's MCP server in the real Copilot CLI and Kimi Code (pinned in tests/runtimes/clis.py), offline
against the stand-in model: after `msd mcp install --client copilot|kimi`, the client starts `msd mcp`,
its first model request offers each of msd's MCP tools (Copilot names them `msd-<tool>`, Kimi
`mcp__msd__<tool>`), and when the model calls `config_get` for `workflow.compact_content` the
answer msd gives (the project's setting) reaches the model's next request.

One session per client and compact setting: compact off with the user scope (`~/.copilot/mcp-config.json`,
`~/.kimi-code/mcp.json`), compact on with the project scope (the `.mcp.json` Claude Code and Qwen Code read
too), in a folder trusted the way the user trusts it: `copilot --trust-folder`, and for Kimi the record
its "Trust this folder" writes (`<KIMI_CODE_HOME>/workspace-trust/<key>`: its bundled writeWorkspaceTrust
and encodeWorkDirKey). Without that trust Kimi's `-p` skips the project's servers ("this folder is not
trusted; skipped 1 project-level MCP server") and Copilot lists none of them (seen in both CLIs)."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.runtimes import stand_ins
from tests.runtimes.agent_clients import VENV_BIN, _proc, copilot_env, env, run_kimi
from tests.runtimes.clis import cli_binary
from tests.runtimes.test_agents_spine_cli import turns_of
from tests.runtimes.test_qwen_mcp_cli import MSD_TOOLS

pytestmark = pytest.mark.slow

PREFIX = {"copilot": "msd-", "kimi": "mcp__msd__"}


def _trust_kimi(project: Path) -> None:
    """What Kimi Code 2.1.0's "Trust this folder" stores: {"root", "trustedAt"} under the key
    `wd_<slug of the folder name>_<first 12 hex of sha256(root)>` in its home's `workspace-trust/`."""
    root = str(project.resolve())
    slug = re.sub(r"^-+|-+$", "", re.sub(r"[^a-z0-9._-]+", "-", project.name.lower()))[:40]
    folder = Path(os.environ["HOME"]) / ".kimi-code" / "workspace-trust"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"wd_{slug}_{hashlib.sha256(root.encode()).hexdigest()[:12]}").write_text(json.dumps({"root": root, "trustedAt": 0}))


def _run(client: str, project: Path, base: str, tmp: Path, trusted: bool) -> subprocess.CompletedProcess:
    if client == "copilot":
        flags = ["--allow-all-tools"] + (["--trust-folder"] if trusted else [])
        return _proc([str(cli_binary("copilot")), *flags, "-p", "Say hi."], project, copilot_env(base))
    if trusted:
        _trust_kimi(project)
    return run_kimi(project, base, "Say hi.", tmp)


def project_for(tmp_path: Path, compact: bool) -> Path:
    """A git project whose config sets workflow.compact_content to `compact`."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".planning").mkdir()
    (project / ".planning/config.json").write_text(json.dumps({"workflow": {"compact_content": compact}}))
    return project


def mcp_install(project: Path, scope: str, client: str) -> Path:
    """`msd mcp install --scope <scope> --client <client>` run in `project`: the file it wrote."""
    r = subprocess.run([str(VENV_BIN / "msd"), "mcp", "install", "--scope", scope, "--client", client, "--json"],
                       cwd=project, env=env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return Path(json.loads(r.stdout)["server"]["path"])


def call_config_get(monkeypatch, project: Path) -> None:
    """The stand-in model calls msd's config_get for workflow.compact_content (MSD_STANDIN_MCP_CALL)."""
    monkeypatch.setenv("MSD_STANDIN_MCP_CALL", "config_get " + json.dumps({"key": "workflow.compact_content", "cwd": str(project)}))


def assert_answer(results, compact: bool) -> None:
    """The tool results of the model's next request hold msd's answer: the project's setting."""
    answer = html.unescape(json.dumps(results, ensure_ascii=False)).replace("\\", "").replace(" ", "")
    assert f'"value":{json.dumps(compact)}' in answer, answer[:2000]
    assert f'"value":{json.dumps(not compact)}' not in answer


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off-user-scope", "compact-on-project-scope"])
@pytest.mark.parametrize("client", sorted(PREFIX))
def test_the_client_lists_msds_mcp_tools_and_a_call_reaches_the_model(client, compact, tmp_path, monkeypatch):
    project = project_for(tmp_path, compact)
    written = mcp_install(project, "project" if compact else "user", client)
    assert written == (project / ".mcp.json" if compact else
                       Path(os.environ["HOME"]) / {"copilot": ".copilot/mcp-config.json", "kimi": ".kimi-code/mcp.json"}[client])
    call_config_get(monkeypatch, project)
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = _run(client, project, base, tmp_path, trusted=compact)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        turns = turns_of(record, "chat")
    offered = [t["function"]["name"] for t in turns[0]["tools"]]
    for tool in MSD_TOOLS:
        assert PREFIX[client] + tool in offered, (tool, offered)
    # the model called config_get; msd's answer is the tool result of the next request
    results = [m for m in turns[1]["messages"] if m.get("role") == "tool"]
    assert results, turns[1]["messages"][-3:]
    assert_answer(results, compact)
