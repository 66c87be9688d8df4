"""Phase surgery: insert a decimal phase, remove a phase, move an unexecuted phase.

Each operation is planned on an in-memory copy of the current milestone (ROADMAP.md,
REQUIREMENTS.md, STATE.md and the `phases/` folders it touches), then applied in ONE
transaction of `msd_core.files.txn` rooted at `.planning/` (stage every file, write a
journal, replace/delete, mark committed): a process killed at any point leaves the old
numbering or the new one, and the next `msd_run` call recovers (rolls back a prepared
journal, finishes a committed one) before it reads anything. The whole plan-and-apply
holds the STATE.md lock. The transaction also writes `.planning/.msd/state-due`: STATE.md's
derived lines are due; the command re-derives them right after and removes the record, and
a call after a kill in between does it first (msd_core.progress.settle).

Whole or nothing: the phase list must be readable whole. `.planning/phases` being a symlink,
a phase folder being one, or a folder holding plans whose name gives no phase
(discovery.phase_identity) is refused (UsageError, one line) by every operation: the readers
do not see such a folder, so renumbering around it would leave ROADMAP and the folders apart.

insert AFTER NAME  new phase `I.k` (I = AFTER's integer part, k = one past the highest
                   decimal of I in use): folder `<id>-<slug>/.gitkeep`, ROADMAP checklist
                   line, details block and progress row after those of the phase before it.
remove N [--force] refuses a phase whose folder holds a SUMMARY unless forced; deletes its
                   folder and ROADMAP entries; later phases shift down by one (integer N:
                   every phase whose integer part is above N, decimals kept, `5.1` → `4.1`;
                   decimal `I.k`: `I.j` → `I.(j-1)` for j > k) — but only when none of them
                   is executed (then the numbers stay and the gap is reported). Shifting
                   renames folders, the files inside named with the old prefix, references
                   in ROADMAP.md, REQUIREMENTS.md (traceability), STATE.md and the texts of
                   the renamed folders.
move N --after M   an unexecuted phase N leaves its place (later phases close the gap as
                   in remove) and becomes the next decimal phase after M, keeping its
                   files and its ROADMAP details.

Standard library only (msd_core.files.txn is imported when a change is applied).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.paths import PROJECT_STATE_DIRNAME, STATE_DUE_NAME
from msd_core.planning import roadmap_edit as re_
from msd_core.planning.discovery import folder_prefix_of, phase_dirs
from msd_core.planning.roadmap import phase_sort_key, roadmap_phases

TEXT_FILES = ("ROADMAP.md", "REQUIREMENTS.md", "STATE.md")
MAX_FILE = 8 * 1024 * 1024
MAX_FILES = 2000


def _int(num: str) -> int:
    return int(num.split(".")[0])


def _dec(num: str) -> int:
    return int(num.split(".")[1]) if "." in num else 0


def slug_of(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]


class Model:
    """The current milestone in memory: texts (name -> str) and phase folders (dirname -> files)."""

    def __init__(self, root: Path, *, shared_numbers: bool = False):
        """`shared_numbers`: read a milestone where two folders share a number (phase reconcile:
        `shared` lists them; `folder_of` keeps the first) instead of refusing it."""
        from msd_core.planning.project import read_text_file

        self.root = Path(root)
        self.planning = self.root / ".planning"
        self.texts: dict[str, str] = {}
        for name in TEXT_FILES:
            if (self.planning / name).exists() or (self.planning / name).is_symlink():
                self.texts[name] = read_text_file(self.planning / name, name, MAX_FILE)[1]
        self.original = dict(self.texts)
        skipped: list = []
        self.dirs = {d.name: d for d in phase_dirs(self.planning, skipped)
                     if d.milestone is None and d.number is not None and re.match(r"\d", d.name)}
        blockers = [s for s in skipped if s.milestone is None and s.blocks]
        if blockers:  # renumbering around a phase no reader sees would leave ROADMAP and the folders apart
            more = f" (and {len(blockers) - 1} more)" if len(blockers) > 1 else ""
            raise UsageError(f"cannot change the phase list: {blockers[0].describe(self.root)}{more}",
                             hint="name phase folders NN-name, or replace a link with the folder itself, then rerun")
        self.roadmap = {p.number: p.name for p in roadmap_phases(self.texts.get("ROADMAP.md", ""))}
        self.folder_of = {}
        self.shared: dict[str, list[str]] = {}
        for d in sorted(self.dirs.values(), key=lambda d: d.name):
            if d.number in self.folder_of and shared_numbers:
                self.shared.setdefault(d.number, [self.folder_of[d.number]]).append(d.name)
                continue
            if d.number in self.folder_of:
                raise OperationFailed(f"two phase folders share number {d.number} ({self.folder_of[d.number]}, {d.name});"
                                      " rename one before changing the phase list")
            self.folder_of[d.number] = d.name
        self.files: dict[str, dict[str, bytes]] = {}

    def numbers(self) -> list[str]:
        return sorted(set(self.roadmap) | set(self.folder_of), key=phase_sort_key)

    def name_of(self, number: str) -> str:
        if number in self.roadmap and self.roadmap[number]:
            return self.roadmap[number]
        folder = self.folder_of.get(number)
        return self.dirs[folder].slug if folder else ""

    def executed(self, number: str) -> bool:
        folder = self.folder_of.get(number)
        return bool(folder) and any(n.endswith("SUMMARY.md") for n in self.load(folder))

    def load(self, folder: str) -> dict[str, bytes]:
        """Every file under a phase folder (relative names); symlinks and special files refused."""
        if folder in self.files:
            return self.files[folder]
        from msd_core.files.safe_read import read_regular

        base = self.planning / "phases" / folder
        out: dict[str, bytes] = {}
        from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

        walker = walk(base)
        for dirpath, dirnames, filenames in walker:
            for d in dirnames:
                if os.path.islink(os.path.join(dirpath, d)):
                    raise OperationFailed(f"{os.path.join(dirpath, d)} is a symlink; move it out before renumbering")
            for f in filenames:
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, base).replace(os.sep, "/")
                if len(out) >= MAX_FILES:
                    raise OperationFailed(f"{base} holds more than {MAX_FILES} files; not renumbered")
                try:
                    out[rel] = read_regular(full, MAX_FILE, follow_symlinks=False)
                except OSError as exc:
                    raise OperationFailed(f"cannot move {full} ({exc.strerror or exc}); nothing was changed") from None
        if walker.deep:
            raise OperationFailed(f"{walker.deep[0]} is nested too deep to move safely; nothing was changed")
        self.files[folder] = out
        return out

    def resolve(self, ref) -> str:
        from msd_core.planning.phase_ref import resolve

        found = resolve(self.planning, ref)
        if found.milestone is not None:
            raise UsageError(f"phase {ref} belongs to archived milestone {found.milestone}; only current phases change")
        if found.number not in self.roadmap and found.number not in self.folder_of:
            raise UsageError(f"phase {ref} names no phase of the current milestone")
        return found.number


def next_decimal(numbers, integer: int) -> str:
    used = [_dec(n) for n in numbers if _int(n) == integer and "." in n]
    return f"{integer}.{max(used, default=0) + 1}"


def _gap_mapping(model: Model, gone: str) -> tuple[dict[str, str], str | None]:
    """Renumbering that closes the gap `gone` leaves; ({}, why) when an executed phase blocks it."""
    numbers = model.numbers()
    later = [n for n in numbers if n != gone and
             ((_int(n) >= _int(gone)) if "." not in gone else (_int(n) == _int(gone) and _dec(n) > _dec(gone)))]
    if not later:
        return {}, None
    blocked = [n for n in later if model.executed(n)]
    if blocked:
        return {}, f"later phases keep their numbers: phase {blocked[0]} has executed plans"
    if "." in gone:
        return {n: f"{_int(n)}.{_dec(n) - 1}" for n in later}, None
    below = _int(gone) - 1
    own = [n for n in later if _int(n) == _int(gone)]  # the removed phase's decimals: after phase N-1's
    if own and (below < 0 or not any(_int(n) == below for n in numbers)):
        return {}, f"later phases keep their numbers: phase {own[0]} has no phase {below} to follow"
    top = max((_dec(n) for n in numbers if _int(n) == below), default=0)
    mapping = {n: f"{below}.{top + _dec(n)}" for n in own}
    mapping.update({n: str(_int(n) - 1) + n[len(str(_int(n))):] for n in later if _int(n) > _int(gone)})
    return mapping, None


class Result:
    def __init__(self, op: str):
        self.op = op
        self.puts: dict[str, bytes] = {}
        self.deletes: list[str] = []
        self.rmdirs: list[str] = []
        self.renames: list[dict] = []
        self.notes: list[str] = []
        self.phase: dict = {}


def _renamed_folder(folder: str, new_num: str) -> str:
    prefix = folder_prefix_of(folder)
    return re_.styled(new_num, prefix) + folder[len(prefix):]


def _apply_mapping(model: Model, mapping: dict[str, str], res: Result, skip: set[str] = frozenset(),
                   extra_folders: dict[str, str] | None = None) -> dict[str, dict[str, bytes]]:
    """Renumber texts in `model.texts` and every mapped folder; returns the new folders' files."""
    folders = {}
    for old, new in mapping.items():
        f = model.folder_of.get(old)
        if f and f not in skip:
            folders[f] = _renamed_folder(f, new)
    names = dict(folders)
    names.update(extra_folders or {})
    for key, text in model.texts.items():
        model.texts[key] = re_.renumber_text(text, mapping, names)
    out: dict[str, dict[str, bytes]] = {}
    for old_f, new_f in {**folders, **(extra_folders or {})}.items():
        old_prefix, new_prefix = folder_prefix_of(old_f), folder_prefix_of(new_f)
        res.renames.append({"from": f"phases/{old_f}", "to": f"phases/{new_f}"})
        files = {}
        for rel, data in model.load(old_f).items():
            base = rel.rsplit("/", 1)[-1]
            new_rel = rel
            if "/" not in rel and (base.startswith(old_prefix + "-") or base.startswith(old_prefix + ".")):
                new_rel = rel[: len(rel) - len(base)] + new_prefix + base[len(old_prefix):]
                res.renames.append({"from": f"phases/{old_f}/{rel}", "to": f"phases/{new_f}/{new_rel}"})
            if rel.endswith(".md"):
                try:
                    data = re_.renumber_text(data.decode("utf-8"), mapping, names).encode("utf-8")
                except UnicodeDecodeError:
                    pass
            files[new_rel] = data
        out[new_f] = files or {".gitkeep": b""}
    return out


