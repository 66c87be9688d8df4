"""Every finding `msd_run health` can report: its stable code, severity and repair.

Severity: `error` (a reader of the project gets a wrong answer or none), `warning` (the files
disagree with each other; a person decides), `info` (worth knowing, nothing is wrong yet).
`repair` names what `--repair` does for it; None: it is only reported (renaming, deleting or
rewriting a person's text is never safe to do unasked).

The codes are part of the command's contract (docs/CONTRACTS.md): a code is never renamed or
reused for another meaning; a new kind of finding gets a new code.
"""

from __future__ import annotations

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)

# code: (severity, what it means, what --repair does or None)
CODES: dict[str, tuple[str, str, str | None]] = {
    # the planning files
    "planning-file-missing": (WARNING, "PROJECT.md, ROADMAP.md or STATE.md is missing", None),
    "config-unreadable": (ERROR, "config.json is not a JSON object; msd reads its defaults instead", None),
    "config-value-invalid": (WARNING, "a config.json value the schema does not allow; msd reads that key's default instead", None),
    "phase-number-shared": (ERROR, "two current phase folders share one number; readers see only the first", None),
    "phase-folder-link": (ERROR, "a symlink where phase folders live; no reader follows it", None),
    "phase-folder-unnamed": (WARNING, "a folder in phases/ whose name gives no phase number; no reader sees it", None),
    "phase-missing-from-roadmap": (WARNING, "a current phase folder whose number ROADMAP.md does not name", None),
    "phase-folder-of-archived-milestone": (INFO, "phase folders of an archived milestone still in phases/: readers count them in the current milestone", None),
    "roadmap-phase-missing-folder": (WARNING, "a ROADMAP.md phase ticked done that has no folder in phases/", None),
    "plan-summary-missing": (WARNING, "a plan without its SUMMARY in a phase the project has moved past", None),
    "summary-plan-missing": (INFO, "a SUMMARY whose PLAN file is not in the folder", None),
    "phase-file-outside-folder": (WARNING, "a plan or phase document directly in phases/, outside any phase folder", None),
    "file-prefix-mismatch": (WARNING, "a plan or summary named for another phase than its folder's", None),
    "frontmatter-unreadable": (WARNING, "frontmatter that does not close or is not a mapping; its keys are not read", None),
    "frontmatter-not-yaml": (INFO, "frontmatter that is not valid YAML; msd reads it leniently, other tools may not", None),
    "state-unreadable": (ERROR, "STATE.md cannot be read as UTF-8 text", None),
    "state-stale": (WARNING, "STATE.md's derived lines disagree with the tree", "re-derive them (msd_run state sync)"),
    "state-drift": (INFO, "STATE.md, in another tool's layout, says otherwise than the tree (its lines may be a person's words)", None),
    "handoff-stale": (WARNING, "a pause handoff at .planning/ for a finished phase; `next` still routes to resume-work", None),
    "handoff-left": (INFO, "a pause handoff left in a finished phase's folder", None),
    "cross-root-missing": (ERROR, "a phase depends on a phase of another root (`Phase N of <folder>`) where no .planning/ "
                           "root is; it can never be ready", None),
    "cross-root-phase-missing": (ERROR, "a phase depends on a phase the other root's ROADMAP.md does not list; "
                                 "it can never be ready", None),
    # msd's own working files
    "change-interrupted": (ERROR, "a phase change was interrupted", "roll it back or finish it, then re-derive STATE.md"),
    "temp-orphaned": (INFO, "a temp file of a write whose writer is gone", "delete it"),
    "msd-new-stray": (WARNING, "a .msd-new file (a version someone has still to merge) inside .planning/", None),
    "flow-state-unreadable": (ERROR, ".planning/state.json is not a flow state msd can read; it is never rewritten", None),
    "flow-run-malformed": (WARNING, "a flow run in state.json whose fields have the wrong types", "set it aside (kept under .planning/.msd/aside/)"),
    "flow-run-orphaned": (WARNING, "a running flow whose phase folder is gone", "set it aside (kept under .planning/.msd/aside/)"),
    "flow-run-stale": (INFO, "a flow run still running that nothing has advanced for 14 days", None),
    "gate-record-unreadable": (WARNING, "the regression gate's last.json cannot be read", None),
    "gate-marker-stale": (WARNING, "the gate's failed marker disagrees with its last recorded run", "make the marker follow the last run"),
    "run-record-unreadable": (WARNING, "a run record (.planning/.msd/runs/) that does not parse", None),
    "run-record-orphaned": (WARNING, "a run record for a phase folder that no longer exists (renumbered or removed)", None),
    "chain-ticket-left": (INFO, "a chain step's ticket left behind: the chain was killed during that step", None),
}


