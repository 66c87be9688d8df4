"""Importing a standard module without the modules it needs on one rare branch only.

msd_run starts a fresh interpreter per call, and some standard modules import at their top
what only one of their functions uses: pathlib (3.10-3.12) takes `quote_from_bytes` from
urllib.parse (which imports ipaddress): 1.7-2.3 ms CPU of every call (`python
scripts/bench_startup.py`, variant "pathlib stand-in"). The same stand-in for gettext while
argparse is imported saved 0.4-0.8 ms and was removed (issue 27: a trick stays only above 1 ms).

`import_with(name, stand_ins)` imports module `name`, when it is not loaded yet, while each
module named in `stand_ins` that is not loaded yet is a stand-in holding only the given
attributes. The stand-ins leave sys.modules as soon as the import is done, so any later
`import urllib.parse` loads the real module; a stand-in's attribute is a small
function that imports the real module when it is first called. When the import needs a
name a stand-in lacks (another Python version), it is imported again with the real modules.

Standard library only.
"""

from __future__ import annotations

import sys


def import_with(name: str, stand_ins: dict[str, dict[str, object]]):
    if name in sys.modules:
        return sys.modules[name]
    import types

    placed = []
    for mod, attrs in stand_ins.items():
        if mod in sys.modules:
            continue
        module = types.ModuleType(mod, f"stand-in for {mod} while {name} is imported (msd_core.lean.stand_in)")
        module.__dict__.update(attrs)
        sys.modules[mod] = module
        placed.append((mod, module))
    try:
        try:
            __import__(name)
        except ImportError:
            if not placed:
                raise
            _remove(placed)
            placed = []
            sys.modules.pop(name, None)
            __import__(name)
    finally:
        _remove(placed)
    return sys.modules[name]


def _remove(placed) -> None:
    for mod, module in placed:
        if sys.modules.get(mod) is module:
            del sys.modules[mod]
        parent, _, child = mod.rpartition(".")
        if parent and getattr(sys.modules.get(parent), child, None) is module:
            delattr(sys.modules[parent], child)


def quote_from_bytes(bs, safe="/"):
    """urllib.parse.quote_from_bytes, importing urllib.parse when first called (pathlib's as_uri)."""
    from urllib.parse import quote_from_bytes as real

    return real(bs, safe)


def import_pathlib():
    """pathlib, without urllib.parse (and ipaddress) until a path is turned into a URI."""
    return import_with("pathlib", {"urllib.parse": {"quote_from_bytes": quote_from_bytes}})
