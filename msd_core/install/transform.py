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

from msd_core.paths import Target
from msd_core.shipped.layout import command_name_from_source, is_static_name

VERSION_REL = "msd-core/VERSION"
RESERVED = {"msd-core/manifest.json"}
RESERVED_PREFIXES = ("msd-core/.msd/",)


def installed_files(files: list[tuple[str, bytes]], target: Target, version: str,
                    token: str | None = None) -> tuple[dict[str, bytes], list[str], list[str]]:
    """Map source files to {installed relpath: bytes} for the target's runtime (msd_core/runtimes);
    also (warnings, skipped-with-reason). `token` replaces `~/.claude/` everywhere instead of the
    target's own (a plugin build)."""
    from msd_core.runtimes import get as get_runtime
    from msd_core.shipped.layout import AGENTS_PREFIX

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
