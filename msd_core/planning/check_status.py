"""What a phase's VERIFICATION or UAT file says, decided from its evidence, not its status word.

UAT (`NN-UAT.md`, format in verify-work.md): each test is a `### <k>. <name>` heading with a
`result:` line (pending | pass | issue | skipped | blocked; `fail`/`failed` read as issue, `passed`
as pass; the first word decides, in any case, bold or not: `**result:** PASS — note`).
`uat_rows(text)` lists them; `uat_status(text, written)` is the file's status derived from the
rows, whatever its frontmatter says:

    any issue              -> `diagnosed` when the file says so, else `issues_found`
    else any pending/none  -> `testing` when the file says so, else `partial`
    else any skipped/blocked -> `partial` (a test that did not run has not passed)
    every row pass         -> `complete`
    no row with a `result:` line -> the written status (another format: nothing to derive from)

VERIFICATION (`NN-VERIFICATION.md`): `msd_run verify` writes the machine part between
`<!-- msd:verify:start -->` and `<!-- msd:verify:end sha256:<digest> -->`; the digest covers the
lines between. `verification_status(text, written)`: a machine part whose result is `failed`, or
whose digest does not match (it was edited by hand), makes the status `gaps_found`, whatever the
frontmatter says; otherwise the written status stands. The judgement around the block is the
verifier's.

Standard library only; never raises.
"""

from __future__ import annotations

import re

BLOCK_START = "<!-- msd:verify:start -->"
BLOCK_END = "<!-- msd:verify:end sha256:{digest} -->"
_BLOCK_RE = re.compile(r"<!-- msd:verify:start -->\r?\n(?P<body>.*?)<!-- msd:verify:end sha256:(?P<digest>[0-9a-f]{12}) -->",
                       re.S)
_RESULT_RE = re.compile(r"^result:\s*(?P<result>\w+)\s*$", re.M)
_HEAD_RE = re.compile(r"^#{2,4}\s+(?P<k>\d+)[.)]\s*(?P<name>.*?)\s*$")
# `result: pass`, `**result:** pass`, `- result: PASS — the user's note`: the first word decides
_ROW_RESULT_RE = re.compile(r"^\s*(?:[-*]\s+)?\**result\**\s*:\s*\**\s*(?P<result>[A-Za-z_/-]*)", re.I)
ISSUE = {"issue", "fail", "failed", "failing"}
PASS = {"pass", "passed", "ok"}
PENDING = {"pending", "", "testing", "not_run", "untested"}
NOT_RUN = {"skipped", "skip", "blocked", "n/a", "na"}


def digest(body: str) -> str:
    from msd_core.files.atomic import sha256_bytes  # CPython's built-in SHA-256: hashlib loads OpenSSL

    return sha256_bytes(body.encode("utf-8"))[:12]


def machine_block(body: str) -> str:
    """The delimited machine part for `body` (lines ending in a newline)."""
    return f"{BLOCK_START}\n{body}{BLOCK_END.format(digest=digest(body))}"


def find_block(text: str):
    """(start, end, body, intact) of the machine part, or None."""
    m = _BLOCK_RE.search(text or "")
    if m is None:
        return None
    return m.start(), m.end(), m.group("body"), digest(m.group("body")) == m.group("digest")


def verification_status(text: str, written: str | None) -> str | None:
    found = find_block(text)
    if found is None:
        return written if text is None or BLOCK_START not in text else "gaps_found"  # a start without its end: edited
    _s, _e, body, intact = found
    m = _RESULT_RE.search(body)
    if not intact or m is None or m.group("result").lower() != "passed":
        return "gaps_found"
    return written


def uat_rows(text: str) -> list[dict]:
    from msd_core.planning.md_lines import prose_lines

    rows: list[dict] = []
    for n, line in prose_lines(text):
        h = _HEAD_RE.match(line)
        if h:
            rows.append({"test": int(h.group("k")), "name": h.group("name"), "result": None, "line": n})
            continue
        m = _ROW_RESULT_RE.match(line)
        if m and rows and rows[-1]["result"] is None:
            rows[-1]["result"] = m.group("result").strip().lower()
    return rows


def uat_status(text: str, written: str | None) -> str | None:
    rows = uat_rows(text)
    if not any(r["result"] is not None for r in rows):
        return written  # no `result:` line at all: headings of another format, nothing to derive from
    results = [r["result"] or "" for r in rows]
    if any(r in ISSUE for r in results):
        return "diagnosed" if written == "diagnosed" else "issues_found"
    if any(r in PENDING or (r not in NOT_RUN and r not in PASS) for r in results):
        return "testing" if written == "testing" else "partial"
    if any(r in NOT_RUN for r in results):
        return "partial"
    return "complete"
