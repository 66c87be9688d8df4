"""The guard settings of a project (`guards.*`), read the lean way a hook on every Read can afford.

The keys are project settings (schema `"scope": "project"`): the project's `.planning/config.json`
alone sets them, else the schema default applies. A value of the wrong type counts as unset
(`msd config list` reports it); a config file that cannot be read (a FIFO, a device, a folder,
too large: refused at once by msd_core.files.safe_read, never waited on) or parsed gives the
defaults, every guard on.

`guards_block(text)` is the one reading of a config file's `guards` settings: the reader below
uses it on the file's bytes, and the planning guard on the old and the new text of an agent's
write of config.json (planning_guard.py), so a BOM, comments, duplicate keys or escaped key
names (`\u0067uards`) give both the same answer.
`MSD_GUARDS=off` in the environment the host was started with turns every guard off for that
session (a person's override). os.path and json only: no pathlib, no config store.
"""

from __future__ import annotations

import os

from msd_core.files.bounded import loads_json

MAX_CONFIG_BYTES = 1 << 20
OFF_ENV = "MSD_GUARDS"
KEYS = ("planning_write", "shrink_percent", "injection_screen", "secret_read", "secret_files", "secret_allow")


def project_root(start: str | None) -> str | None:
    """The project of `start` by the one rule (msd_core.lean.project_rule), a string; None without one."""
    if not isinstance(start, str) or not start:
        return None
    from msd_core.lean.project_rule import project_root as rule

    return rule(start)


def switched_off() -> bool:
    return os.environ.get(OFF_ENV, "").strip().lower() in ("off", "0", "false", "no")


def guards_block(text: str | bytes | None) -> dict:
    """The `guards` object a config file's text sets, as the guards read it: {} when the text is
    absent, not UTF-8, not JSON (a comment makes it so) or beyond the bounds, is not an object, or
    has no `guards` object. A leading BOM is dropped; a duplicated key counts by its last value and
    an escaped key by what it spells (JSON's own rules)."""
    if text is None:
        return {}
    try:
        doc = loads_json(text, ".planning/config.json", bom=True, max_bytes=MAX_CONFIG_BYTES)
    except (ValueError, RecursionError):  # UnicodeDecodeError and BoundedInputError are ValueErrors
        return {}
    guards = doc.get("guards") if isinstance(doc, dict) else None
    return guards if isinstance(guards, dict) else {}


def _project_guards(root: str | None) -> dict:
    if not root:
        return {}
    from msd_core.files.safe_read import read_regular

    try:
        raw = read_regular(os.path.join(root, ".planning", "config.json"), MAX_CONFIG_BYTES)
    except OSError:  # absent, a FIFO or device, a folder, too large: the defaults
        return {}
    return guards_block(raw)


def load(root: str | None) -> dict:
    """{dotted key: value} for every guard key (`guards.planning_write`, ...)."""
    from msd_core.config import schema

    found = _project_guards(root)
    if found:
        from msd_core.config import coerce  # only to check values a project set
    out = {}
    for name in KEYS:
        key = f"guards.{name}"
        value = found.get(name)
        out[key] = value if name in found and coerce.problem(key, value) is None else schema.default(key)
    return out
