"""`msd install`, `msd update`, `msd uninstall`, `msd status`: thin adapters over msd_core.install."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer

from msd_core.cli import install_view
from msd_core.cli.common import console, errors_to_exit, render, stdin_is_tty
from msd_core.cli.helpstyle import examples
from msd_core.cli.targets import both_scopes, target_for
from msd_core.errors import UsageError
from msd_core.install.health import status
from msd_core.install.installer import run_install
from msd_core.install.request import InstallRequest
from msd_core.install.runner_path import check
from msd_core.install.source import resolve_source
from msd_core.install.uninstaller import uninstall
from msd_core.paths import require_parent
from msd_core.result import OperationResult
from msd_core.runtimes import RUNTIMES


def _scope(global_: bool, local: bool, verb: str) -> str:
    if global_ and local:
        raise UsageError("choose one of --global and --local, not both")
    if global_:
        return "global"
    if local:
        return "local"
    if not stdin_is_tty():
        raise UsageError(f"no scope given: run `msd {verb} --global` (~/.claude) or `msd {verb} --local` (./.claude)")
    answer = typer.prompt("Install where? global (~/.claude) or local (./.claude)", default="global")
    answer = answer.strip().lower()
    if answer in ("g", "global"):
        return "global"
    if answer in ("l", "local"):
        return "local"
    raise UsageError(f"unknown scope {answer!r}: answer global or local")


def _target(scope: str, config_dir: Optional[str], runtime: str = "claude"):
    return target_for(scope, config_dir, runtime)


RUNTIME_HELP = ("Agent runtime(s): claude (default), gemini, opencode, codex, agents (Agent Skills in .agents/skills), "
                "qwen, copilot, kimi (those skills and msd's agents as subagents in .qwen/, .github/, .kimi-code/); "
                "comma-separate several (claude,gemini).")


def _runtimes(value: Optional[str], config_dir: Optional[str]) -> list[str]:
    """The runtimes named by --runtime (claude when none), validated; UsageError (exit 2) otherwise."""
    names: list[str] = []
    for v in [value or "claude"]:
        for name in v.split(","):
            name = name.strip().lower()
            if name not in RUNTIMES:
                raise UsageError(f"unknown runtime {name!r}: choose from {', '.join(RUNTIMES)}")
            if name not in names:
                names.append(name)
    if len(names) > 1 and config_dir:
        raise UsageError("--config-dir names one folder: give one --runtime with it")
    return names


def _progress_cb(as_json: bool):
    """A rich progress bar on stderr when it is a terminal; None otherwise."""
    if as_json:
        return None, None
    err = console(stderr=True)
    if not err.is_terminal:
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err, transient=True)
    task = progress.add_task("planning", total=None)

    def cb(phase: str, done: int, total: int) -> None:
        progress.update(task, description="writing" if phase == "write" else "planning", completed=done, total=total or None)

    return progress, cb


def _human_install(result: OperationResult) -> None:
    install_view.install(install_view.RichOut(), result.data)


def _planned(action: str, dry: bool) -> str:
    """An uninstall step's action as a dry run says it: "removed (…)" is "would remove (…)"."""
    if dry and isinstance(action, str) and action.startswith("removed"):
        return "would remove" + action[len("removed"):]
    return action


