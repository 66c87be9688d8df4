"""`msd status` for the guard hook another agent CLI runs (the `hooks` of a copilot, qwen, gemini,
codex or kimi install; Claude Code's are host_hooks.status_of): is msd's entry in the client's file
and intact (the client's event, a matcher that still takes every tool msd guards, the command
install writes), can the runner it names start (hook_probe.py), and the one problem with its fix.

One row per client in ROWS, reading through the runtime's own finder (hook_settings.HookGroup.find,
kimi_config.find, copilot.find_guard, opencode_plugin.find_guard): no second parser of their files.
OpenCode's is msd's own plugin file (it has no command hooks): its tool list read as a matcher.
Honest caveats are notes, never problems: Codex runs a hook only once trusted in its `/hooks` panel;
a project's hooks run in Copilot, Gemini CLI and Qwen Code only in a folder they trust; Kimi Code
reads no hook from a project; OpenCode loads a plugin only after its own npm install. Read-only:
nothing is written, a file that cannot be read or parsed is a problem line.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from msd_core.ownership.hints import command_for, repair_command
from msd_core.paths import Target
from msd_core.runtimes import codex_hooks, copilot, gemini_settings, kimi_config, opencode_plugin, qwen_settings
from msd_core.runtimes.base import guard_command
from msd_core.runtimes.hook_settings import HookGroup

TRUST = "{client} runs a project's hooks only in a folder it trusts"
OPENCODE_NPM = ("OpenCode loads a plugin only after its own npm install of @opencode-ai/plugin into its config "
                "folders; with no registry in reach that waits out npm's retries at each start")
CODEX_TRUST = ("Codex runs the hook only once you trust it in its /hooks panel (or for one run with "
               "--dangerously-bypass-hook-trust)")


@dataclass(frozen=True)
class Row:
    client: str
    event: str  # the client's event the entry sits under
    find: Callable[[Path], tuple[Path, dict | None, str | None]]  # the runtime's own finder
    command: Callable[[dict], object]  # the command in a found entry
    matcher: Callable[[dict], object] | None  # the matcher in a found entry; None: the client runs it on every tool
    wanted: Callable[[Target], tuple[str, str | None]]  # (command, matcher) as install writes them for a target
    repair: Callable[[Target], str]  # what puts a changed entry back
    notes: Callable[[Target], list[str]]
    absent: Callable[[Target], str | None] = lambda _t: None  # why this install has no hook at all (a note)
    owned: bool = False  # the manifest owns the whole file: a plain install keeps a user's edit of it


def _group_row(grp: HookGroup, notes: Callable[[Target], list[str]]) -> Row:
    def wanted(t: Target) -> tuple[str, str | None]:
        return grp.group(t.config)["hooks"][0]["command"], grp.matcher

    return Row(client=grp.client, event=grp.path[-1], find=grp.find, command=lambda g: g["hooks"][0].get("command"),
               matcher=lambda g: g.get("matcher"), wanted=wanted, notes=notes,
               repair=lambda t: f"run `{command_for('install', t.config, t.scope)}`")  # install replaces msd's older group


def _trust(client: str) -> Callable[[Target], list[str]]:
    return lambda t: [TRUST.format(client=client)] if t.scope == "local" else []


ROWS: dict[str, Row] = {
    "qwen": _group_row(qwen_settings.SETTINGS, _trust("Qwen Code")),
    "gemini": _group_row(gemini_settings.SETTINGS, _trust("Gemini CLI")),
    "codex": _group_row(codex_hooks.SETTINGS, lambda t: [CODEX_TRUST] + (
        ["a project's .codex/hooks.json loads only in a project trusted in Codex's config.toml"] if t.scope == "local" else [])),
    "copilot": Row(client="Copilot CLI", event="preToolUse", find=copilot.find_guard, command=lambda h: h.get("bash"),
                   matcher=None, wanted=lambda t: (guard_command(copilot.GUARD_EVENT, t.config, t.scope == "local"), None),
                   repair=lambda t: f"run `{repair_command(t.config, t.scope)}` (your edit is backed up first)",
                   notes=_trust("Copilot CLI"), owned=True),
    "kimi": Row(client="Kimi Code", event="PreToolUse", find=kimi_config.find, command=lambda h: h.get("command"),
                matcher=lambda h: h.get("matcher"), wanted=lambda t: (kimi_config.entry(t.config)["command"], kimi_config.MATCHER),
                repair=lambda t: (f"take msd's [[hooks]] table out of {Path(t.config) / kimi_config.SETTINGS_REL}, then run "
                                  f"`{command_for('install', t.config, t.scope)}`"),
                notes=lambda t: [],
                absent=lambda t: None if t.scope == "global" else
                "no guard hook here: Kimi Code reads hooks only from its user config.toml "
                "(`msd install --global --runtime kimi` adds msd's guard there)"),
    "opencode": Row(client="OpenCode", event="tool.execute.before", find=opencode_plugin.find_guard,
                    command=lambda e: e.get("command"), matcher=lambda e: e.get("matcher"),
                    wanted=lambda t: (guard_command(opencode_plugin.EVENT, t.config, t.scope == "local"),
                                      opencode_plugin.matcher(opencode_plugin.CHECKED)),
                    repair=lambda t: f"run `{repair_command(t.config, t.scope)}` (your edit is backed up first)",
                    notes=lambda t: [OPENCODE_NPM], owned=True),
}


def applies(target: Target) -> bool:
    return target.runtime in ROWS


def _tools(matcher: str) -> list[str] | None:
    """The tool names a matcher msd writes names (`^(a|b)$`, `^a$`); None for any other form."""
    m = re.fullmatch(r"\^\(?([\w|]+)\)?\$", matcher)
    return m.group(1).split("|") if m else None


def uncovered(found, wanted: str) -> list[str] | None:
    """The tools msd guards that the matcher `found` lets past (None: all covered). An empty or `*`
    matcher takes every tool; a matcher whose form is not msd's must equal it."""
    if found in (None, "", "*"):
        return None
    names = _tools(wanted)
    if names is None:
        return None if found == wanted else [wanted]
    try:
        pattern = re.compile(found) if isinstance(found, str) else None
    except re.error:
        pattern = None
    missed = [n for n in names if pattern is None or not pattern.search(n)]
    return missed or None


