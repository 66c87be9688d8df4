"""The SessionStart hook that puts the folder of `msd_run` on the host's PATH.

A plain install's skills and agents call bare `msd_run` (shell lines, Bash calls, the
`Bash(msd_run *)` rule). Claude Code runs them with the PATH it was started with, so a
`claude` launched by an IDE or a desktop launcher whose PATH lacks msd_run's folder refuses
every split skill (`msd_run: command not found`). The install therefore adds one hook:

    {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "d='<bin>'; ... # msd-core:runner-path"}]}]}}

whose command appends `export PATH='<bin>':"$PATH"` to the file `$CLAUDE_ENV_FILE` names,
and only when that variable is set and `<bin>/msd_run` is executable; it always exits 0
with stderr silenced, so an older host (no CLAUDE_ENV_FILE), a moved or removed msd_run or
an unwritable file never fails a session. `<bin>` is the folder of the msd_run installed
beside this msd (runner_path.own_runner), always, even when msd_run is on PATH now: the
PATH a later launch gets is unknown at install time, and the runtime then matches the
content's version. No hook when that msd_run does not exist (the install keeps warning).

Where: a global install edits `<config>/settings.json` (a machine's own file); a local
install edits `<project>/.claude/settings.local.json` (Claude Code's per-machine file), so
the committed `.claude/settings.json` never names this machine's folder; when that file is
not ignored by git the install adds it to the clone's `.git/info/exclude` (never committed;
the project's .gitignore is not edited) and warns only when that fails. The edit is planned
here and written by the install's own transaction (txn.py: a killed install is rolled back
like every other file), every other key kept in its order and the file's indent kept; a file
that does not parse, is not an object or is a symlink is left untouched with a one-line
warning. msd's entry is the one whose command carries MARKER: re-install replaces only it (a
new venv, a moved msd_run), uninstall removes only it and the `SessionStart` list / `hooks`
object it leaves empty (and the file, when msd created it and nothing is left in it). In
settings.json the manifest's record of msd's write covers the hook too, so uninstall still
restores the file byte for byte when nothing else changed it.

Measured in Claude Code 2.1.332 (tests/host/test_runner_hook_host.py; claude started with
PATH=/usr/local/bin:/usr/bin:/bin, msd_run elsewhere):
- the hook runs in `claude -p` with CLAUDE_ENV_FILE set to
  `<config>/session-env/<session>/sessionstart-hook-<n>.sh`, and the host sources that file
  before each Bash command: a skill's `!` line runs `msd_run` (the skill loads; without the
  hook it is refused with `msd_run: command not found`), the model's Bash call
  `msd_run ...` succeeds and the `Bash(msd_run *)` rule still allows it (no denial), and a
  subagent's Bash call (Agent tool, run_in_background false) sees the same PATH;
- hooks are read from `.claude/settings.local.json` as from `settings.json`, in `-p` mode
  also before the folder is trusted (the project's `Bash(msd_run *)` rule then applies only
  once it is trusted: `hasTrustDialogAccepted` in ~/.claude.json);
- with CLAUDE_ENV_FILE unset (as in a host without the feature) the command exits 0 and
  writes nothing to stderr (tests/install/test_runner_hook.py runs it under sh and bash).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from msd_core.install import runner_path

MARKER = "msd-core:runner-path"
EVENT = "SessionStart"
GLOBAL_FILE = "settings.json"
LOCAL_FILE = "settings.local.json"


def applies(target) -> bool:
    """Claude Code on a POSIX shell only (other runtimes have no such hook)."""
    return target.runtime == "claude" and os.name != "nt"


def hook_file(target) -> Path:
    return Path(target.config) / (GLOBAL_FILE if target.scope == "global" else LOCAL_FILE)


def command_for(bindir: str | Path) -> str:
    """The hook's shell command (POSIX sh) for the folder holding msd_run."""
    d = shlex.quote(str(bindir))
    line = shlex.quote(f'export PATH={d}:"$PATH"')
    return (f'd={d}; {{ [ -n "${{CLAUDE_ENV_FILE:-}}" ] && [ -x "$d/{runner_path.EXE}" ] && '
            f'printf "%s\\n" {line} >> "$CLAUDE_ENV_FILE"; }} 2>/dev/null; exit 0 # {MARKER}')


