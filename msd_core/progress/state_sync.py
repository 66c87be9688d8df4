"""STATE.md's derived lines, recomputed from the project's files (`msd_run state sync`).

Derived (and only these; every other byte of STATE.md is kept). Labels are msd's, with the
older spelling after `/` (msd_core.planning.state_labels: a line is found under either):

  Focus / Current focus     (any section)   Phase <n> (<name>)        | Milestone audit | Milestone completion
                                                                        | Next milestone
  Phase                     (Position)      <n> of <total> (<name>)   | <total> of <total> (all phases done)
                                                                        | None (between milestones)
  Plan                      (Position)      <x> of <plans> in current phase | Not planned yet
  Status                    (Position)      msd_core.progress.lifecycle.status
  Last change / Last activity (Position)    <YYYY-MM-DD> (<what>)     from the newest phase file
  Progress                  (Position)      [###-------] 30%

Position is also found as `Current Position`.

Inputs: the project's position as `msd_run next` reads it (msd_core.progress.lifecycle.where:
ROADMAP.md's phase list, the current `phases/` folders with their plans, summaries, CONTEXT,
VERIFICATION and UAT files, the gate outcome, the milestone's state), the flow runs in
`.planning/state.json`, and file modification times (Last activity).

ROADMAP.md's checkboxes are kept by the same model (lifecycle.roadmap_marks): a phase line
is ticked when its files say it is done and unticked when they reopen the current phase; a
plan line (`- [ ] 02-01-PLAN.md`) is ticked exactly when its SUMMARY exists. Only the
character between the brackets changes; the report lists them under `roadmap`.

- current phase: the first phase not done (route rule 4); none → the milestone's state.
- <x>: plans with a SUMMARY + 1 while some plan has none, else the number of plans.
- progress: (phases done + the current phase's summarised share of its plans) / phases,
  rounded down to a whole percent; the bar has ten cells, one `#` per full 10%.
- last activity: of ROADMAP.md and the files of the current-milestone phase folders (PLAN,
  SUMMARY, CONTEXT, RESEARCH, VERIFICATION, UAT), the day (UTC) of the newest modification
  time, and the furthest point the files of that day reached: the latest phase (in phase
  order), then the furthest in the lifecycle (RANK), then the later name: `completed
  02-01-PLAN.md` (a SUMMARY), `planned 02-01-PLAN.md`, `discussed phase 2`, `researched phase
  2`, `verified phase 2`, `acceptance tests of phase 2`, `roadmap updated`. File times only
  pick the day, so the line does not depend on the order or the moment a git checkout or merge
  writes the files (only on the day), and a merge driver can derive it before git writes them
  (msd_core.merging.merged_tree).

The `<!-- msd: derived from <12 hex> ... -->` line (where the file has one; msd's template does)
is derived too: `inputs_digest` of ROADMAP.md as this sync leaves it and of the phase folders'
files, so a branch that changed what the lines are derived from changes STATE.md and a merge
hands it to msd's merge driver (msd_core.merging).

In the frontmatter, the `progress:` mapping older STATE.md files keep (total_phases,
completed_phases, total_plans, completed_plans, percent) is derived too, key by key.
A line that is not in the file is reported in `missing`, never invented. Two current
folders sharing a phase number are reported in `warnings` (the first is read). Values are
replaced in place with the line's own prefix (`Focus:`, `**Current focus:**`) and line ending.
Standard library only.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from msd_core.errors import MsdError

BAR_CELLS = 10
KINDS = (("-SUMMARY.md", "completed"), ("-PLAN.md", "planned"), ("CONTEXT.md", "discussed"),
         ("RESEARCH.md", "researched"), ("VERIFICATION.md", "verified"), ("UAT.md", "acceptance tests of"))
# the lifecycle order of what a file says happened within a phase (ROADMAP.md: 0)
RANK = {"CONTEXT.md": 1, "RESEARCH.md": 2, "-PLAN.md": 3, "-SUMMARY.md": 4, "VERIFICATION.md": 5, "UAT.md": 6}
# (section, field) of every derived line, in the order they are reported
LINES = ((None, "Current focus"), ("Current Position", "Phase"), ("Current Position", "Plan"),
         ("Current Position", "Status"), ("Current Position", "Last activity"), ("Current Position", "Progress"))


def progress_bar(percent: int) -> str:
    full = max(0, min(BAR_CELLS, percent // 10))
    return "[" + "#" * full + "-" * (BAR_CELLS - full) + f"] {percent}%"


def _flows_running(root: Path) -> dict[str, str | None]:
    """{workflow: the phase it runs for (its `phase` variable), or None} of the flows not done."""
    from msd_core.errors import MsdError
    from msd_core.planning import flow_state as state_file

    try:
        doc = state_file.read_state(state_file.default_state_path(root))
    except MsdError:
        return {}
    out: dict[str, str | None] = {}
    for name, run in doc.get("workflows", {}).items():
        if isinstance(run, dict) and run.get("status") != "done" and isinstance(run.get("current"), str):
            phase = run.get("vars", {}).get("phase") if isinstance(run.get("vars"), dict) else None
            out[name] = phase if isinstance(phase, str) else None
    return out


def _last_activity(root: Path, ordered, listings: dict | None = None) -> str | None:
    candidates: list[tuple[float, int, int, str, str]] = []  # (mtime, kind rank, phase position, name, what)
    roadmap = root / ".planning" / "ROADMAP.md"
    try:
        st = os.lstat(roadmap)
        candidates.append((st.st_mtime, 0, -1, roadmap.name, "roadmap updated"))
    except OSError:
        pass
    for position, info in enumerate(ordered):
        if info.folder is None:
            continue
        entries = (listings or {}).get(info.folder)  # the files lifecycle.where listed (their stat kept)
        if entries is None:
            try:
                entries = list(os.scandir(info.folder))
            except OSError:
                continue
        for e in entries:
            if not e.is_file(follow_symlinks=False) or e.name.endswith(".compiled.md"):
                continue
            for suffix, verb in KINDS:
                if e.name.endswith(suffix) or e.name == suffix.lstrip("-"):
                    if suffix == "-SUMMARY.md":
                        what = f"{verb} {e.name[: -len(suffix)]}-PLAN.md"
                    elif suffix == "-PLAN.md":
                        what = f"{verb} {e.name}"
                    else:
                        what = f"{verb} phase {info.number}"
                    candidates.append((e.stat(follow_symlinks=False).st_mtime, RANK[suffix], position, e.name, what))
                    break
    if not candidates:
        return None
    day = time.strftime("%Y-%m-%d", time.gmtime(max(c[0] for c in candidates)))
    that_day = [c for c in candidates if time.strftime("%Y-%m-%d", time.gmtime(c[0])) == day]
    pick = max(that_day, key=lambda c: (c[2], c[1], c[3]))
    return f"{day} ({pick[4]})"


def shared_numbers(root: Path) -> list[str]:
    """One line per phase number that two current folders share: only the first is read."""
    from msd_core.planning.discovery import phase_dirs

    seen: dict[str, list[str]] = {}
    for d in phase_dirs(root / ".planning"):
        if d.milestone is None and d.number is not None:
            seen.setdefault(d.number, []).append(d.name)
    return [f"phase {n}: {len(names)} folders share the number ({', '.join(names)}); only {names[0]} is read, "
            "renumber the others" for n, names in seen.items() if len(names) > 1]


def inputs_digest(roadmap_text: str | None, ordered, verifier: bool) -> str:
    """What the derived lines are computed from in the files git carries, as 12 hex digits:
    ROADMAP.md's text, each current phase's folder, file names and check statuses, and the
    verifier setting (file times aside; the running flows are not committed: .planning/state.json
    is a working file). Two branches that changed any of these write different STATE.md files,
    so git always hands STATE.md to msd's merge driver, which re-derives the lines. Two CRC-32
    sums (zlib: hashlib is too dear for msd_run's hot path); a collision only means a merge
    keeps one side's lines until the next sync."""
    import zlib

    parts = [roadmap_text or ""]
    for info in ordered:
        checks = [f"{c.kind}={c.status}" for c in (info.verification, info.uat) if c is not None]
        parts.append(repr((info.number, info.folder.name if info.folder else None, sorted(info.plans), info.summaries,
                           info.has_context, checks)))
    parts.append(repr(verifier))
    data = "\n".join(parts).encode("utf-8", "replace")
    return f"{zlib.crc32(data):08x}{zlib.crc32(data[::-1]) & 0xffff:04x}"


def _roadmap_after_marks(w) -> str:
    """ROADMAP.md's text as `sync` leaves it (its derived checkboxes set): the digest is the same
    before and after the sync that writes them."""
    from msd_core.progress import lifecycle

    text = w.roadmap_text or ""
    marks = lifecycle.roadmap_marks(w, text) if text else []
    return roadmap_text_marks(text, marks) if marks else text


def _plans_done(info) -> int:
    """The phase's plans that ran: summarised, and proven where msd must see their evidence
    (a SUMMARY without its commits is still to do: lifecycle's `unproven`)."""
    return len(info.plans) - len(info.unsummarised) - len(info.unproven)


def derive(root: Path, w=None, listings: dict | None = None) -> dict[str, str | None]:
    """{field: value} for every derived line (None: nothing to derive it from), from the
    project's position (msd_core.progress.lifecycle.where, computed here unless given; what was
    not read is in its `skipped`, the same for every reader)."""
    from msd_core.progress import lifecycle

    if w is None:
        listings = {}
        w = lifecycle.where(root, listings=listings, read_state=False)
    ordered, states, current = w.phases, w.states, w.current
    total = len(ordered)
    done = w.done_count
    out: dict[str, str | None] = {field: None for _sec, field in LINES}
    out["Last activity"] = _last_activity(root, ordered, listings)
    out[DIGEST] = inputs_digest(_roadmap_after_marks(w), ordered, w.verifier)
    if total == 0:
        if w.milestone == "between":
            out.update({"Current focus": lifecycle.MILESTONE_FOCUS["between"], "Phase": "None (between milestones)",
                        "Plan": "Not planned yet", "Status": lifecycle.MILESTONE_STATUS["between"],
                        "Progress": progress_bar(0)})
        return out
    all_plans = sum(len(p.plans) for p in ordered)
    summarised_all = sum(_plans_done(p) for p, _s in states)
    out.update({"progress.total_phases": str(total), "progress.completed_phases": str(done),
                "progress.total_plans": str(all_plans), "progress.completed_plans": str(summarised_all)})
    running = _flows_running(root)
    if current is None:
        focus = lifecycle.MILESTONE_FOCUS[w.milestone]
        if w.gate_target is not None:
            focus = f"Phase {w.gate_target.number}" + (f" ({w.gate_target.name})" if w.gate_target.name else "")
        out.update({"Current focus": focus, "Phase": f"{total} of {total} (all phases done)",
                    "Status": lifecycle.status(w, running), "Progress": progress_bar(100), "progress.percent": "100"})
        return out
    info, state = current
    position = next(i for i, p in enumerate(ordered) if p is info) + 1
    name = f" ({info.name})" if info.name else ""
    plans = len(info.plans)
    summarised = _plans_done(info)
    status = lifecycle.status(w, running)
    share = summarised / plans if plans else 0.0
    percent = int(100 * (done + share) / total) if total else 0
    out["progress.percent"] = str(percent)
    out.update({
        "Current focus": f"Phase {info.number}{name}",
        "Phase": f"{position} of {total}{name}" if info.number == str(position) else f"{info.number} ({position} of {total}){name}",
        "Plan": f"{min(summarised + 1, plans) if summarised < plans else plans} of {plans} in current phase" if plans
        else "Not planned yet",
        "Status": status,
        "Progress": progress_bar(percent),
    })
    return out


def sync_text(text: str, derived: dict[str, str | None]) -> tuple[str, list[dict], list[str]]:
    """(new text, changes [{field, line, old, new}], missing fields) for STATE.md's text."""
    from msd_core.planning.state import StateDoc

    doc = StateDoc(text)
    lines = list(doc.lines)
    changes: list[dict] = []
    missing: list[str] = []
    for section, field in LINES:
        value = derived.get(field)
        if value is None:
            continue
        sections = [doc.find_section(section)] if section else doc.sections
        hit = None
        for sec in sections:
            if sec is not None:
                hit = doc.field_line(sec, field)
                if hit:
                    break
        if hit is None:
            missing.append(field)
            continue
        i, m = hit
        old = m.group("val")
        if old.strip() == value:
            continue
        pre = m.group("pre")
        if not pre.endswith((" ", "\t")):
            pre += " "
        lines[i] = pre + value + (m.group("eol") or "")
        changes.append({"field": field, "line": i + 1, "old": old.strip(), "new": value})
    _sync_frontmatter(doc, lines, derived, changes)
    _sync_digest(lines, derived, changes)
    return "".join(lines), changes, missing


DIGEST = "derived from"
_DIGEST_RE = re.compile(r"^(?P<pre><!--\s*msd:\s*derived from\s+)(?P<val>[0-9a-f]+)(?P<post>\b.*)$", re.S)


def _sync_digest(lines: list[str], derived: dict, changes: list[dict]) -> None:
    """The `<!-- msd: derived from <digest> ... -->` line (inputs_digest), where the file has one;
    never added to a file without it."""
    value = derived.get(DIGEST)
    if value is None:
        return
    for i, line in enumerate(lines):
        m = _DIGEST_RE.match(line)
        if m:
            if m.group("val") != value:
                lines[i] = m.group("pre") + value + m.group("post")
                changes.append({"field": DIGEST, "line": i + 1, "old": m.group("val"), "new": value})
            return


FM_PROGRESS = ("total_phases", "completed_phases", "total_plans", "completed_plans", "percent")


def _sync_frontmatter(doc, lines: list[str], derived: dict, changes: list[dict]) -> None:
    """The frontmatter's `progress:` mapping (older STATE.md files keep one): each of its
    FM_PROGRESS keys that is present gets the derived number; nothing is added."""
    if not doc.fm_lines:
        return
    first, last = doc.fm_lines
    start = next((i for i in range(first, last) if re.match(r"^progress:[ \t]*\r?\n?$", lines[i])), None)
    if start is None:
        return
    rx = re.compile(r"^(?P<pre>[ \t]+(?P<key>[a-z_]+):[ \t]*)(?P<val>[^\r\n]*?)(?P<eol>\r?\n)?$")
    for i in range(start + 1, last):
        m = rx.match(lines[i])
        if not m:
            break
        value = derived.get("progress." + m.group("key"))
        if m.group("key") not in FM_PROGRESS or value is None:
            continue
        old = m.group("val").strip().strip("'\"")
        if old == value:
            continue
        lines[i] = m.group("pre") + value + (m.group("eol") or "")
        changes.append({"field": "progress." + m.group("key"), "line": i + 1, "old": old, "new": value})


def roadmap_text_marks(text: str, marks: list[dict]) -> str:
    """ROADMAP.md's text with each mark's checkbox character replaced (nothing else changes)."""
    from msd_core.planning.roadmap import checkbox_lines

    if not marks:
        return text
    wanted = {m["line"]: m["new"] for m in marks}
    columns = {b.line: b.column for b in checkbox_lines(text)}
    lines = text.splitlines(keepends=True)
    for n, new in wanted.items():
        col = columns[n]
        lines[n - 1] = lines[n - 1][:col] + new + lines[n - 1][col + 1:]
    return "".join(lines)


def _plan(root: Path):
    """(STATE.md's bytes, its changes, missing fields, its new text, ROADMAP marks, ROADMAP's new text or None)."""
    from msd_core.planning import project
    from msd_core.progress import lifecycle

    raw, text = project.read_text_file(project.state_file(root), "STATE.md")
    road_text = None  # None: the model reads ROADMAP.md itself (a symlink is skipped, bad bytes replaced)
    roadmap = root / ".planning" / "ROADMAP.md"
    if roadmap.is_file() and not roadmap.is_symlink():
        try:
            road_raw = project.read_text_file(roadmap, "ROADMAP.md", lifecycle.MAX_READ, strict_utf8=False)[0]
            road_text = road_raw.decode("utf-8")
        except (UnicodeDecodeError, MsdError):
            road_text = None  # read for the model, never rewritten
    listings: dict = {}
    w = lifecycle.where(root, listings=listings, roadmap_text=road_text, read_state=False)
    _refuse_partial(w)
    new_text, changes, missing = sync_text(text, derive(root, w, listings))
    marks = lifecycle.roadmap_marks(w, road_text) if road_text is not None else []
    return raw, changes, missing, new_text, marks, (roadmap_text_marks(road_text, marks) if marks else None)


def sync(root: Path, *, check: bool = False, warnings: bool = True, lock_held: bool = False) -> dict:
    """Recompute and (unless `check`) write STATE.md's derived lines and ROADMAP.md's checkboxes
    (msd_core.progress.lifecycle.roadmap_marks) under the state lock (`lock_held`: the caller holds it). `warnings=False`: leave out
    the shared-number warnings (a caller that does not report them saves a scan of the phase folders)."""
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.planning import project

    path = project.state_file(root)
    if check:
        _raw, changes, missing, _text, marks, _road = _plan(root)
        return _report(root, changes, missing, False, warnings, marks, False)
    if lock_held:
        return _sync_locked(root, path, warnings)
    with locked(project.state_lock(root), lock_timeout_from_env(), what="STATE.md"):
        return _sync_locked(root, path, warnings)


def _sync_locked(root: Path, path: Path, warnings: bool) -> dict:
    from msd_core.files.atomic import atomic_write_bytes

    raw, changes, missing, new_text, marks, road = _plan(root)
    new_raw = new_text.encode("utf-8")
    written = new_raw != raw
    if written:
        atomic_write_bytes(path, new_raw)
    if road is not None:
        _write_marks(root / ".planning" / "ROADMAP.md", road)
    return _report(root, changes, missing, written, warnings, marks, road is not None)


def _refuse_partial(w) -> None:
    """OperationFailed (nothing written) when the phase list cannot be read whole: a position
    derived without a phase's folder would be written over the user's lines."""
    unread = [s for s in w.skipped if s.get("blocks")]
    if unread:
        from msd_core.errors import OperationFailed

        more = f" and {len(unread) - 1} more" if len(unread) > 1 else ""
        raise OperationFailed(f"STATE.md not synced: the phase list cannot be read whole ({unread[0]['file']} is "
                              f"{unread[0]['reason']}{more})",
                              hint="name phase folders NN-name (or replace a link with the folder itself), then rerun")


def _write_marks(path: Path, text: str) -> None:
    """ROADMAP.md with its derived checkboxes, keeping its modification time: a tick the model
    derived is not an activity of the project (STATE.md's Last activity reads that time)."""
    from msd_core.files.atomic import atomic_write_bytes

    before = os.lstat(path)
    atomic_write_bytes(path, text.encode("utf-8"))
    try:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns), follow_symlinks=False)
    except OSError:
        pass


def _report(root: Path, changes: list[dict], missing: list[str], written: bool, warn: bool = True,
            marks: list[dict] = (), roadmap_written: bool = False) -> dict:
    out = {"file": ".planning/STATE.md", "in_sync": not changes and not marks, "written": written, "changed": changes,
           "missing": missing}
    if marks:
        out["roadmap"] = {"file": ".planning/ROADMAP.md", "written": roadmap_written, "changed": list(marks)}
    warnings = shared_numbers(root) if warn else []
    if warnings:
        out["warnings"] = warnings
    return out
