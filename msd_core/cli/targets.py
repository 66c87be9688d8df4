"""Which config folder an install acts on, and whether the other scope holds an install too.

`target_for` is the scope's folder (with the refusal of `--local` in the home folder, where
./.claude is the global folder); `both_scopes` the warning when a global and a local install
of msd-core meet in one project.
"""

from __future__ import annotations

import os
import sys

from msd_core.errors import UsageError
from msd_core.paths import resolve_target


def target_for(scope: str, config_dir: str | None, runtime: str = "claude"):
    """The install target of a scope; UsageError when `--local` in the home folder would name the global one."""

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
