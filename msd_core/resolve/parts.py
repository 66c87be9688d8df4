"""A workflow stem -> the verified detail parts the agent should read.

The project's `workflow.compact_content` decides *whether* parts are listed (compact on:
none), never *which*: the list comes from the manifest registry of the install at
`--root`, each part hash-checked before it is listed.
"""

from __future__ import annotations

import os

from msd_core.errors import IntegrityError, UsageError
from msd_core.resolve.installed import Install, open_install, registered_relpath
from msd_core.resolve.names import check_name


class Part:
    __slots__ = ("relpath", "path", "data")

    def __init__(self, relpath: str, path: str, data: bytes):
        self.relpath = relpath  # relative to <config>
        self.path = path  # absolute
        self.data = data  # verified bytes


class Resolved:
    __slots__ = ("stem", "compact", "root", "parts", "layers")

    def __init__(self, stem: str, compact: bool, root: str, layers=None):
        self.stem = stem
        self.compact = compact
        self.root = root
        self.parts: list[Part] = []
        self.layers = layers  # the config Layers read for this call (trace reuses them)

    def to_json(self) -> dict:
        return {"stem": self.stem, "compact": self.compact, "root": self.root, "parts": [p.path for p in self.parts]}


def compact_for(cwd, layers=None):
    """(compact_content, layers) for the project at `cwd`; UsageError if its config is bad."""
    from msd_core.config import schema, store

    layers = layers or store.load_layers(cwd)
    return store.get_bool(schema.COMPACT_KEY, layers=layers), layers


def workflow_entry(install: Install, stem: str) -> dict:
    workflows = install.section("workflows")
    entry = workflows.get(stem)
    if entry is None:
        import difflib

        close = difflib.get_close_matches(stem, [k for k in workflows if isinstance(k, str)], n=1)
        hint = f"did you mean {close[0]}?" if close else "the stem must name a shipped workflow"
        raise UsageError(f"unknown workflow stem {stem!r} in the install at {install.root}", hint=hint)
    if not isinstance(entry, dict) or not isinstance(entry.get("parts", []), list):
        raise IntegrityError(f"install manifest registry entry for {stem} is invalid")
    return entry


def resolve(stem: str, root=None, cwd: str | os.PathLike | None = None, layers=None) -> Resolved:
    """Resolve `stem`; exit-2 errors for bad names/config, exit 3 for a missing or tampered install."""
    check_name(stem, "workflow stem")
    compact, layers = compact_for(cwd, layers)
    install = open_install(root)
    entry = workflow_entry(install, stem)
    out = Resolved(stem, compact, str(install.root), layers=layers)
    if compact:
        return out
    prefix = f"msd-core/workflows/{stem}/"
    for rel in entry.get("parts", []):
        rel = registered_relpath(rel, prefix, stem)
        out.parts.append(Part(rel, install.abspath(rel), install.read(rel)))
    return out