def _finish(model: Model, res: Result, new_folders: dict[str, dict[str, bytes]], dropped: list[str]) -> Result:
    """Turn the model's changes into puts/deletes/rmdirs relative to `.planning/`."""
    for key, text in model.texts.items():
        if text != model.original.get(key):
            res.puts[key] = text.encode("utf-8")
    old_files = {}
    for f in dropped:
        for rel, data in model.load(f).items():
            old_files[f"phases/{f}/{rel}"] = data
    new_files = {f"phases/{f}/{rel}": data for f, files in new_folders.items() for rel, data in files.items()}
    for rel, data in new_files.items():
        if old_files.get(rel) != data:
            res.puts[rel] = data
    res.deletes = sorted(r for r in old_files if r not in new_files)
    kept_dirs = {r.rsplit("/", 1)[0] for r in new_files}
    kept_dirs |= {"/".join(d.split("/")[:i]) for d in list(kept_dirs) for i in range(2, d.count("/") + 1)}
    gone_dirs = set()
    for f in dropped:
        gone_dirs.add(f"phases/{f}")
        for rel in model.load(f):
            parts = rel.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                gone_dirs.add(f"phases/{f}/" + "/".join(parts[:i]))
    res.rmdirs = sorted((d for d in gone_dirs if d not in kept_dirs), key=lambda d: -d.count("/"))
    return res


