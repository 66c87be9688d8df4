"""The human view of `msd install` results and of where msd_run is.

The view writes rich markup to a printer, `RichOut` (rich's console: colour on a terminal).
"""

from __future__ import annotations

import os

VERDICT_STYLE = {
    "create": "green", "identical": "dim", "update": "cyan", "merged": "magenta",
    "conflict": "bold red", "removed": "yellow", "kept": "bold yellow", "missing": "yellow",
}
NOTEWORTHY = ("merged", "conflict", "kept")


class RichOut:
    """rich's console (imported when made)."""

    def __init__(self, stderr: bool = False, console=None):
        from rich.markup import escape

        if console is None:
            from msd_core.cli.terminal import console as clean_console

            console = clean_console(stderr)
        self.console = console
        self.escape = escape

    def print(self, text: str = "", **kw) -> None:
        self.console.print(text, soft_wrap=True, **kw)


def each(out, line: str, items) -> None:
    """One printed line per item: `line` with the item in place of `{}`."""
    for item in items or []:
        out.print(line.format(item))


def install(out, d: dict) -> None:
    """An install's result data (msd_core/install/installer.py) as lines."""
    head = "Would install" if d.get("dry_run") else "Installed"
    if not d.get("changed") and not d.get("dry_run"):
        head = "Up to date:"
    profile = f", profile {d['profile']}" if d.get("profile") else ""
    switched = f" (was {d['previous_profile']})" if d.get("previous_profile") and d["previous_profile"] != d.get("profile") else ""
    out.print(f"{head} msd-core {d['version']} ({d['scope']}{profile}{switched}) in {d['target']}")
    rows = [(verdict, n) for verdict, n in d["counts"].items() if n]
    width = max([len("verdict"), *(len(v) for v, _ in rows)])
    out.print(f"  [bold]{'verdict':<{width}}  files[/]")
    for verdict, n in rows:
        out.print(f"  [{VERDICT_STYLE.get(verdict, 'dim')}]{verdict:<{width}}[/]  {n:>5}")
    for f in d["files"]:
        if f["verdict"] in NOTEWORTHY or f.get("backup") or f.get("detail", "").startswith("restored"):
            extra = f" -> new version in {f['new_version']}" if f.get("new_version") else ""
            extra += f" (backup: {f['backup']})" if f.get("backup") else ""
            out.print(f"  [{VERDICT_STYLE[f['verdict']]}]{f['verdict']:<9}[/] {f['path']}  {f.get('detail', '')}{extra}")
    if d.get("backup_dir"):
        out.print(f"Replaced files were saved in {d['backup_dir']}")
    if d["settings"].get("permission"):
        out.print(f"{os.path.basename(d['settings']['path'] or 'settings.json')}: {d['settings']['action']} ({d['settings']['permission']})")
    else:
        out.print(f"permission ({d.get('runtime', 'claude')}): {d['settings']['action']}")
    hook = {k: out.escape(v) if isinstance(v, str) else v for k, v in (d.get("hooks") or {}).items()}
    if hook.get("runner_dir"):
        out.print(f"{os.path.basename(hook['path'])}: msd's hooks {hook['action']} (SessionStart puts {hook['runner_dir']} on "
                  f"Claude Code's PATH; status line: {hook.get('status_line', 'none')})")
    elif hook.get("path"):
        out.print(f"{os.path.basename(hook['path'])}: msd's hooks {hook['action']}")
    drivers = {k: out.escape(v) if isinstance(v, str) else v for k, v in (d.get("merge_drivers") or {}).items()}
    if drivers.get("repository"):
        out.print(f"git merge drivers for .planning/ files: {drivers['action']} in {drivers['repository']}"
                  + (f" ({drivers['hint']})" if drivers.get("hint") else ""))
        if drivers.get("commit"):
            out.print(f"  commit {drivers['commit']}: teammates' clones then merge .planning/ files the same way")
    elif drivers.get("action"):
        out.print(f"git merge drivers: {drivers['action']}" + (f" ({drivers['hint']})" if drivers.get("hint") else ""))
    push = d.get("pre_push") or {}
    if push.get("path"):
        out.print(out.escape(f"git pre-push hook (msd_run drift --check): {push['action']} in {push['path']}"
                             + (f"; your own hook runs first from {push['chained']}" if push.get("chained") else "")))
    if d.get("msd_run"):
        runner(out, d["msd_run"], prominent=True, hooked=hook.get("action") in ("added", "updated", "present"))
    if not d.get("dry_run") and d.get("runtime", "claude") == "claude":
        out.print(NEXT_STEP[d.get("scope") == "local"])


NEXT_STEP = {  # the last line of a Claude Code install: what a newcomer does next (README's Set up says the same)
    False: "Next: start `claude` in your project's folder and type /msd-new-project",
    True: "Next: start `claude` in this project's folder and type /msd-new-project",
}


def runner(out, found: dict, *, prominent: bool = False, hooked: bool = False) -> None:
    """Where msd_run is; when the agent cannot reach it, a prominent warning and the exact fix.
    `hooked`: the install's SessionStart hook puts msd_run on Claude Code's PATH (host_hooks.py),
    so only the terminal lacks it: one plain line instead of the warning."""
    found = {k: out.escape(v) if isinstance(v, str) else v for k, v in found.items()}
    if found["on_path"]:
        out.print(f"msd_run: {found['path']}")
        if found.get("note"):
            out.print(f"  [yellow]note:[/] {found['note']}")
        return
    if hooked:
        out.print(f"msd_run: not on this terminal's PATH; Claude Code gets it from the SessionStart hook "
                  f"(to run it here too: {found['fix']})", highlight=False)
        return
    if prominent:  # plain lines, never wrapped or cut: the fix must be copyable as printed
        out.print("")
        out.print("[bold red]WARNING: msd_run is not on your PATH[/]: the agent cannot call it, and the skills run "
                  "without their runtime.")
        out.print(f"[bold]Fix:[/] {found['fix']}", highlight=False)
        out.print("Then check with `msd status`.")
    else:
        out.print(f"msd_run: [red]not on PATH[/] - {found['fix']}")
