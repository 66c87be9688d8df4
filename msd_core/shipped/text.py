"""The text every runtime and the installer share: frontmatter lines, skills from commands, home references.

- `split_frontmatter(text)`: a file's frontmatter lines, its body and its newline (LF or CRLF).
- `skill_from_command(name, data)`: a command file as a skill (`name: msd-<name>`, a description).
- `rewrite_home(data, token)`: `~/.claude/` in UTF-8 text replaced by what it means for a target;
  `home_token(target, dest)` decides what that is (msd_core/install/transform.py says why).

Standard library only.
"""

from __future__ import annotations

import json
import re

from msd_core.paths import SOURCE_HOME_TOKEN, Target

NAME_LINE = re.compile(r"^name\s*:")
DESC_LINE = re.compile(r"^description\s*:")


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


SKILL_DIR_TOKEN = "${CLAUDE_SKILL_DIR}/../../"  # skills/<name>/ -> the config folder
PROJECT_TOKEN = ".claude/"


def is_portable(target: Target) -> bool:
    """A local install in `<project>/.claude`: written without this machine's paths."""
    return target.scope == "local" and target.config.name == ".claude"


def home_token(target: Target, dest: str = "") -> str:
    """What `~/.claude/` becomes in installed file `dest`: itself for a default global install,
    a host substitution or project-relative path in a portable local install, else the
    absolute folder."""
    if target.is_default_global:
        return SOURCE_HOME_TOKEN
    if is_portable(target):
        return SKILL_DIR_TOKEN if dest.startswith("skills/") else PROJECT_TOKEN
    return target.rewrite_token()
