"""PLAN.md parser: frontmatter plus the `<task>` elements code needs (docs/CONTRACTS.md).

Read: a task's `type` attribute (a type starting with `checkpoint:` is a checkpoint;
a `<task>` without a type counts as `auto`), `tdd="true"`, `<name>` (or a `name="…"`
attribute), `<files>` (comma- or newline-separated; backticks, bullets and trailing
notes in parentheses are removed), `<decisions>` (the CONTEXT.md decision IDs the task
implements, msd_core.planning.decisions), and the frontmatter. Tasks are read from the whole
body; a `<task>` inside a fenced code block (```) is an example, not a task, and is
ignored. Never raises on bad input: an unparseable frontmatter leaves `.frontmatter`
empty and sets `.frontmatter_error`.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.lean.record import field, record
from msd_core.planning.frontmatter import split_frontmatter

_TASK_RE = re.compile(r"<task(?P<attrs>(?:\s[^>]*)?)>(?P<inner>.*?)</task\s*>", re.S | re.I)
_ATTR_RE = re.compile(r"([A-Za-z_][\w:-]*)\s*=\s*(\"[^\"]*\"|'[^']*')")
_FENCE_RE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_DECISION_RE = re.compile(r"<decision[\s>]", re.I)


def _element(inner: str, tag: str) -> str | None:
    m = re.search(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}\s*>", inner, re.S | re.I)
    return m.group(1).strip() if m else None


def normalize_declared(path: str) -> str:
    """A declared path as a repository-relative POSIX path (`./src/a.py` → `src/a.py`);
    a trailing `/` (a folder that covers what is under it) is kept."""
    import posixpath

    s = path.strip().replace("\\", "/")
    while s.startswith("./"):
        s = s[2:]
    folder = s.endswith("/")
    s = posixpath.normpath(s) if s else s
    return s + "/" if folder and s not in ("", ".") else s


def split_files(raw: str | list | None) -> list[str]:
    """File list from a `<files>` element or a frontmatter list, normalised and de-duplicated."""
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else re.split(r"[,\n]", str(raw))
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        s = item.strip().lstrip("-*").strip().strip("`").strip()
        s = re.sub(r"\s+\(.*\)$", "", s).strip().strip("`")
        if s and s not in out:
            out.append(s)
    return out


@record
class Task:
    type: str
    tdd: bool
    name: str
    files: list[str]
    is_checkpoint: bool
    attrs: dict = field(default_factory=dict)
    decisions: list = field(default_factory=list)  # the CONTEXT.md decision IDs it cites (`<decisions>D-01</decisions>`)
    text: str = ""  # the task's inner text (name, action, done ...), for the plan check's word scan


@record
class Plan:
    frontmatter: dict
    tasks: list[Task]
    body: str
    frontmatter_error: str | None = None

    @property
    def has_user_setup(self) -> bool:
        value = self.frontmatter.get("user_setup", self.frontmatter.get("user-setup"))
        if isinstance(value, str):
            return value.strip().lower() not in ("", "[]", "none", "null", "false", "no")
        return bool(value)

    @property
    def has_tdd(self) -> bool:
        return any(t.tdd for t in self.tasks) or str(self.frontmatter.get("type", "")).lower() == "tdd"

    @property
    def has_checkpoint(self) -> bool:
        return any(t.is_checkpoint for t in self.tasks)

    @property
    def files(self) -> list[str]:
        """Files named by the frontmatter `files_modified` and every task, de-duplicated."""
        out = split_files(self.frontmatter.get("files_modified") or self.frontmatter.get("files-modified"))
        for t in self.tasks:
            for f in t.files:
                if f not in out:
                    out.append(f)
        return out

    @property
    def decision_count(self) -> int:
        """Decision checkpoints plus `<decision>` elements in the plan."""
        return sum(1 for t in self.tasks if t.type.lower() == "checkpoint:decision") + len(
            _DECISION_RE.findall(_FENCE_RE.sub("", self.body))
        )

    @property
    def deviation_count(self) -> int:
        """Deviations recorded in the plan's frontmatter (`deviations`: a list or a number)."""
        value = self.frontmatter.get("deviations")
        if isinstance(value, list):
            return len(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(0, value)
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
        return 0


def parse_plan(text: str, keys: frozenset[str] | None = None) -> Plan:
    """`keys`: read only these top-level frontmatter keys (split_frontmatter's `keys`), for a
    caller that needs a few of a long block; the tasks are read all the same."""
    data, body, error = split_frontmatter(text if isinstance(text, str) else "", keys)
    scan = _FENCE_RE.sub("", body)
    from msd_core.planning.decisions import cited_ids

    tasks = []
    for m in _TASK_RE.finditer(scan):
        attrs = {k.lower(): v[1:-1] for k, v in _ATTR_RE.findall(m.group("attrs") or "")}
        inner = m.group("inner")
        ttype = (attrs.get("type") or "auto").strip()
        name = _element(inner, "name") or attrs.get("name") or ""
        tasks.append(
            Task(
                type=ttype,
                tdd=attrs.get("tdd", "").strip().lower() == "true",
                name=" ".join(name.split()),
                files=split_files(_element(inner, "files")),
                is_checkpoint=ttype.lower().startswith("checkpoint"),
                attrs=attrs,
                decisions=cited_ids(_element(inner, "decisions")),
                text=inner,
            )
        )
    return Plan(frontmatter=data or {}, tasks=tasks, body=body, frontmatter_error=error)
