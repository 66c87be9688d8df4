"""The git pre-push hook `msd install --local --pre-push` adds: `msd_run drift --check` before every push.

Opt-in, local installs only (a hook belongs to one repository: the one whose work tree top is the
project, as for the merge drivers). The hook goes in `<common git dir>/hooks/pre-push`. A
pre-push hook of your own is chained, never lost: its bytes move to `pre-push.msd-user` (mode
kept) and msd's hook runs it first with the same arguments and input, then drift. Refused, in
one line and before anything is written: `core.hooksPath` set (add the line to the hook there),
a hook that is a symlink or not a regular file, a `pre-push.msd-user` already there that is not
yours, your hook not executable (git would not run the chain).

Both files are steps of the install's transaction (files/txn.py Outside, right before the
manifest), and the manifest records them (`pre_push`: the hook's path, the sha256 msd wrote, the
saved hook's path and sha256). The record stays through updates (each rewrites the hook when the
runner moved). Uninstall takes them out in its transaction: your own hook comes back byte for
byte (its mode never changed), or the hook goes; a hook edited since msd wrote it is left, with
a warning.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

RECORD = "pre_push"
MARK = "# msd-core: pre-push drift check"
SAVED = "pre-push.msd-user"
MAX_HOOK = 1 << 20


def script(runner: list[str]) -> bytes:
    cmd = " ".join(shlex.quote(a) for a in runner)
    return (f"#!/bin/sh\n{MARK} (msd install --local --pre-push; `msd uninstall --local` removes it)\n"
            "input=$(cat)\n"
            f'saved="$(dirname "$0")/{SAVED}"\n'
            'if [ -x "$saved" ]; then\n'
            '  if [ -n "$input" ]; then printf \'%s\\n\' "$input"; fi | "$saved" "$@" || exit $?\n'
            "fi\n"
            f"{cmd} drift --check --text || {{\n"
            "  echo \"msd: push stopped: drift is unresolved. Review it with 'msd_run drift --text'; deal with each "
            "finding by its command, or accept a reviewed commit with: msd_run drift accept <commit> --reason '...'\" >&2\n"
            "  exit 1\n}\n").encode()


def _sha(data: bytes | None) -> str | None:
    from msd_core.files.atomic import sha256_bytes

    return None if data is None else sha256_bytes(data)


def _read(path: Path) -> bytes | None:
    """A hook's bytes (None when absent); a symlink or anything but a regular file is refused."""
    from msd_core.errors import UsageError
    from msd_core.files.safe_read import read_regular

    if not os.path.lexists(path):
        return None
    try:
        return read_regular(path, MAX_HOOK, follow_symlinks=False)
    except OSError as exc:
        raise UsageError(f"{path} is not a regular file msd may edit ({exc.strerror or exc})",
                         hint="make it a regular file (or remove it), then run `msd install --local --pre-push` again") from None


def _hooks_dir(repo) -> Path:
    from msd_core.errors import UsageError
    from msd_core.git.runner import git

    proc = git(["config", "--get", "core.hooksPath"], repo.top, check=False)
    if (proc.stdout or "").strip():
        raise UsageError(f"core.hooksPath is set ({proc.stdout.strip()}): msd does not write hooks there",
                         hint="add `msd_run drift --check --text` to the pre-push hook in that folder, "
                              "or leave the pre-push hook out: run `msd install --local`")
    return Path(repo.common) / "hooks"


class Planned:
    __slots__ = ("steps", "record", "entry")

    def __init__(self, steps, record, entry):
        self.steps, self.record, self.entry = steps, record, entry


def _relative(target, path: Path) -> str:
    top = Path(os.path.realpath(target.config.parent))
    real = Path(os.path.realpath(path.parent)) / path.name
    return real.relative_to(top).as_posix() if top in real.parents else str(real)


def _where(target, rel: str) -> Path:
    return Path(rel) if os.path.isabs(rel) else target.config.parent / rel


def old_record(old) -> dict | None:
    rec = old.extra.get(RECORD) if old is not None else None
    return rec if isinstance(rec, dict) and isinstance(rec.get("hook"), str) else None


