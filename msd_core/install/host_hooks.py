"""The hooks and the status line an install registers with Claude Code: `msd_run hook <event>`.

Every hook is the absolute path of the msd_run installed beside this msd, started with
arguments and no shell (Claude Code's exec form, `{"command": <msd_run>, "args": ["hook", <event>]}`,
observed in 2.1.332: the program is spawned directly, so a path with spaces or quotes needs no
quoting and no shell has to exist). One group per event, appended to the user's list:

    SessionStart            msd_run hook session-start   msd_run's folder on the host's PATH
                                                         ($CLAUDE_ENV_FILE); after compact/resume/clear,
                                                         where the workflow is and the next command
    PreCompact              msd_run hook pre-compact     the workflow's checkpoint
    PreToolUse Write, Edit, msd_run hook pre-tool-use    the planning write guard and the injection
      MultiEdit, NotebookEdit                            screen (every call: the hook resolves the
                                                         path, which no `if` rule can)
    PreToolUse Read         msd_run hook pre-tool-use    the secret-file guard
    PreToolUse Bash         msd_run hook pre-tool-use    the same, for a command that would show a
                                                         secret-looking file (every Bash call: see
                                                         BASH_ROW)
    PreToolUse Grep         msd_run hook pre-tool-use    the same, for a search of a secret file
    PostToolUse Agent, and  msd_run hook post-tool-use   a budget crossed: told once
      Bash (if: msd_run step-done / commit)

The guard rows of a global install are not processes: each is an `mcp_tool` hook,
`{"type": "mcp_tool", "server": "msd-guard", "tool": "check", "input": GUARD_INPUT, "if": <rule>}`,
calling the tool of msd's guard server (msd_core/hooks/guard_server.py), which the host starts
once per session (registered by guard_server_setup.py; `mcp__msd-guard` in permissions.deny keeps
the tool from the model). A local install (or a global one whose ~/.claude.json cannot take the
server) keeps command rows, below.

The command guard hook (`pre-tool-use`, the one the host may start on every guarded tool call) is started
without the console script: `{"command": <this msd's python>, "args": ["-I", "-S", "-c", <start>,
"hook", "pre-tool-use", "--root", R]}`, where <start> puts the folder holding msd_core on sys.path
and calls msd_run's own entry point (msd_core/run/entry.py). No site (-S), no environment (-I)
and not the script pip generates (it imports re): with the guards' lazy imports the process
imports neither site, re nor json on an allowed call (`scripts/bench_guards.py`, variant "console
script", measures what that saves in the host). Should that folder be gone (the venv rebuilt on a
newer Python), <start> falls back to site's search; a start that fails exits 1, which the host
reads as "no verdict" (a missing script file would exit 2, which refuses every call: hence -c).

The `if` rules (Claude Code's permission-rule syntax, `*` the only wildcard, one rule per entry;
seen in 2.1.332: the host evaluates them before spawning anything) keep msd's own PostToolUse rows
off an ordinary Bash call. The guard rows have none: a path through a symlink, which the host
matches as spelled, must still reach the write guard, and a secret read through a redirection
must still reach the Bash check (BASH_ROW).

The handlers live in msd_core/hooks/ (standard library only, a few milliseconds). Adding a hook,
e.g. a PreToolUse guard, is one row in HOOKS and one handler module there.

The status line (`"statusLine": {"type": "command", "command": "<msd_run> statusline"}`; the
host has no exec form for it, so a path that needs quoting is quoted) is added only where the
user has no status line of their own in any settings file the host reads for this install;
theirs is never replaced, and one added later is never removed.

Where: a global install edits `<config>/settings.json`; a local install edits
`<project>/.claude/settings.local.json` (Claude Code's per-machine file: the committed
settings.json never names this machine's folder; msd_core/install/git_exclude.py keeps it out
of git). The edit is planned here on the file's bytes and written by the install's own
transaction; only msd's entries change (msd_core/files/jsonedit.py) and the manifest records
which containers msd made (`hooks`, `hooks.SessionStart`, ...) and whether it made the file,
so uninstall gives the file back byte for byte, or removes the file msd created once nothing
else is in it. Older installs' shell hook (`... # msd-core:runner-path`) is recognised as
msd's and replaced. A file that does not parse, is not an object or is a symlink is left
untouched with a one-line warning.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from msd_core import paths
from msd_core.errors import MsdError, OperationFailed
from msd_core.install import runner_path
from msd_core.install.guard_server_setup import PERMISSION
from msd_core.install.hook_probe import can_start
from msd_core.install.lean_start import LEAN_FLAGS, LEAN_MARK, interpreter, lean_start  # noqa: F401 - re-exported

LEGACY_MARKER = "msd-core:runner-path"
GLOBAL_FILE = "settings.json"
LOCAL_FILE = "settings.local.json"
RECORD_KEY = "hooks"
LEGACY_RECORD_KEY = "runner_hook"
TIMEOUT = 30  # seconds; the handlers take milliseconds

# Every tool that writes a file (lean/guard_limits.WRITE_TOOLS), in one matcher and with no `if` rule:
# the host matches a rule such as `Write(**/.planning/**)` against the path as the model spelled it
# (2.1.332 normalises it, and resolves no symlink), so a Write through a symlink into `.planning/`
# would never reach the guard; the hook itself answers a path outside `.planning/` after one realpath.
WRITE_MATCHER = "Write|Edit|MultiEdit|NotebookEdit"

# Every Bash call reaches the secret-file guard (msd_core/hooks/secret_bash.py): one row, no `if`.
# Claude Code 2.1.332 matches an `if` rule against each simple command's words after quote removal,
# without its redirections and here-documents (seen in the CLI: `Bash(*<*)` and `Bash(*.env*)` both
# miss `tr a a < .env`, `bash <<< 'cat .env'` and `python3 - <<'EOF'` ...), so no rule can send those
# to the guard; and a command it cannot split (a loop, `$(...)`, `$'...'`) it matches against every
# rule, so one rule per secret word started one hook process per rule (25) for each such call. One
# unconditioned row costs a guarded call on every Bash call instead (docs/PERFORMANCE.md, "Guard
# hooks in the real host"), and starts exactly one process (or one guard-server call) per Bash call.
BASH_ROW = ("PreToolUse", "Bash", None, "pre-tool-use")

# (event, matcher or None, `if` rule or None, the argument after `msd_run hook`). Rows with the same
# event and matcher share one group. The host starts a hook only when its matcher and its `if`
# rule (permission-rule syntax, checked before anything is spawned) fit the call: a Bash call starts
# the guard row once, and the PostToolUse rows only when it is msd's own `step-done` or `commit` (or
# one the host cannot split, which it matches against both rules: two at most, one rule per entry).
HOOKS = (
    ("SessionStart", None, None, "session-start"),
    ("PreCompact", None, None, "pre-compact"),
    ("PreToolUse", WRITE_MATCHER, None, "pre-tool-use"),
    ("PreToolUse", "Read", None, "pre-tool-use"),
    BASH_ROW,
    # every Grep: its `if` would match the regex, not the path or glob (2.1.332 offers no Grep tool;
    # the row serves a host that does)
    ("PreToolUse", "Grep", None, "pre-tool-use"),
    ("PostToolUse", "Agent", None, "post-tool-use"),
    ("PostToolUse", "Bash", "Bash(msd_run step-done *)", "post-tool-use"),
    ("PostToolUse", "Bash", "Bash(msd_run commit *)", "post-tool-use"),
)
EVENTS = tuple(dict.fromkeys(event for event, _m, _i, _a in HOOKS))


def groups() -> list[tuple[str, str | None, list[tuple[str | None, str]]]]:
    """HOOKS as (event, matcher, [(if rule, arg), ...]): one group per event and matcher, in order."""
    out: dict[tuple[str, str | None], list] = {}
    for event, matcher, rule, arg in HOOKS:
        out.setdefault((event, matcher), []).append((rule, arg))
    return [(event, matcher, rows) for (event, matcher), rows in out.items()]


def applies(target) -> bool:
    return target.runtime == "claude"


def hook_file(target) -> Path:
    return Path(target.config) / (GLOBAL_FILE if target.scope == "global" else LOCAL_FILE)


def runner() -> Path:
    return runner_path.own_runner()


def install_root(target) -> str:
    """The installed msd-core/ folder as the hooks name it: absolute for a global install, and
    relative to the project for a local one (the hooks resolve it against $CLAUDE_PROJECT_DIR),
    so a project folder copied or moved elsewhere keeps working hooks."""

    if target.scope == "local":
        return f"{Path(target.config).name}/{paths.INSTALL_DIRNAME}"
    return str(paths.install_root(Path(target.config)))


LEAN_EVENTS = ("pre-tool-use",)  # started by the interpreter itself (see the module docstring)
def launch(hook: dict) -> list[str]:
    """What starts an msd hook entry, without its `hook <event> ...` arguments."""
    args = hook.get("args") if isinstance(hook.get("args"), list) else []
    return [hook["command"], *args[:args.index("hook")]] if "hook" in args else [hook["command"]]


GUARD_EVENT = "pre-tool-use"
# what an mcp_tool guard row hands the server's tool: the host fills each ${field} from the hook's
# input (the tool input as JSON text; "" for a field the call has not)
GUARD_INPUT = {"tool_name": "${tool_name}", "tool_input": "${tool_input}", "cwd": "${cwd}",
               "session_id": "${session_id}", "agent_id": "${agent_id}"}
DENY = ("permissions", "deny")


def hook_entry(exe: Path, arg: str, root: str, rule: str | None = None, transport: str = "command") -> dict:
    from msd_core.lean.guard_names import GUARD_SERVER as NAME
    from msd_core.lean.guard_names import GUARD_TOOL as TOOL

    if arg == GUARD_EVENT and transport == "mcp":
        entry = {"type": "mcp_tool", "server": NAME, "tool": TOOL, "input": dict(GUARD_INPUT), "timeout": TIMEOUT}
    elif arg in LEAN_EVENTS:
        entry = {"type": "command", "command": str(interpreter()), "args": [*LEAN_FLAGS, lean_start(), "hook", arg, "--root", root],
                 "timeout": TIMEOUT}
    else:
        entry = {"type": "command", "command": str(exe), "args": ["hook", arg, "--root", root], "timeout": TIMEOUT}
    if rule:
        entry["if"] = rule
    return entry


def group_for(exe: Path, matcher: str | None, rows: list[tuple[str | None, str]], root: str, transport: str = "command") -> dict:
    group: dict = {"matcher": matcher} if matcher else {}
    group["hooks"] = [hook_entry(exe, arg, root, rule, transport) for rule, arg in rows]
    return group


def status_line_for(exe: Path, root: str) -> dict:
    return {"type": "command", "command": f"{shlex.quote(str(exe))} statusline --root {shlex.quote(root)}"}


def _is_runner(command) -> bool:
    return isinstance(command, str) and os.path.basename(command) in (runner_path.EXE, "msd_run")


def is_ours(hook) -> bool:
    """An msd hook: `msd_run hook ...` (exec form), a lean one (`python -I -S -c <start> hook ...`),
    a guard row calling msd's guard server (mcp_tool), or an older install's shell PATH hook."""
    if isinstance(hook, dict) and hook.get("type") == "mcp_tool":
        from msd_core.lean.guard_names import GUARD_SERVER as NAME
        from msd_core.lean.guard_names import GUARD_TOOL as TOOL

        return hook.get("server") == NAME and hook.get("tool") == TOOL
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    if LEGACY_MARKER in hook["command"]:
        return True
    args = hook.get("args")
    if not isinstance(args, list):
        return False
    if args[:3] == LEAN_FLAGS and len(args) > 4 and isinstance(args[3], str) and LEAN_MARK in args[3]:
        return args[4] == "hook"
    return _is_runner(hook["command"]) and args[:1] == ["hook"]


def is_our_status_line(value) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("command"), str):
        return False
    try:
        words = shlex.split(value["command"])
    except ValueError:
        return False
    return len(words) >= 2 and _is_runner(words[0]) and words[1] == "statusline"


def ours_in(obj: dict) -> dict[str, list[dict]]:
    """{event: [msd hook entries]} found in a settings object (never raises)."""
    found: dict[str, list[dict]] = {}
    hooks = obj.get("hooks") if isinstance(obj, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for g in groups if isinstance(groups, list) else []:
            for h in (g.get("hooks") if isinstance(g, dict) and isinstance(g.get("hooks"), list) else []):
                if is_ours(h):
                    found.setdefault(event, []).append(h)
    return found


def _wanted(exe: Path, root: str, transport: str = "command") -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for event, _matcher, rows in groups():
        out.setdefault(event, []).extend(hook_entry(exe, arg, root, rule, transport) for rule, arg in rows)
    return out


def _denied(obj: dict) -> bool:
    """Whether settings hold msd's rule that keeps the guard server's tool from the model."""

    perms = obj.get("permissions")
    deny = perms.get("deny") if isinstance(perms, dict) else None
    return isinstance(deny, list) and PERMISSION in deny


def _drop_deny(obj: dict, created) -> bool:
    from msd_core.files.jsonedit import prune
    from msd_core.install.guard_server_setup import PERMISSION

    if not _denied(obj):
        return False
    obj["permissions"]["deny"].remove(PERMISSION)
    prune(obj, DENY, created)
    return True


def _drop_ours(obj: dict) -> list[str]:
    """Remove msd's hook entries, and every group left empty by that; returns the events touched."""
    touched = []
    hooks = obj.get("hooks")
    for event, groups in list(hooks.items()) if isinstance(hooks, dict) else []:
        if not isinstance(groups, list):
            continue
        for g in list(groups):
            if isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h) for h in g["hooks"]):
                g["hooks"] = [h for h in g["hooks"] if not is_ours(h)]
                if not g["hooks"]:
                    groups.remove(g)
                touched.append(event)
    return touched


