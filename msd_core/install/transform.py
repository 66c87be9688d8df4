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
- A profile (msd_core/shipped/profiles.py) keeps only its commands and what they need; a core
  install puts each agent where the runtime does not list it to the model every turn
  (`Runtime.unlisted_agent_relpath`), and the manifest's registry names the installed places
  (`installed_registry`).
"""

from __future__ import annotations

from msd_core.paths import MANIFEST_REL, Target
from msd_core.shipped import profiles
from msd_core.shipped.layout import AGENTS_PREFIX, command_name_from_source, is_static_name
from msd_core.shipped.profiles import FULL

VERSION_REL = "msd-core/VERSION"
RESERVED = {MANIFEST_REL}
RESERVED_PREFIXES = ("msd-core/.msd/",)


def installed_files(files: list[tuple[str, bytes]], target: Target, version: str,
                    token: str | None = None, profile: str = FULL) -> tuple[dict[str, bytes], list[str], list[str]]:
    """Map source files to {installed relpath: bytes} for the target's runtime (msd_core/runtimes);
    also (warnings, skipped-with-reason). `token` replaces `~/.claude/` everywhere instead of the
    target's own (a plugin build); `profile` selects the files (msd_core/shipped/profiles.py)."""
    from msd_core.runtimes import get as get_runtime

    rt = get_runtime(target.runtime)
    commands = frozenset(n for rel, _ in files if (n := command_name_from_source(rel)) is not None)
    by_rel = dict(files)
    out: dict[str, bytes] = {}
    warnings: list[str] = []
    skipped: list[str] = []
    for rel, data in profiles.select(files, profile):
        dest = agent_relpath(rt, rel, profile)
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
                source = data
                data, warns = rt.command(name, data, target)
                warnings.extend(warns)
                for ref_dest, ref_src in rt.command_references(name, source).items():
                    if ref_src not in by_rel:
                        warnings.append(f"{rel}: includes {ref_src}, which is not shipped")
                        continue
                    out[ref_dest] = rt.finish(by_rel[ref_src], token or rt.home_token(target, ref_dest), ref_dest, commands)
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


def agent_relpath(rt, rel: str, profile: str) -> str | None:
    """Where source file `rel` installs for runtime `rt` under `profile` (None: not installed)."""
    dest = rt.installed_relpath(rel)
    if dest is not None and profile != FULL and rel.startswith(AGENTS_PREFIX):
        return rt.unlisted_agent_relpath(dest) or dest
    return dest


def installed_registry(registry: dict, files: list[tuple[str, bytes]], target: Target, profile: str) -> dict:
    """The registry an install's manifest records: for a full install the shipped one (with each
    agent's `core` file where this install put it, for a runtime that lists no agent); else only
    the workflows and agents the profile holds (of source `files`), each agent's `core` file
    where this install put it."""
    from msd_core.runtimes import get as get_runtime

    rt = get_runtime(target.runtime)
    if profile == FULL and not rt.agents_unlisted:
        return registry
    keep = profiles.kept(files, profile)
    out = dict(registry)
    workflows, agents = registry.get("workflows"), registry.get("agents")
    if isinstance(workflows, dict) and profile != FULL:
        out["workflows"] = {k: v for k, v in workflows.items() if k in keep["workflow"]}
    if isinstance(agents, dict):
        out["agents"] = {}
        for name, entry in agents.items():
            if name not in keep["agent"]:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("core"), str):
                entry = {**entry, "core": agent_relpath(rt, entry["core"], profile) or entry["core"]}
            out["agents"][name] = entry
    return out
