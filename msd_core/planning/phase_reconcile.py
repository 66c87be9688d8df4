"""After a merge: two phases at one number get numbers of their own (`msd_run phase reconcile`).

Two branches that each added a phase 5 merge into a ROADMAP.md listing both (msd's merge
driver keeps ours first, then theirs: msd_core.merging.planning_docs) and a `phases/` folder
holding both folders. Reconcile walks the phases ROADMAP.md lists, in its order (its phase
list; its details blocks when it has no list), from the second phase of the first number two
of them share, and keeps each number that is new and greater than the one before; any other
phase, and every later one that would then not be greater, gets the next number after its
predecessor's: an integer phase the next integer (`5` after `5` -> `6`), a decimal phase the
next decimal (`3.1` after `3.1` -> `3.2`). So the first of two phase 5s keeps 5, the second
becomes 6, and a phase 6 that followed it becomes 7; the phases before, in order or not, are
never touched. A phase folder ROADMAP.md does not list keeps its number, and no new number
takes it: real trees keep the folders of phases their roadmap lists only in an archived
`<details>` block, some under a number a current phase has again (the report names those, and
`msd_run state sync` warns about them as before).

A renumbered phase is renumbered wherever it is written, with the numbers of its own branch:
its checklist line, details block and progress row in ROADMAP.md, the traceability rows and
lines of REQUIREMENTS.md for the requirements its block (`Requirements:`) or its plans
(`requirements:` in a PLAN's frontmatter) name, its folder and the files in it named with the
old prefix, and the Markdown inside them (msd_core.planning.roadmap_edit.renumber_text: `Phase
5`, plan ids `05-01`, folder names). Text that belongs to no phase (prose, STATE.md's
hand-written lines) is left as it is: a `Phase 5` there cannot say which of the two it meant
(the report lists what it did not change). STATE.md's derived lines are re-derived after.

A duplicate's ROADMAP entries are paired with its folder by name (the folder's words are the
slug of the entry's name), else in order. Two folders of one name are git's add/add conflict,
not a renumbering: reconcile refuses while a merge is unfinished.

One transaction (msd_core.planning.phase_ops.apply), under the STATE.md lock, like the other
phase commands. Standard library only.
"""

from __future__ import annotations

import re

from msd_core.errors import OperationFailed
from msd_core.planning import entries, phase_ops
from msd_core.planning import roadmap_edit as re_
from msd_core.planning.discovery import folder_prefix_of
from msd_core.planning.roadmap import _clean_name, phase_sort_key

_REQ_ID = re.compile(r"\b[A-Z][A-Z0-9_]*-\d+[A-Za-z]?\b")
_REQ_LINE = re.compile(r"^\s*(?:\*\*)?requirements(?:\*\*)?\s*:?(?:\*\*)?\s*:?(.*)$", re.I)


class _Phase:
    __slots__ = ("number", "name", "spans", "folder", "new", "listed")

    def __init__(self, number: str, name: str, listed: bool = True):
        self.number, self.name, self.spans, self.folder, self.new = number, name, {}, None, number
        self.listed = listed  # ROADMAP.md lists it (a folder it does not list: False)

    def __repr__(self) -> str:
        return f"_Phase({self.number!r}, {self.name!r}, folder={self.folder!r}, new={self.new!r})"


def _name_of(line: str) -> str:
    m = re.match(r"^\s*(?:[-*]\s*\[[^\]]\]\s*|#{2,4}\s*)(?:\*\*)?\s*Phase\s+[\d.]+\s*[:.\-—]?\s*(.*)$", line, re.I)
    return _clean_name(m.group(1)) if m else ""