def add_ours(obj: dict, exe: Path, root: str, want_status_line: bool, transport: str = "command",
             created_before: list[str] | tuple = ()) -> tuple[str | None, list[str], bool]:
    """msd's hooks (and status line) into `obj`, replacing older ones of msd's; with transport
    "mcp" the guard rows call the guard server and `permissions.deny` gets its tool's rule (with
    "command", a rule an earlier install added goes, with the containers in `created_before`).
    Returns (note or None when already as wanted, the containers it made, whether the status
    line is msd's). OperationFailed naming a key that holds something else."""
    from msd_core.files.jsonedit import NotAContainer, reach

    status_ours = is_our_status_line(obj.get("statusLine"))
    line_wanted = status_line_for(exe, root) if (want_status_line and ("statusLine" not in obj or status_ours)) else None
    if ours_in(obj) == _wanted(exe, root, transport) and (line_wanted is None or obj.get("statusLine") == line_wanted) \
            and _denied(obj) == (transport == "mcp"):
        return None, [], status_ours
    note = "updated" if ours_in(obj) else "added"
    hooks = obj.get("hooks", {})
    if not isinstance(hooks, dict):
        raise OperationFailed("'hooks' is not an object; left untouched")
    for event in EVENTS:
        if not isinstance(hooks.get(event, []), list):
            raise OperationFailed(f"'hooks.{event}' is not a list; left untouched")
    _drop_ours(obj)
    created: list[str] = []
    for event, matcher, rows in groups():
        try:
            listed, made = reach(obj, ("hooks", event), list)
        except NotAContainer as exc:  # pragma: no cover - checked above
            raise OperationFailed(f"{exc}; left untouched") from None
        created.extend(made)
        listed.append(group_for(exe, matcher, rows, root, transport))
    if transport == "mcp" and not _denied(obj):
        from msd_core.install.guard_server_setup import PERMISSION

        try:
            deny, made = reach(obj, DENY, list)
        except NotAContainer as exc:
            raise OperationFailed(f"{exc}; left untouched") from None
        created.extend(made)
        deny.append(PERMISSION)
    elif transport != "mcp":
        _drop_deny(obj, created_before)
    if line_wanted is not None:
        obj["statusLine"] = line_wanted
    return note, created, line_wanted is not None