def plan(target, old, cwd: Path | None, wanted: bool) -> Planned:
    """The transaction steps and the manifest record of this install (module doc); UsageError refuses."""
    from msd_core.errors import UsageError
    from msd_core.files.txn import Outside
    from msd_core.install import merge_drivers

    rec = old_record(old)
    if not wanted and rec is None:
        return Planned([], None, {"action": "not asked (--pre-push adds it)"})
    if target.scope != "local":
        raise UsageError("a pre-push hook belongs to one repository: it goes with a project install", about="pre_push",
                         hint="run `msd install --local --pre-push` at the top of the project's repository")
    repo = merge_drivers.project_repo(target, cwd)
    if repo is None:
        raise UsageError(f"{target.config.parent} is not the top of a git work tree: there is no pre-push hook to add",
                         hint="run `msd install --local --pre-push` at the top of the project's repository")
    hook = _hooks_dir(repo) / "pre-push"
    if not hook.parent.is_dir():
        raise UsageError(f"{hook.parent} is not a folder", hint=f"create it (mkdir -p {hook.parent}), then run "
                                                               "`msd install --local --pre-push` again")
    saved = hook.with_name(SAVED)
    ours = script(merge_drivers.runner_argv())
    now = _read(hook)
    entry = {"path": str(hook)}
    if rec is not None and now is not None and _sha(now) != rec.get("written"):
        entry.update(action="kept: edited since msd wrote it")
        return Planned([], rec, entry)
    if now == ours:
        return Planned([], rec or _record(target, hook, ours, None, None), {**entry, "action": "present"})
    steps, saved_sha = [], (rec or {}).get("saved_sha256")
    if now is not None and MARK.encode() not in now:  # your own hook: chained
        if not os.access(hook, os.X_OK):
            raise UsageError(f"{hook} is not executable, so git does not run it and msd would not chain it",
                             hint=f"make it executable (chmod +x {hook}) or remove it, then run `msd install --local --pre-push` again")
        there = _read(saved)
        if there is not None and there != now:
            raise UsageError(f"{saved} exists and is not your current pre-push hook",
                             hint="move it away, then run `msd install --local --pre-push` again")
        mode = os.lstat(hook).st_mode & 0o7777
        steps.append(Outside(saved, _put(now, None), mode=mode))
        saved_sha = _sha(now)
        entry["chained"] = str(saved)
    steps.append(Outside(hook, _put(ours, now), mode=0o755))
    entry["action"] = ("added" if rec is None else "updated")
    return Planned(steps, _record(target, hook, ours, saved if saved_sha else None, saved_sha), entry)


def _record(target, hook: Path, ours: bytes, saved: Path | None, saved_sha: str | None) -> dict:
    out = {"hook": _relative(target, hook), "written": _sha(ours)}
    if saved is not None:
        out.update(saved=_relative(target, saved), saved_sha256=saved_sha)
    return out


def _put(new: bytes, expected: bytes | None):
    """An Outside edit writing `new` over a file that still holds `expected` (else it refuses)."""
    def edit(data: bytes | None):
        if data == new:
            return None
        if data != expected:
            from msd_core.errors import OperationFailed

            raise OperationFailed("a git hook changed while msd was installing; nothing was changed",
                                  hint="run `msd install --local --pre-push` again")
        return new
    return edit


def remove_steps(target, manifest, warnings: list[str]) -> tuple[list, dict]:
    """(the uninstall's transaction steps, its result entry): the hook goes (or your own comes back)."""
    from msd_core.errors import MsdError
    from msd_core.files.txn import REMOVE, Outside

    rec = old_record(manifest)
    if rec is None:
        return [], {"action": "none"}
    hook = _where(target, rec["hook"])
    saved = _where(target, rec["saved"]) if isinstance(rec.get("saved"), str) else None
    try:
        now = _read(hook)
        back = _read(saved) if saved is not None else None
    except MsdError as exc:
        warnings.append(f"{exc.message}; msd's pre-push hook left as it is")
        return [], {"path": str(hook), "action": "skipped"}
    if now is None:
        return [], {"path": str(hook), "action": "absent"}
    if _sha(now) != rec.get("written"):
        warnings.append(f"{hook} was edited since msd wrote it: left as it is"
                        + (f" (your own hook is in {saved})" if back is not None else ""))
        return [], {"path": str(hook), "action": "kept: edited"}
    if saved is not None and back is not None and _sha(back) == rec.get("saved_sha256"):
        return ([Outside(hook, _put(back, now)), Outside(saved, _put(REMOVE, back))],
                {"path": str(hook), "action": "restored your own hook"})
    if saved is not None:
        warnings.append(f"{saved} is gone or changed: msd's pre-push hook removed, yours not restored")
    return [Outside(hook, _put(REMOVE, now))], {"path": str(hook), "action": "removed"}