def _human_uninstall(result: OperationResult) -> None:
    out = console()
    d = result.data
    if d.get("nothing_installed"):
        from rich.markup import escape

        out.print(escape(f"Nothing to uninstall: no msd-core install in {d['target']} ({d['hint']})."), soft_wrap=True)
        return
    dry = bool(d.get("dry_run"))
    c = d["counts"]
    named = f"msd-core {d['version']}" if d.get("version") else "msd-core (version unknown)"
    out.print(f"{'Would remove' if dry else 'Removed'} {named} ({d['scope']}) from {d['target']}: "
              f"{c['removed']} {'to remove' if dry else 'removed'}, {c['kept']} {'to keep' if dry else 'kept'}, "
              f"{c['missing']} already missing", soft_wrap=True)
    for f in d["files"]:
        if f["verdict"] == "kept":
            out.print(f"  [bold yellow]{'would keep' if dry else 'kept'}[/] {f['path']}  {f.get('detail', '')}", soft_wrap=True)
    out.print(f"{os.path.basename(d['settings']['path']) if d['settings'].get('path') else 'permission'}: "
              f"{_planned(d['settings']['action'], dry)}", soft_wrap=True)
    _each(out, ("Would remove" if dry else "Removed") + " msd's backup folder {}", d.get("backups_removed"))
    _each(out, "Kept the backup folder {} (your replaced edits)", d.get("backups_kept"))
    hook = d.get("hooks") or {}
    if hook.get("action") not in (None, "absent", "not applicable"):
        shown = _planned(hook["action"], dry)
        said = f"{shown[:len('would remove')]} msd's hooks{shown[len('would remove'):]}" if shown != hook["action"] \
            else f"msd's hooks {shown}"
        out.print(f"{os.path.basename(hook['path'])}: {said}", soft_wrap=True)
    for entry in d.get("merge_drivers") or []:
        from rich.markup import escape

        out.print(escape(f"git merge drivers in {entry['git_dir']}: {entry['action']}"), soft_wrap=True)
    if (d.get("pre_push") or {}).get("path"):
        from rich.markup import escape

        out.print(escape(f"git pre-push hook: {d['pre_push']['action']} ({d['pre_push']['path']})"), soft_wrap=True)
    if d.get("folders_left"):
        out.print(f"Folders left because they hold files: {', '.join(d['folders_left'])}", soft_wrap=True)


def _human_status(result: OperationResult) -> None:
    from rich.markup import escape

    out = console()
    d = result.data
    out.print(f"msd-core package {d['package_version']}")
    for inst in d["installs"]:
        if inst.get("runtime", "claude") != "claude":
            inst = {**inst, "scope": f"{inst['scope']} ({inst['runtime']})"}
        if not inst.get("installed"):
            line = f"  {inst['scope']:<6} {inst['path']}: not installed"
        elif inst.get("error"):
            line = f"  {inst['scope']:<6} {inst['path']}: [red]{inst['error']}[/]"
        else:
            state = {
                "same": f"version {inst['version']}, up to date",
                "older": f"[yellow]version {inst['version']}: update available (package is {d['package_version']})[/]",
                "newer": f"[yellow]version {inst['version']}, newer than this package ({d['package_version']})[/]",
            }.get(inst.get("version_state"), f"[yellow]version {inst['version']} (package is {d['package_version']})[/]")
            line = (f"  {inst['scope']:<6} {inst['path']}: {inst['files']} files ({inst.get('profile', 'full')} profile), {state}; "
                    f"{len(inst['modified'])} modified, {len(inst['missing'])} missing, {len(inst['unexpected'])} unexpected")
        out.print(line, soft_wrap=True)
        for key in ("modified", "missing", "unexpected"):
            _each(out, f"      {key}: {{}}", inst.get(key))
        if inst.get("moved"):
            out.print(f"      [yellow]{inst['moved']}[/]", soft_wrap=True)
        for c in inst.get("pending_conflicts", []):
            out.print(f"      [bold red]conflict[/]: {c['path']} (new version beside it: {c['new_version']}; "
                      f"edit {c['path']} as you want it, then delete the .msd-new file)", soft_wrap=True)
        pending = {c["new_version"] for c in inst.get("pending_conflicts", [])}
        _each(out, "      new version file: {}", [rel for rel in inst.get("new_versions", []) if rel not in pending])
        _each(out, "      resolved conflict (your version kept): {}", inst.get("resolved"))
        _each(out, "      backup of replaced edits: {}", inst.get("backups"))
        if inst.get("note"):
            out.print(f"      note: {inst['note']}", soft_wrap=True)
        if inst.get("interrupted"):
            out.print("      [red]an install was interrupted here[/]", soft_wrap=True)
        if inst.get("fix"):
            out.print(f"      fix: {inst['fix']}", soft_wrap=True)
        _print_verify(out, inst.get("verify"))
        hook = inst.get("hooks")
        if hook and hook.get("problem"):
            out.print(f"      [yellow]hooks:[/] {escape(hook['problem'])}", soft_wrap=True)
        elif hook and hook.get("ok") and hook.get("present"):
            out.print(f"      hooks: {escape(hook['path'])} runs {escape(hook['runner'])} on {', '.join(hook['events'])}"
                      + (f" for {escape(hook['matcher'])}" if hook.get("matcher") else "")
                      + (" and as the status line" if hook.get("status_line") else ""), soft_wrap=True)
        _each(out, "      hooks note: {}", [escape(n) for n in (hook or {}).get("notes") or []])
    pkg = d.get("package_verify")
    if pkg:
        if pkg.get("unverifiable"):
            out.print(f"[yellow]verify:[/] {escape(pkg['unverifiable'])}", soft_wrap=True)
        else:
            state = "[green]all match[/]" if pkg["ok"] else "[bold red]differ[/]"
            out.print(f"verify: the package's {pkg['files']} content files against {escape(pkg['record'] or 'RECORD')}: {state}", soft_wrap=True)
            for key in ("differs", "unlisted", "absent"):
                _each(out, f"      package content {key}: {{}}", pkg.get(key))
    _print_runner(out, d["msd_run"])
    for m in d.get("mcp", []):
        state = "registered" if m["registered"] else "not registered"
        allowed = "; mcp__msd allowed" if m["permission"] else ("; [yellow]mcp__msd not allowed[/]" if m["registered"] else "")
        extra = f"; [red]{m['error']}[/]" if m.get("error") else (f"; {m['other']}" if m.get("other") else "")
        out.print(f"MCP server ({m['scope']} scope, {m['path']}): {state}{allowed}{extra}", soft_wrap=True)


