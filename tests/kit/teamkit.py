"""A team on one project: a shared repository (its `.gitattributes` with msd's block committed),
clones with their own identities, msd's driver commands registered in each, and the checks
every merge is held to."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.kit.gitkit import REPO, git, new_repo, run_msd

RUNNER = Path(sys.executable).parent / "msd_run"
TEMPLATE = REPO / "msd_core/content/msd-core/templates/state.md"
MARKER_RE = re.compile(r"^(<{7}|={7}$|>{7}|\|{7})", re.M)
PLANNING_FILES = ("STATE.md", "ROADMAP.md", "REQUIREMENTS.md", "claims.json")


def state_text(name: str = "Demo") -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    for k, v in {"{{project_name}}": name, "{{n}}": "1", "{{phase_name}}": "Core", "{{total_phases}}": "2",
                 "{{YYYY-MM-DD}}": "2026-01-01", "{{YYYY-MM-DD HH:MM}}": "2026-01-01 10:00",
                 "{{the last thing finished, one line}}": "Roadmap created"}.items():
        text = text.replace(k, v)
    return text


def roadmap(phases: list[tuple[str, str]]) -> str:
    lines = ["# Roadmap", "", "## Phases", ""]
    lines += [f"- [ ] **Phase {n}: {name}** - {name.lower()}" for n, name in phases]
    lines += ["", "## Phase Details", ""]
    for n, name in phases:
        lines += [f"### Phase {n}: {name}", f"**Goal**: {name.lower()} works",
                  f"**Requirements**: {name.upper()[:4]}-01", ""]
    return "\n".join(lines)


def requirements(phases: list[tuple[str, str]]) -> str:
    lines = ["# Requirements", "", "## v1", ""]
    lines += [f"- [ ] **{name.upper()[:4]}-01**: {name} works" for _n, name in phases]
    lines += ["", "## Traceability", "", "| Requirement | Phase | Status |", "|---|---|---|"]
    lines += [f"| {name.upper()[:4]}-01 | Phase {n} | Pending |" for n, name in phases]
    return "\n".join(lines) + "\n"


def register(root: Path, runner: list[str] | None = None) -> dict:
    from msd_core.git import merge_config

    return merge_config.register(merge_config.locate(root), runner or [str(RUNNER)])


def make_project(root: Path, phases=(("1", "Core"), ("2", "Auth"))) -> Path:
    """A committed project on main: PROJECT, ROADMAP, REQUIREMENTS, STATE (msd's template), config."""
    new_repo(root)
    phases = list(phases)
    files = {".planning/PROJECT.md": "# Demo\n", ".planning/ROADMAP.md": roadmap(phases),
             ".planning/REQUIREMENTS.md": requirements(phases), ".planning/STATE.md": state_text(),
             ".planning/config.json": json.dumps({"commit_docs": True, "workflow": {"verifier": False}}, indent=2) + "\n",
             "README.md": "demo\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    ok(run_msd(["state", "sync"], root))
    register(root)  # the first install writes .gitattributes, committed with the project: every clone has it
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "chore: project")
    return root


def clone(origin: Path, dest: Path, name: str, *, drivers: bool = True) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(dest))
    git(dest, "config", "user.name", name)
    git(dest, "config", "user.email", f"{name.lower()}@example.com")
    git(dest, "config", "commit.gpgsign", "false")
    if drivers:
        register(dest)
    return dest


def team(tmp: Path, names=("Ada", "Bob"), phases=(("1", "Core"), ("2", "Auth"))) -> tuple[Path, list[Path]]:
    """A bare shared repository holding the project, and one clone per person."""
    seed = make_project(tmp / "seed", phases)
    origin = tmp / "origin.git"
    git(tmp, "clone", "-q", "--bare", str(seed), str(origin))
    return origin, [clone(origin, tmp / n.lower(), n) for n in names]


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"{proc.args}: {proc.stderr or proc.stdout}"
    return proc


def msd(root: Path, *args: str) -> dict | str:
    out = ok(run_msd(list(args), root)).stdout
    try:
        return json.loads(out)
    except ValueError:
        return out


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def commit_planning(root: Path, message: str, *paths: str) -> None:
    """Commit planning documents the way content does: `msd_run state sync`, then `msd_run commit`."""
    msd(root, "state", "sync")
    listed = list(paths) or [".planning"]
    msd(root, "commit", "-m", message, "--files", *listed, ".planning/STATE.md")


def merge(root: Path, ref: str, *, ff: bool = False) -> subprocess.CompletedProcess:
    args = ["merge", "--no-edit", *([] if ff else ["--no-ff"]), ref]
    return subprocess.run(["git", *args], cwd=str(root), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def marked(root: Path) -> list[str]:
    """Planning files (any file under .planning/) holding a conflict marker line."""
    out = []
    for p in sorted((root / ".planning").rglob("*")):
        if p.is_file() and ".msd" not in p.parts:
            if MARKER_RE.search(p.read_text(encoding="utf-8", errors="replace")):
                out.append(str(p.relative_to(root)))
    return out


def in_sync(root: Path) -> dict:
    return json.loads(run_msd(["state", "sync", "--check"], root).stdout)
