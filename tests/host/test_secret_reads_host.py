"""The secret-read guard in the real host (issue 46 item 6): after `msd install --local` (a process
per guarded call), spellings of `cat .env` the old guard let through reach the hook and are refused
(a wrapper, a `-c` string, sourcing, a loop fed by redirection, a name in capitals), while an
ordinary command starts no hook. 2.1.332 offers the model no Grep or Glob tool (it searches
through Bash, which the guard reads): the Grep row serves hosts that do. `tr a a < .env` runs: Claude Code 2.1.332
matches the `if` rules on a command's words without its redirections, so the hook never hears of
it (the README says so); the same command refused in-process proves the hook would."""

from __future__ import annotations

import hostkit

from msd_core.hooks import secret_bash

ARGS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--include-hook-events"]
REFUSED = ["nice -n 5 cat .env", "bash -lc 'cat .env'", "source .env; env", "while read l; do echo $l; done < .env",
           "cat .ENV", "git -C . show HEAD:.env"]


def calls(run: hostkit.HostRun) -> list[dict]:
    """Per tool call in order: its name, the hook processes started for it, its result and whether it failed."""
    out, current = [], None
    for e in run.events:
        if e.get("type") == "assistant":
            for c in e["message"]["content"]:
                if c.get("type") == "tool_use":
                    current = {"name": c["name"], "hooks": 0}
        elif e.get("type") == "system" and e.get("subtype") == "hook_started" and e.get("hook_event") == "PreToolUse":
            if current is not None:
                current["hooks"] += 1
        elif e.get("type") == "user" and current is not None:
            for c in e["message"]["content"]:
                if isinstance(c, dict) and c.get("type") == "tool_result":
                    text = c.get("content")
                    current["text"] = text if isinstance(text, str) else str(text)
                    current["error"] = bool(c.get("is_error"))
                    out.append(current)
                    current = None
    return out


def test_spellings_of_a_secret_read_reach_the_guard(host):
    host.install("local")
    (host.project / ".env").write_text("API_KEY=sk-live-do-not-leak\n")
    (host.project / ".ENV").write_text("API_KEY=sk-live-do-not-leak\n")
    (host.project / "app.py").write_text("print('hi')\n")
    script = [{"when": "GO", **hostkit.bash(REFUSED[0])}, *[hostkit.bash(c) for c in REFUSED[1:]],
              hostkit.bash("echo plain"), hostkit.bash("tr a a < .env"), {"text": "done"}]
    run = host.run("GO", script, args=ARGS)
    assert run.returncode == 0, run.stderr[-2000:]
    got = calls(run)
    assert [c["name"] for c in got] == ["Bash"] * (len(REFUSED) + 2), got
    for c in got[:len(REFUSED)]:
        assert c["error"] and "msd guard: this " in c["text"] and "sk-live" not in c["text"], c
        assert c["hooks"] >= 1, c
    assert "it would source .env" in got[2]["text"]
    echo, tr = got[len(REFUSED):]
    assert echo["hooks"] == 0 and "plain" in echo["text"]
    assert tr["hooks"] == 0 and "sk-live-do-not-leak" in tr["text"]  # not routed: the README's stated gap
    assert secret_bash.bash_finding("tr a a < .env", str(host.project), str(host.project), (), ()) is not None
    offered = {t.get("name") for t in run.model_requests[0].get("tools", [])}
    assert "Bash" in offered and not offered & {"Grep", "Glob"}, offered
