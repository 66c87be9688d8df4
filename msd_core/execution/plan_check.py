"""The plan checker's mechanical part: `msd_run check plan <phase>` (docs/CONTRACTS.md, "Plan check").

`check(files)` returns findings, each {code, severity, dimension, file, line, plan, message}; a
`blocker` makes the check fail (exit 1), a `warning` is reported only. `dimension` is the plan
checker's dimension the finding belongs to (msd-plan-checker reports it as that issue's; DIMENSIONS
below, so the agent maps nothing itself). Codes:

  no-plans                 blocker  the phase folder holds no PLAN.md
  file-unreadable          blocker  a PLAN.md, CONTEXT.md or ROADMAP.md cannot be read (a symlink, over 2 MiB, ...)
  plan-unreadable          blocker  a PLAN.md's frontmatter cannot be read
  requirement-unmapped     blocker  a requirement of the phase (ROADMAP.md) is in no plan's `requirements`
  requirement-unknown      warning  a plan claims a requirement the phase does not list
  decision-not-cited       blocker  a locked decision of CONTEXT.md that no task cites (`<decisions>`, or named in its text)
  decision-unknown         blocker  a task's `<decisions>` names an ID CONTEXT.md does not hold
  decision-duplicate       blocker  CONTEXT.md gives one decision ID twice
  decisions-unnumbered     warning  CONTEXT.md's locked decisions carry no IDs (an older file): not traceable
  scope-cut                blocker  a task citing a locked decision says it cuts it down ("v1", "for now", ...)
  must-haves-missing       blocker  a plan without must_haves truths
  artifacts-missing        blocker  a plan without must_haves artifacts
  key-links-missing        blocker  a plan without a `key_links` key (a plan that wires nothing writes `key_links: []`)
  must-haves-malformed     blocker  an artifact or key link code cannot use (no path, a bad pattern)
  checkpoint-autonomous    blocker  a checkpoint task in a plan whose frontmatter says `autonomous: true`
  wave-file-overlap        blocker  two plans of one wave, both still to run, modify one file
  dependency-cycle         blocker  plans that depend on each other in a circle
  dependency-later-wave    blocker  a plan depends on a plan of the same or a later wave
  dependency-unknown       warning  `depends_on` names no plan of this phase
  wave-missing             warning  a plan without a usable `wave` (counted as 1)

Standard library only.
"""

from __future__ import annotations

import re

# "placeholder" only as a stand-in ("a placeholder", "placeholder page"), not an input's placeholder
# text; TODO only in capitals (a todo list is a feature)
SCOPE_CUT_RE = re.compile(
    r"(?<![/\w.])v1(?![\w.])|\bsimplif(?:y|ied|ies|ication)\b|\bfor now\b|\bstub(?:s|bed)?\b|"
    r"\b(?:as an?|an?) placeholder\b|\bplaceholder (?:for now|implementation|version|data|content|page|screen|logic)s?\b|"
    r"\btemporar(?:y|ily)\b|\bminimal version\b|\bbasic version\b|\bMVP\b|(?-i:\bTODO\b)|\blater phase\b|\bnot yet\b",
    re.I)
_TAGS_RE = re.compile(r"<(files|verify|decisions)(?:\s[^>]*)?>.*?</\1\s*>", re.S | re.I)


# code -> the msd-plan-checker dimension its issue is reported under (agents/msd-plan-checker.md, step 2)
DIMENSIONS = {
    "no-plans": "task_completeness", "file-unreadable": "task_completeness", "plan-unreadable": "task_completeness",
    "requirement-unmapped": "requirement_coverage", "requirement-unknown": "requirement_coverage",
    "decision-not-cited": "context_compliance", "decision-unknown": "context_compliance",
    "decision-duplicate": "context_compliance", "decisions-unnumbered": "context_compliance", "scope-cut": "context_compliance",
    "must-haves-missing": "must_haves", "artifacts-missing": "must_haves", "key-links-missing": "must_haves",
    "must-haves-malformed": "must_haves",
    "checkpoint-autonomous": "dependencies", "wave-file-overlap": "dependencies", "dependency-cycle": "dependencies",
    "dependency-later-wave": "dependencies", "dependency-unknown": "dependencies", "wave-missing": "dependencies",
}