def plan_insert(root: Path, after_ref, name: str, goal: str | None = None) -> Result:
    name = " ".join((name or "").split())
    if not name or not slug_of(name):
        raise UsageError("phase insert needs a name with letters or digits, e.g. \"Hotfix login\"")
    if len(name) > 120:
        raise UsageError("phase name longer than 120 characters")
    model = Model(root)
    after = model.resolve(after_ref)
    numbers = model.numbers()
    new = next_decimal(numbers, _int(after))
    prev = max((n for n in numbers if phase_sort_key(n) < phase_sort_key(new)), key=phase_sort_key)
    like = folder_prefix_of(model.folder_of.get(after) or model.folder_of.get(prev) or "01")
    folder = f"{re_.styled(new, like)}-{slug_of(name)}"
    res = Result("insert")
    if "ROADMAP.md" in model.texts:
        model.texts["ROADMAP.md"] = re_.put_entries(model.texts["ROADMAP.md"], prev, new, name, goal=goal)
    if prev != after:
        res.notes.append(f"phase {after} already has decimal phases; {new} goes after phase {prev}")
    _finish(model, res, {folder: {".gitkeep": b""}}, [])
    res.phase = {"number": new, "id": re_.styled(new, like), "name": name, "folder": f".planning/phases/{folder}",
                 "after": prev}
    return res


