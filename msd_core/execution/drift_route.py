"""`msd_run next` and drift: route to a drift review when drift makes the proposal wrong (issue 49).

`review(answer)` takes `next`'s answer (msd_core.progress.route.decide) and, for a route that
proposes work on a phase or on the milestone, reads drift for HEAD: the figure kept in
`.planning/.msd/drift.json` (msd_core.planning.drift_count) while HEAD and the acceptance file
are unchanged, else one `drift()` run, which keeps its figure for the next call. The answer gains
`drift: {count, review}`; it is replaced by route `review-drift` when a finding makes the
proposal wrong:

  stale-verification  of a phase other than the one proposed (next counts it done), caused by a
                      commit made outside the workflow, or verified on a commit this branch no
                      longer holds (rebased). msd's own later plans changing an earlier phase's
                      files are the workflow at work: `msd_run drift` lists them, next goes on.
  missing-file        a plan names a file a commit outside the workflow deleted or renamed (the
                      proposed phase's first): executing or counting it done would build on a
                      file that is not there. A file msd's own `undo` took back is not one: the
                      plan makes it again.
  (`requirement-gone` and outside commits on no verified file are counted, not routed: the
  missing-file findings behind a requirement route already, and an unrelated change is no reason
  to stop.)

The review answer's `command` is the first such finding's remedy (`/msd-verify-work N`,
`/msd-plan-phase N --gaps`), its reason names `msd_run drift --text` (every finding) and
`msd_run drift accept <commit> --reason "..."` (a change reviewed and kept); `proposed` holds the
route next would have taken. Drift that cannot be read (no git, no commit) leaves the answer as
it was, with a note. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

ROUTE = "review-drift"
REVIEW = "msd_run drift --text"
CHECKED = {"discuss-phase", "plan-phase", "execute-phase", "verify-work", "plan-gaps", "secure-phase", "ui-review",
           "audit-milestone", "complete-milestone"}
SHOWN = 5


def _read(root: Path) -> dict | None:
    """The drift figure for HEAD: the kept one, else computed now (and kept). None without a commit."""
    from msd_core.git.repo_files import main_project
    from msd_core.git.runner import head
    from msd_core.planning import drift_count

    tip = head(root)
    if tip is None:
        return None
    doc = drift_count.cached(root, tip)
    if doc is not None:
        return doc
    from msd_core.execution.drift import drift

    return drift_count.summary(root, drift(root, main_project(root)))  # drift() kept it for the next call


def wrong_by(doc: dict, answer: dict) -> list[dict]:
    """The findings that make `answer`'s proposal wrong (module doc), in the order to deal with them."""
    proposed = str((answer.get("phase") or {}).get("number") or "")
    outside = set(doc.get("outside") or [])
    stale: list[dict] = []
    gone: list[tuple[bool, dict]] = []
    for f in doc.get("findings") or []:
        if not isinstance(f, dict):
            continue
        kind, phase = f.get("kind"), str(f.get("phase") or "")
        mine = bool(proposed) and _same(phase, proposed)
        if kind == "stale-verification" and not mine and (f.get("rebased") or outside & set(f.get("commits") or [])):
            stale.append(f)
        elif kind == "missing-file" and f.get("commit") in outside:
            gone.append((not mine, f))
    return stale + [f for _other, f in sorted(gone, key=lambda pair: pair[0])]


def _same(a: str, b: str) -> bool:
    from msd_core.planning.roadmap import phase_sort_key

    return a == b or phase_sort_key(a) == phase_sort_key(b)


def review(answer: dict) -> dict:
    """`answer`, with the drift count, or the drift review that replaces it (module doc)."""
    if answer.get("route") not in CHECKED or not answer.get("project_root"):
        return answer
    from msd_core.errors import MsdError

    try:
        doc = _read(Path(answer["project_root"]))
    except (MsdError, OSError, ValueError) as exc:  # next answers without drift rather than not at all
        notes = list(answer.get("notes") or [])
        notes.append(f"drift not read ({getattr(exc, 'message', None) or exc}): `{REVIEW}` says why")
        return {**answer, "notes": notes}
    if doc is None:
        return answer
    summary = {"count": doc["count"], "review": REVIEW}
    wrong = wrong_by(doc, answer)
    if not wrong:
        return {**answer, "drift": summary} if doc["count"] else answer
    first = wrong[0]
    reason = (f"{first['message']}: {answer['route']} would build on it. Review every finding with `{REVIEW}`, then "
              f"{first['command']}, or keep a reviewed change with `msd_run drift accept <commit> --reason \"...\"`"
              + (f" ({len(wrong) - 1} more like it)" if len(wrong) > 1 else ""))
    shown = [{k: f[k] for k in ("kind", "phase", "message", "command") if k in f} for f in wrong[:SHOWN]]
    return {**answer, "route": ROUTE, "command": first["command"], "reason": reason,
            "proposed": {"route": answer["route"], "command": answer["command"]},
            "drift": {**summary, "findings": shown}}
