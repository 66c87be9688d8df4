"""`msd plugin build OUT`: the content as a Claude Code plugin, inside a local marketplace.

    OUT/.claude-plugin/marketplace.json      marketplace `msd-core-local`, one plugin
    OUT/msd-core/.claude-plugin/plugin.json  the plugin `msd-core`
    OUT/msd-core/skills/msd-<name>/SKILL.md  one skill per command  (/msd-core:msd-<name>)
    OUT/msd-core/agents/msd-<name>.md        the subagents
    OUT/msd-core/msd-core/                   the content tree with VERSION and manifest.json
    OUT/msd-core/bin/msd_run                 the runtime entry (the host puts bin/ on PATH)

`/plugin marketplace add OUT`, then `/plugin install msd-core@msd-core-local`; or, for one
session, `claude --plugin-dir OUT/msd-core`.

Paths: the files are the installer's (transform.installed_files) with `~/.claude/` written
as `${CLAUDE_PLUGIN_ROOT}/`. Checked in Claude Code 2.1.332 (tests/host/test_release_host.py):
the host substitutes it in a plugin's skills (`@` lines and `!` lines) and agents, puts the
plugin's `bin/` on the PATH of skill shell lines and Bash calls, and does not set it as an
environment variable. Files the model reads through an include (workflows, references)
are not substituted, so each skill starts with one line naming the plugin folder, and
`bin/msd_run` maps `--root /msd-core` (what the shell makes of the unset variable) to the
plugin's own tree. The permission an install adds to settings.json (`Bash(msd_run *)`) is
added to each skill's `allowed-tools` instead. The manifest lets `msd_run resolve` verify every part by its hash, as
in an install. OUT is written only when it is new, empty or an earlier build (its record: plugin.rebuild).
"""

from __future__ import annotations

import json
import shlex
import stat
from pathlib import Path

from msd_core import __version__
from msd_core.errors import OperationFailed, UsageError
from msd_core.files import txn
from msd_core.files.atomic import lock_timeout_from_env, locked, sha256_bytes
from msd_core.install.runner_path import own_runner
from msd_core.install.source import ContentSource
from msd_core.install.transform import installed_files
from msd_core.ownership.manifest import Manifest
from msd_core.paths import MANIFEST_REL, Target, require_parent
from msd_core.plugin.rebuild import LOCK_NAME, MARKER, is_fresh, listing, plan, record_bytes, refuse_inside_an_install
from msd_core.result import OperationResult
from msd_core.runtimes.claude_settings import PERMISSION
from msd_core.shipped.text import split_frontmatter

PLUGIN_NAME = "msd-core"
MARKETPLACE_NAME = "msd-core-local"
ROOT_TOKEN = "${CLAUDE_PLUGIN_ROOT}/"
DESCRIPTION = "Spec-driven development for coding agents: skills, subagents and workflows with the msd_run runtime."
ROOT_NOTE = ("msd-core plugin folder: `${CLAUDE_PLUGIN_ROOT}` (in the msd-core files below, a path that "
             "starts with the variable CLAUDE_PLUGIN_ROOT is inside this folder).")

RUNNER_SCRIPT = """#!/bin/sh
# msd_run for the msd-core Claude Code plugin (written by `msd plugin build`; rebuilt, not edited).
# Runs the msd-core runtime this plugin was built with, else the first other msd_run on PATH.
# `--root /msd-core` is what `--root ${{CLAUDE_PLUGIN_ROOT}}/msd-core` becomes in a Bash call (the
# host does not set the variable there): it names this plugin's own content tree.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
root="${{here%/*}}/msd-core"
n=$#
prev=
while [ "$n" -gt 0 ]; do
  a=$1
  shift
  if [ "$prev" = "--root" ]; then
    case $a in /msd-core|/msd-core/) a=$root ;; esac
  fi
  set -- "$@" "$a"
  prev=$a
  n=$((n - 1))
done
built={built}
if [ -x "$built" ]; then
  exec "$built" "$@"
fi
IFS=:
for d in $PATH; do
  [ -n "$d" ] || continue
  [ "$(CDPATH= cd -- "$d" 2>/dev/null && pwd -P)" = "$here" ] && continue
  if [ -x "$d/msd_run" ]; then
    exec "$d/msd_run" "$@"
  fi
done
echo "msd_run: the msd-core runtime is not installed on this machine (install msd-core, see its README)" >&2
exit 1
"""


