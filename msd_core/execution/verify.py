"""Verification decided by code: `msd_run verify <phase>` (docs/CONTRACTS.md, "Verification").

`verify(files)` checks, for every plan of the phase, its must-haves:

  artifact   the path exists under the project (no absolute path, no `..` out of it, no symlink);
             a folder (`src/x/`) holds a file; a file is not a stub: it has at least `min_lines`
             non-blank lines (default 1), holds the text `contains` when given, and holds no stub marker
             (STUB_RE: "not implemented", NotImplementedError, unimplemented!(), todo!(), a TODO/FIXME
             that says implement/stub/placeholder/later, "lorem ipsum", "placeholder for now");
  key link   `from` and `to` exist, and `pattern` (a regular expression) matches in `from`;
  requirement every requirement ID of the phase (ROADMAP.md) is in some plan's `requirements`;
  root-dependency  every phase of another root the phase's `Depends on:` line names (`Phase 2 of
             services/api`, msd_core.progress.cross_root) is done in that root;
  tests      the project's regression gate passes on the tree checked out now (`tests_check`, the
             gate of msd_core.execution.gate, the one mechanism): the latest gate run of
             `testing.command` made on exactly this tree (same HEAD commit, no change outside
             `.planning/` then and now) is reused, else the suite runs now (recorded like any gate
             run). It fails when the suite fails, times out, or runs no test (0 executed: the
             runner's own summary, msd_core.execution.test_counts), and when no test command is
             known (`testing.command` unset) or the one set was not confirmed on this machine:
             nothing is run then. `testing.command = none` (the user said the project has no
             suite) passes it without running anything.

Each check is {check, subject, result: ok|failed, detail, plan}. `write(files, result)` puts the
machine part into `<NN>-VERIFICATION.md` (msd_core.planning.check_status: a delimited block with
its digest, after the frontmatter; an older block is replaced, the verifier's judgement around it
kept), creating the file when there is none. A failed machine part reads `gaps_found` whatever
the judgement says.

Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_SCAN = 2 * 1024 * 1024
STUB_RE = re.compile(
    r"\bnot (?:yet )?implemented\b|NotImplementedError|\bunimplemented!\s*\(|\btodo!\s*\(|"
    r"\b(?:TODO|FIXME|XXX)\b[^\n]{0,60}\b(?:implement|stub|placeholder|later)\b|\blorem ipsum\b|"
    r"\bplaceholder\b[^\n]{0,30}\bfor now\b", re.I)


def _check(kind, subject, ok, detail, plan) -> dict:
    return {"check": kind, "subject": subject, "result": "ok" if ok else "failed", "detail": detail, "plan": plan}


def _inside(root: Path, rel: str, links: dict[str, bool] | None = None) -> Path | None:
    """The path `rel` names under `root`, or None when it leaves it (absolute, `..`, a symlink on the way).
    `links`: {path: is a symlink} kept across calls (a caller checking many paths under the same folders)."""
    if not rel or rel.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", rel) or "\x00" in rel:
        return None
    parts = Path(rel.rstrip("/")).parts
    if ".." in parts:
        return None
    p = root
    for part in parts:
        p = p / part
        if links is None:
            if p.is_symlink():
                return None
            continue
        key = str(p)
        if key not in links:
            links[key] = p.is_symlink()
        if links[key]:
            return None
    return p


def _read(path: Path) -> str | None:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_SCAN, follow_symlinks=False).decode("utf-8", errors="replace")
    except OSError:
        return None


def check_artifact(root: Path, art, plan: str) -> dict:
    path = _inside(root, art.path)
    if path is None:
        return _check("artifact", art.path, False, "outside the project (absolute, `..` or a symlink): not checked", plan)
    if art.path.endswith("/"):
        from msd_core.files.walk import walk  # iterative, depth-capped

        ok = path.is_dir() and any(os.path.isfile(os.path.join(d, f)) for d, _s, names in walk(path) for f in names)
        return _check("artifact", art.path, ok, "a folder holding files" if ok else "no such folder, or it is empty", plan)
    if not path.exists():
        return _check("artifact", art.path, False, "missing", plan)
    text = _read(path)
    if text is None:
        return _check("artifact", art.path, False, "not a readable regular file (or larger than 2 MiB)", plan)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return _check("artifact", art.path, False, "empty: a stub", plan)
    if len(lines) < art.min_lines:
        return _check("artifact", art.path, False, f"{len(lines)} non-blank lines, fewer than min_lines {art.min_lines}: a stub", plan)
    m = STUB_RE.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        return _check("artifact", art.path, False, f"stub marker {m.group(0)!r} at line {line}", plan)
    if art.contains and art.contains not in text:
        return _check("artifact", art.path, False, f"does not match contains {art.contains!r}", plan)
    return _check("artifact", art.path, True, f"{len(lines)} lines", plan)


def check_link(root: Path, link, plan: str) -> dict:
    subject = f"{link.source} -> {link.target}"
    source, target = _inside(root, link.source), _inside(root, link.target)
    if source is None or target is None:
        return _check("key-link", subject, False, "a path outside the project (absolute, `..` or a symlink)", plan)
    if not target.exists():
        return _check("key-link", subject, False, f"{link.target} is missing", plan)
    text = _read(source) if source.is_file() else None
    if text is None:
        return _check("key-link", subject, False, f"{link.source} is missing or not a readable file", plan)
    m = re.search(link.pattern, text, re.M)
    if m is None:
        return _check("key-link", subject, False, f"pattern {link.pattern!r} does not match in {link.source}", plan)
    return _check("key-link", subject, True, f"line {text.count(chr(10), 0, m.start()) + 1}", plan)


def _tally(tests: dict | None) -> str:
    if not isinstance(tests, dict):
        return "counts not recognised in the output (the exit code decided)"
    if tests.get("passed") is None:
        return f"{tests.get('runner')}: no per-test counts in the output"
    return f"{tests['passed']} passed, {tests['failed']} failed, {tests['skipped']} skipped ({tests['runner']})"


def tests_check(files, *, fresh: bool = False, timeout: float | None = None) -> tuple[dict, dict]:
    """(the `tests` check, what the gate said) for the tree checked out now: see the module docstring.
    `fresh` runs the suite even when a run made on this tree is recorded."""
    from msd_core.config.store import get_value
    from msd_core.execution import gate

    root, n = files.root, files.phase.id
    again = f"then `msd_run verify {n}`"
    command = get_value("testing.command", cwd=root)
    text = (command or "").strip() if isinstance(command, str) else ""
    if not text:
        detail = ("no test command is known (testing.command is unset), so nothing shows the tests pass: run "
                  "`msd_run gate detect`, confirm the command with the user (`msd_run gate confirm --command "
                  f"'<cmd>'`, or `none` for a project without tests), {again}")
        return _check("tests", "testing.command", False, detail, None), {"status": "unconfigured", "command": None}
    if text.lower() == "none":
        detail = "testing.command is none: the user said the project has no test suite; nothing was run"
        return _check("tests", "none", True, detail, None), {"status": "skipped", "command": "none"}
    if not gate.is_confirmed(root, text):
        detail = (f"testing.command {text!r} was not confirmed on this machine (it may come from the repository), "
                  f"so it was not run: show it to the user; if they agree, `msd_run gate confirm --command "
                  f"'<cmd>'`, {again}")
        return _check("tests", text, False, detail, None), {"status": "unconfirmed", "command": text}
    tree = gate.tree_state(root)
    run = None if fresh else gate.for_tree(root, text, tree)
    source = "reused" if run is not None else "ran"
    if run is None:
        if timeout is None:
            timeout = float(get_value("testing.timeout_seconds", cwd=root) or gate.DEFAULT_TIMEOUT)
        run = gate.run_gate(root, text, f"verify phase {n}", timeout)
        tree = run.get("tree") or tree
    tests = run.get("tests") if isinstance(run.get("tests"), dict) else None
    commit = tree.get("commit")
    where = (f"on {commit[:12]}" + ("" if tree.get("clean") else " with uncommitted changes")) if commit else \
        "outside a git commit"
    said = {"status": run["status"], "command": text, "source": source, "at": run.get("at"),
            "exit_code": run.get("exit_code"), "reason": run.get("reason"), "commit": commit,
            "clean": bool(tree.get("clean")), "tests": tests}
    if run["status"] == "passed":
        return _check("tests", text, True, f"{_tally(tests)} {where}", None), said
    why = run.get("reason") or (f"timed out after {run.get('timeout_s')}s" if run["status"] == "timeout"
                                else f"exit code {run.get('exit_code')}")
    detail = (f"the regression gate {run['status']}: {why}; {_tally(tests)} {where}. Fix the code until "
              f"`msd_run gate run` passes (`/msd-execute-phase {n}` runs the gate and its fix-up; "
              f"`msd_run gate status` shows the output), {again}")
    return _check("tests", text, False, detail, None), said


def verify(files, *, gate: bool = True, fresh: bool = False) -> dict:
    """The machine checks of the phase (msd_core.execution.phase_files.PhaseFiles); `gate` False leaves
    the tests out (a caller that judged them itself)."""
    checks: list[dict] = []
    notes: list[str] = [f"{rel}: {reason}" for rel, reason in files.unreadable]
    claimed: set[str] = set()
    for pf in files.plans:
        must = pf.must
        claimed.update(pf.requirement_ids)
        if not must.artifacts and not must.key_links:
            notes.append(f"{pf.pid}: no must_haves artifacts or key links to check")
        for problem in must.problems:
            checks.append(_check("must-haves", pf.pid, False, problem, pf.pid))
        for art in must.artifacts:
            checks.append(check_artifact(files.root, art, pf.pid))
        for link in must.key_links:
            checks.append(check_link(files.root, link, pf.pid))
    for rid in files.requirements:
        covered = rid in claimed
        checks.append(_check("requirement", rid, covered, "covered by a plan" if covered else "in no plan's requirements", None))
    from msd_core.progress.cross_root import ask_next, dependencies, describe

    for dep in dependencies(files.root, files.phase.number):  # a phase of another root it depends on (ROADMAP.md)
        why = "done there" if dep["done"] else describe(dep) + (f": `{ask_next(dep, files.root)}`" if "path" in dep else "")
        checks.append(_check("root-dependency", f"phase {dep['phase']} of {dep['root']}", dep["done"], why, None))
    if not files.plans:
        checks.append(_check("plans", files.phase.dirname, False, "the phase has no PLAN.md", None))
    said = None
    if gate:
        check, said = tests_check(files, fresh=fresh)
        checks.append(check)
    failed = [c for c in checks if c["result"] == "failed"]
    out = {"phase": files.phase.id, "phase_dir": files.phase.dirname, "result": "failed" if failed else "passed",
           "checked": len(checks), "failed": len(failed), "checks": checks, "notes": notes}
    if said is not None:
        out["gate"] = said
    return out


def _block_body(result: dict) -> str:
    counts = {}
    for c in result["checks"]:
        ok, total = counts.get(c["check"], (0, 0))
        counts[c["check"]] = (ok + (c["result"] == "ok"), total + 1)
    tally = " · ".join(f"{kind}: {ok}/{total}" for kind, (ok, total) in counts.items()) or "nothing to check"
    lines = ["## Machine checks", "", "Written by `msd_run verify`, rewritten on every run; not edited by hand.", "",
             f"result: {result['result']}", f"tally: {tally}", *_gate_lines(result.get("gate")), "",
             "| check | subject | result | detail |", "|---|---|---|---|"]
    for c in result["checks"]:
        detail = str(c["detail"]).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {c['check']} | {c['subject'].replace('|', chr(92) + '|')} | {c['result']} | {detail} |")
    return "\n".join(lines) + "\n"


def _gate_lines(said: dict | None) -> list[str]:
    """The gate's lines of the machine part: command, status, counts, commit (no time: a rerun on the same
    tree writes the same lines)."""
    if not isinstance(said, dict):
        return []
    lines = [f"tests_command: {said.get('command')}", f"tests_status: {said['status']}"]
    tests = said.get("tests")
    if isinstance(tests, dict) and tests.get("passed") is not None:
        lines.append(f"tests_counts: passed {tests['passed']} · failed {tests['failed']} · skipped {tests['skipped']}"
                     f" · runner {tests['runner']}")
    elif said["status"] in ("passed", "failed", "timeout"):
        lines.append("tests_counts: not recognised")
    if said["status"] in ("passed", "failed", "timeout"):
        commit = said.get("commit")
        lines.append(f"tests_commit: {commit or 'none'}" + ("" if said.get("clean") else " (uncommitted changes)"))
    return lines


def write(files, result: dict) -> Path:
    """Put the machine part into the phase's VERIFICATION.md (atomic, under the phase's verify lock).
    The part is a function of the checks alone (no time in it): a rerun over the same code leaves
    the file as it is."""
    from msd_core.files.atomic import atomic_write_text, lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning import check_status
    from msd_core.planning.frontmatter import locate
    from msd_core.planning.project import read_text_file

    path = files.folder / f"{files.phase.id}-VERIFICATION.md"
    block = check_status.machine_block(_block_body(result))
    with locked(ensure_private_dir(files.root) / "verify.lock", lock_timeout_from_env(), what="the verification file"):
        if path.is_symlink():
            from msd_core.errors import OperationFailed

            raise OperationFailed(f"{path.name} is a symlink; refusing to write through it")
        if path.exists():
            text = read_text_file(path, "verification", MAX_SCAN)[1]
            while True:
                found = check_status.find_block(text)
                if found is None:
                    break
                start, end, _body, _intact = found
                text = text[:start].rstrip("\n") + "\n" + text[end:].lstrip("\n")
            text = text.replace(check_status.BLOCK_START, "")
            span = locate(text)
            at = span[2] if span and span[2] >= 0 else 0
            text = text[:at] + block + "\n\n" + text[at:].lstrip("\n")
        else:
            status = "gaps_found" if result["result"] == "failed" else "passed"
            text = (f"---\nphase: {files.phase.dirname}\nstatus: {status}\n---\n{block}\n\n"
                    f"# Phase {files.phase.number}: verification\n")
        atomic_write_text(path, text)
    return path