def remove_ours(obj: dict, record: dict | None, inherited: list[str] | tuple = ()) -> str | None:
    """msd's hooks (and its status line, and the guard server's deny rule) out of `obj`, with the
    containers msd made that are left empty (`inherited`: those another of msd's entries in the
    same file made, such as the `permissions` of settings.json's allow rule). No record of what
    msd made (an older install): emptied lists and `hooks` go."""
    from msd_core.files.jsonedit import prune

    touched = _drop_ours(obj)
    line = is_our_status_line(obj.get("statusLine"))
    if line:
        del obj["statusLine"]
    created = (record or {}).get("created")
    denied = bool((record or {}).get("deny")) and _drop_deny(obj, [*(created if isinstance(created, list) else []), *inherited])
    if not touched and not line and not denied:
        return None
    for event in dict.fromkeys(touched):
        names = created if isinstance(created, list) else ["hooks", f"hooks.{event}"]
        prune(obj, ("hooks", event), names)
    return "removed"


# ------------------------------------------------------------------ planning (the installer writes)


def read_current(target) -> bytes | None:
    """The hook file's bytes now (None: absent); OperationFailed for a symlink or non-regular file."""
    from msd_core.runtimes.claude_json import read_file

    return read_file(hook_file(target))


def _users_status_line(target) -> str | None:
    """The settings file that already sets the user's own status line for this install, or None."""
    from msd_core import paths
    from msd_core.runtimes.claude_json import peek

    files = [hook_file(target)]
    if target.scope == "local":
        files += [Path(target.config) / GLOBAL_FILE, paths.global_config_dir() / GLOBAL_FILE]
    for f in files:
        value = peek(f).get("statusLine")
        if value is not None and not is_our_status_line(value):
            return str(f)
    return None


