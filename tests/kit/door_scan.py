"""The reads of msd_core's source that go around the one door (msd_core/files/: safe_read, bounded,
walk), found in the syntax tree (tests/files/test_one_door.py). Plain module, no tests.

A finding is (line, what). What counts as going around:
- `open(...)` (the builtin, `io.open`, `codecs.open`, a `.open(...)` method such as Path.open)
  whose mode reads (no mode, or one holding `r` or `+`, or a mode not written as a literal);
- `os.open(...)` whose flags name neither O_WRONLY, O_CREAT nor O_DIRECTORY (a write, a lock or a
  folder descriptor is not a read of someone's bytes);
- `.read_text()` / `.read_bytes()` with no argument but an encoding and errors (Path's methods;
  msd's own `read_text(path, ...)` helpers take the path first and are not these);
- `json.load(...)` / `tomllib.load(...)` on a file object;
- `os.walk(...)`, `.rglob(...)`, `.walk(...)` on a path: a walk with no depth bound (recursive in
  Python 3.11: a folder nested a thousand deep ends in RecursionError).
"""

from __future__ import annotations

import ast

_OPENERS = {("io", "open"), ("codecs", "open")}
_LOADERS = {("json", "load"), ("tomllib", "load"), ("tomli", "load")}
_NOT_READS = ("O_WRONLY", "O_CREAT", "O_DIRECTORY")


def _mode(call: ast.Call, position: int) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == "mode":
            return kw.value
    return call.args[position] if len(call.args) > position else None


def _reads(mode: ast.expr | None) -> bool:
    if mode is None:
        return True
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return "r" in mode.value or "+" in mode.value
    return True  # a mode computed at run time: cannot tell, so it counts


def _owner(func: ast.expr) -> str | None:
    return func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None


def _only_text_args(call: ast.Call) -> bool:
    return len(call.args) <= 2 and all(isinstance(a, ast.Constant) for a in call.args)


def _names(expr: ast.expr, assigned: dict) -> set:
    """The flag names an `os.open` flags argument mentions, through variables assigned in the module."""
    out, todo, seen = set(), [expr], set()
    while todo:
        for n in ast.walk(todo.pop()):
            name = (n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name)
                    else n.value if isinstance(n, ast.Constant) else None)
            if isinstance(name, str):
                out.add(name)
                if isinstance(n, ast.Name) and name in assigned and name not in seen:
                    seen.add(name)
                    todo.extend(assigned[name])
    return out


def findings(source: str, filename: str = "<module>") -> list[tuple[int, str]]:
    out = []
    tree = ast.parse(source, filename)
    assigned: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            if func.id == "open" and _reads(_mode(node, 1)):
                out.append((node.lineno, "open() reads a file"))
            continue
        if not isinstance(func, ast.Attribute):
            continue
        owner, name = _owner(func), func.attr
        if (owner, name) in _OPENERS and _reads(_mode(node, 1)):
            out.append((node.lineno, f"{owner}.open() reads a file"))
        elif owner == "os" and name == "open":
            flags = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "flags"), None)
            if flags is None or not _names(flags, assigned) & set(_NOT_READS):
                out.append((node.lineno, "os.open() for reading"))
        elif owner == "os" and name == "walk":
            out.append((node.lineno, "os.walk() walks without a depth bound"))
        elif (owner, name) in _LOADERS:
            out.append((node.lineno, f"{owner}.load() reads a file object"))
        elif owner not in ("os", "io", "codecs") and name == "open" and _reads(_mode(node, 0)):
            out.append((node.lineno, ".open() reads a file"))
        elif name in ("read_text", "read_bytes") and _only_text_args(node):
            out.append((node.lineno, f".{name}() reads a file"))
        elif name in ("rglob", "walk") and owner not in ("os", "ast"):
            out.append((node.lineno, f".{name}() walks without a depth bound"))
    return sorted(out)
