"""The regression gate: run the project's whole test suite with a time bound and record it.

`testing.command` (config) is the command, confirmed by the user at new-project or
map-codebase; `none` means the project has no suite (the gate passes as `skipped`); unset
means nobody confirmed one yet (`unconfigured`: the gate does not pass, the caller asks).

The command is a shell line read from `.planning/config.json`, a file a cloned repository
can carry. So it runs only once the user confirmed it on this machine:
`msd_run gate confirm --command "<cmd>"` sets it and records its sha256 in
`.planning/.msd/gate/confirmed.json` (git-ignored: a repository cannot pre-confirm). A
command not recorded there is not run (`unconfirmed`: the gate does not pass).

`run_gate(root, label, timeout)` runs the command through the shell in the project root,
in its own process group (killed whole at the time bound), stdin closed, and records:

  .planning/.msd/gate/runs.jsonl   one line per run: label, command, status, exit_code,
                                   duration_s, at, tail (the last MAX_TAIL chars of output)
  .planning/.msd/gate/last.json    the latest run
  .planning/.msd/gate/failed       present exactly while the latest run did not pass; the
                                   execute-phase flow routes on it (exists(...)), so a
                                   failing suite can never reach "complete" on a report

Each run that executed records `tests`: how many tests ran, passed, failed, skipped, read from the
runner's own summary (msd_core.execution.test_counts: pytest, node --test, jest, vitest, cargo,
go); None when the output holds no summary it knows (a project's own script: the exit code
decides). A run is `failed` with a `reason`, whatever its exit code, when no test ran (0
executed, pytest's exit 5, jest's "No tests found"); a command carrying a flag that lets a suite
pass without tests (`--passWithNoTests`, ...) is not run and fails.

status: passed | failed | timeout | skipped | unconfigured | unconfirmed. Standard library only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from msd_core.files.bounded import loads_json

MAX_TAIL = 4000
MAX_RECORD = 1024 * 1024
DEFAULT_TIMEOUT = 900
PASSING = ("passed", "skipped")


def gate_dir(root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    d = ensure_private_dir(root) / "gate"
    d.mkdir(parents=True, exist_ok=True)
    return d


def failed_marker(root: Path) -> Path:
    return gate_dir(root) / "failed"


def _execute(command: str, root: Path, timeout: float) -> tuple[str, int | None, float, str]:
    import signal
    import subprocess
    import tempfile

    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(command, shell=True, cwd=str(root), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
            status = "passed" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            code, status = None, "timeout"
        duration = time.monotonic() - start
        out.flush()
        out.seek(0, os.SEEK_END)
        size = out.tell()
        out.seek(max(0, size - MAX_TAIL * 4))
        tail = out.read().decode("utf-8", errors="replace")[-MAX_TAIL:]
    return status, code, duration, tail


def record(root: Path, entry: dict) -> None:
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked

    d = gate_dir(root)
    line = json.dumps(entry, ensure_ascii=False)
    with locked(d / "gate.lock", lock_timeout_from_env(), what="the gate record"):
        with open(d / "runs.jsonl", "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
        atomic_write_bytes(d / "last.json", (json.dumps(entry, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        marker = d / "failed"
        if entry["status"] in PASSING:
            try:
                marker.unlink()
            except FileNotFoundError:
                pass
        else:
            atomic_write_bytes(marker, (entry["status"] + " " + entry.get("label", "") + "\n").encode("utf-8"))


def _digest(command: str) -> str:
    from msd_core.files.atomic import sha256_bytes

    return sha256_bytes(command.strip().encode("utf-8"))


def _load(path: Path):
    """A JSON record of the gate's (a FIFO or an oversized file there is refused: OSError)."""
    from msd_core.files.safe_read import read_regular

    return loads_json(read_regular(path, MAX_RECORD, follow_symlinks=False), str(path))


def confirmed(root: Path) -> list[str]:
    try:
        data = _load(gate_dir(root) / "confirmed.json")
    except (OSError, ValueError):
        return []
    items = data.get("sha256") if isinstance(data, dict) else None
    return [x for x in items if isinstance(x, str)] if isinstance(items, list) else []


def confirm(root: Path, command: str) -> dict:
    """Record that the user confirmed `command` on this machine (caller sets testing.command)."""
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked

    d = gate_dir(root)
    with locked(d / "gate.lock", lock_timeout_from_env(), what="the gate record"):
        items = confirmed(root)
        digest = _digest(command)
        if digest not in items:
            items.append(digest)
        atomic_write_bytes(d / "confirmed.json", (json.dumps({"sha256": items}, indent=1) + "\n").encode("utf-8"))
    return {"command": command.strip(), "sha256": digest, "confirmed": True}


def run_gate(root: Path, command: str | None, label: str, timeout: float) -> dict:
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = (command or "").strip()
    if not text:
        entry = {"label": label, "command": None, "status": "unconfigured", "exit_code": None,
                 "duration_s": 0.0, "at": at, "tail": ""}
    elif text.lower() == "none":
        entry = {"label": label, "command": "none", "status": "skipped", "exit_code": None,
                 "duration_s": 0.0, "at": at, "tail": ""}
    elif _digest(text) not in confirmed(root):
        entry = {"label": label, "command": text, "status": "unconfirmed", "exit_code": None,
                 "duration_s": 0.0, "at": at, "tail": ""}
    else:
        from msd_core.execution import test_counts

        flag = test_counts.no_tests_flag(text)
        if flag is not None:  # a suite allowed to pass without tests proves nothing: not run
            entry = {"label": label, "command": text, "status": "failed", "exit_code": None, "duration_s": 0.0,
                     "at": at, "tail": "", "tests": None,
                     "reason": f"the command passes when no test exists ({flag}): remove the flag and confirm it again"}
        else:
            status, code, duration, tail = _execute(text, root, timeout)
            counts = test_counts.count(tail) if status != "timeout" else None
            entry = {"label": label, "command": text, "status": status, "exit_code": code,
                     "duration_s": round(duration, 3), "timeout_s": timeout, "at": at, "tests": counts, "tail": tail}
            why = test_counts.verdict(code, counts)
            if why is not None:
                entry.update(status="failed", reason=why)
    record(root, entry)
    return entry


def last(root: Path) -> dict | None:
    try:
        data = _load(gate_dir(root) / "last.json")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def runs(root: Path, limit: int = 50) -> list[dict]:
    out = []
    try:
        lines = (gate_dir(root) / "runs.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines[-limit:]:
        try:
            item = loads_json(line, "a gate record")
        except ValueError:
            continue  # a torn line from a killed run is skipped
        if isinstance(item, dict):
            out.append(item)
    return out
