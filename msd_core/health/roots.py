"""Health checks of what a project says about other projects in its repository (codes in msd_core.health.codes).

A `Depends on: Phase N of <folder>` reference (msd_core.planning.cross_root) must name a `.planning/`
root under the git work tree's top and a phase its ROADMAP.md lists: otherwise the phase waits
forever (`next` routes to wait-for-root). Checked with the one reading `next` uses
(msd_core.progress.cross_root). Nothing is written.
"""

from __future__ import annotations

from msd_core.health.codes import Finding


def cross_roots(t) -> list[Finding]:
    from msd_core.planning.cross_root import cross_refs
    from msd_core.progress import cross_root

    refs = cross_refs(t.roadmap_text)
    if not refs:
        return []
    top = cross_root.top_of(t.root)
    cache: dict = {}
    out = []
    for ref in refs:
        dep = cross_root.resolve(top, ref, cache)
        where = f"ROADMAP.md line {ref.line}: phase {ref.phase} depends on {ref.label()}"
        if dep["state"] in (cross_root.MISSING_ROOT, cross_root.INVALID):
            out.append(Finding("cross-root-missing", ".planning/ROADMAP.md", f"{where}, but {cross_root.describe(dep)}",
                               line=ref.line))
        elif dep["state"] == cross_root.MISSING_PHASE:
            out.append(Finding("cross-root-phase-missing", ".planning/ROADMAP.md", f"{where}, but {cross_root.describe(dep)}",
                               line=ref.line))
    return out


CHECKS = (cross_roots,)
