"""A second opinion from another agent CLI, run headless: `msd_run second-opinion`.

Which CLIs: those msd installs into besides Claude Code (CLIS: codex, gemini, opencode), found
on PATH by a plain scan (no shutil: msd_run's light path). A CLI that is absent runs nothing:
the command says so (exit 1) and writes nothing.

What is reviewed: a plan (`--plan`, a PLAN.md inside the project's phase folders) or a phase's
diff (`--phase`: the commits `msd_run commit` recorded for it, msd_core.execution.recorded, shown
by one `git show`). The brief (BRIEF, the material after it) is bounded at MAX_BRIEF characters;
what was cut is said in the brief.

The run: the CLI's headless mode (argv_for), read-only by the CLI's own switch (codex `exec --sandbox
read-only`, gemini `--approval-mode plan`, opencode `run --agent plan`; from their --help: codex
0.171, gemini-cli 0.61, opencode 1.18), the brief
on stdin (codex) or as the prompt argument, in the project folder, with a time limit; every
process it starts is ended with it (msd_core.chain.agent_process). Its standard output is the
opinion, its standard error is passed on to ours; both are read in bounded chunks and kept within
a cap (MAX_OUTPUT, MAX_STDERR: the first and the last half, and a line saying how many bytes
between them were cut), however much the CLI prints.

The record: the opinion is written beside what was reviewed, atomically, as
`<plan id>-OPINION-<cli>.md` (a plan) or `<NN>-OPINION-<cli>.md` (a phase's diff) in the phase
folder: a header (CLI, what, when, exit) and the output as the CLI wrote it. Nothing is written
when the CLI fails, times out or prints nothing (exit 1, its last lines in the message).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

CLIS = ("codex", "gemini", "opencode")
MAX_BRIEF = 100_000  # characters; also below Linux's 128 KiB limit on one argument
MAX_OUTPUT = 256 * 1024  # bytes of its stdout kept: the first and last halves, a note of what was cut
MAX_STDERR = 16 * 1024  # bytes of its stderr passed on to ours, the same way
DEFAULT_TIMEOUT = 600.0
PROMPT_VIA_STDIN = {"codex"}

BRIEF = """You are giving a second opinion for a software project. Review the {what} below. Do not
change, create or delete any file, and run nothing that changes the project: read only.

Answer in Markdown, at most 40 lines: a list of findings, most important first, each as
`- [high|medium|low] <finding> (<file or section>)`, then one line `Verdict: sound | needs changes`.
Report only what you can point to in the material; say so when you found nothing.

--- {what} ({source}){cut} ---
"""


def argv_for(cli: str, exe: str, brief: str) -> tuple[list[str], str | None]:
    """(argv, stdin text) of the CLI's headless, read-only run."""
    if cli == "codex":
        return [exe, "exec", "--skip-git-repo-check", "--sandbox", "read-only", "-"], brief
    if cli == "gemini":
        return [exe, "--approval-mode", "plan", "-p", brief], None  # plan: gemini-cli's read-only mode
    if cli == "opencode":
        return [exe, "run", "--agent", "plan", brief], None  # opencode's built-in agent that edits nothing
    raise UsageError(f"unknown CLI {cli!r}: choose {', '.join(CLIS)}")


