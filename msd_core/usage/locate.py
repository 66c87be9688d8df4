"""Where Claude Code keeps a project's session transcripts (2.1.332, seen in the real CLI).

    <config>/projects/<folder>/<session>.jsonl                              a main session
    <config>/projects/<folder>/<session>/subagents/agent-<id>.jsonl         a subagent (Agent tool)
    <config>/projects/<folder>/<session>/subagents/agent-<id>.meta.json     its agentType, toolUseId

`<config>` is $CLAUDE_CONFIG_DIR, else ~/.claude. `<folder>` is the realpath of the session's
working folder with every character outside [a-zA-Z0-9] (each UTF-16 code unit) replaced by
`-`; past 200 characters it is the first 200 and `-` and a base-36 hash of the path. The
replacement is lossy (`/a/b-c` and `/a/b/c` share a folder), and a session started in a
subfolder of the project has a folder of its own, so each candidate transcript is kept only
when the `cwd` its first lines record is the project or inside it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core.files.bounded import loads_json

_NAME_LIMIT = 200
_OTHER = re.compile(r"[^a-zA-Z0-9]")
HEAD_BYTES = 64 * 1024  # where a transcript's first lines (and their cwd) are looked for
MAX_META_BYTES = 64 * 1024  # a subagent's `agent-<id>.meta.json` (a few fields)


def config_dir(override: str | os.PathLike | None = None) -> Path:
    """The folder holding `projects/`: Claude Code's global config folder (msd_core.paths decides it)."""
    from msd_core import paths

    return paths.global_config_dir(override)


def _utf16_units(text: str) -> str:
    """`text` with each character outside the BMP doubled (JavaScript counts it as two units)."""
    return "".join(c if ord(c) < 0x10000 else c + c for c in text)


def _js_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = ((h << 5) - h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def folder_name(cwd: str) -> str:
    """The folder name Claude Code gives the transcripts of a session started in `cwd` (a realpath)."""
    name = _OTHER.sub("-", _utf16_units(cwd))
    if len(name) <= _NAME_LIMIT:
        return name
    return f"{name[:_NAME_LIMIT]}-{_base36(abs(_js_hash(cwd)))}"


def first_cwd(path: Path) -> str | None:
    """The `cwd` the first lines of a transcript record (None when none of them does)."""
    from msd_core.files.safe_read import read_head

    try:
        head = read_head(path, HEAD_BYTES)
    except OSError:
        return None
    for raw in head.split(b"\n"):
        if b'"cwd"' not in raw:
            continue
        try:
            value = loads_json(raw, "a transcript line").get("cwd")
        except (ValueError, AttributeError):
            continue
        if isinstance(value, str):
            return value
    return None


def _inside(cwd: str, root: str) -> bool:
    return cwd == root or cwd.startswith(root.rstrip("/") + "/")


def project_folders(projects: Path, root: Path) -> list[Path]:
    """The folders under `projects` that may hold sessions of `root` or one of its subfolders."""
    name = folder_name(os.path.realpath(root))
    try:
        entries = sorted(os.scandir(projects), key=lambda e: e.name)
    except OSError:
        return []
    prefix = name[:_NAME_LIMIT]
    return [Path(e.path) for e in entries
            if e.is_dir(follow_symlinks=False) and (e.name == name or e.name.startswith(prefix + "-"))]


def sessions(root: Path, config: Path, known=()) -> list[tuple[Path, list[Path]]]:
    """[(main transcript, [its subagent transcripts])] of the project at `root`, oldest first.
    `known`: paths already known to be this project's (their first lines are not read again)."""
    real = os.path.realpath(root)
    out = []
    for folder in project_folders(config / "projects", Path(real)):
        try:
            files = sorted((e for e in os.scandir(folder) if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False)),
                           key=lambda e: (e.stat().st_mtime, e.name))
        except OSError:
            continue
        for entry in files:
            path = Path(entry.path)
            if str(path) not in known:
                cwd = first_cwd(path)
                if cwd is None or not _inside(os.path.realpath(cwd), real):
                    continue
            out.append((path, subagent_files(path)))
    return out


def subagent_files(main: Path) -> list[Path]:
    folder = main.with_suffix("") / "subagents"
    try:
        return sorted(Path(e.path) for e in os.scandir(folder)
                      if e.name.startswith("agent-") and e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))
    except OSError:
        return []


def subagent_meta(path: Path) -> dict:
    """The `agent-<id>.meta.json` beside a subagent transcript ({} when missing or unreadable)."""
    meta = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
    from msd_core.files.bounded import read_json

    try:
        data = read_json(meta, str(meta), MAX_META_BYTES)
    except (OSError, ValueError):  # absent, a FIFO or device, too large, damaged
        return {}
    return data if isinstance(data, dict) else {}