def _print_verify(out, v: dict | None) -> None:
    """One install's `--verify` result (msd_core/install/verify.py)."""
    if not v or v.get("unverifiable"):
        return
    if v["ok"]:
        out.print(f"      verify: [green]all {v['files']} files are the wheel's[/]", soft_wrap=True)
        return
    out.print(f"      verify: [bold red]{v['files'] - v['matching']} of {v['files']} files are not the wheel's[/]", soft_wrap=True)
    for key, label in (("differs", "differs from the wheel"), ("missing", "missing"),
                       ("from_changed_source", "its package source differs from RECORD"), ("not_shipped", "not in this wheel")):
        _each(out, f"        {label}: {{}}", v.get(key))


def _each(out, line: str, items) -> None:
    """One printed line per item: `line` with the item in place of `{}`."""
    for item in items or []:
        out.print(line.format(item), soft_wrap=True)


def _print_runner(out, runner: dict, *, prominent: bool = False, hooked: bool = False) -> None:
    install_view.runner(install_view.RichOut(console=out), runner, prominent=prominent, hooked=hooked)


def _do_install(verb: str, global_: bool, local: bool, config_dir: Optional[str], runtime: Optional[str],
                request: InstallRequest, json_output: bool) -> None:
    names = _runtimes(runtime, config_dir)
    scope = _scope(global_, local, verb)
    if config_dir:  # a folder you name is made, never the folders above it
        require_parent(_target(scope, config_dir, names[0]).config, "--config-dir",
                       "create the folder above it first, or choose another --config-dir")
    results = [_install_one(verb, _target(scope, config_dir, name), request, json_output)
               for name in names]  # one install per runtime folder, each with its own manifest and transaction
    _render_all(verb, results, json_output, _human_install)