def _plugin_json(version: str) -> bytes:
    data = {"name": PLUGIN_NAME, "version": version, "description": DESCRIPTION,
            "author": {"name": "msd-core maintainers"}, "license": "MIT",
            "keywords": ["spec-driven-development", "planning"]}
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _marketplace_json(version: str) -> bytes:
    data = {"name": MARKETPLACE_NAME, "owner": {"name": "msd-core maintainers"},
            "metadata": {"description": "msd-core, built locally by `msd plugin build`"},
            "plugins": [{"name": PLUGIN_NAME, "source": f"./{PLUGIN_NAME}", "description": DESCRIPTION,
                         "version": version}]}
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _allow_runtime(front: list[str]) -> list[str]:
    """Frontmatter lines whose `allowed-tools` also grants PERMISSION (inline value, YAML
    list, or a new key). A plugin cannot add it to settings.json as an install does; the
    host honours it from a skill's allowed-tools while the skill runs (checked in 2.1.332;
    a plugin's own settings.json permissions are not)."""
    for i, line in enumerate(front):
        if not line.startswith("allowed-tools:"):
            continue
        value = line.split(":", 1)[1].strip()
        if value:
            if value.startswith("["):
                return [*front[:i], f"allowed-tools: {value[:-1].rstrip()}, {PERMISSION}]", *front[i + 1:]]
            return [*front[:i], f"allowed-tools: {value}, {PERMISSION}", *front[i + 1:]]
        j = i + 1
        while j < len(front) and front[j].startswith((" ", "\t")):
            j += 1
        indent = front[i + 1][: len(front[i + 1]) - len(front[i + 1].lstrip())] if j > i + 1 else "  "
        return [*front[:j], f"{indent}- {PERMISSION}", *front[j:]]
    return [*front, f"allowed-tools: {PERMISSION}"]


def _plugin_skill(skill: bytes) -> bytes:
    """The skill granting PERMISSION, with ROOT_NOTE as its first body line (the host
    substitutes the folder in). Skills come from msd_core.shipped.text.skill_from_command: always with
    frontmatter."""
    front, body, nl = split_frontmatter(skill.decode("utf-8"))
    if front is None:
        front, body, nl = [], skill.decode("utf-8"), "\n"
    return nl.join(["---", *_allow_runtime(front), "---", ROOT_NOTE]).encode("utf-8") + nl.encode() + body.encode("utf-8")


def plugin_files(source: ContentSource, version: str = __version__, runner: Path | None = None) -> tuple[dict[str, bytes], list[str]]:
    """{relpath under OUT: bytes} for the whole marketplace, and warnings."""
    src = source.files()
    target = Target("global", Path("/plugin-root-placeholder"))  # never written to; the token replaces it
    files, warnings, skipped = installed_files(src, target, version, token=ROOT_TOKEN)
    warnings.extend(skipped)
    for rel in list(files):
        if rel.startswith("skills/") and rel.endswith("/SKILL.md"):
            files[rel] = _plugin_skill(files[rel])
    manifest = Manifest(version=version, scope="plugin", target=ROOT_TOKEN.rstrip("/"),
                        files={rel: sha256_bytes(data) for rel, data in files.items()},
                        registry=source.registry(src), settings_permission=None)
    files[MANIFEST_REL] = manifest.dumps()
    built = str(runner or own_runner())
    files["bin/msd_run"] = RUNNER_SCRIPT.format(built=shlex.quote(built)).encode("utf-8")
    files[".claude-plugin/plugin.json"] = _plugin_json(version)
    out = {f"{PLUGIN_NAME}/{rel}": data for rel, data in files.items()}
    out[".claude-plugin/marketplace.json"] = _marketplace_json(version)
    out[MARKER] = record_bytes(out, version)
    return out, warnings


def _check_out(out: Path) -> None:
    if out.is_symlink():
        raise UsageError(f"{out} is a symlink; choose a real folder")
    refuse_inside_an_install(out)
    require_parent(out, "the plugin folder", "create the folder above it first, or choose another folder")
    if not out.exists():
        return
    if not out.is_dir():
        raise UsageError(f"{out} is a file, not a folder")
    if not is_fresh(out) and not (out / MARKER).is_file():
        raise UsageError(f"{out} is not empty and is not an earlier `msd plugin build`",
                         hint="choose a new or empty folder")


def build_plugin(out: str | Path, *, source: ContentSource | None = None) -> OperationResult:
    """Write the marketplace + plugin to `out`: new, empty, or an earlier build, whose files are
    replaced or removed only where that build recorded them and they are unchanged (plugin.rebuild);
    one all-or-nothing transaction (files.txn), so a killed build is rolled back by the next."""
    out = Path(out).expanduser().absolute()
    _check_out(out)
    files, warnings = plugin_files(source or ContentSource.packaged())
    try:
        out.mkdir(parents=True, exist_ok=True)
        with locked(out / LOCK_NAME, lock_timeout_from_env(), what=f"the plugin build in {out}", anchor=out):
            _check_out(out)  # another build may have finished meanwhile, or the folder changed
            txn.recover(out, "plugin build")
            changes, kept, removed = plan(out, files, __version__)
            txn.apply(out, changes)
            runner = out / PLUGIN_NAME / "bin" / "msd_run"
            runner.chmod(runner.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError as exc:
        raise OperationFailed(f"cannot write the plugin to {out} ({exc.strerror or exc})") from None
    if kept:
        warnings.append(listing(f"kept {len(kept)} file{'s' if len(kept) != 1 else ''} in {out} that the build does not own", kept))
    result = OperationResult("plugin build")
    result.warnings.extend(warnings)
    result.data = {
        "out": str(out),
        "plugin": str(out / PLUGIN_NAME),
        "version": __version__,
        "files": len(files),
        "kept": kept,
        "removed": removed,
        "marketplace": MARKETPLACE_NAME,
        "next": [f"/plugin marketplace add {out}", f"/plugin install {PLUGIN_NAME}@{MARKETPLACE_NAME}"],
        "session_only": f"claude --plugin-dir {out / PLUGIN_NAME}",
    }
    return result