def plan_remove(root: Path, ref, force: bool = False) -> Result:
    model = Model(root)
    gone = model.resolve(ref)
    if model.executed(gone) and not force:
        raise OperationFailed(f"phase {gone} has executed plans (SUMMARY files); not removed",
                              hint="remove it anyway, its folder deleted", remedy="force")
    res = Result("remove")
    name = model.name_of(gone)
    numbers = model.numbers()
    prev = max((n for n in numbers if phase_sort_key(n) < phase_sort_key(gone)), key=phase_sort_key, default=None)
    if "ROADMAP.md" in model.texts:
        model.texts["ROADMAP.md"] = re_.take_entries(model.texts["ROADMAP.md"], gone)[0]
    _mark_removed(model, gone, prev)
    mapping, why = _gap_mapping(model, gone)
    if why:
        res.notes.append(why)
    new_folders = _apply_mapping(model, mapping, res)
    dropped = [f for f in (model.folder_of.get(n) for n in [gone, *mapping]) if f]
    if model.folder_of.get(gone):
        res.renames.insert(0, {"from": f"phases/{model.folder_of[gone]}", "to": None})
    _finish(model, res, new_folders, dropped)
    res.phase = {"number": gone, "name": name, "renumbered": {k: v for k, v in sorted(mapping.items(), key=lambda x: phase_sort_key(x[0]))}}
    return res


def _mark_removed(model: Model, gone: str, prev: str | None) -> None:
    """References left to a removed phase: `Depends on` points at its predecessor,
    traceability rows become TBD, anything else says `(removed)`."""
    rx = re.compile(rf"(?<![\w.])Phase\s+0*{re.escape(gone)}(?![\w]|\.\d)", re.I)
    for key, text in model.texts.items():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if not rx.search(line):
                continue
            if "depends on" in line.lower():
                lines[i] = rx.sub(f"Phase {prev}" if prev else "none", line)
            elif key == "REQUIREMENTS.md" and line.lstrip().startswith("|"):
                lines[i] = rx.sub("TBD", line)
            elif key != "STATE.md":
                lines[i] = rx.sub(lambda m: m.group(0) + " (removed)", line)
        model.texts[key] = "\n".join(lines)


