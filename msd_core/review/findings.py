"""A review's findings, checked, turned into gaps, and kept in the phase folder as a file the
lifecycle and the planner read back.

Two reviews use it (REVIEWS): `security` writes `<NN>-SECURITY.md` (finding ids S1, S2, ...,
STRIDE categories) and `ui` writes `<NN>-UI-REVIEW.md` (ids V1, ...). The reviewer agent writes
its findings as JSON (`{"findings": [...], "checked": [...]}`); `record()` checks every field,
merges the person's decisions and the previous review, and writes the file:

  - a finding: id (prefix + number, unique), severity (critical, high, medium, low), category
    (the review's list), file (a project path that exists or that the phase's scope names),
    line (within the file), title, what, evidence, fix, truth (what holds once it is fixed:
    the verifier re-checks it), status open | closed; closed needs `closed_by` (where the
    fix is). Anything else, or a missing field, is a usage error naming the finding.
  - the previous review's open findings must each appear again (open or closed): a re-review
    cannot drop one silently (OperationFailed).
  - `accept`: ids the person accepts as a risk, with one reason (without new findings: on the
    recorded review's, which stand as they were); acceptance is kept by later
    reviews of the phase (an accepted id the new review leaves out or lists as open stays
    accepted; one it lists as closed is closed).
  - gaps: every open finding not accepted whose severity is at or above `block_on`
    (default high); they are written in the `gaps:` shape of a VERIFICATION (id, truth,
    status failed, reason, artifacts, missing), so `/msd-plan-phase <n> --gaps` plans them
    like verification gaps. Open findings below the threshold are listed, not gaps.
  - status: `gaps_found` with any gap, else the review's clean word (`secured`, `passed`):
    the phase lifecycle (msd_core.progress) routes `gaps_found` to plan-gaps, and a review
    file older than the phase's newest SUMMARY back to the review.

The file is frontmatter (everything above, which `read()` parses back) and a markdown body
for people. Text is saved through msd_core.planning.outside_text (the injection screen).
Standard library only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.lean.record import record

SEVERITIES = ("critical", "high", "medium", "low")
STATUSES = ("open", "closed")
MAX_FINDINGS = 200
MAX_INPUT = 2 * 1024 * 1024
LIMITS = {"title": 200, "what": 2000, "evidence": 2000, "fix": 2000, "truth": 400, "closed_by": 400, "boundary": 200}
REQUIRED = ("id", "severity", "category", "file", "title", "what", "evidence", "fix", "truth", "status")


@record
class Review:
    name: str
    suffix: str  # the file in the phase folder: <NN>-<suffix>
    prefix: str  # finding ids
    title: str
    categories: tuple
    clean: str  # status with no gap


REVIEWS = {
    "security": Review("security", "SECURITY.md", "S", "Security review",
                       ("spoofing", "tampering", "repudiation", "information-disclosure", "denial-of-service",
                        "elevation-of-privilege"), "secured"),
    "ui": Review("ui", "UI-REVIEW.md", "V", "UI review",
                 ("contract", "states", "copy", "layout", "visual", "accessibility", "responsive"), "passed"),
}


def review_path(folder: Path, review: Review) -> Path:
    from msd_core.planning.discovery import folder_prefix_of

    return Path(folder) / f"{folder_prefix_of(Path(folder).name)}-{review.suffix}"


def _bad(where: str, message: str) -> UsageError:
    return UsageError(f"{where}: {message}", hint="fix the findings file and record it again")


def _text(f: dict, key: str, where: str, required: bool = True) -> str:
    from msd_core.planning.outside_text import clean

    value = f.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise _bad(where, f"`{key}` is missing or empty")
        return ""
    if not isinstance(value, str):
        raise _bad(where, f"`{key}` must be text")
    if len(value) > LIMITS.get(key, 2000):
        raise _bad(where, f"`{key}` is longer than {LIMITS.get(key, 2000)} characters")
    return clean(value.strip())


def _line_count(root: Path, rel: str) -> int | None:
    from msd_core.review.project_files import read_text

    text = read_text(root, rel, 8 * 1024 * 1024)
    return None if text is None else text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def check_finding(f, review: Review, root: Path, scope_paths: set[str], n: int) -> dict:
    """The finding as it is written, or UsageError naming what is wrong."""
    where = f"finding {n}"
    if not isinstance(f, dict):
        raise _bad(where, "is not an object")
    fid = f.get("id")
    if not isinstance(fid, str) or not re.fullmatch(rf"{review.prefix}[1-9]\d{{0,2}}", fid):
        raise _bad(where, f"`id` must be {review.prefix}1, {review.prefix}2, ... (got {str(fid)[:20]!r})")
    where = f"finding {fid}"
    unknown = sorted(set(f) - set(REQUIRED) - {"line", "closed_by", "boundary"})
    if unknown:
        raise _bad(where, f"unknown field(s) {', '.join(unknown[:5])}")
    out = {"id": fid}
    sev = f.get("severity")
    if sev not in SEVERITIES:
        raise _bad(where, f"`severity` must be one of {', '.join(SEVERITIES)}")
    cat = f.get("category")
    if cat not in review.categories:
        raise _bad(where, f"`category` must be one of {', '.join(review.categories)}")
    status = f.get("status")
    if status not in STATUSES:
        raise _bad(where, "`status` must be open or closed")
    out.update(severity=sev, category=cat, status=status)
    path = f.get("file")
    from msd_core.review.project_files import inside

    if not isinstance(path, str) or not inside(root, path.strip()):
        raise _bad(where, "`file` must be a path inside the project")
    path = path.strip()
    lines = _line_count(root, path)
    if lines is None and path not in scope_paths:
        raise _bad(where, f"`file` {path} does not exist and the phase's scope does not name it")
    out["file"] = path
    line = f.get("line")
    if line is not None:
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            raise _bad(where, "`line` must be a line number (1 or more)")
        if lines is not None and line > max(lines, 1):
            raise _bad(where, f"`line` {line} is past the end of {path} ({lines} lines)")
        out["line"] = line
    for key in ("title", "what", "evidence", "fix", "truth"):
        out[key] = _text(f, key, where)
    boundary = _text(f, "boundary", where, required=False)
    if boundary:
        out["boundary"] = boundary
    if status == "closed":
        out["closed_by"] = _text(f, "closed_by", where)
    elif f.get("closed_by"):
        raise _bad(where, "`closed_by` is only for a closed finding")
    return out


def load_findings(raw: bytes, what: str) -> tuple[list, list]:
    """(findings, checked) from the reviewer's JSON; UsageError when it is not that shape."""
    from msd_core.files.bounded import loads_json

    if len(raw) > MAX_INPUT:
        raise UsageError(f"{what} is larger than {MAX_INPUT} bytes")
    try:
        data = loads_json(raw, what)
    except ValueError as exc:
        raise UsageError(f"{what} is not valid JSON ({str(exc)[:120]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise UsageError(f"{what} must be a JSON object with a `findings` list")
    checked = data.get("checked", [])
    if not isinstance(checked, list) or not all(isinstance(c, str) for c in checked):
        raise UsageError(f"{what}: `checked` must be a list of text lines")
    if len(data["findings"]) > MAX_FINDINGS:
        raise UsageError(f"{what} holds more than {MAX_FINDINGS} findings")
    unknown = sorted(set(data) - {"findings", "checked"})
    if unknown:
        raise UsageError(f"{what}: unknown key(s) {', '.join(unknown[:5])}")
    return data["findings"], checked[:100]


def read(path: Path) -> dict | None:
    """The recorded review (its frontmatter), None when there is none; OperationFailed when unreadable."""
    from msd_core.planning.frontmatter import split_frontmatter
    from msd_core.planning.project import read_text_file

    if not path.exists() and not path.is_symlink():
        return None
    _raw, text = read_text_file(path, "review file", MAX_INPUT, strict_utf8=False)
    data, _body, error = split_frontmatter(text)
    if not isinstance(data, dict) or error or not isinstance(data.get("findings", []), list):
        raise OperationFailed(f"{path.name} cannot be read back ({error or 'no findings list'}); not changed",
                              hint="move it aside to start the review afresh")
    return data


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity)