def phases_in_order(model: phase_ops.Model) -> list[_Phase]:
    """The current milestone's phases in ROADMAP.md's order, each with its entries and folder."""
    lines = model.texts.get("ROADMAP.md", "").splitlines(keepends=True)
    spans = entries.roadmap_spans(lines)
    lead = "check" if any(k[0] == "check" for k, _s, _e in spans) else "block"
    order: list[_Phase] = []
    seen: dict[str, int] = {}
    for (kind, number), start, end in spans:
        if kind == lead:
            order.append(_Phase(number, _name_of(lines[start])))
    by_number: dict[str, list[_Phase]] = {}
    for p in order:
        by_number.setdefault(p.number, []).append(p)
    for (kind, number), start, end in spans:  # each block and row joins the phase of its number, in order
        n = seen.get((kind, number), 0)
        seen[(kind, number)] = n + 1
        group = by_number.get(number, [])
        name = _name_of(lines[start]) if kind != "row" else ""
        match = next((p for p in group if kind not in p.spans and name and p.name == name), None)
        match = match or next((p for p in group if kind not in p.spans), None)
        if match is not None:
            match.spans[kind] = (start, end)
    folders: dict[str, list[str]] = {}
    for d in model.dirs.values():
        folders.setdefault(d.number, []).append(d.name)
    for number, names in folders.items():
        group = by_number.get(number, [])
        left = []
        for folder in sorted(names):  # first the folders whose words are an entry's name
            slug = folder[len(folder_prefix_of(folder)):].lstrip("-")
            match = next((p for p in group if p.folder is None and phase_ops.slug_of(p.name) == slug), None)
            if match is not None:
                match.folder = folder
            else:
                left.append((folder, slug))
        for folder, slug in left:  # then in order; a folder ROADMAP.md does not list comes last
            match = next((p for p in group if p.folder is None), None)
            if match is None:
                match = _Phase(number, slug.replace("-", " "), listed=False)
                order.append(match)
                group.append(match)
            match.folder = folder
    return order


def _after(prev: str, number: str) -> str:
    if "." not in number:
        return str(int(prev.split(".")[0]) + 1)
    head, _, dec = prev.partition(".")
    return f"{head}.{int(dec) + 1 if dec else 1}"


def _numbered(p: _Phase) -> bool:
    return bool(re.fullmatch(r"\d+(?:\.\d+)?", p.number))  # a phase that is not numbered (G1) keeps its name


def renumber(order: list[_Phase]) -> None:
    """Set each phase's `new` number (module doc). The phases ROADMAP.md lists are walked from the
    second phase of the first number they share; those before it keep theirs, whatever their order.
    A folder ROADMAP.md does not list keeps its number, and no new number takes it."""
    listed = [p for p in order if p.listed and _numbered(p)]
    extra = [p for p in order if not p.listed and _numbered(p)]
    elsewhere = {p.number for p in extra}
    seen: set[str] = set()
    start = None
    for i, p in enumerate(listed):
        if p.number in seen:
            start = i
            break
        seen.add(p.number)
    if start:
        used = {p.number for p in listed[:start]}
        prev = listed[start - 1].number
        for p in listed[start:]:
            if p.number in used or phase_sort_key(p.number) <= phase_sort_key(prev):
                new = _after(prev, p.number)
                while new in used or new in elsewhere:  # a number taken out of order, or by an unlisted folder
                    new = _after(new, p.number)
                p.new = new
            used.add(p.new)
            prev = p.new


def _requirements_of(model: phase_ops.Model, lines: list[str], p: _Phase) -> set[str]:
    ids: set[str] = set()
    if "block" in p.spans:
        for line in lines[slice(*p.spans["block"])]:
            m = _REQ_LINE.match(line)
            if m:
                ids |= set(_REQ_ID.findall(m.group(1)))
    if p.folder:
        for rel, data in model.load(p.folder).items():
            if rel.endswith("-PLAN.md"):
                head = data[:4000].decode("utf-8", errors="replace")
                m = re.search(r"^requirements:\s*\[?([^\]\n]*)", head, re.M)
                if m:
                    ids |= set(_REQ_ID.findall(m.group(1)))
    return ids


