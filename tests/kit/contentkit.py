"""Shared facts and helpers for the content tests (no tests here)."""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.bench.eager import eager_closure

REPO = Path(__file__).resolve().parents[2]
CONTENT = REPO / "msd_core" / "content"
CORE = CONTENT / "msd-core"
AGENTS = {"planner", "executor", "verifier", "phase-researcher", "project-researcher",
          "plan-checker", "roadmapper", "codebase-mapper", "debugger",
          "reviewer", "integration-checker"}  # k-lifecycle2
COMMANDS = {"new-project", "discuss-phase", "plan-phase", "execute-phase", "verify-work", "progress",
            "quick", "pause-work", "resume-work", "settings", "help", "map-codebase", "add-phase",
            "complete-milestone",
            "new-milestone", "insert-phase", "remove-phase", "move-phase", "todo",
            "debug", "audit-milestone", "code-review", "ship", "autonomous", "undo"}  # k-lifecycle2
COMMANDS |= {"secure-phase", "ui-phase", "ui-review", "spike", "explore", "import", "docs-update"}  # issue 33
COMMANDS |= {"health", "forensics", "stats", "milestone-summary", "second-opinion"}  # issue 33 (fam33a)
COMMANDS |= {"validate-phase", "add-tests"}  # issue 33.2
TEMPLATES = {"project.md", "requirements.md", "roadmap.md", "state.md", "plan.md", "context.md",
             "summary-minimal.md", "summary-standard.md", "summary-complex.md", "config.json"}
INCLUDE_RE = re.compile(r"^@(\S+)\s*$")


def command(stem: str, content: Path = CONTENT) -> Path:
    return content / "commands" / "msd" / f"{stem}.md"


def spine(stem: str, content: Path = CONTENT) -> Path:
    return content / "msd-core" / "workflows" / f"{stem}.md"


def parts(stem: str, content: Path = CONTENT) -> list[Path]:
    return sorted((content / "msd-core" / "workflows" / stem / "detail").glob("*.md"))


def resolve_include(target: str, content: Path = CONTENT) -> Path | None:
    """The shipped file an `@~/.claude/msd-core/...` include names (None for other includes)."""
    prefix = "~/.claude/msd-core/"
    return content / "msd-core" / target[len(prefix):] if target.startswith(prefix) else None


def eager_window(path: Path, content: Path = CONTENT) -> int:
    """Bytes the host loads for a command: the file plus everything it @-includes, each once."""
    rel = path.relative_to(content).as_posix()
    return sum(len((content / r).read_bytes()) for r in eager_closure(content, rel))