def merge(findings: list[dict], previous: dict | None, accept: list[str], reason: str | None) -> list[dict]:
    """The findings to write: the previous review's decisions applied (module doc)."""
    by_id = {f["id"]: f for f in findings}
    if len(by_id) != len(findings):
        seen, dup = set(), None
        for f in findings:
            if f["id"] in seen:
                dup = f["id"]
            seen.add(f["id"])
        raise UsageError(f"finding {dup} is listed twice")
    before = {f.get("id"): f for f in (previous or {}).get("findings", []) if isinstance(f, dict)}
    dropped = [i for i, f in before.items() if f.get("status") == "open" and i not in by_id]
    if dropped:
        raise OperationFailed(f"the new review leaves out {', '.join(sorted(dropped))}, open in the last review",
                              hint="list each again, as open or as closed with `closed_by`")
    out = list(findings)
    for i, f in before.items():
        if f.get("status") == "accepted":
            if i in by_id and by_id[i]["status"] == "closed":
                continue  # fixed after all: closed wins
            if i in by_id:
                kept = dict(by_id[i], status="accepted", accepted=f.get("accepted", ""))
                out[out.index(by_id[i])] = kept
                by_id[i] = kept
            else:
                out.append(f)
                by_id[i] = f
    if accept:
        if not reason or not reason.strip():
            raise UsageError("an accepted finding needs the reason", hint="say why the risk is acceptable", remedy="reason")
        for i in accept:
            f = by_id.get(i)
            if f is None:  # a well-formed call the review's state does not match: exit 1
                raise OperationFailed(f"{i}: the review holds no such finding", hint="`show` lists its ids", about="accept")
            if f["status"] == "closed":
                raise OperationFailed(f"{i}: it is closed already", about="accept")
            accepted = dict(f, status="accepted", accepted=" ".join(reason.split())[:400])
            out[out.index(f)] = accepted
            by_id[i] = accepted
    return sorted(out, key=lambda f: int(f["id"][1:]))


