"""Whether a tree is one msd wrote, read from what is committed, so a fresh clone asks for evidence
from its first command (msd_core.progress.evidence; issue 45 item 1).

Two committed signals, read only when the clone has no evidence marker of its own
(`.planning/.msd/evidence.json` is git-ignored):

1. the record in `.planning/config.json`, `"evidence": {"since": <epoch seconds>, "cutoff":
   {"<phase-dir>/<plan-id>": "<sha256 of its SUMMARY>"}}`, the marker's own shape. msd writes it
   when it creates the project (`msd init new-project`, the new-project flow's first `msd_run config
   set --create`) and when a person adopts an older project (`msd_run evidence adopt`); it is
   committed with config.json. It is never overwritten. A record that is not of that shape (either
   field missing or of another type, a `since` that is not a finite number) is ignored, as if absent.
2. `Msd-Plan:` trailers in the history reachable from HEAD (the one `git log` the evidence reads
   anyway, msd_core.progress.evidence.Reading): a tree with a commit `msd_run commit --plan` made
   is msd's. Its cutoff is the plans whose SUMMARY was in the tree before the oldest such commit
   (in its first parent's tree: one `git ls-tree`, read once per process, only when the tree has
   no marker and a SUMMARY is met) and is the same now as git sees it (its bytes have the blob's id, or
   `git hash-object`, with the clone's line-end filters, gives it: `unchanged`); a root commit
   has no tree before it. When that tree cannot be read (a shallow clone cut there: the oldest commit
   seen shows no parent) the signal gives no cutoff and the tree is taken on its SUMMARYs, as before.

Standard library only; hashlib is imported only when the history's cutoff is read.
"""

from __future__ import annotations

import math
from pathlib import Path

CONFIG_KEY = "evidence"  # the record's key in .planning/config.json (not a setting: `msd config list` leaves it out)
PHASES = ".planning/phases/"
_HASH_BATCH = 500  # paths per `git hash-object` (well inside any command-line limit)


def parse(data: object, *, need_cutoff: bool) -> dict | None:
    """{"since": float, "cutoff": {plan: sha256} or None} from a marker's or a record's JSON value; None
    when it is not one. `need_cutoff`: a record in config.json must carry its cutoff (an object)."""
    if not isinstance(data, dict):
        return None
    value = data.get("since")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None
    cutoff = data.get("cutoff")
    if need_cutoff and not isinstance(cutoff, dict):
        return None
    return {"since": float(value),
            "cutoff": {k: v for k, v in cutoff.items() if isinstance(v, str)} if isinstance(cutoff, dict) else None}


def recorded(main: Path) -> dict | None:
    """The record in the project's committed `.planning/config.json` (None: none, or not a record)."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular

    try:
        data = loads_json(read_regular(Path(main) / ".planning" / "config.json", 1 << 20, follow_symlinks=False),
                          "the project config")
    except (OSError, ValueError):
        return None
    found = parse(data.get(CONFIG_KEY) if isinstance(data, dict) else None, need_cutoff=True)
    if found is not None:
        found["source"] = "config"
    return found


def publish(main: Path, found: dict, *, create: bool) -> dict:
    """Write `found` (since, cutoff) as config.json's record unless it holds one: {"path", "changed"}.
    `create`: make config.json when there is none. OSError or MsdError (a config.json that does not
    parse) when it cannot be written."""
    from msd_core.config import store

    value = {"since": found["since"], "cutoff": dict(sorted((found.get("cutoff") or {}).items()))}
    out = store.record(CONFIG_KEY, value, str(main), create=create)
    return {"path": out["path"], "changed": out["changed"]}


def _blob_id(data: bytes, width: int) -> str:
    """git's object id of a blob with these bytes (sha1, or sha256 in a sha256 repository)."""
    from msd_core.files.atomic import sha1_bytes, sha256_bytes  # not hashlib: it loads OpenSSL

    return (sha256_bytes if width == 64 else sha1_bytes)(b"blob %d\0" % len(data) + data)


def before_msd(main: Path, parent: str) -> dict[str, tuple[str, str]] | None:
    """{"<phase-dir>/<plan-id>": (its SUMMARY's file name, blob id)} in commit `parent`'s tree (the tree before msd's
    first commit); None when git cannot read it."""
    from msd_core.errors import MsdError
    from msd_core.git.runner import git
    from msd_core.planning.discovery import plan_id_of_name

    try:
        proc = git(["ls-tree", "-r", "-z", parent, "--", PHASES], main, check=False)
    except MsdError:
        return None
    if proc.returncode != 0:
        return None
    out: dict[str, tuple[str, str]] = {}
    for entry in proc.stdout.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) != 3 or parts[1] != "blob" or not path.startswith(PHASES):
            continue
        folder, _, name = path[len(PHASES):].partition("/")
        if not folder or "/" in name or not (name.endswith("-SUMMARY.md") or name == "SUMMARY.md"):
            continue
        out[f"{folder}/{plan_id_of_name(name) or folder}"] = (name, parts[2])
    return out


def shallow(main: Path) -> bool:
    """Whether the clone's history is cut (`git clone --depth`): a commit there may show no parent it has."""
    from msd_core.errors import MsdError
    from msd_core.git.runner import git

    try:
        proc = git(["rev-parse", "--is-shallow-repository"], main, check=False)
    except MsdError:
        return True
    return proc.returncode != 0 or proc.stdout.strip() != "false"


def unchanged(main: Path, files: dict[str, tuple[str, str]]) -> set[str]:
    """The keys of `files` ({key: (path from `main`, git blob id)}) whose file git would store as that blob:
    its bytes are the blob's, or, for a file whose bytes differ, git's `hash-object` of it says so. That runs
    the clone's own filters (core.autocrlf, an eol rule in .gitattributes: a SUMMARY checked out with CRLF
    line ends is not a changed one), in one git process for every such file, and only when there is one."""
    from msd_core.errors import MsdError
    from msd_core.files.safe_read import read_regular
    from msd_core.git.runner import git

    same: set[str] = set()
    ask: list[tuple[str, str, str]] = []
    for key, (rel, blob) in files.items():
        try:
            data = read_regular(Path(main) / rel, 4 * 1024 * 1024, follow_symlinks=False)
        except (OSError, ValueError):
            continue
        if _blob_id(data, len(blob)) == blob:
            same.add(key)
        else:
            ask.append((key, rel, blob))
    for start in range(0, len(ask), _HASH_BATCH):
        batch = ask[start:start + _HASH_BATCH]
        try:
            proc = git(["hash-object", "--", *(rel for _, rel, _ in batch)], main, check=False)
        except MsdError:
            break
        ids = proc.stdout.split() if proc.returncode == 0 else []
        if len(ids) == len(batch):  # one id per path, in order; anything else proves nothing
            same.update(key for (key, _, blob), got in zip(batch, ids, strict=True) if got == blob)
    return same
