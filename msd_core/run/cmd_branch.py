"""`msd_run branch [--phase <n>] [--milestone <v>] [--apply]`: the branch git.branching_strategy wants.

JSON {"strategy", "branch", "for", "action"}: action is "none" (strategy none), "report"
(without --apply), or with --apply "current" / "switched" / "created". Rules in
msd_core.planning.branching. Exit 1 when git fails or the folder is no repository,
2 for a missing --phase / unknown milestone / invalid template.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.phase(parser)
    parser.add_argument("--milestone", metavar="V", help="the milestone version (strategy milestone), e.g. v1.1")
    parser.add_argument("--apply", action="store_true", help="switch to the branch, creating it if needed")
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.config import store
    from msd_core.planning import branching
    from msd_core.planning.project import project_root

    root = project_root(args.cwd)
    layers = store.load_layers(str(root))
    strategy = str(store.get_value("git.branching_strategy", str(root), layers))
    templates = {"phase": store.get_value("git.phase_branch_template", str(root), layers),
                 "milestone": store.get_value("git.milestone_branch_template", str(root), layers)}
    out = branching.decide(root, strategy, templates, args.phase, args.milestone)
    if out["branch"] is None:
        out["action"] = "none"
    elif args.apply:
        out["action"] = branching.apply(root, out["branch"])
    else:
        out["action"] = "report"
    return out
