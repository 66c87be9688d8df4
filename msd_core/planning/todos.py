"""Captured todos: one line each in `.planning/TODOS.md`.

    - [ ] **T3** 2026-12-01 03:51 UTC · phase 02 · src/app.py:12 — retry the upload on 503

`[x]` marks a todo done; a promoted todo is done with `→ phase 02.1` or `→ quick` at the
end. Ids only grow (the next id is one past the highest in the file). The phase is the
one given, else the project's current phase (the one `msd_run next` routes to), else
omitted; the file is given by the caller (the file being worked on). Lines that are not
todo lines (headings, notes a person wrote) are kept as they are.

Standard library only.
"""

from __future__ import annotations

import re
import time

from msd_core.errors import OperationFailed, UsageError

FILE = "TODOS.md"
HEADER = "# Todos\n\nCaptured with `msd_run todo add`; promote with `/msd-todo promote <id>`.\n\n"
MAX_TEXT = 500
_LINE_RE = re.compile(r"^- \[(?P<mark>[ xX])\] \*\*T(?P<id>\d+)\*\* (?P<rest>.*)$")


def clean_text(text: str) -> str:
    text = " ".join((text or "").split())
    if not text:
        raise UsageError("todo text is empty; give the idea in a few words")
    if len(text) > MAX_TEXT:
        raise UsageError(f"todo text longer than {MAX_TEXT} characters; capture the gist and keep details in a file")
    return text


def parse(text: str) -> list[dict]:
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        m = _LINE_RE.match(line)
        if not m:
            continue
        head, sep, body = m.group("rest").partition(" — ")
        if not sep:
            head, body = "", m.group("rest")
        parts = [p.strip() for p in head.split(" · ")] if head else []
        item = {"id": f"T{m.group('id')}", "done": m.group("mark") != " ", "line": n, "time": parts[0] if parts else None,
                "phase": None, "file": None, "text": body}
        for p in parts[1:]:
            if p.startswith("phase "):
                item["phase"] = p[6:]
            else:
                item["file"] = p
        promoted = re.search(r" → (phase \S+|quick)$", body)
        if promoted:
            item["promoted"] = promoted.group(1)
            item["text"] = body[: promoted.start()]
        out.append(item)
    return out


def next_id(items: list[dict]) -> int:
    return max((int(i["id"][1:]) for i in items), default=0) + 1


def add_line(text: str, todo: str, phase: str | None, file: str | None, now: float | None = None) -> tuple[str, dict]:
    todo = clean_text(todo)
    if file is not None:
        file = " ".join(file.split())[:200] or None
        if file and (" · " in file or " — " in file):
            raise UsageError("the file must be a path, optionally with :LINE", about="file")
    items = parse(text)
    tid = next_id(items)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))
    fields = [stamp] + ([f"phase {phase}"] if phase else []) + ([file] if file else [])
    line = f"- [ ] **T{tid}** {' · '.join(fields)} — {todo}"
    base = text if text.strip() else HEADER
    if not base.endswith("\n"):
        base += "\n"
    return base + line + "\n", {"id": f"T{tid}", "time": stamp, "phase": phase, "file": file, "text": todo}


def find(items: list[dict], tid: str) -> dict:
    want = tid.strip().upper()
    want = want if want.startswith("T") else "T" + want
    for i in items:
        if i["id"] == want:
            return i
    known = ", ".join(i["id"] for i in items if not i["done"]) or "none open"
    raise OperationFailed(f"no todo {tid!r} in .planning/{FILE} (open: {known})")


def mark_done(text: str, item: dict, note: str | None = None) -> str:
    if item["done"]:
        raise OperationFailed(f"todo {item['id']} is already done")
    lines = text.split("\n")
    line = lines[item["line"] - 1]
    line = line.replace("- [ ]", "- [x]", 1)
    if note:
        line += f" → {note}"
    lines[item["line"] - 1] = line
    return "\n".join(lines)