def plan_move(root: Path, ref, after_ref) -> Result:
    model = Model(root)
    src = model.resolve(ref)
    after = model.resolve(after_ref)
    if src == after:
        raise UsageError(f"phase {src} cannot move after itself")
    if model.executed(src):
        raise OperationFailed(f"phase {src} has executed plans (SUMMARY files); only unexecuted phases move")
    res = Result("move")
    name = model.name_of(src)
    taken = {}
    if "ROADMAP.md" in model.texts:
        model.texts["ROADMAP.md"], taken = re_.take_entries(model.texts["ROADMAP.md"], src)
    gap, why = _gap_mapping(model, src)
    if why:
        res.notes.append(why)
    after2 = gap.get(after, after)
    remaining = [gap.get(n, n) for n in model.numbers() if n != src]
    new = next_decimal(remaining, _int(after2))
    prev = max((n for n in remaining if phase_sort_key(n) < phase_sort_key(new)), key=phase_sort_key)
    mapping = {**gap, src: new}
    src_folder = model.folder_of.get(src)
    extra = {src_folder: _renamed_folder(src_folder, new)} if src_folder else {}
    new_folders = _apply_mapping(model, mapping, res, skip={src_folder} if src_folder else set(), extra_folders=extra)
    if "ROADMAP.md" in model.texts:
        taken = {k: (re_.renumber_text("\n".join(v), mapping).split("\n") if isinstance(v, list) else
                     (re_.renumber_text(v, mapping) if v else v)) for k, v in taken.items()}
        if taken.get("block"):  # it now follows `prev`
            taken["block"] = [re.sub(r"^(\s*(?:\*\*)?Depends on(?:\*\*)?:?(?:\*\*)?\s*).*", lambda m: f"{m.group(1)}Phase {prev}",
                                     line, flags=re.I) if "depends on" in line.lower() else line for line in taken["block"]]
        model.texts["ROADMAP.md"] = re_.put_entries(model.texts["ROADMAP.md"], prev, new, name, taken=taken)
    dropped = [f for f in (model.folder_of.get(n) for n in mapping) if f]
    _finish(model, res, new_folders, dropped)
    res.phase = {"number": new, "from": src, "name": name, "after": prev,
                 "renumbered": {k: v for k, v in sorted(mapping.items(), key=lambda x: phase_sort_key(x[0]))}}
    return res


def apply(root: Path, res: Result, *, dry_run: bool = False) -> dict:
    """Apply a planned change (or only report it); returns the JSON report."""
    report = {"op": res.op, "dry_run": dry_run, "phase": res.phase, "renames": res.renames,
              "written": sorted(res.puts), "deleted": res.deletes}
    if res.notes:
        report["notes"] = res.notes
    if dry_run:
        return report
    from msd_core.files import txn

    changes = txn.Changes(puts=dict(res.puts), deletes=list(res.deletes), rmdirs=list(res.rmdirs))
    if not changes.empty():
        if (Path(root) / ".planning" / "STATE.md").is_file():
            # in the same transaction: STATE.md's derived lines are due (msd_core.progress.settle)
            from msd_core.files.private_dir import ensure_private_dir

            ensure_private_dir(Path(root))
            changes.puts[STATE_DUE_REL] = _due_record(res)
        txn.apply(Path(root) / ".planning", changes)
    return report


STATE_DUE_REL = f"{PROJECT_STATE_DIRNAME}/{STATE_DUE_NAME}"  # under .planning/


def _due_record(res: Result) -> bytes:
    import json
    import time

    return (json.dumps({"op": res.op, "phase": res.phase, "pid": os.getpid(), "at": time.time_ns()}) + "\n").encode("utf-8")


def state_due(root: Path) -> bytes | None:
    """The record a phase change leaves until STATE.md is re-derived (None: nothing due)."""
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(Path(root) / ".planning" / STATE_DUE_REL, 64 * 1024, follow_symlinks=False)
    except OSError:
        return None


def clear_state_due(root: Path, record: bytes | None) -> None:
    """Remove the due record once STATE.md is re-derived; only the record read before (a newer
    change's record stays). The caller holds the state lock."""
    if record is not None and state_due(root) == record:
        import contextlib

        with contextlib.suppress(FileNotFoundError):
            os.unlink(Path(root) / ".planning" / STATE_DUE_REL)


def recover(root: Path) -> str | None:
    from msd_core.files import txn

    planning = Path(root) / ".planning"
    if not txn.pending(planning):
        return None
    return txn.recover(planning, what="phase change")
