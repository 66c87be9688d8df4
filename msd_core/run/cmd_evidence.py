"""`msd_run evidence status | adopt`: whether msd asks this project's SUMMARYs for their evidence.

    msd_run evidence status [--cwd DIR]
        {"required": bool, "since", "cutoff": [plans taken on their SUMMARY], "source": "clone" | "config" |
        "history"}: `required` false means every SUMMARY is taken on its word (a tree msd never wrote).
    msd_run evidence adopt [--cwd DIR]
        for a project made before msd: from now on every SUMMARY needs the proof of its recorded
        commits (msd_core.progress.evidence), except the plans summarised now, while their SUMMARY
        is unchanged (the cutoff, recorded with each SUMMARY's sha256). The marker goes into this
        clone's `.planning/.msd/` and, committed, into `.planning/config.json` (`committed`: the file
        to commit, so every clone asks the same; msd_core.progress.committed_evidence). A project that
        carries a marker already keeps it (`created` false), and its config.json gets it when it has
        none. Exit 1 when the marker cannot be written; exit 2 when config.json does not parse.

A project msd creates (`msd init new-project`, the new-project flow) carries the marker from its
first command, in config.json too; `adopt` is for a person bringing an older `.planning/` to msd.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("status", "adopt"), metavar="status|adopt", help="status: read the marker; adopt: write it for an older project")
    options.cwd(parser)


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.errors import OperationFailed, UsageError
    from msd_core.planning import project
    from msd_core.progress import evidence

    cwd = Path(args.cwd or ".").expanduser().absolute()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {cwd} is not a directory")
    root = project.project_root(str(cwd))
    main = evidence.main_root(root)
    if args.action == "adopt":
        if not (main / ".planning").is_dir():
            raise UsageError(f"no .planning/ at {main}", hint="start a project with /msd-new-project or `msd init new-project`")
        from msd_core.progress.committed_evidence import publish, recorded

        try:
            out = evidence.begin(main)
            shared = publish(main, out, create=True)
        except OSError as exc:
            raise OperationFailed(f"the evidence marker was not written: {getattr(exc, 'strerror', None) or exc}") from None
        result = {"required": True, "since": out["since"], "created": out["created"], "source": out["source"],
                  "cutoff": sorted(out["cutoff"] or {}), "committed": shared["path"],
                  "hint": f"commit {shared['path']}: a clone of this project then asks the same evidence"}
        if recorded(main) is None:  # config.json holds an `evidence` msd did not write: kept, never overwritten
            result["problem"] = (f"{shared['path']} holds an `evidence` that is not msd's record (a clone ignores it); "
                                 "remove it and run `msd_run evidence adopt` again")
        return result
    found = evidence.marker(main) or evidence.implied(main)
    if found is None:
        return {"required": False, "since": None, "cutoff": [], "source": None,
                "hint": "SUMMARYs are taken on their word; `msd_run evidence adopt` asks them for their commits from now on"}
    return {"required": True, "since": found["since"], "cutoff": sorted(found["cutoff"] or {}), "source": found["source"]}
