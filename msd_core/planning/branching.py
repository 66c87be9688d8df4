"""git.branching_strategy, decided in code (`msd_run branch`).

  none       no branch: work stays on the current branch
  phase      one branch per phase: git.phase_branch_template with {phase} (the phase id,
             `02`) and {slug} (the phase folder's or roadmap name's words, `user-auth`)
  milestone  one branch per milestone: git.milestone_branch_template with {milestone}
             (`--milestone`, else STATE.md's `milestone:` frontmatter key or `Milestone:`
             line, else the first `v1.2`-like version in ROADMAP.md's headings) and {slug}
             (the milestone's name when STATE.md gives `milestone_name`, else `milestone`)

The name is checked with `git check-ref-format --branch`. `apply` switches to the branch,
creating it from the current HEAD when it does not exist; already on it: nothing to do.
Uncommitted changes travel with the switch (git's own rule); git's refusal is one line.
The branch itself is checked, made and switched by msd_core.git.branches (spikes use the same
functions). Standard library only (git is started by msd_core.lean.spawn).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

_VERSION_RE = re.compile(r"^#{1,4}.*?\b(v\d+(?:\.\d+)*)\b", re.M)


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")[:50] or "x"


def _git(root: Path, *args: str, check: bool = True):
    from msd_core.lean import spawn

    try:
        r = spawn.run(["git", "-C", str(root), *args], dict(os.environ), 60)
    except FileNotFoundError:
        raise OperationFailed("git is not installed") from None
    except spawn.Timeout:
        raise OperationFailed(f"git {' '.join(args)} did not finish in 60 s") from None
    if check and r.returncode != 0:
        line = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise OperationFailed(f"git {' '.join(args)}: {line}")
    return r


def _fill(template: str, key: str, **values: str) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError) as exc:
        raise UsageError(f"{key} {template!r} has a placeholder msd does not fill ({exc})",
                         hint="use " + ", ".join("{" + k + "}" for k in values)) from None


def _milestone(root: Path) -> tuple[str | None, str | None]:
    from msd_core.files.safe_read import MAX_DOC_BYTES, read_text
    from msd_core.planning.frontmatter import split_frontmatter
    from msd_core.planning.state import state_get

    planning = root / ".planning"
    try:
        text = read_text(planning / "STATE.md", MAX_DOC_BYTES)
    except OSError:
        text = ""
    data, _body, _err = split_frontmatter(text) if text else (None, "", None)
    version = name = None
    if isinstance(data, dict):
        version = data.get("milestone")
        name = data.get("milestone_name")
    if not version and text:
        got = state_get(text, "Milestone")
        version = got.get("value") if got and "value" in got else None
    if not version:
        try:
            m = _VERSION_RE.search(read_text(planning / "ROADMAP.md", MAX_DOC_BYTES))
            version = m.group(1) if m else None
        except OSError:
            pass
    return (str(version).strip() or None) if version else None, (str(name) if name else None)


def decide(root: Path, strategy: str, templates: dict, phase: str | None, milestone: str | None) -> dict:
    """{"strategy", "branch" (None for none), "for"}; UsageError when a needed input is missing."""
    if strategy == "none":
        return {"strategy": "none", "branch": None, "for": None}
    if strategy == "phase":
        if not phase:
            raise UsageError("git.branching_strategy is phase: the branch is named for a phase", hint="give the phase", remedy="phase")
        from msd_core.planning.phase_ref import resolve

        ph = resolve(root / ".planning", phase)
        slug = slugify(ph.dirname.split("-", 1)[1] if "-" in ph.dirname else ph.name or "")
        name = _fill(templates.get("phase") or "msd/phase-{phase}-{slug}", "git.phase_branch_template",
                     phase=ph.id, slug=slug)
        target = f"phase {ph.id}"
    elif strategy == "milestone":
        found, mname = _milestone(root)
        version = milestone or found
        if not version:
            raise UsageError("git.branching_strategy is milestone but no milestone is known",
                             hint="give the milestone's version, e.g. v1.1", remedy="milestone")
        name = _fill(templates.get("milestone") or "msd/{milestone}-{slug}", "git.milestone_branch_template",
                     milestone=slugify(version).replace("-", ".") if re.fullmatch(r"v?[\d.]+", version) else slugify(version),
                     slug=slugify(mname or "milestone"))
        target = f"milestone {version}"
    else:
        raise UsageError(f"unknown git.branching_strategy {strategy!r}")
    from msd_core.git.branches import valid_name

    if not valid_name(root, name):
        raise UsageError(f"{name!r} is not a valid git branch name", hint="change the branch template in the config")
    return {"strategy": strategy, "branch": name, "for": target}


def apply(root: Path, branch: str) -> str:
    """Switch to `branch` (creating it): "current", "switched" or "created"."""
    if _git(root, "rev-parse", "--is-inside-work-tree", check=False).returncode != 0:
        raise OperationFailed(f"{root} is not a git repository; no branch made",
                              hint="run `git init`, or set git.branching_strategy to none")
    from msd_core.git import branches
    from msd_core.git.runner import current_branch

    current = current_branch(root) or ""
    if current == branch:
        return "current"
    if branches.exists(root, branch):
        branches.switch(root, branch)
        return "switched"
    branches.create(root, branch)
    return "created"
