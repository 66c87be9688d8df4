"""A git repository holding several `.planning/` roots, written file by file (no msd command makes them).

    top = three_roots(tmp_path / "mono")        # ., services/api, apps/web
    root(top, "libs/x", {"1": "verified", "2": "new"}, depends={"2": "Phase 1 of services/api"})

A phase's stage: `new` (listed only), `context` (a CONTEXT.md), `planned` (a PLAN),
`executed` (PLAN and SUMMARY), `verified` (and a VERIFICATION with status passed).
Each root's config turns the verifier on; nothing else is set.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.gitkit import git, new_repo

STAGES = ("new", "context", "planned", "executed", "verified")


def roadmap(phases: dict[str, str], depends: dict[str, str], names: dict[str, str] | None = None) -> str:
    names = names or {}
    lines = ["# Roadmap", "", "## Phases", ""]
    for n in phases:
        lines.append(f"- [ ] **Phase {n}: {names.get(n, 'Part ' + n)}** - work")
    lines += ["", "## Phase Details", ""]
    for n in phases:
        lines += [f"### Phase {n}: {names.get(n, 'Part ' + n)}", "**Goal**: it works",
                  f"**Depends on**: {depends.get(n, 'Nothing')}", ""]
    return "\n".join(lines)


def write_phase(planning: Path, n: str, stage: str, name: str = "part") -> None:
    nn = n.zfill(2)
    folder = planning / "phases" / f"{nn}-{name}"
    if stage == "new":
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{nn}-CONTEXT.md").write_text(f"# Phase {n} context\n", encoding="utf-8")
    if STAGES.index(stage) >= STAGES.index("planned"):
        (folder / f"{nn}-01-PLAN.md").write_text(f"---\nphase: {nn}-{name}\nplan: 1\nwave: 1\n---\n# Plan\n", encoding="utf-8")
    if STAGES.index(stage) >= STAGES.index("executed"):
        (folder / f"{nn}-01-SUMMARY.md").write_text(f"---\nphase: {nn}-{name}\nplan: 1\n---\n# Summary\n", encoding="utf-8")
    if stage == "verified":
        (folder / f"{nn}-VERIFICATION.md").write_text("---\nstatus: passed\n---\n# Verification\n", encoding="utf-8")


def root(top: Path, rel: str, phases: dict[str, str], depends: dict[str, str] | None = None,
         names: dict[str, str] | None = None) -> Path:
    base = top / rel if rel != "." else top
    planning = base / ".planning"
    planning.mkdir(parents=True, exist_ok=True)
    (planning / "PROJECT.md").write_text(f"# {rel}\n", encoding="utf-8")
    (planning / "ROADMAP.md").write_text(roadmap(phases, depends or {}, names), encoding="utf-8")
    (planning / "config.json").write_text(json.dumps({"workflow": {"verifier": True}}), encoding="utf-8")
    for n, stage in phases.items():
        write_phase(planning, n, stage)
    return base


def three_roots(top: Path, *, web_depends: str = "Phase 1 of services/api", api_stage: str = "planned",
                web_stage: str = "planned") -> Path:
    """A repository: the top's own project (phase 1 verified), services/api (phase 1 at `api_stage`),
    apps/web (phase 1 at `web_stage`, depending on `web_depends`)."""
    new_repo(top)
    root(top, ".", {"1": "verified", "2": "new"})
    root(top, "services/api", {"1": api_stage, "2": "new"})
    root(top, "apps/web", {"1": web_stage}, depends={"1": web_depends})
    (top / "README.md").write_text("mono\n", encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "three roots")
    return top