def _finding(code, severity, file, line, message, plan=None) -> dict:
    return {"code": code, "severity": severity, "dimension": DIMENSIONS[code], "file": file, "line": line, "plan": plan,
            "message": message}


def scope_cut_words(task_text: str) -> list[str]:
    """The scope-cut words of a task's own prose (its files, verify command and citations left out)."""
    words = [m.group(0) for m in SCOPE_CUT_RE.finditer(_TAGS_RE.sub(" ", task_text or ""))]
    return list(dict.fromkeys(w.lower() for w in words))


def _cycles(plans: list[dict]) -> list[list[str]]:
    graph = {p["id"]: p["depends_on"] for p in plans}
    found: list[list[str]] = []
    state: dict[str, int] = {}

    for start in graph:
        if state.get(start):
            continue
        stack = [(start, iter(graph[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if child not in graph:
                continue
            if state.get(child) == 1:
                cycle = path[path.index(child):] + [child]
                if sorted(cycle[:-1]) not in [sorted(c[:-1]) for c in found]:
                    found.append(cycle)
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(graph[child])))
    return found


def _wave_findings(files, by_pid) -> list[dict]:
    from msd_core.execution.waves import overlaps, read_plans

    plans, problems = read_plans(files.folder)
    out = []
    names = {pf.path.name: pf for pf in files.plans}
    for line in problems:  # unreadable files and frontmatter are reported by check(); checkpoints below
        name, _, what = line.partition(": ")
        if "no usable `wave`" in what and name in names:
            pf = names[name]
            out.append(_finding("wave-missing", "warning", pf.rel, pf.line_of("wave"), what, pf.pid))
    waves = {q["id"]: q["wave"] for q in plans}
    for p in plans:
        pf = by_pid.get(p["id"])
        rel = pf.rel if pf else p["id"]
        if p["contradiction"]:
            task = next((t for t in pf.plan.tasks if t.is_checkpoint), None) if pf else None
            out.append(_finding("checkpoint-autonomous", "blocker", rel, pf.line_of(task.name) if pf and task else 1,
                                f"a task is a checkpoint ({task.type if task else 'checkpoint'}) but autonomous is not false: "
                                "set autonomous: false", p["id"]))
        for dep in p["external_depends_on"]:
            out.append(_finding("dependency-unknown", "warning", rel, pf.line_of("depends_on") if pf else 1,
                                f"depends_on names {dep}, no plan of this phase", p["id"]))
        for dep in p["depends_on"]:
            if waves[dep] >= p["wave"]:
                out.append(_finding("dependency-later-wave", "blocker", rel, pf.line_of("depends_on") if pf else 1,
                                    f"wave {p['wave']} depends on {dep} of wave {waves[dep]}: a dependency runs in an earlier wave",
                                    p["id"]))
    for o in overlaps(plans):
        a, b = o["plans"]
        pf = by_pid.get(b)
        out.append(_finding("wave-file-overlap", "blocker", pf.rel if pf else b, pf.line_of("files_modified") if pf else 1,
                            f"plans {a} and {b} of wave {o['wave']} both modify {', '.join(o['files'])}: "
                            "make one depend on the other or merge them", b))
    for cycle in _cycles(plans):
        pf = by_pid.get(cycle[0])
        out.append(_finding("dependency-cycle", "blocker", pf.rel if pf else cycle[0], pf.line_of("depends_on") if pf else 1,
                            "plans depend on each other in a circle: " + " -> ".join(cycle), cycle[0]))
    return out


def check(files) -> list[dict]:
    """Every finding for the phase's planning files (msd_core.execution.phase_files.PhaseFiles)."""
    out: list[dict] = []
    for rel, reason in files.unreadable:
        out.append(_finding("file-unreadable", "blocker", rel, 1, reason))
    if not files.plans:
        out.append(_finding("no-plans", "blocker", files.phase.dirname, 0, "the phase folder holds no PLAN.md"))
        return out
    by_pid = {pf.pid: pf for pf in files.plans}

    claimed: dict[str, str] = {}
    for pf in files.plans:
        if pf.plan.frontmatter_error and not pf.plan.frontmatter:
            out.append(_finding("plan-unreadable", "blocker", pf.rel, 1, f"frontmatter unreadable ({pf.plan.frontmatter_error})", pf.pid))
            continue
        for rid in pf.requirement_ids:
            claimed.setdefault(rid, pf.pid)
            if files.requirements and rid not in files.requirements:
                out.append(_finding("requirement-unknown", "warning", pf.rel, pf.line_of("requirements"),
                                    f"claims {rid}, which is not a requirement of phase {files.phase.number}", pf.pid))
        must = pf.must
        fm_line = pf.line_of("must_haves")
        if not must.truths:
            out.append(_finding("must-haves-missing", "blocker", pf.rel, fm_line, "no must_haves truths: what is true when this plan is done?", pf.pid))
        if not must.artifacts:
            out.append(_finding("artifacts-missing", "blocker", pf.rel, fm_line, "no must_haves artifacts: which files must exist?", pf.pid))
        if must.present and not must.links_declared:
            out.append(_finding("key-links-missing", "blocker", pf.rel, fm_line,
                                "no must_haves key_links (from, to, pattern): how are the artifacts wired? "
                                "(`key_links: []` when the plan wires nothing)", pf.pid))
        for problem in must.problems:
            out.append(_finding("must-haves-malformed", "blocker", pf.rel, fm_line, problem, pf.pid))

    road = ".planning/ROADMAP.md"
    for rid in files.requirements:
        if rid not in claimed:
            out.append(_finding("requirement-unmapped", "blocker", road, files.requirements_line,
                                f"{rid} of phase {files.phase.number} is in no plan's requirements"))

    out += _decision_findings(files, by_pid)
    out += _wave_findings(files, by_pid)
    return out


def _decision_findings(files, by_pid) -> list[dict]:
    out: list[dict] = []
    dec = files.decisions
    if dec is None:
        return out
    ctx = files.context_rel
    for line, did in dec.duplicates:
        out.append(_finding("decision-duplicate", "blocker", ctx, line, f"{did} is given twice: a decision ID names one decision"))
    if dec.unnumbered and not dec.locked:
        line, text = dec.unnumbered[0]
        out.append(_finding("decisions-unnumbered", "warning", ctx, line,
                            f"{len(dec.unnumbered)} locked decision(s) carry no ID (`- D-01: ...`), e.g. {text[:60]!r}: "
                            "plans cannot cite them"))
    known = dec.by_id()
    locked = {d.id for d in dec.locked}
    cited: set[str] = set()
    from msd_core.planning.decisions import cited_ids

    for pf in files.plans:
        for task in pf.plan.tasks:
            line = pf.line_of(task.name) if task.name else 1
            named = cited_ids(task.text)  # `<decisions>` and a mention in its prose ("per D-02") alike
            cited.update(named)
            for did in task.decisions:
                if did not in known:
                    out.append(_finding("decision-unknown", "blocker", pf.rel, line,
                                        f"{task.name or 'a task'} cites {did}, which {ctx} does not hold", pf.pid))
            cites_locked = [d for d in named if d in locked]
            if cites_locked:
                words = scope_cut_words(task.text)
                if words:
                    out.append(_finding("scope-cut", "blocker", pf.rel, line,
                                        f"{task.name or 'a task'} implements locked {', '.join(cites_locked)} but says "
                                        f"{', '.join(repr(w) for w in words)}: build the decision as written, or ask the "
                                        "user to change it", pf.pid))
    for d in dec.locked:
        if d.id not in cited:
            out.append(_finding("decision-not-cited", "blocker", ctx, d.line,
                                f"locked decision {d.id} ({d.text[:60]}) is cited by no task's <decisions>"))
    return out


def report(files, findings: list[dict]) -> dict:
    blockers = sum(1 for f in findings if f["severity"] == "blocker")
    dec = files.decisions
    return {
        "phase": files.phase.id,
        "phase_dir": files.phase.dirname,
        "plans": len(files.plans),
        "requirements": files.requirements,
        "decisions": {"locked": len(dec.locked) if dec else 0, "unnumbered": len(dec.unnumbered) if dec else 0},
        "status": "issues_found" if blockers else "passed",
        "blockers": blockers,
        "warnings": len(findings) - blockers,
        "findings": findings,
    }