def which(name: str, path: str | None = None) -> str | None:
    """The executable `name` on PATH (or `path`), or None."""
    for folder in (os.environ.get("PATH", "") if path is None else path).split(os.pathsep):
        if not folder:
            continue
        cand = os.path.join(folder, name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def present() -> dict[str, str | None]:
    return {cli: which(cli) for cli in CLIS}


def _plan_material(root: Path, plan: str) -> tuple[str, Path, str, str]:
    """(text, phase folder, file stem, source) of a PLAN.md inside the project's phase folders."""
    from msd_core.files.safe_read import read_regular
    from msd_core.planning.discovery import phase_dirs, plan_id

    p = Path(plan).expanduser()
    if not p.is_absolute():
        p = root / p if (root / p).exists() else Path.cwd() / p
    if not p.name.endswith("PLAN.md"):
        raise UsageError(f"{plan}: give a PLAN.md file", about="plan")
    folders = {d.path.resolve(): d for d in phase_dirs(root / ".planning") if d.milestone is None}
    parent = p.parent.resolve() if p.parent.exists() else None
    if parent not in folders or p.is_symlink():
        raise UsageError(f"{plan}: not a plan in one of this project's current phase folders", about="plan")
    try:
        text = read_regular(p, 4 * MAX_BRIEF, follow_symlinks=False).decode("utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"{plan}: cannot be read ({exc.strerror or exc})", about="plan") from None
    return text, folders[parent].path, plan_id(p) or p.name[:-len("-PLAN.md")], p.relative_to(root).as_posix() \
        if p.is_relative_to(root) else str(p)


def _phase_material(root: Path, phase: str) -> tuple[str, Path, str, str]:
    from msd_core.execution import recorded
    from msd_core.git.runner import git
    from msd_core.planning.phase_ref import resolve

    ph = resolve(root / ".planning", phase, must_exist=True)
    if ph.milestone:
        raise UsageError(f"phase {ph.label} is archived; only the current milestone's phases have recorded commits")
    commits = recorded.commits(recorded.select(root, phase=phase))
    if not commits:
        raise OperationFailed(f"no recorded commits for phase {phase}: there is no diff to review",
                              hint="commits made with `msd_run commit --plan` are recorded")
    hashes = [c["hash"] for c in commits]
    proc = git(["show", "--stat", "--patch", "--no-color", *hashes], root, timeout=60)
    return proc.stdout, ph.folder, ph.id, f"{len(hashes)} recorded commit(s) of phase {ph.label}"


def brief_of(what: str, source: str, material: str) -> str:
    head = BRIEF.format(what=what, source=source, cut="{cut}")
    room = MAX_BRIEF - len(head) - 80
    cut = "" if len(material) <= room else f"; cut to its first {room} characters of {len(material)}"
    return head.replace("{cut}", cut) + material[:room] + "\n--- end ---\n"


def run(root: Path, cli: str, *, plan: str | None = None, phase: str | None = None,
        timeout: float = DEFAULT_TIMEOUT, dry_run: bool = False, screen=None) -> dict:
    from msd_core.chain.agent_process import Capped, run_agent, to_stderr
    from msd_core.planning.outside_text import save

    root = Path(root)
    if cli not in CLIS:
        raise UsageError(f"unknown CLI {cli!r}: choose {', '.join(CLIS)}")
    if bool(plan) == bool(phase):
        raise UsageError("give exactly one of a plan or a phase to review", remedy=("plan", "phase"))
    if not (0 < timeout <= 86400):
        raise UsageError(f"the timeout must be between 0 and 86400 seconds, not {timeout:g}", about="timeout")
    exe = which(cli)
    if exe is None:
        raise OperationFailed(f"{cli} is not installed (not on PATH): nothing was run",
                              hint=f"install it, or choose one that is: {', '.join(c for c, p in present().items() if p) or 'none found'}")
    material, folder, stem, source = _plan_material(root, plan) if plan else _phase_material(root, phase)
    what = "plan" if plan else "phase diff"
    brief = brief_of(what, source, material)
    target = folder / f"{stem}-OPINION-{cli}.md"
    argv, stdin_text = argv_for(cli, exe, brief)
    out = {"cli": cli, "exe": exe, "what": what, "source": source, "brief_chars": len(brief),
           "file": target.relative_to(root).as_posix()}
    if dry_run:
        return {**out, "dry_run": True, "argv": [a if a != brief else "<brief>" for a in argv]}
    started = time.time()
    env = {**os.environ, "PWD": str(root)}  # OpenCode takes its folder from $PWD
    errors = Capped("stderr", MAX_STDERR, forward=to_stderr)
    output = Capped("stdout", MAX_OUTPUT)
    code, timed_out = run_agent(argv, stdin_text=stdin_text, cwd=str(root), env=env, timeout=timeout,
                                capture=(output, errors))
    text = output.data().decode("utf-8", errors="replace").strip()
    seconds = round(time.time() - started, 1)
    if timed_out:
        raise OperationFailed(f"{cli} did not finish within {timeout:g} s and was ended; nothing was recorded")
    if code != 0 or not text:
        tail = " / ".join(text.splitlines()[-3:])[:300] if text else "no output"
        raise OperationFailed(f"{cli} exited {code} ({tail}); nothing was recorded")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    body = (f"---\nreviewer: {cli}\nreviewed: {what}\nsource: \"{source}\"\nat: {stamp}\nseconds: {seconds}\n---\n"
            f"# Second opinion from {cli}\n\n{text}\n")
    save(root, target, body, screen=screen)  # another agent's words: screened as a Write of them would be
    return {**out, "dry_run": False, "seconds": seconds, "written": True}