def gaps_of(findings: list[dict], block_on: str) -> list[dict]:
    return [f for f in findings if f["status"] == "open" and _rank(f["severity"]) <= _rank(block_on)]


def _frontmatter(review: Review, phase: str, findings: list[dict], block_on: str, files: int, checked: list) -> str:
    from msd_core.planning.outside_text import yaml_str

    gaps = gaps_of(findings, block_on)
    status = "gaps_found" if gaps else review.clean
    counts = {s: sum(1 for f in findings if f["severity"] == s and f["status"] == "open") for s in SEVERITIES}
    lines = ["---", f"phase: {yaml_str(phase)}", f"review: {review.name}",
             f"reviewed: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", f"status: {status}",
             f"block_on: {block_on}", f"files: {files}", "counts:"]
    lines += [f"  {s}: {counts[s]}" for s in SEVERITIES]
    lines.append("gaps:" if gaps else "gaps: []")
    for g in gaps:
        reason = g["what"] + (f" (evidence: {g['evidence']})" if g.get("evidence") else "")
        lines += [f"  - id: {g['id']}", f"    truth: {yaml_str(g['truth'])}", "    status: failed",
                  f"    severity: {g['severity']}", f"    reason: {yaml_str(reason, 2400)}",
                  f"    artifacts: [{yaml_str(g['file'])}]", f"    missing: [{yaml_str(g['fix'])}]"]
    lines.append("findings:" if findings else "findings: []")
    for f in findings:
        lines.append(f"  - id: {f['id']}")
        for key in ("severity", "category", "status"):
            lines.append(f"    {key}: {f[key]}")
        lines.append(f"    file: {yaml_str(f['file'])}")
        if "line" in f:
            lines.append(f"    line: {int(f['line'])}")
        for key in ("title", "what", "evidence", "fix", "truth", "boundary", "closed_by", "accepted"):
            if f.get(key):
                lines.append(f"    {key}: {yaml_str(f[key])}")
    lines.append("checked:" if checked else "checked: []")
    lines += [f"  - {yaml_str(c, 300)}" for c in checked]
    lines.append("---")
    return "\n".join(lines) + "\n"


