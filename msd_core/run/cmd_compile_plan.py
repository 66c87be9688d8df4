"""`msd_run compile-plan <plan-path> [--check] [--root ~/.claude/msd-core]` (rules in msd_core.planning.compile_plan).

Writes the compiled plan under `.planning/.msd/compiled/` (never beside the plan, never
touching the project's .gitignore), or reuses it when every recorded input is unchanged.
JSON {"plan", "compiled", "status": "written"|"fresh", "inlined", "stripped", "refused", "warnings"}. With --check nothing is written:
{"plan", "compiled", "fresh", "stale": [...]}, exit 0 when fresh, 1 when stale or absent.
Exit 3 when an installed file is missing or fails its manifest hash (the error names `msd install … --repair`).
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("plan", help="the PLAN.md to compile")
    parser.add_argument("--check", action="store_true", help="only say whether the compiled plan is fresh (exit 0) or stale (exit 1)")
    options.root(parser)
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.errors import OperationFailed, UsageError
    from msd_core.paths import find_project_root
    from msd_core.planning import compile_plan as cp
    from msd_core.planning.project import plan_and_root, read_text_file

    base, plan_path, root = plan_and_root(args.plan, args.root, args.cwd)
    if plan_path.name.endswith(".compiled.md"):
        raise UsageError(f"{plan_path.name} is a compiled plan; pass the source PLAN.md")
    project = find_project_root(plan_path.parent)
    if project is None:
        raise OperationFailed(f"{plan_path} is not inside a project (no .planning/ above it)")
    raw, _text = read_text_file(plan_path, "plan", max_bytes=cp.MAX_PLAN_BYTES)
    out = cp.compiled_path(plan_path, project)
    if out.is_symlink():
        raise OperationFailed(f"{out} is a symlink; refusing to write through it")
    compiler = cp.Compiler(plan_path, project, root)

    from msd_core.files.safe_read import read_regular

    meta = None
    try:
        meta = cp.recorded_inputs(read_regular(out, 2 * cp.MAX_TOTAL_BYTES, follow_symlinks=False)
                                  .decode("utf-8", errors="replace"))
    except OSError:
        meta = None
    stale = cp.stale_inputs(meta, compiler) if meta else ["no compiled plan" if not out.exists() else "no input record"]
    result = {"plan": str(plan_path), "compiled": str(out)}
    if args.check:
        result.update({"fresh": not stale, "stale": stale})
        sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
        return 0 if not stale else 1
    if not stale:
        result.update({"status": "fresh"})
        return result

    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked
    from msd_core.planning.project import private_dir

    with locked(private_dir(project) / "compile.lock", lock_timeout_from_env(), what="compile-plan", anchor=project):
        text = compiler.compile(raw)
        atomic_write_bytes(out, text.encode("utf-8"), anchor=project)
    result.update({
        "status": "written",
        "inlined": compiler.inlined,
        "stripped": compiler.stripped,
        "refused": compiler.refused,
        "warnings": compiler.warnings,
    })
    return result
