"""What the checks work on: a violation, the content tree, and the context of one run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

CONTENT_TOPS = ("commands", "agents", "msd-core")
COMMAND_RE = re.compile(r"^commands/msd/([^/]+)\.md$")
AGENT_RE = re.compile(r"^agents/msd-([^/]+)\.md$")
WORKFLOW_RE = re.compile(r"^msd-core/workflows/([^/]+)\.md$")
PART_RE = re.compile(r"^msd-core/workflows/([^/]+)/detail/([^/]+\.md)$")
FLOW_RE = re.compile(r"^msd-core/flows/([^/]+)\.toml$")


@dataclass(frozen=True, order=True)
class Violation:
    """One broken rule at one place. `line` is 1-based; 0 means the file as a whole."""

    file: str
    line: int
    rule: str
    message: str
    fix: str

    def to_dict(self) -> dict:
        return {"rule": self.rule, "file": self.file, "line": self.line, "message": self.message, "fix": self.fix}


def lf_bytes(data: bytes) -> bytes:
    """Sizes are measured LF-normalised, so a checkout with CRLF endings measures the same."""
    return data.replace(b"\r\n", b"\n")


def split_lines(text: str) -> list[str]:
    """Lines without their endings (CRLF and LF alike)."""
    return text.replace("\r\n", "\n").split("\n") if text else []


@dataclass
class Workflow:
    stem: str
    spine: str | None  # msd-core/workflows/<stem>.md when it exists
    parts: list[str] = field(default_factory=list)  # detail parts in reading order


class ContentTree:
    """A folder laid out like msd_core/content: every regular file under commands/, agents/, msd-core/."""

    def __init__(self, root: Path):
        self.root = Path(root)
        files: list[str] = []
        for top in CONTENT_TOPS:
            base = self.root / top
            if not base.is_dir():
                continue
            for p in base.rglob("*"):
                if "__pycache__" in p.parts or p.is_symlink() or not p.is_file():
                    continue
                files.append(p.relative_to(self.root).as_posix())
        self.files = sorted(files)
        self._data: dict[str, bytes] = {}
        self._text: dict[str, str | None] = {}
        self.unreadable: dict[str, str] = {}  # relpath -> why it could not be read
        self.workflows = workflows_of(self.files)

    def data(self, rel: str) -> bytes:
        """The file's bytes; b"" (and an entry in `unreadable`) when it cannot be read."""
        if rel not in self._data:
            try:
                self._data[rel] = (self.root / rel).read_bytes()
            except OSError as exc:
                self.unreadable[rel] = exc.strerror or type(exc).__name__
                self._data[rel] = b""
        return self._data[rel]

    def text(self, rel: str) -> str | None:
        """The file as text, or None when it is not UTF-8."""
        if rel not in self._text:
            try:
                self._text[rel] = self.data(rel).decode("utf-8")
            except UnicodeDecodeError:
                self._text[rel] = None
        return self._text[rel]

    def lines(self, rel: str) -> list[str]:
        text = self.text(rel)
        return split_lines(text) if text is not None else []

    def markdown_files(self) -> list[str]:
        return [f for f in self.files if f.endswith(".md") and self.text(f) is not None]

    def role(self, rel: str) -> str:
        return role_of(rel, self.workflows)


def workflows_of(files: list[str]) -> dict[str, Workflow]:
    """Workflows by stem: spine (if any) and detail parts, from a list of content paths."""
    out: dict[str, Workflow] = {}
    for rel in files:
        m = WORKFLOW_RE.match(rel)
        if m:
            out.setdefault(m.group(1), Workflow(m.group(1), None)).spine = rel
            continue
        m = PART_RE.match(rel)
        if m:
            out.setdefault(m.group(1), Workflow(m.group(1), None)).parts.append(rel)
    for wf in out.values():
        wf.parts.sort()
    return out


def role_of(rel: str, workflows: dict[str, Workflow]) -> str:
    """Partition role: spine (workflow with parts), part, whole (workflow without parts), other."""
    m = WORKFLOW_RE.match(rel)
    if m:
        wf = workflows.get(m.group(1))
        return "spine" if wf and wf.parts else "whole"
    if PART_RE.match(rel):
        return "part"
    return "other"


def is_command(rel: str) -> bool:
    return bool(COMMAND_RE.match(rel))


@dataclass
class Locations:
    """Files that belong to a content tree but live outside it.

    For the shipped tree (`<checkout>/msd_core/content`): the tier file is
    `<checkout>/msd_core/checks/size_tiers.toml` and the inventory `<checkout>/docs/INVENTORY.md`.
    For any other tree given with --root (fixtures, forks): `<root>/size_tiers.toml` when it
    exists (else the packaged tier file) and `<root>/INVENTORY.md`.
    An installed package (no pyproject.toml beside msd_core/) has no inventory: None, not checked.
    """

    tiers: Path
    inventory: Path | None
    display_base: Path  # paths outside the root are shown relative to this folder

    @classmethod
    def for_root(cls, root: Path) -> "Locations":
        root = Path(root).absolute()
        packaged = Path(__file__).resolve().parent / "size_tiers.toml"
        if root.name == "content" and root.parent.name == "msd_core":
            checkout = root.parent.parent
            inventory = checkout / "docs" / "INVENTORY.md" if (checkout / "pyproject.toml").is_file() else None
            return cls(checkout / "msd_core" / "checks" / "size_tiers.toml", inventory, checkout)
        local = root / "size_tiers.toml"
        return cls(local if local.is_file() else packaged, root / "INVENTORY.md", root)

    def show(self, path: Path) -> str:
        try:
            return Path(path).absolute().relative_to(self.display_base).as_posix()
        except ValueError:
            return str(path)


@dataclass
class CheckContext:
    """Everything one run of the checks reads: the tree, where its outside files are, the tiers, the base."""

    tree: ContentTree
    locations: Locations
    tiers: "object"  # msd_core.checks.tiers.Tiers
    base: "object | None" = None  # msd_core.checks.gitbase.BaseSnapshot
    peers: tuple = ()  # folders of a peer project's text (rule own-wording)