def bindir_of(command: str) -> str | None:
    """The folder an msd hook command exports (None: not one of ours or unreadable)."""
    if not isinstance(command, str) or MARKER not in command:
        return None
    head = command.split(";", 1)[0]
    try:
        words = shlex.split(head)
    except ValueError:
        return None
    if len(words) == 1 and words[0].startswith("d="):
        return words[0][2:]
    return None


def is_ours(hook) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and MARKER in hook["command"]


def _groups(obj: dict, create: bool):
    from msd_core.errors import OperationFailed

    hooks = obj.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = obj["hooks"] = {}
    if not isinstance(hooks, dict):
        raise OperationFailed("'hooks' is not an object; left untouched")
    groups = hooks.get(EVENT)
    if groups is None:
        if not create:
            return None
        groups = hooks[EVENT] = []
    if not isinstance(groups, list):
        raise OperationFailed(f"'hooks.{EVENT}' is not a list; left untouched")
    return groups


def _ours(groups: list) -> list[tuple[int, int]]:
    return [(gi, hi) for gi, g in enumerate(groups) if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for hi, h in enumerate(g["hooks"]) if is_ours(h)]


def _add(command: str):
    def change(obj: dict):
        groups = _groups(obj, create=True)
        found = _ours(groups)
        if [groups[gi]["hooks"][hi].get("command") for gi, hi in found] == [command]:
            return None
        note = "updated" if found else "added"
        _drop(obj, groups, found)
        groups = _groups(obj, create=True)
        groups.append({"hooks": [{"type": "command", "command": command}]})
        return note
    return change


def _drop(obj: dict, groups: list, found: list[tuple[int, int]]) -> None:
    """Remove msd's hook entries, then a group, SessionStart list and hooks object they leave empty."""
    for gi, hi in sorted(found, reverse=True):
        del groups[gi]["hooks"][hi]
    for gi in sorted({gi for gi, _ in found}, reverse=True):
        if not groups[gi]["hooks"]:
            del groups[gi]
    hooks = obj["hooks"]
    if not groups:
        del hooks[EVENT]
    if not hooks:
        del obj["hooks"]


def _remove(obj: dict):
    groups = _groups(obj, create=False)
    found = _ours(groups) if groups is not None else []
    if not found:
        return None
    _drop(obj, groups, found)
    return "removed"