def _render_all(verb: str, results: list, json_output: bool, human) -> None:
    """One result: as before. Several (one per runtime): in turn, or one JSON document listing each."""
    if len(results) == 1 or not json_output:
        for r in results:
            render(r, json_output, human)
        return
    combined = OperationResult(verb)
    combined.data = {"runtimes": [r.envelope() for r in results]}
    combined.warnings = [w for r in results for w in r.warnings]
    combined.exit_code = max(r.exit_code for r in results)
    render(combined, True)


def _install_one(verb: str, target, request: InstallRequest, json_output: bool):
    progress, cb = _progress_cb(json_output)
    if progress is not None:
        with progress:
            result = run_install(target, replace(request, progress=cb))
    else:
        result = run_install(target, request)
    result.command = verb
    result.data["msd_run"] = check()
    both = both_scopes(target)
    if both:
        result.warnings.append(both)
    return result


CONFIG_DIR_HELP = ("Use this Claude config folder instead of the scope's own (~/.claude or $CLAUDE_CONFIG_DIR for --global, "
                   "./.claude for --local); still give --global or --local.")
GLOBAL_HELP = "Install into the global Claude config folder (--config-dir, else $CLAUDE_CONFIG_DIR, else ~/.claude)."
LOCAL_HELP = "Install into .claude at the top of the git work tree holding the current folder (else the current folder)."
MERGE_DRIVERS_HELP = ("Do not register git merge drivers for the planning files in the project's repository (by default "
                      "--local registers them in this project, --global in the project holding the current folder, so "
                      "merges never conflict on STATE.md and merge ROADMAP.md and REQUIREMENTS.md by entry).")
PRE_PUSH_HELP = ("With --local: add a git pre-push hook that runs `msd_run drift --check` and stops a push while "
                 "drift is unresolved (a pre-push hook of your own is kept and run first). It stays through updates; "
                 "`msd uninstall --local` removes it and gives your own hook back byte for byte.")
PROFILE_HELP = ("full (every command and agent) or core (the daily loop: new-project, discuss, plan, execute, verify, progress, "
                "and every command their content names; agents kept out of the host's per-turn listing). Default: the install's recorded profile, else full. "
                "Switching removes the dropped commands' files you did not edit and keeps the ones you did.")


