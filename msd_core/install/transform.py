"""What an installed file's bytes are.

- A command `commands/msd/<name>.md` becomes `skills/msd-<name>/SKILL.md` whose frontmatter
  starts with `name: msd-<name>` and has a `description`; every other key
  (argument-hint, allowed-tools, ...) and the body are kept byte for byte.
- Every UTF-8 text file has `~/.claude/` rewritten to the target's config folder, except in a
  default global install where `~/.claude/` already names the target. A global install gets
  the absolute folder. A local install (`<project>/.claude`) gets no absolute path, so a
  committed `.claude/` works in a clone or a moved folder (checked in the real host,
  tests/host/test_release_host.py): a skill says `${CLAUDE_SKILL_DIR}/../../`, which Claude Code
  substitutes in `@` lines and in `!` shell lines (the permission rule `Bash(msd_run *)` still
  matches, since substitution comes first); every other file (agents, workflows, references,
  flows) is read by the model and says `.claude/`, relative to the project folder the agent
  works in. (`${CLAUDE_PROJECT_DIR}` is not used: the host sets it to the launch folder,
  which is a subfolder when claude starts there.)
- `msd-core/VERSION` is written with the package version when the content has none.
"""

from __future__ import annotations

import json
import re

from msd_core.shipped.layout import command_name_from_source, is_static_name
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


def installed_files(files: list[tuple[str, bytes]], target: Target, version: str,
                    token: str | None = None) -> tuple[dict[str, bytes], list[str], list[str]]:
    """Map source files to {installed relpath: bytes} for the target's runtime (msd_core/runtimes);
    also (warnings, skipped-with-reason). `token` replaces `~/.claude/` everywhere instead of the
    target's own (a plugin build)."""
    from msd_core.shipped.layout import AGENTS_PREFIX
    from msd_core.runtimes import get as get_runtime

    rt = get_runtime(target.runtime)
    commands = frozenset(n for rel, _ in files if (n := command_name_from_source(rel)) is not None)
    out: dict[str, bytes] = {}
    warnings: list[str] = []
    skipped: list[str] = []
    for rel, data in files:
        dest = rt.installed_relpath(rel)
        if dest is None:
            skipped.append(f"{rel}: not part of the installed layout")
            continue
        if dest in RESERVED or dest.startswith(RESERVED_PREFIXES) or dest.endswith(".msd-new"):
            skipped.append(f"{rel}: {dest} is reserved for msd's own bookkeeping")
            continue
        name = command_name_from_source(rel)
        try:
            if name is not None:
                if not is_static_name(name):
                    skipped.append(f"{rel}: command name {name!r} is not lower-case words joined by '-'")
                    continue
                data, warns = rt.command(name, data, target)
                warnings.extend(warns)
            elif rel.startswith(AGENTS_PREFIX):
                data = rt.agent(rel[len(AGENTS_PREFIX):-3], data, target)
        except UnicodeDecodeError:
            skipped.append(f"{rel}: not UTF-8 text")
            continue
        except ValueError as exc:  # a runtime that parses the frontmatter found it malformed
            skipped.append(f"{rel}: {exc}")
            continue
        out[dest] = rt.finish(data, token or rt.home_token(target, dest), dest, commands)
    out.setdefault(VERSION_REL, (version + "\n").encode("utf-8"))
    for rel, data in rt.own_files(target).items():
        out[rel] = data
    folder = "" if target.is_default_global or token else str(target.config)
    if " " in folder or "\t" in folder:
        warnings.append(f"the install folder {folder} contains whitespace; shell lines in the content that name it may need quoting")
    return out, warnings, skipped
