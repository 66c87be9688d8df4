"""What msd's guard costs another agent CLI per allowed tool call, against Claude Code's form in the
same run: CPU of one `msd_run hook <event>` process per call (the clients start one per guarded call;
OpenCode's plugin starts the same process), interleaved rounds, medians, ratios to Claude's.

    .venv/bin/python scripts/bench_client_hooks.py [--rounds 21] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cases(project: str) -> dict[str, tuple[str, dict]]:
    """{label: (hook event, payload)}: each an allowed call (`ls`, a write outside `.planning/`)."""
    shell = {"command": "ls"}
    return {
        "claude Bash ls (baseline)": ("pre-tool-use", {"tool_name": "Bash", "tool_input": shell, "cwd": project}),
        "copilot bash ls": ("copilot-pre-tool-use", {"toolName": "bash", "toolArgs": shell, "cwd": project}),
        "qwen run_shell_command ls": ("qwen-pre-tool-use", {"tool_name": "run_shell_command", "tool_input": shell, "cwd": project}),
        "gemini run_shell_command ls": ("gemini-pre-tool-use", {"tool_name": "run_shell_command", "tool_input": shell, "cwd": project}),
        "kimi Bash ls": ("kimi-pre-tool-use", {"tool_name": "Bash", "tool_input": shell, "cwd": project}),
        "opencode bash ls": ("opencode-pre-tool-use", {"tool": "bash", "args": shell, "cwd": project}),
        "claude Write outside .planning": ("pre-tool-use", {"tool_name": "Write", "cwd": project, "tool_input": {
            "file_path": f"{project}/notes.txt", "content": "x"}}),
        "qwen write_file outside .planning": ("qwen-pre-tool-use", {"tool_name": "write_file", "cwd": project, "tool_input": {
            "file_path": f"{project}/notes.txt", "content": "x"}}),
    }


def cpu_ms(runner: str, event: str, payload: dict, cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([runner, "hook", event], input=json.dumps(payload), capture_output=True, text=True, cwd=cwd, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or proc.stdout.strip():
        raise SystemExit(f"bench_client_hooks: {event} did not allow the call: {(proc.stdout or proc.stderr).strip()[:200]}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    runner = shutil.which("msd_run", path=str(Path(sys.executable).parent)) or shutil.which("msd_run")
    if not runner:
        raise SystemExit("bench_client_hooks: msd_run is not installed beside this python or on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        (Path(tmp) / ".planning").mkdir()
        (Path(tmp) / ".planning/config.json").write_text('{"guards": {"secret_read": true}}\n')
        table = cases(tmp)
        seen: dict[str, list[float]] = {k: [] for k in table}
        for _ in range(args.rounds):
            for label, (event, payload) in table.items():
                seen[label].append(cpu_ms(runner, event, payload, tmp))
    medians = {k: statistics.median(v) for k, v in seen.items()}
    base = medians["claude Bash ls (baseline)"]
    report = {k: {"cpu_ms": round(m, 1), "ratio": round(m / base, 2)} for k, m in medians.items()}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "cases": report}, indent=2))
    else:
        print(f"msd_run hook, CPU per allowed call, median of {args.rounds} interleaved rounds")
        for k, r in report.items():
            print(f"  {k:36s} {r['cpu_ms']:6.1f} ms  {r['ratio']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
