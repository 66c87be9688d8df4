"""`msd_run extensions <agent> ...`: the extension files a subagent must read (rules in msd_core.agents.extensions).

  msd_run extensions executor --plan <plan-path> [--completed <n>] --root ~/.claude/msd-core [--raw]
  msd_run extensions planner --phase-dir <phase-dir> [--gaps] [--revision] [--new-deps] --root ~/.claude/msd-core [--raw]

JSON {"agent", "extensions": [{"name", "path", "reason"}], "notes"?} or, with --raw, one
absolute path per line (nothing when no extension applies). Relative --plan/--phase-dir
paths are taken from --cwd (default: the current directory).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from msd_core.run import options

MAX_TASKS = 100_000


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.argtypes import count

    parser.add_argument("agent", help="agent name without the msd- prefix (executor, planner, ...)")
    parser.add_argument("--plan", metavar="PLAN", help="executor: the PLAN.md to execute")
    parser.add_argument("--completed", type=count(0, MAX_TASKS, "--completed"), metavar="N", help="executor: tasks already completed (resuming)")
    parser.add_argument("--phase-dir", metavar="DIR",
                        help="planner: the phase folder being planned (or a phase reference: 2, 02-auth)")
    parser.add_argument("--gaps", action="store_true", help="planner: planning gap closure from verification")
    parser.add_argument("--revision", action="store_true", help="planner: revising plans after checker issues")
    parser.add_argument("--new-deps", action="store_true", help="planner: the phase brings in new dependencies")
    options.root(parser)
    options.cwd(parser)
    options.raw(parser, what="one absolute path per line")


def _abs(value: str | None, base: Path) -> Path | None:
    if value is None:
        return None
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _phase_folder(value: str | None, base: Path) -> Path | None:
    """--phase-dir as a path, or, when no such folder exists and the value has no `/`,
    as a phase reference (`2`, `Phase 2`, `02-auth`) resolved by msd_core.planning.phase_ref."""
    path = _abs(value, base)
    if path is None or path.exists() or "/" in value:
        return path
    from msd_core.paths import find_project_root
    from msd_core.planning.phase_ref import resolve

    project = find_project_root(base)
    if project is None:
        return path
    found = resolve(project / ".planning", value, must_exist=True)
    return found.folder


def run(args: argparse.Namespace):
    from msd_core.agents.extensions import select_extensions
    from msd_core.errors import UsageError
    from msd_core.paths import default_resolve_root

    base = Path(args.cwd).expanduser().absolute() if args.cwd else Path.cwd()
    if args.cwd and not base.is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a directory")
    root = _abs(args.root, base) if args.root else default_resolve_root()
    selection = select_extensions(
        args.agent,
        root,
        plan=_abs(args.plan, base),
        completed=args.completed,
        phase_dir=_phase_folder(args.phase_dir, base),
        gaps=args.gaps,
        revision=args.revision,
        new_deps=args.new_deps,
    )
    return selection.raw() if args.raw else selection.to_json()