def _body(review: Review, phase: str, findings: list[dict], block_on: str, extra: str) -> str:
    from msd_core.planning.outside_text import one_line

    gaps = {g["id"] for g in gaps_of(findings, block_on)}
    out = [f"# {review.title}: phase {phase}", ""]
    if extra:
        out += [extra.rstrip(), ""]
    out += ["## Findings", ""]
    if not findings:
        out += ["None.", ""]
    for f in findings:
        where = f["file"] + (f":{f['line']}" if "line" in f else "")
        mark = " (gap)" if f["id"] in gaps else ""
        out += [f"### {f['id']} [{f['severity']}] {one_line(f['title'], 200)}{mark}", "",
                f"- where: `{where}` · {f['category']} · {f['status']}"]
        if f.get("boundary"):
            out.append(f"- boundary: {one_line(f['boundary'], 200)}")
        out += [f"- what: {one_line(f['what'], 2000)}", f"- evidence: {one_line(f['evidence'], 2000)}",
                f"- fix: {one_line(f['fix'], 2000)}", f"- holds once fixed: {one_line(f['truth'], 400)}"]
        if f.get("closed_by"):
            out.append(f"- closed by: {one_line(f['closed_by'], 400)}")
        if f.get("accepted"):
            out.append(f"- accepted as a risk: {one_line(f['accepted'], 400)}")
        out.append("")
    return "\n".join(out)


def record_review(root: Path, review: Review, folder: Path, phase: str, raw: bytes, what: str, *,
                  scope_paths: set[str], files: int, block_on: str = "high", accept: list[str] | None = None,
                  reason: str | None = None, extra: str = "", screen=None) -> dict:
    """Check the findings, merge, write the review file. Returns what was written."""
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning.outside_text import save

    if block_on not in SEVERITIES:
        raise UsageError(f"{block_on!r} is not one of {', '.join(SEVERITIES)}", about="block_on")
    path = review_path(folder, review)
    if raw is not None:
        items, checked = load_findings(raw, what)
        findings = [check_finding(f, review, root, scope_paths, n) for n, f in enumerate(items, 1)]
    elif not accept:
        raise UsageError(f"give {what}: the reviewer's findings to record (a person accepts a recorded finding as a risk "
                         f"with `msd {review.name} accept`)")
    with locked(ensure_private_dir(root) / "review.lock", lock_timeout_from_env(), what="review files"):
        previous = read(path)
        if raw is None:  # the person decides on the recorded findings: they stand as they are
            if previous is None:
                raise OperationFailed(f"no {review.title.lower()} recorded for this phase ({path.name})",
                                      hint=f"record the findings first ({what})")
            findings = [dict(f, status="open") if f.get("status") == "accepted" else dict(f)
                        for f in previous.get("findings", []) if isinstance(f, dict) and isinstance(f.get("id"), str)]
            for f in findings:
                f.pop("accepted", None)
            checked = [c for c in previous.get("checked", []) if isinstance(c, str)]
        merged = merge(findings, previous, list(accept or []), reason)
        text = _frontmatter(review, phase, merged, block_on, files, checked) + _body(review, phase, merged, block_on, extra)
        save(root, path, text, screen=screen)
    gaps = gaps_of(merged, block_on)
    return {"file": path.relative_to(root).as_posix(), "status": "gaps_found" if gaps else review.clean,
            "gaps": [g["id"] for g in gaps],
            "open": [f["id"] for f in merged if f["status"] == "open"],
            "accepted": [f["id"] for f in merged if f["status"] == "accepted"],
            "closed": [f["id"] for f in merged if f["status"] == "closed"],
            "counts": {s: sum(1 for f in merged if f["severity"] == s and f["status"] == "open") for s in SEVERITIES}}


def show(root: Path, review: Review, folder: Path) -> dict:
    path = review_path(folder, review)
    data = read(path)
    if data is None:
        raise OperationFailed(f"no {review.title.lower()} recorded for this phase ({path.name})",
                              hint=f"run the review first: msd_run {review.name} record")
    findings = [f for f in data.get("findings", []) if isinstance(f, dict)]
    return {"file": path.relative_to(root).as_posix(), "status": data.get("status"), "block_on": data.get("block_on"),
            "reviewed": data.get("reviewed"), "findings": findings,
            "gaps": [g.get("id") for g in data.get("gaps", []) if isinstance(g, dict)],
            "open": [f.get("id") for f in findings if f.get("status") == "open"]}