def old_record(manifest) -> dict | None:
    if manifest is None:
        return None
    rec = manifest.extra.get(RECORD_KEY) or manifest.extra.get(LEGACY_RECORD_KEY)
    return rec if isinstance(rec, dict) else None


def plan_add(target, base: bytes | None, previous: dict | None, existed: bool | None = None,
             transport: str = "command") -> tuple[bytes | None, dict, dict | None, list[str]]:
    """msd's hooks added to `base`, the bytes the hook file has (or will have after this install's
    settings.json change; None: absent). Returns (new bytes or None: nothing to write, the
    result entry, the manifest record, warnings). Nothing here writes."""
    from msd_core.runtimes.claude_json import edited_bytes

    if not applies(target):
        return None, {"action": "not applicable"}, None, []
    path = hook_file(target)
    exe = runner()
    if not exe.exists():
        return None, {"path": str(path), "action": "skipped (no msd_run beside this msd)"}, previous, []
    out = {"path": str(path), "runner": str(exe), "runner_dir": str(exe.parent)}
    existed = base is not None if existed is None else existed
    theirs = _users_status_line(target)
    result: dict = {}

    def change(obj: dict):
        note, created, line = add_ours(obj, exe, install_root(target), want_status_line=theirs is None, transport=transport,
                                       created_before=(previous or {}).get("created") or [])
        result.update(created=created, line=line)
        return note

    try:
        new, note, _after = edited_bytes(path, base, change)
    except MsdError as exc:
        out["action"] = "skipped"
        return None, out, previous, [f"{exc.message}; msd's hooks (msd_run on the host's PATH, the compaction checkpoint) were not added"]
    prev = previous or {}
    record = {"path": path.name,
              "created_file": not existed or bool(prev.get("created_file")),
              "created": list(dict.fromkeys([*(prev.get("created") or []), *result.get("created", [])])),
              "status_line": bool(result.get("line")) if "line" in result else bool(prev.get("status_line"))}
    if transport == "mcp":
        record["deny"] = True  # permissions.deny holds the guard server's rule: uninstall takes it out
    if isinstance(prev.get("git_exclude"), dict):
        from msd_core.install.git_exclude import portable

        record["git_exclude"] = portable(prev["git_exclude"], path)
    out["action"] = note or "present"
    out["guards"] = "guard server (mcp_tool)" if transport == "mcp" else "a process per call (command)"
    out["status_line"] = "msd's" if record["status_line"] else (f"yours kept ({theirs})" if theirs else "none")
    return new, out, record, []


