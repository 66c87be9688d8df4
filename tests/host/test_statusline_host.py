"""The status line msd installs, rendered by the real host (issue 31, Proof).

Headless `claude -p` never runs a status line command, so the interactive TUI runs under tmux
(a private socket in the test's folder, ~/.claude.json seeded so onboarding, the folder's trust
dialog and the API-key question are already answered). After one prompt the host runs
`msd_run statusline` with its JSON and shows the line under the prompt box: the flow step of
the workflow in progress and the context share the host reports. The installed command is
also run with the JSON the host passes (its fields as observed in 2.1.332).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import time

import hostkit
import pytest

KEY = "sk-ant-msd-host-test-dummy"


def _project(host: hostkit.Host) -> None:
    hostkit.planning_project(host.project, state="---\nmilestone: v1.0\n---\n# State\n")
    root = str(host.config_dir / "msd-core")
    host.msd_run("next-step", "--workflow", "plan-phase", "--var", "phase=01", "--root", root)


def _seed_trust(host: hostkit.Host) -> None:
    cfg = {"hasCompletedOnboarding": True, "theme": "dark",
           "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
           "projects": {str(host.project): {"hasTrustDialogAccepted": True, "allowedTools": []}}}
    (host.home / ".claude.json").write_text(json.dumps(cfg, indent=2))


class Tui:
    """The interactive CLI in a private tmux server."""

    def __init__(self, host: hostkit.Host, url: str):
        self.host, self.url = host, url
        self.sock = str(host.root / "tmux.sock")

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True, text=True, check=check, timeout=30)

    def start(self) -> None:
        env = self.host.env(transcripts=True)
        env.update({"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": KEY, "TERM": "xterm-256color"})
        envfile = self.host.root / "tui-env.sh"
        envfile.write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()))
        cmd = (f"cd {shlex.quote(str(self.host.project))} && . {shlex.quote(str(envfile))} && "
               f"exec timeout 150 {shlex.quote(str(self.host.claude))}")
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "msd", "-x", "200", "-y", "50", "bash", "-c", cmd)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "msd", "-l", text)
        time.sleep(0.5)
        self.tmux("send-keys", "-t", "msd", "Enter")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "msd", check=False).stdout

    def wait_for(self, text: str, timeout: float = 60) -> str | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.5)
        return None

    def stop(self) -> None:
        self.tmux("kill-server", check=False)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="the TUI is driven through tmux")
def test_the_host_renders_msds_status_line_in_its_tui(host_global):
    host = host_global
    _project(host)
    _seed_trust(host)
    with hostkit.ModelServer([{"text": "HELLO-BACK", "usage": {"input_tokens": 90000, "output_tokens": 12}}],
                             host.root / "server-tui", lifetime=200) as server:
        tui = Tui(host, server.url)
        tui.start()
        try:
            tui.wait_for("❯", timeout=60)  # the prompt box is up
            tui.type("hello")
            screen = tui.wait_for("HELLO-BACK", timeout=90)
            assert screen, tui.screen()
            screen = tui.wait_for("ctx 9%", timeout=60)
            assert screen, tui.screen()
        finally:
            tui.stop()
    line = next(x for x in screen.splitlines() if "msd v1.0" in x)
    assert "phase 01" in line and "plan-phase: load-context" in line and "ctx 9%" in line, line
    # the host reported claude-opus-5-5's window with the line: kept for `msd usage`
    cache = json.loads((host.project / ".planning" / ".msd" / "usage" / "cache.json").read_text())
    assert cache["windows"].get("claude-opus-5-5") == 1000000


def test_the_installed_status_line_command_with_the_json_the_host_passes(host_global):
    host = host_global
    _project(host)
    command = json.loads((host.config_dir / "settings.json").read_text())["statusLine"]["command"]
    payload = {"session_id": "s", "transcript_path": str(host.home / "none.jsonl"), "cwd": str(host.project),
               "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
               "workspace": {"current_dir": str(host.project), "project_dir": str(host.project), "added_dirs": []},
               "version": hostkit.HOST_VERSION, "cost": {"total_cost_usd": 0.05},
               "context_window": {"total_input_tokens": 130000, "total_output_tokens": 77, "context_window_size": 1000000,
                                  "current_usage": {"input_tokens": 129000, "output_tokens": 77, "cache_creation_input_tokens": 500,
                                                    "cache_read_input_tokens": 500},
                                  "used_percentage": 13, "remaining_percentage": 87}}
    out = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True, timeout=60,
                         env=host.env(), cwd=str(host.project))
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.splitlines() == ["msd v1.0 · phase 01 · plan-phase: load-context · ctx 13% · phase 0 tok"]
