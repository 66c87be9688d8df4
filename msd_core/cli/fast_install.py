"""`msd install` / `msd update` with nothing to change, answered before typer and rich are imported.

Importing typer and rich and building the app is most of what a no-op install costs
(scripts/bench_install.py). `main()` (cli/app.py) hands an install or update command line
here first. When every argument is one read here (--global/-g, --local/-l, --config-dir DIR,
--profile NAME, --runtime NAME for one runtime, --json, --no-merge-drivers) and the installer's own plan finds
nothing to change (msd_core.install.installer.noop: the same plan `msd install` makes, so no
repair or update is ever skipped), the result is printed as the command prints it: the same
JSON envelope, the same human view (msd_core/cli/install_view.py, plain text). Anything else
(another flag, help, no scope given, a change to make, a warning, an error) returns None and
typer runs the command as always, which decides and reports it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

OPTIONS = {"--global": "global", "-g": "global", "--local": "local", "-l": "local", "--json": "json",
           "--config-dir": "config_dir", "--profile": "profile", "--runtime": "runtime",
           "--no-merge-drivers": "no_merge_drivers"}
KINDS = {"global": bool, "local": bool, "json": bool, "config_dir": str, "profile": str, "runtime": str,
         "no_merge_drivers": bool}


def parse(argv: list[str]) -> dict | None:
    """{"verb", "global", "local", "json", "config_dir", "profile", "runtime", "no_merge_drivers"} or None
    when not ours to read."""
    if not argv or argv[0] not in ("install", "update"):
        return None
    from msd_core.cli.plainargs import plain_values

    out = plain_values(argv[1:], OPTIONS, KINDS, {k: (False if kind is bool else None) for k, kind in KINDS.items()})
    if out is None:
        return None
    out["verb"] = argv[0]
    if out["runtime"] is not None and "," in out["runtime"]:
        return None  # several runtimes: one install each, typer runs them
    if out["global"] == out["local"]:
        return None  # neither (typer asks or refuses) or both (typer refuses)
    return out


def target_for(scope: str, config_dir: str | None, runtime: str = "claude"):
    """The install target of a scope; UsageError when `--local` in the home folder would name the global one."""
    from msd_core.errors import UsageError
    from msd_core.paths import resolve_target

    target = resolve_target(scope, config_dir, runtime=runtime)
    if scope == "local" and not config_dir:
        home = resolve_target("global", None, runtime=runtime)
        if os.path.realpath(target.config) == os.path.realpath(home.config):
            # in the home folder ./.claude IS the global folder: a "local" install there would
            # mix a project's files into every project's ones (and --local uninstall remove them)
            raise UsageError(f"./{os.path.basename(target.config)} here is the global folder {home.config}",
                             hint="use --global, or run --local inside a project folder")
        here = os.getcwd()
        if os.path.realpath(target.config.parent) != os.path.realpath(here):
            sys.stderr.write(f"note: --local acts on the top of this git work tree, {target.config.parent} "
                             f"(started in {here})\n")
    return target


def both_scopes(target) -> str | None:
    """A warning when the other scope (global for a local install, this folder's local one for a
    global install) also holds a Claude Code install of msd-core, saying which one Claude Code uses:
    on a name both hold, a personal skill (~/.claude/skills) wins over a project's, and a project's
    agent (.claude/agents) over a personal one. None when there is no other install."""
    if target.runtime != "claude":
        return None
    other_scope = "global" if target.scope == "local" else "local"
    try:
        other = target_for(other_scope, None, target.runtime)
    except Exception:  # noqa: BLE001 - --local in the home folder and the like: nothing to compare
        return None
    if os.path.realpath(other.config) == os.path.realpath(target.config) or not other.manifest.is_file():
        return None
    where = "globally" if other_scope == "global" else "in this project"
    return (f"msd-core is also installed {where} ({other.config}): in this project Claude Code runs the global "
            f"/msd-* commands (a personal skill wins over a project's of the same name) and the project's agents "
            f"(a project's agent wins); keep one: `msd uninstall --{other_scope}` or `msd uninstall --{target.scope}`")


def answer(argv: list[str]) -> int | None:
    """Print the no-op install's result and return 0, or None for typer to run the command."""
    args = parse(argv)
    if args is None:
        return None
    from msd_core.errors import MsdError
    from msd_core.install.installer import noop
    from msd_core.runtimes import SUPPORTED

    runtime = (args["runtime"] or "claude").strip().lower()
    if runtime not in SUPPORTED:
        return None
    try:
        target = target_for("global" if args["global"] else "local", args["config_dir"], runtime)
        result = noop(target, profile=args["profile"], cwd=Path.cwd(), merge_drivers=not args["no_merge_drivers"])
    except (MsdError, OSError):
        return None
    if result is None:
        return None
    from msd_core.install.runner_path import check

    result.command = args["verb"]
    result.data["msd_run"] = check()
    both = both_scopes(target)
    if both:
        result.warnings.append(both)
    if args["json"]:
        from msd_core.result import json_text

        sys.stdout.write(json_text(result.envelope()))
    else:
        from msd_core.cli import install_view

        install_view.install(install_view.PlainOut(), result.data)
        for w in result.warnings:
            sys.stderr.write(f"warning: {w}\n")
    return 0