def register(app: typer.Typer) -> None:
    """Add install, update, uninstall and status to the `msd` app."""

    def make_install(verb: str, doc: str):
        @errors_to_exit
        def command(
            global_: bool = typer.Option(False, "--global", "-g", help=GLOBAL_HELP),
            local: bool = typer.Option(False, "--local", "-l", help=LOCAL_HELP),
            config_dir: Optional[str] = typer.Option(None, "--config-dir", metavar="DIR", help=CONFIG_DIR_HELP),
            dry_run: bool = typer.Option(False, "--dry-run", help="Report the verdicts; write nothing."),
            repair: bool = typer.Option(False, "--repair", help="Restore every shipped file that is missing or modified (modified ones are saved to a backup folder first, each reported) and rebuild a corrupt manifest."),
            force: bool = typer.Option(False, "--force", help="The same as --repair (replace files you edited after saving them to a backup folder)."),
            json_output: bool = typer.Option(False, "--json", help="Print a versioned JSON result with every per-file verdict."),
            allow_symlink: bool = typer.Option(False, "--allow-symlink", help="Install through a config folder that is a symlink."),
            content_dir: Optional[str] = typer.Option(None, "--content-dir", hidden=True),
            runtime: Optional[str] = typer.Option(None, "--runtime", metavar="NAMES", help=RUNTIME_HELP),
            profile: Optional[str] = typer.Option(None, "--profile", metavar="NAME", help=PROFILE_HELP),
            no_merge_drivers: bool = typer.Option(False, "--no-merge-drivers", help=MERGE_DRIVERS_HELP),
            pre_push: bool = typer.Option(False, "--pre-push", help=PRE_PUSH_HELP),
        ) -> None:
            request = InstallRequest(source=resolve_source(content_dir), force=force or repair, dry_run=dry_run,
                                     allow_symlink=allow_symlink, profile=profile, cwd=Path.cwd(),
                                     merge_drivers=not no_merge_drivers, pre_push=pre_push)
            _do_install(verb, global_, local, config_dir, runtime, request, json_output)

        command.__doc__ = doc
        return command

    app.command("install", epilog=examples(
        ("msd install --global", "for every project (~/.claude, or $CLAUDE_CONFIG_DIR)"),
        ("msd install --local", "for this project only (./.claude)"),
        ("msd install --global --dry-run", "each file's verdict; write nothing"),
        ("msd install --global --repair", "restore missing or edited files (edits backed up first)"),
        ("msd install --global --profile core", "the daily loop (new project, discuss, plan, execute, verify, progress) and what it names"),
        ("msd install --global --runtime claude,gemini", "one install per agent runtime"),
    ))(make_install("install", "Install msd-core's skills, agents and workflows (or update an install, keeping your edits)."))
    app.command("update")(make_install("update", "Update an install: same as `msd install`; your edits are merged or kept."))

    @app.command("uninstall", epilog=examples(
        ("msd uninstall --global --dry-run", "what would be removed and what kept"),
        ("msd uninstall --global", "remove msd's files; files you edited are kept and listed"),
        ("msd uninstall --local --remove-backups", "also delete the backup folders"),
    ))
    @errors_to_exit
    def uninstall_cmd(
        global_: bool = typer.Option(False, "--global", "-g", help="Remove the global install."),
        local: bool = typer.Option(False, "--local", "-l", help="Remove ./.claude's install."),
        config_dir: Optional[str] = typer.Option(None, "--config-dir", metavar="DIR", help=CONFIG_DIR_HELP),
        force: bool = typer.Option(False, "--force", help="Also remove files you edited (an edited .msd-new file and the backup folders are still kept)."),
        remove_backups: bool = typer.Option(False, "--remove-backups", help="Also delete msd's backup folders (the saved copies of edits that --repair/--force replaced); works after an uninstall too."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Report what would be removed; change nothing."),
        json_output: bool = typer.Option(False, "--json", help="Print a versioned JSON result."),
        allow_symlink: bool = typer.Option(False, "--allow-symlink", help="Work through a config folder that is a symlink."),
        runtime: Optional[str] = typer.Option(None, "--runtime", metavar="NAMES", help=RUNTIME_HELP),
    ) -> None:
        """Remove exactly the files msd installed; keep (and list) the ones you edited."""
        names = _runtimes(runtime, config_dir)
        scope = _scope(global_, local, "uninstall")
        results = [uninstall(_target(scope, config_dir, name), force=force, remove_backups=remove_backups, dry_run=dry_run, allow_symlink=allow_symlink)
                   for name in names]
        _render_all("uninstall", results, json_output, _human_uninstall)

    @app.command("status")
    @errors_to_exit
    def status_cmd(
        config_dir: Optional[str] = typer.Option(None, "--config-dir", metavar="DIR", help="Global Claude config folder to inspect (default: $CLAUDE_CONFIG_DIR, else ~/.claude); ./.claude is always shown too."),
        json_output: bool = typer.Option(False, "--json", help="Print a versioned JSON result."),
        verify: bool = typer.Option(False, "--verify", help="Also check every installed file against the wheel it came from: the package's content against the distribution's RECORD, then each installed file against the installer's transform of that content (not the install's own manifest). Exit 3 when one differs."),
    ) -> None:
        """Show installs (global and ./.claude): modified/missing/unexpected files, pending conflicts, .msd-new files, backups, and whether msd_run is on PATH."""
        if config_dir and os.path.lexists(os.path.expanduser(config_dir)) and not os.path.isdir(os.path.expanduser(config_dir)):
            raise UsageError(f"--config-dir {config_dir} is not a folder", hint="give the Claude config folder to inspect")
        render(status(config_dir=config_dir, verify=verify), json_output, _human_status)
