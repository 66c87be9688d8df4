"""What an installed file's bytes are.

- A command `commands/msd/<name>.md` becomes `skills/msd-<name>/SKILL.md` whose frontmatter
  starts with `name: msd-<name>` and has a `description`; every other key
  (argument-hint, allowed-tools, ...) and the body are kept byte for byte.
- Every UTF-8 text file has `~/.claude/` rewritten to the target's config folder (absolute),
  except in a default global install where `~/.claude/` already names the target.
- `msd-core/VERSION` is written with the package version when the content has none.
"""

from __future__ import annotations

import json
import re

from msd_core.layout import command_name_from_source, installed_relpath, is_static_name
from msd_core.paths import SOURCE_HOME_TOKEN, Target

NAME_LINE = re.compile(r"^name\s*:")
DESC_LINE = re.compile(r"^description\s*:")
VERSION_REL = "msd-core/VERSION"
RESERVED = {"msd-core/manifest.json"}
RESERVED_PREFIXES = ("msd-core/.msd/",)


def split_frontmatter(text: str) -> tuple[list[str] | None, str, str]:
    """(frontmatter lines without the fences, body, newline). None when there is no frontmatter."""
    nl = "\r\n" if text.startswith("---\r\n") else "\n"
    if not text.startswith("---" + nl):
        return None, text, "\n"
    lines = text.split(nl)
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return lines[1:i], nl.join(lines[i + 1:]), nl
    return None, text, "\n"


def _first_text_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and not line.startswith(("<", "@", "!", "---")):
            return line[:200]
    return ""


def skill_from_command(name: str, data: bytes) -> tuple[bytes, list[str]]:
    """SKILL.md bytes for command `name`, and warnings."""
    warnings: list[str] = []
    text = data.decode("utf-8")
    front, body, nl = split_frontmatter(text)
    if front is None:
        front, body, nl = [], text, "\n"
        warnings.append(f"commands/msd/{name}.md has no frontmatter; generated one")
    # Drop a top-level name: line (and any indented continuation of it).
    kept: list[str] = []
    skipping = False
    for line in front:
        if NAME_LINE.match(line):
            skipping = True
            continue
        if skipping and (line.startswith((" ", "\t")) or not line.strip()):
            continue
        skipping = False
        kept.append(line)
    if not any(DESC_LINE.match(line) for line in kept):
        desc = _first_text_line(body) or f"msd {name} command"
        kept.insert(0, "description: " + json.dumps(desc, ensure_ascii=False))
        warnings.append(f"commands/msd/{name}.md has no description; used {desc!r}")
    out = nl.join(["---", f"name: msd-{name}", *kept, "---"]) + nl + body
    return out.encode("utf-8"), warnings


def rewrite_home(data: bytes, token: str, *, json_file: bool = False) -> bytes:
    """Replace `~/.claude/` by `token` in UTF-8 text; other bytes are returned unchanged."""
    if token == SOURCE_HOME_TOKEN or SOURCE_HOME_TOKEN.encode() not in data:
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    repl = json.dumps(token, ensure_ascii=False)[1:-1] if json_file else token
    return text.replace(SOURCE_HOME_TOKEN, repl).encode("utf-8")


def home_token(target: Target) -> str:
    """What `~/.claude/` becomes: itself for a default global install, else the absolute folder."""
    return SOURCE_HOME_TOKEN if target.is_default_global else target.rewrite_token()


def installed_files(files: list[tuple[str, bytes]], target: Target, version: str) -> tuple[dict[str, bytes], list[str], list[str]]:
    """Map source files to {installed relpath: bytes}; also (warnings, skipped-with-reason)."""
    token = home_token(target)
    out: dict[str, bytes] = {}
    warnings: list[str] = []
    skipped: list[str] = []
    for rel, data in files:
        dest = installed_relpath(rel)
        if dest is None:
            skipped.append(f"{rel}: not part of the installed layout")
            continue
        if dest in RESERVED or dest.startswith(RESERVED_PREFIXES) or dest.endswith(".msd-new"):
            skipped.append(f"{rel}: {dest} is reserved for msd's own bookkeeping")
            continue
        name = command_name_from_source(rel)
        if name is not None:
            if not is_static_name(name):
                skipped.append(f"{rel}: command name {name!r} is not lower-case words joined by '-'")
                continue
            try:
                data, warns = skill_from_command(name, data)
            except UnicodeDecodeError:
                skipped.append(f"{rel}: not UTF-8 text")
                continue
            warnings.extend(warns)
        out[dest] = rewrite_home(data, token, json_file=dest.endswith(".json"))
    out.setdefault(VERSION_REL, (version + "\n").encode("utf-8"))
    if " " in token or "\t" in token:
        warnings.append(f"the install folder {token} contains whitespace; shell lines in the content that name it may need quoting")
    return out, warnings, skipped
