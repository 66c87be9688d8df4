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
runner's own summary in the last MAX_SCAN bytes of the output (msd_core.execution.test_counts:
pytest, unittest, node --test, jest, vitest, mocha, jasmine, ava, tap, cargo, go, rspec, minitest,
phpunit, dotnet, gradle, maven); None when the output holds no summary it knows (a project's own
script: the exit code decides). A run is `failed` with a `reason`, whatever its exit code, when no
test ran (0 executed: mocha's `0 passing`, pytest's exit 5, jest's "No tests found"); a command carrying a flag that lets a suite
pass without tests (`--passWithNoTests`, ...) is not run and fails.

Each run that executed also records `tree`: {"commit": HEAD's sha or None, "clean": whether `git
status` showed no change outside `.planning/`}, taken before the run (`tree_state`). `for_tree(root,
command)` answers the latest run of `command` made on exactly the tree checked out now (same commit,
clean then and now), or None: `msd_run verify` reuses such a run instead of running the suite again.

status: passed | failed | timeout | skipped | unconfigured | unconfirmed. Standard library only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from msd_core.files.bounded import loads_json

MAX_TAIL = 4000
MAX_SCAN = 1024 * 1024  # the end of the output the test counts are read from (go -v lists every test)
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
    """(status, exit code, seconds, the output's last MAX_SCAN bytes as text)."""
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
        out.seek(max(0, size - MAX_SCAN))
        scan = out.read().decode("utf-8", errors="replace")
    return status, code, duration, scan


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


def is_confirmed(root: Path, command: str) -> bool:
    """Whether the user confirmed `command` on this machine (`confirm`)."""
    return _digest(command) in confirmed(root)


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
    elif not is_confirmed(root, text):
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
            tree = tree_state(root)
            status, code, duration, scan = _execute(text, root, timeout)
            counts = test_counts.count(scan) if status != "timeout" else None
            tail = scan[-MAX_TAIL:]
            entry = {"label": label, "command": text, "status": status, "exit_code": code,
                     "duration_s": round(duration, 3), "timeout_s": timeout, "at": at, "tests": counts, "tree": tree,
                     "tail": tail}
            why = test_counts.verdict(code, counts)
            if why is not None:
                entry.update(status="failed", reason=why)
    record(root, entry)
    return entry


def tree_state(root: Path) -> dict:
    """{"commit": HEAD's sha (None outside git or before the first commit), "clean": True when `git status`
    shows no change (untracked files included, ignored ones not) outside the project's `.planning/`}."""
    from msd_core.errors import OperationFailed
    from msd_core.git.runner import git

    root = Path(root)
    try:
        head = git(["rev-parse", "--show-toplevel", "--verify", "HEAD"], root, check=False)
        lines = head.stdout.split()
        if head.returncode != 0 or len(lines) != 2:
            return {"commit": None, "clean": False}
        top, commit = Path(lines[0]), lines[1]
        status = git(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all",
                      "--no-renames", "--", "."], root, check=False)
    except (OSError, OperationFailed):  # no git binary, or git cannot start here
        return {"commit": None, "clean": False}
    if status.returncode != 0:
        return {"commit": commit, "clean": False}
    try:
        planning = (root.resolve() / ".planning").relative_to(top.resolve()).as_posix() + "/"
    except ValueError:
        planning = ".planning/"
    changed = [e[3:] for e in status.stdout.split("\0") if len(e) > 3]
    return {"commit": commit, "clean": not [p for p in changed if not p.startswith(planning)]}


def for_tree(root: Path, command: str, tree: dict | None = None) -> dict | None:
    """The latest recorded run of `command` (passed or failed) made on the tree checked out now: the same
    commit, a clean work tree then and now (`tree_state`); None when there is none."""
    run = last(root)
    if not isinstance(run, dict) or run.get("command") != (command or "").strip():
        return None
    if run.get("status") not in ("passed", "failed") or run.get("exit_code") is None:
        return None  # not run (a flag refused), or cut off by the time bound
    then = run.get("tree")
    now = tree if tree is not None else tree_state(root)
    if not isinstance(then, dict) or not then.get("clean") or not now.get("clean") or not now.get("commit"):
        return None
    return run if then.get("commit") == now["commit"] else None


def last(root: Path) -> dict | None:
    return recorded(root, limit=0)["last"]


def runs(root: Path, limit: int = 50) -> list[dict]:
    return recorded(root, limit=limit)["runs"]


def recorded(root: Path, limit: int = 50) -> dict:
    """What the gate recorded, read only (no folder is created): {"last": the latest run or None,
    "last_error": why last.json could not be read or None, "runs": up to `limit` runs, oldest first,
    "failed_marker": whether `failed` exists}. The one reader of the gate's records for reports
    (health, forensics, stats); test counts come from `test_counts` of a run."""
    from msd_core.paths import project_state_dir

    d = project_state_dir(Path(root)) / "gate"
    out: dict = {"last": None, "last_error": None, "runs": [], "failed_marker": os.path.lexists(d / "failed")}
    try:
        data = _load(d / "last.json")
        out["last"] = data if isinstance(data, dict) else None
        if not isinstance(data, dict):
            out["last_error"] = "last.json holds no JSON object"
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        out["last_error"] = f"last.json cannot be read ({getattr(exc, 'strerror', None) or exc})"
    try:
        from msd_core.files.safe_read import read_tail

        raw = read_tail(d / "runs.jsonl", 2 * MAX_RECORD, follow_symlinks=False) if limit > 0 else b""
    except OSError:
        raw = b""
    for line in raw.decode("utf-8", errors="replace").splitlines()[-limit:] if limit > 0 else ():
        try:
            item = loads_json(line, "a gate record")
        except ValueError:
            continue  # a torn line from a killed run
        if isinstance(item, dict):
            out["runs"].append(item)
    return out


_COUNT_WORDS = {"passed": "passed", "failed": "failed", "error": "errors", "errors": "errors", "skipped": "skipped",
                "xfailed": "skipped", "deselected": None, "xpassed": "passed", "warnings": None, "warning": None}


def test_counts(run: dict | None) -> dict | None:
    """{"passed", "failed", "errors", "skipped"} of one gate run, or None when it shows none.

    Today the gate records the output's tail only: the counts are read from the last summary line
    of the runners that print one (pytest `== 3 failed, 12 passed in 0.4s ==`, `Tests: 2 failed, 9
    passed, 11 total` of jest/vitest, `test result: ok. 12 passed; 0 failed` of cargo). A run that
    records counts itself (a `tests` object) is read first: its own word beats parsed text. Every reader of test counts
    asks this function."""
    import re

    if not isinstance(run, dict):
        return None
    given = run.get("tests")
    if isinstance(given, dict) and all(isinstance(given.get(k, 0), int) for k in ("passed", "failed")):
        return {k: int(given.get(k, 0) or 0) for k in ("passed", "failed", "errors", "skipped")}
    tail = run.get("tail")
    if not isinstance(tail, str) or not tail:
        return None
    for line in reversed(tail.splitlines()[-40:]):
        pairs = re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)\b", line)
        if not pairs:
            continue
        counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        for n, word in pairs:
            key = _COUNT_WORDS.get(word)
            if key:
                counts[key] += int(n)
        if any(counts.values()):
            return counts
    return None