# code: the command that moves forward where --repair cannot (it changes what a person decides,
# or it is another command's work). Shown as "next" beside the finding. A finding of severity
# error or warning has a repair or a way here, unless NO_WAY says why it has neither
# (tests/health/test_health_ways.py holds it so).
WAYS: dict[str, str] = {
    "planning-file-missing": "git checkout -- <file> if it was deleted by mistake; /msd-new-project to set a project up",
    "config-value-invalid": "msd config set <key> <value> with a value the setting allows (msd config list names what is wrong)",
    "config-unreadable": "msd config list (names the parse error), then fix .planning/config.json or delete it for the defaults",
    "phase-number-shared": ("msd_run phase reconcile --dry-run, then msd_run phase reconcile (when ROADMAP.md lists both); "
                            "a folder of an earlier milestone goes to .planning/milestones/<version>-phases/ (git mv)"),
    "phase-folder-link": "replace the symlink with the folder it points at (mv), so every reader sees it",
    "phase-folder-unnamed": "rename the folder to NN-name, or move its files into the phase folder they belong to",
    "phase-missing-from-roadmap": "/msd-add-phase to list it in ROADMAP.md, or /msd-remove-phase N if it is not wanted",
    "roadmap-phase-missing-folder": "msd_run phase remove N --dry-run if the phase is gone; /msd-discuss-phase N to start it again",
    "plan-summary-missing": "/msd-execute-phase N (runs the plan and writes its SUMMARY)",
    "phase-file-outside-folder": "move the file into its phase folder (git mv)",
    "file-prefix-mismatch": "rename the file to its folder's phase number (git mv)",
    "frontmatter-unreadable": "close the frontmatter with a --- line and make it key: value lines",
    "cross-root-missing": ("fix the phase's `Depends on:` line in ROADMAP.md: `Phase N of <folder>` names a folder holding "
                           ".planning/, relative to the git work tree's top (msd_run workspace lists the roots)"),
    "cross-root-phase-missing": ("add the phase to the other root's ROADMAP.md (/msd-add-phase, run in that folder) or fix the "
                                 "`Depends on:` line to name a phase it lists"),
    "handoff-stale": "/msd-resume-work (reads the handoff and clears it)",
    "msd-new-stray": "merge the .msd-new file into its original, then delete the .msd-new",
    "flow-state-unreadable": "fix or delete .planning/state.json (flows start again from their first step)",
    "gate-record-unreadable": "msd_run gate run (records a new run)",
    "run-record-unreadable": "/msd-forensics (reads what is left of the run)",
    "run-record-orphaned": "/msd-forensics (which run it was and what it changed)",
}
NO_WAY: dict[str, str] = {
    "state-unreadable": "STATE.md's bytes are not text: only the person who wrote them knows what they meant",
}


def way_of(code: str) -> str | None:
    return WAYS.get(code)


def severity(code: str) -> str:
    return CODES[code][0]


def repair_of(code: str) -> str | None:
    return CODES[code][2]


class Finding:
    """One inconsistency: code, the file it is about (relative to the project), what was found."""

    __slots__ = ("code", "file", "message", "data")

    def __init__(self, code: str, file: str | None, message: str, **data):
        if code not in CODES:
            raise KeyError(f"unknown health code {code!r}")
        self.code, self.file, self.message, self.data = code, file, message, data

    def to_json(self) -> dict:
        out = {"code": self.code, "severity": severity(self.code), "file": self.file, "message": self.message}
        fix = repair_of(self.code)
        if fix:
            out["repair"] = fix
        way = way_of(self.code)
        if way:
            out["next"] = way
        return out

    def __repr__(self):
        return f"Finding({self.code!r}, {self.file!r})"