def _git(path: Path, *args: str) -> subprocess.CompletedProcess | None:
    # not msd_core.git.runner.git: its GIT_LITERAL_PATHSPECS makes `git check-ignore` refuse
    # every path ("pathspec magic not supported by this command: 'literal'")
    try:
        return subprocess.run(["git", *args], cwd=str(path.parent), capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None


def ignored_by_git(path: Path) -> bool | None:
    """True/False inside a git work tree; None when git is absent or this is no work tree."""
    proc = _git(path, "check-ignore", "-q", "--", path.name)
    return {0: True, 1: False}.get(proc.returncode) if proc else None


def keep_out_of_git(path: Path) -> str | None:
    """Make git ignore `path` in this clone only: a line in the repository's `info/exclude`
    (never committed, the project's .gitignore untouched). None when done or not needed,
    else a one-line warning."""
    from msd_core.files.atomic import atomic_write_bytes

    if ignored_by_git(path) is not False:
        return None
    exclude = _git(path, "rev-parse", "--git-path", "info/exclude")
    prefix = _git(path, "rev-parse", "--show-prefix")
    problem = f"{path} names this machine's msd_run folder and git does not ignore it: add `{path.name}` to a .gitignore"
    if not exclude or exclude.returncode or not prefix or prefix.returncode:
        return problem
    target = Path(exclude.stdout.strip())
    target = target if target.is_absolute() else path.parent / target
    try:
        old = target.read_bytes() if target.exists() else b""
        line = f"/{prefix.stdout.strip()}{path.name}".encode("utf-8")
        atomic_write_bytes(target, old + (b"" if not old or old.endswith(b"\n") else b"\n") + line + b"\n")
    except OSError:
        return problem
    return None if ignored_by_git(path) else problem


def _serialise(obj: dict, like: bytes | None) -> bytes:
    from msd_core.runtimes.claude_json import style

    indent, newline = style(like)
    return (json.dumps(obj, indent=indent, ensure_ascii=False) + ("\n" if newline else "")).encode("utf-8")


def read_current(target) -> bytes | None:
    """The hook file's bytes now (None: absent); OperationFailed for a symlink or non-regular file."""
    from msd_core.runtimes.claude_json import read_file

    return read_file(hook_file(target))


def plan_add(target, base: bytes | None, old_record: dict | None, existed: bool | None = None) -> tuple[bytes | None, dict, dict | None, list[str]]:
    """msd's hook added to `base`, the bytes the hook file has (or will have after this install's
    settings.json change; None: absent). Returns (new bytes or None: nothing to write,
    the result entry, the manifest record, warnings). Nothing here writes: the installer puts
    the bytes into its transaction, so a killed install is rolled back like every other file."""
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import apply_change, parse

    if not applies(target):
        return None, {"action": "not applicable"}, None, []
    path = hook_file(target)
    runner = runner_path.own_runner()
    if not runner.exists():
        return None, {"path": str(path), "action": "skipped (no msd_run beside this msd)"}, old_record, []
    out = {"path": str(path), "runner_dir": str(runner.parent)}
    existed = base is not None if existed is None else existed  # the file was there before this install
    record = {"path": path.name, "created_file": not existed or bool((old_record or {}).get("created_file"))}
    try:
        obj = parse(path, base)
        note = apply_change(path, _add(command_for(runner.parent)), obj)
    except MsdError as exc:
        out["action"] = "skipped"
        return None, out, old_record, [f"{exc.message}; the SessionStart hook that puts msd_run on the host's PATH was not added"]
    out["action"] = note or "present"
    return (_serialise(obj, base) if note else None), out, record, []


def plan_remove(target, base: bytes | None, record: dict | None) -> tuple[bytes | None, bool, dict, list[str]]:
    """msd's hook removed from `base` (the hook file's bytes, or what uninstall's settings.json
    change leaves). Returns (new bytes or None, delete the file?, the result entry, warnings).
    The file is deleted only when msd created it and nothing else is left in it."""
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import parse

    if not applies(target):
        return None, False, {"action": "not applicable"}, []
    path = hook_file(target)
    out = {"path": str(path)}
    if base is None:
        out["action"] = "absent"
        return None, False, out, []
    try:
        obj = parse(path, base)
        note = _remove(obj)
    except MsdError as exc:
        out["action"] = "skipped"
        return None, False, out, [f"{exc.message}; remove the SessionStart hook whose command ends with `# {MARKER}` by hand"]
    if note is None:
        out["action"] = "absent"
        return None, False, out, []
    out["action"] = note
    if not obj and isinstance(record, dict) and record.get("created_file"):
        return None, True, out, []
    return _serialise(obj, base), False, out, []


def status_of(target) -> dict:
    """{"path", "present", "runner_dir"?, "ok", "problem"?} for msd's hook of `target`; never writes."""
    from msd_core.ownership.hints import command_for
    from msd_core.runtimes.claude_json import peek

    if not applies(target):
        return {"present": False, "ok": True, "applicable": False}
    path = hook_file(target)
    out: dict = {"path": str(path), "present": False, "ok": False}
    obj = peek(path)
    if "_error" in obj:
        out["problem"] = obj["_error"]
        return out
    try:
        groups = _groups(obj, create=False) or []
    except Exception as exc:  # noqa: BLE001 - an OperationFailed naming the bad key
        out["problem"] = f"{path}: {getattr(exc, 'message', exc)}"
        return out
    found = _ours(groups)
    fix = f"run `{command_for('install', target.config, target.scope)}`"
    if not found:
        out["problem"] = f"no SessionStart hook puts msd_run on the host's PATH (a claude started without it on PATH cannot run msd's skills); {fix}"
        return out
    gi, hi = found[0]
    bindir = bindir_of(groups[gi]["hooks"][hi].get("command"))
    out.update(present=True, runner_dir=bindir)
    runner = Path(bindir or "") / runner_path.EXE
    if not bindir or not (runner.is_file() and os.access(runner, os.X_OK)):
        out["problem"] = f"the SessionStart hook points at {runner}, which does not exist (msd_run moved or was uninstalled); {fix}"
        return out
    if target.scope == "local" and ignored_by_git(path) is False:
        out["problem"] = f"{path} names this machine's msd_run folder and git does not ignore it; {fix}"
        return out
    out["ok"] = True
    return out