def plan_reconcile(root) -> phase_ops.Result:
    from msd_core.git.runner import operation_in_progress

    try:
        pending = operation_in_progress(root)
    except OperationFailed:
        pending = None
    if pending:
        raise OperationFailed(f"a git operation is unfinished ({pending}); resolve and commit it first",
                              hint="then run `msd_run phase reconcile`")
    model = phase_ops.Model(root, shared_numbers=True)
    order = phases_in_order(model)
    renumber(order)
    moved = [p for p in order if p.new != p.number]
    res = phase_ops.Result("reconcile")
    res.phase = {"renumbered": [{"from": p.number, "to": p.new, "name": p.name, "folder": p.folder} for p in moved]}
    numbers = {p.new for p in order if p.listed}
    unlisted = sorted(p.folder for p in order if not p.listed and p.number in numbers)
    if unlisted:
        res.notes.append("folders ROADMAP.md does not list share a number with a phase it lists; left as they are: "
                         + ", ".join(unlisted))
    if not moved:
        res.notes.append("no two phases share a number and the numbers are in order: nothing to do")
        return res
    mapping = {p.number: p.new for p in moved}
    # ROADMAP.md: each moved phase's own entries, retargeted with its branch's numbers
    lines = model.texts.get("ROADMAP.md", "").splitlines(keepends=True)
    folders = {p.folder: phase_ops._renamed_folder(p.folder, p.new) for p in moved if p.folder}
    requirement_ids: set[str] = set()
    for p in moved:
        requirement_ids |= _requirements_of(model, lines, p)
        for start, end in p.spans.values():
            lines[start:end] = _renumbered(lines[start:end], {p.number: p.new} | _own(moved, p), folders)
    if "ROADMAP.md" in model.texts:
        model.texts["ROADMAP.md"] = "".join(lines)
    # REQUIREMENTS.md: the rows and lines of the moved phases' requirements
    if "REQUIREMENTS.md" in model.texts and requirement_ids:
        req_lines = model.texts["REQUIREMENTS.md"].splitlines(keepends=True)
        for (kind, ident), start, end in entries.requirement_spans(req_lines):
            if ident in requirement_ids:
                req_lines[start:end] = _renumbered(req_lines[start:end], mapping, folders)
        model.texts["REQUIREMENTS.md"] = "".join(req_lines)
    # the folders: renamed, their files' prefixes and Markdown renumbered
    new_folders: dict[str, dict[str, bytes]] = {}
    for p in moved:
        if not p.folder:
            continue
        old_prefix, new_folder = folder_prefix_of(p.folder), folders[p.folder]
        new_prefix = folder_prefix_of(new_folder)
        res.renames.append({"from": f"phases/{p.folder}", "to": f"phases/{new_folder}"})
        files = {}
        for rel, data in model.load(p.folder).items():
            base = rel.rsplit("/", 1)[-1]
            new_rel = rel
            if "/" not in rel and (base.startswith(old_prefix + "-") or base.startswith(old_prefix + ".")):
                new_rel = new_prefix + base[len(old_prefix):]
                res.renames.append({"from": f"phases/{p.folder}/{rel}", "to": f"phases/{new_folder}/{new_rel}"})
            if rel.endswith(".md"):
                try:
                    data = re_.renumber_text(data.decode("utf-8"), {p.number: p.new} | _own(moved, p), folders).encode("utf-8")
                except UnicodeDecodeError:
                    pass
            files[new_rel] = data
        new_folders[new_folder] = files or {".gitkeep": b""}
    phase_ops._finish(model, res, new_folders, [p.folder for p in moved if p.folder])
    if moved:
        res.notes.append("lines outside the renumbered phases' own entries (prose, STATE.md's decisions) keep the "
                         "numbers they had: check any `Phase " + "`, `Phase ".join(sorted(mapping, key=phase_sort_key))
                         + "` there")
    return res


def _own(moved: list[_Phase], p: _Phase) -> dict[str, str]:
    """The numbers of the other moved phases, for references in `p`'s text (its own branch's)."""
    return {q.number: q.new for q in moved if q is not p and q.number != p.number}


def _renumbered(lines: list[str], mapping: dict[str, str], folders: dict[str, str]) -> list[str]:
    text = re_.renumber_text("".join(lines), mapping, folders)
    return text.splitlines(keepends=True)
