"""The Runtime interface every agent CLI module fills in, and the helpers they share.

A runtime declares: its folders (msd_core/paths.RUNTIME_DIRS), where each shipped file goes
(`installed_relpath`; by default a command at `command_path`, the rest as they are), how a command and a subagent are written (`command`, `agent`), how one
command names another (`command_ref`), what `~/.claude/` in the content becomes
(`home_token`), whether the host renders shell context before the model reads a command
(`renders_shell`), files of its own (`own_files`: a permission policy), and the shared config
file holding msd's permission entry, if any (`shared`).
"""

from __future__ import annotations

import re

from msd_core.paths import RUNTIME_DIRS, SETTINGS_BEFORE_REL, SOURCE_HOME_TOKEN, Target
from msd_core.shipped.layout import AGENTS_PREFIX, COMMANDS_PREFIX, CORE_PREFIX

COMMAND_REF = re.compile(r"(?<![\w./-])/msd-([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\b")
SHELL_LINE = re.compile(r"^!`(?P<cmd>[^`]+)`\s*$")
INCLUDE_LINE = re.compile(r"^@(?P<path>\S+)\s*$")


def parse_frontmatter(data: bytes) -> tuple[dict, str]:
    """(frontmatter mapping, body text) of a markdown file; ({}, text) without frontmatter."""
    import yaml

    from msd_core.shipped.text import split_frontmatter

    text = data.decode("utf-8")
    front, body, nl = split_frontmatter(text)
    if front is None:
        return {}, text
    from msd_core.files.bounded import parse

    try:  # BoundedInputError (a ValueError) when nested too deep
        meta = parse(yaml.safe_load, "\n".join(front), "yaml", "the frontmatter") or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"frontmatter is not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(meta, dict):
        raise ValueError("frontmatter is not a mapping")
    return meta, body.replace("\r\n", "\n")


def description_of(meta: dict, body: str, fallback: str) -> str:
    desc = meta.get("description")
    if isinstance(desc, str) and desc.strip():
        return " ".join(desc.split())
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and not line.startswith(("<", "@", "!", "---")):
            return line[:200]
    return fallback


def with_frontmatter(front: str, body: str) -> bytes:
    """A markdown file: `front` (YAML lines, each ending in a newline) between `---` lines, then `body`."""
    return ("---\n" + front + "---\n" + body).encode("utf-8")


def toml_bytes(obj: dict) -> bytes:
    import tomli_w

    return tomli_w.dumps(obj, multiline_strings=True).encode("utf-8")


def raw_resolve(stem: str, root: str) -> str:
    """The shell command that lists split workflow `stem`'s detail parts, for a model to run itself."""
    return f"msd_run resolve {stem} --root {root} --raw"


def resolve_call(cmd: str) -> tuple[str, str] | None:
    """(stem, root) of a `msd_run resolve <stem> ... --root <root> ...` shell command; None otherwise."""
    words = cmd.split()
    if words[:2] != ["msd_run", "resolve"] or len(words) < 3 or "--root" not in words:
        return None
    i = words.index("--root")
    return (words[2], words[i + 1]) if i + 1 < len(words) else None


ARGS_PROSE = "the arguments the user gave with the request"


def unrendered_body(rt: "Runtime", body: str) -> tuple[list[str], list[str]]:
    """For a host that renders no shell context and has no `@` includes: (the paths a command's
    `@` lines include, in order; its other lines, each split workflow's shell line turned into
    the instruction to run `rt.gate_text` and read what it lists, `$ARGUMENTS` into prose)."""
    reads: list[str] = []
    out: list[str] = []
    for line in body.split("\n"):
        m = INCLUDE_LINE.match(line)
        if m:
            reads.append(m.group("path"))
            continue
        m = SHELL_LINE.match(line)
        found = resolve_call(m.group("cmd")) if m else None
        if found:
            stem, root = found
            out.append(f"Then run {rt.gate_text(stem, root)} and read each file it lists, in order, before the "
                       "step that needs it (it prints nothing when compact content is on; on any failure run "
                       "on the workflow alone).")
            continue
        out.append(line.replace("$ARGUMENTS", ARGS_PROSE))
    return reads, out


def guard_command(event: str, config, local: bool) -> str:
    """The shell command another agent CLI runs as msd's guard hook (`msd_run hook <event> --root R`):
    globally the runner beside this msd and the absolute root; locally `msd_run` by name (it must be on
    PATH, as the skills need) and the root relative to the project, so a committed folder names no
    folder of this machine (the hook resolves it against the call's cwd: msd_core/hooks/payload.py)."""
    import shlex
    import sys
    from pathlib import Path

    from msd_core.paths import INSTALL_DIRNAME, RUNNER_EXE

    if local:
        runner, root = "msd_run", f"{Path(config).name}/{INSTALL_DIRNAME}"
    else:
        runner, root = str(Path(sys.executable).parent / RUNNER_EXE), str(Path(config) / INSTALL_DIRNAME)
    return " ".join(shlex.quote(w) for w in (runner, "hook", event, "--root", root))


