"""`msd_run wave ...`: a phase's waves (rules in msd_core.execution.waves and msd_core.execution.wave_merge).

    msd_run wave plan --phase-dir <phase-dir> [--skip <plan-id>]...
        the next wave: runnable plans, batches (parallel: isolated worktrees, at most
        max_concurrent_agents at once; sequential: one at a time), blocked, stuck, and
        `base` (HEAD) for isolated executors. Exit 1 when two plans of one wave share a file, and
        (writing nothing) while a phase of another root its `Depends on:` line names is not done.
    msd_run wave check --phase-dir <phase-dir>
        the plan checker's checks: exit 1 naming both plans and the files when two plans of a
        wave share a file, or naming the plan whose checkpoint task contradicts `autonomous: true`.
    msd_run wave sync --base <sha>
        inside an isolated executor's worktree: move it to the orchestrator's base commit.
    msd_run wave merge --phase-dir <phase-dir> --wave <n> [--branch <plan-id>=<branch>]...
        merge the wave's executor branches in plan order, verify, remove their worktrees.
        Exit 1 on a conflict (merge aborted; both plans named) or a branch commit that
        `msd_run commit` did not make for its plan (not merged; the commits named).

`<phase-dir>` is a folder name (`02-auth`) under .planning/phases/, or a path to it.
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.cwd(parser)
    sub = parser.add_subparsers(dest="action", metavar="plan|check|sync|merge", parser_class=type(parser))
    sub.required = True
    for name, help_text in (("plan", "the next wave and how to run it"), ("check", "refuse two plans of one wave sharing a file")):
        p = sub.add_parser(name, help=help_text)
        options.cwd(p, sub=True)
        p.add_argument("--phase-dir", required=True, metavar="DIR", help="phase folder name or path")
        if name == "plan":
            p.add_argument("--skip", action="append", default=[], metavar="PLAN_ID", help="a plan skipped in this run")
    s = sub.add_parser("sync", help="move an isolated executor's worktree to the base commit")
    options.cwd(s, sub=True)
    s.add_argument("--base", required=True, metavar="SHA", help="the `base` printed by `wave plan`")
    m = sub.add_parser("merge", help="merge a wave's executor branches back, in plan order")
    options.cwd(m, sub=True)
    m.add_argument("--phase-dir", required=True, metavar="DIR", help="phase folder name or path")
    m.add_argument("--wave", required=True, type=int, metavar="N", help="the wave to merge")
    m.add_argument("--branch", action="append", default=[], metavar="PLAN_ID=BRANCH",
                   help="the branch an executor reported (else its run record is used)")


def _phase_path(root, value: str):
    from pathlib import Path

    from msd_core.errors import UsageError

    p = Path(value).expanduser()
    if not p.is_absolute():
        candidate = root / ".planning" / "phases" / value
        p = candidate if candidate.is_dir() or "/" not in value else root / p
    if not p.is_dir():
        raise UsageError(f"no phase folder {value}")
    planning = (root / ".planning").resolve()
    if p.is_symlink() or planning not in p.resolve().parents:
        raise UsageError(f"{value} is not a phase folder inside {planning} (symlinks are not followed)")
    return p


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.errors import UsageError

    cwd = Path(getattr(args, "cwd", None) or ".").expanduser().absolute()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {cwd} is not a directory")
    if args.action == "sync":
        from msd_core.execution.wave_merge import sync_worktree

        return sync_worktree(cwd, args.base)

    from msd_core.planning import project

    root = project.project_root(str(cwd))
    phase = _phase_path(root, args.phase_dir)
    if args.action == "merge":
        from msd_core.execution.wave_merge import merge_wave

        overrides: dict[str, list[str]] = {}
        for item in args.branch:
            pid, sep, br = item.partition("=")
            if not sep or not pid.strip() or not br.strip():
                raise UsageError(f"--branch {item!r}: use <plan-id>=<branch>")
            overrides.setdefault(pid.strip(), []).append(br.strip())
        result, code = merge_wave(root, phase, args.wave, overrides)
        sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
        if code and (result.get("conflict") or result.get("refused")):
            sys.stderr.write(f"msd_run wave merge: {(result.get('conflict') or result['refused'])['message']}\n")
        return code

    from msd_core.config.store import get_value
    from msd_core.execution.waves import contradictions, overlaps, phase_waves, read_plans

    def cfg(key):
        return get_value(key, cwd=root)

    if args.action == "check":
        plans, problems = read_plans(phase)
        result = {"phase_dir": phase.name, "overlaps": overlaps(plans), "contradictions": contradictions(plans),
                  "problems": problems}
    else:
        from msd_core.planning.discovery import normalize_phase
        from msd_core.progress.cross_root import not_ready

        held = not_ready(root, normalize_phase(phase.name.split("-", 1)[0]) or "")
        if held:  # a phase of another root it depends on is not done: no wave runs (nothing written)
            sys.stderr.write(f"msd_run wave plan: {held}\n")
            return 1
        result = phase_waves(phase, cfg, skipped=args.skip)
        from msd_core.git.runner import head
        from msd_core.progress import evidence

        evidence.mark_since(evidence.main_root(root))  # from now on a SUMMARY needs its commits

        result["base"] = head(root)
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    if result["overlaps"]:
        o = result["overlaps"][0]
        sys.stderr.write(
            f"msd_run wave {args.action}: plans {o['plans'][0]} and {o['plans'][1]} of wave {o['wave']} both modify "
            f"{', '.join(o['files'])}: move one to a later wave (depends_on) or merge them\n")
        return 1
    if args.action == "check" and result["contradictions"]:
        c = result["contradictions"][0]
        sys.stderr.write(f"msd_run wave check: plan {c['plan']} holds a checkpoint task but its frontmatter says "
                         "autonomous: true: set autonomous: false (it runs alone, in the project)\n")
        return 1
    return 0