def _words(command) -> list[str] | None:
    try:
        return shlex.split(command) if isinstance(command, str) else None
    except ValueError:
        return None


def status_of(target: Target) -> dict:
    """{"client", "path", "events", "present", "ok", "matcher"?, "runner"?, "problem"?, "notes"} for
    msd's guard hook of `target` (`applicable` False: the client reads none for this install)."""
    from msd_core.install.hook_probe import can_start

    row = ROWS[target.runtime]
    out: dict = {"client": row.client, "present": False, "ok": False, "events": [row.event], "notes": row.notes(target)}
    why_none = row.absent(target)
    if why_none:
        return {**out, "ok": True, "applicable": False, "notes": [why_none, *out["notes"]]}
    path, entry, unreadable = row.find(Path(target.config))
    out["path"] = str(path)
    install = f"run `{command_for('install', target.config, target.scope)}`"
    if unreadable:
        out["problem"] = (f"{unreadable}: msd cannot check its guard hook there (and install leaves the file alone); "
                          f"fix the file, then {install}")
        return out
    if entry is None:
        fix = row.repair(target) if row.owned and path.exists() else install
        out["problem"] = f"msd's guard hook is not in {path} ({row.event}): {row.client} runs no msd guard; {fix}"
        return out
    out["present"] = True
    command, matcher = row.command(entry), row.matcher(entry) if row.matcher else None
    want_command, want_matcher = row.wanted(target)
    if matcher is not None:
        out["matcher"] = matcher
    missed = uncovered(matcher, want_matcher) if want_matcher else None
    if missed:
        out["problem"] = (f"msd's guard hook in {path} no longer matches {', '.join(missed)}: those calls go unguarded; "
                          f"{row.repair(target)}")
        return out
    words, wanted = _words(command), _words(want_command) or []
    if not words or words[1:] != wanted[1:]:
        out["problem"] = (f"msd's guard hook in {path} runs {command!r}, not `{' '.join(['msd_run', *wanted[1:]])}`; "
                          f"{row.repair(target)}")
        return out
    out["runner"] = words[0]
    why = can_start(words[:1])
    if why:
        fix = ("put msd_run on PATH (the msd_run line below says how)" if "/" not in words[0]
               else install)
        out["problem"] = f"{row.client} cannot start msd's guard hook: {why}; {fix}"
        return out
    out["ok"] = True
    return out