class Runtime:
    name = "claude"
    label = "Claude Code"
    renders_shell = True
    shared = None  # a module with plan_add/plan_remove for a shared config file, or None
    agents_unlisted = False  # every agent installed where the host does not list it, in every profile
    command_path = ""  # where command <stem> is installed, e.g. "commands/msd/{stem}.toml"

    @property
    def local_dirname(self) -> str:
        return RUNTIME_DIRS[self.name][0]

    # -- where files go ---------------------------------------------------------------
    def installed_relpath(self, source_rel: str) -> str | None:
        """A command goes to `command_path`; msd-core/** and agents as they are (core_relpath)."""
        stem = command_stem(source_rel)
        if stem is not None:
            if not self.command_path:
                raise NotImplementedError(f"runtime {self.name} names no command_path")
            return self.command_path.format(stem=stem)
        return core_relpath(source_rel)

    def owned_areas(self) -> tuple[str, ...]:
        """Folder prefixes (relative to the config folder) whose `msd-*` entries are msd's."""
        return ("agents/",)

    def unlisted_agent_relpath(self, dest: str) -> str | None:
        """Where an agent file installed at `dest` goes when the profile keeps agents out of the
        host's per-turn listing (msd_core/shipped/profiles.py); None: this host has no such
        listing to keep it out of, the agent stays where it is."""
        return None

    # -- how files are written --------------------------------------------------------------
    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        raise NotImplementedError

    def agent(self, name: str, data: bytes, target: Target) -> bytes:
        return data

    def command_ref(self, name: str) -> str:
        """How text names command `name` (`/msd-<name>` in the shipped content)."""
        return f"/msd-{name}"

    def home_token(self, target: Target, dest: str) -> str:
        """What `~/.claude/` in the content becomes: the absolute folder globally, the
        project-relative folder locally (no path of this machine in a committed folder)."""
        if target.scope == "local" and target.config.name == self.local_dirname:
            return self.local_dirname + "/"
        return target.rewrite_token()

    def own_files(self, target: Target) -> dict[str, bytes]:
        return {}

    def command_references(self, name: str, data: bytes) -> dict[str, str]:
        """{installed relpath: shipped relpath}: shipped files command `name` (source bytes
        `data`) carries as copies of its own (a skill's references/); none by default."""
        return {}

    def gate_text(self, stem: str, root: str) -> str:
        """What an installed command loading split workflow `stem` must contain so the model
        gets its detail parts (references/compact-content-gate.md): the shell line the host
        renders where it renders shell context."""
        return f"!`msd_run resolve {stem} --emit --root {root} || true`"

    def finish(self, data: bytes, token: str, dest: str, commands: frozenset[str] = frozenset()) -> bytes:
        """Rewrite references to the shipped `commands` (`/msd-<name>`), then `~/.claude/`, in a
        UTF-8 text file (in that order: a path the token brings in is never taken for a command)."""
        from msd_core.shipped.text import rewrite_home

        if commands and self.command_ref("x") != "/msd-x" and b"/msd-" in data:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None:
                def ref(m: re.Match) -> str:
                    return self.command_ref(m.group(1)) if m.group(1) in commands else m.group(0)

                data = COMMAND_REF.sub(ref, text).encode("utf-8")
        return rewrite_home(data, token, json_file=dest.endswith(".json"))


def core_relpath(rel: str) -> str | None:
    """msd-core/** is installed as is; agents/msd-*.md keep their name; None otherwise."""
    if rel.startswith(CORE_PREFIX):
        return rel
    if rel.startswith(AGENTS_PREFIX):
        name = rel[len(AGENTS_PREFIX):]
        if "/" not in name and name.startswith("msd-") and name.endswith(".md"):
            return rel
    return None


def command_stem(rel: str) -> str | None:
    if rel.startswith(COMMANDS_PREFIX):
        name = rel[len(COMMANDS_PREFIX):]
        if "/" not in name and name.endswith(".md"):
            return name[:-3]
    return None


__all__ = ["Runtime", "parse_frontmatter", "description_of", "core_relpath", "command_stem", "with_frontmatter",
           "toml_bytes", "resolve_call", "raw_resolve", "unrendered_body", "SHELL_LINE", "INCLUDE_LINE", "SOURCE_HOME_TOKEN"]


class _OwnFilePermission:
    """For a runtime whose permission is a file of our own (installed like content): no shared
    config file to change. Same surface as msd_core/runtimes/claude_settings.py."""

    SETTINGS_REL = None
    BEFORE_REL = SETTINGS_BEFORE_REL
    PERMISSION = None

    @staticmethod
    def plan_add(config, old_record, old_permission):
        from msd_core.runtimes.claude_settings import SettingsChange

        return SettingsChange(note="own policy file")

    @staticmethod
    def plan_remove(config, record, permission, before):
        from msd_core.runtimes.claude_settings import SettingsChange

        return SettingsChange(note="own policy file")


OWN_FILE_PERMISSION = _OwnFilePermission()