def plan_remove(target, base: bytes | None, record: dict | None, inherited: list[str] | tuple = ()) -> tuple[bytes | None, bool, dict, list[str]]:
    """msd's hooks removed from `base` (the hook file's bytes, or what uninstall's settings.json
    change leaves). Returns (new bytes or None, delete the file?, the result entry, warnings).
    The file is deleted only when msd created it and nothing else is left in it."""
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import edited_bytes

    if not applies(target):
        return None, False, {"action": "not applicable"}, []
    path = hook_file(target)
    out = {"path": str(path)}
    if base is None:
        out["action"] = "absent"
        return None, False, out, []
    try:
        new, note, after = edited_bytes(path, base, lambda obj: remove_ours(obj, record, inherited))
    except MsdError as exc:
        out["action"] = "skipped"
        return None, False, out, [f"{exc.message}; remove the hooks whose command is msd_run by hand"]
    if note is None:
        out["action"] = "absent"
        return None, False, out, []
    out["action"] = note
    if not after and isinstance(record, dict) and record.get("created_file"):
        return None, True, out, []
    return new, False, out, []


# ------------------------------------------------------------------ status (never writes)


def status_of(target) -> dict:
    """{"path", "present", "ok", "events", "runner"?, "problem"?, "status_line"} for the hooks of `target`."""
    from msd_core.install.git_exclude import ignored_by_git
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
    fix = f"run `{command_for('install', target.config, target.scope)}`"
    found = ours_in(obj)
    out["events"] = sorted(found)
    out["status_line"] = is_our_status_line(obj.get("statusLine"))
    missing = [event for event in EVENTS if event not in found]
    if not found:
        out["problem"] = f"msd's hooks are not in {path} (a claude started without msd_run on PATH cannot run msd's skills, and compaction loses the workflow's place); {fix}"
        return out
    out["present"] = True
    if any(LEGACY_MARKER in h.get("command", "") for hs in found.values() for h in hs):
        out["problem"] = f"{path} holds an older install's shell hook; {fix}"
        return out
    served = [h for hs in found.values() for h in hs if h.get("type") == "mcp_tool"]
    starts = sorted({tuple(launch(h)) for hs in found.values() for h in hs if h.get("type") != "mcp_tool"},
                    key=lambda s: (len(s) > 1, s))
    out["runner"] = starts[0][0]  # msd_run (the lean guard hook's python sorts after it)
    out["runner_dir"] = str(Path(starts[0][0]).parent)
    for start in starts:
        why = can_start(list(start))
        if why:
            out["problem"] = f"the host cannot start msd's hooks: {why}; {fix}"
            return out
    if served:
        from msd_core.install import guard_server_setup as gs

        server = gs.registered(target)
        out["guards"] = "guard server (mcp_tool)"
        why = (f"the {gs.SERVER} MCP server they call is not registered in {gs.servers_file(target)}" if server is None
               else can_start([server["command"], *server["args"][:4]]))
        if why:
            out["problem"] = f"msd's guards are off: {why}; {fix}"
            return out
        if not _denied(obj):
            out["problem"] = f"{gs.PERMISSION} is not in {path}'s permissions.deny, so the model is offered the guard's own tool; {fix}"
            return out
    if missing:
        out["problem"] = f"msd's {', '.join(missing)} hook{'s are' if len(missing) > 1 else ' is'} missing from {path}; {fix}"
        return out
    if target.scope == "local" and ignored_by_git(path) is False:
        out["problem"] = f"{path} names this machine's msd_run folder and git does not ignore it; {fix}"
        return out
    out["ok"] = True
    return out
