#!/usr/bin/env python3
"""Hold the package's imports against docs/ARCHITECTURE.md: layers that only point down, no circle.

    python scripts/check_layers.py [--root msd_core] [--doc docs/ARCHITECTURE.md]

Reads the table in the doc (layer | package | what it decides | may import) and every Python
file under the package root, and reports, one line each:

- an import from one package to another that the importing package's row does not name
  (imports inside functions count; relative imports are resolved; a module name given to
  `__import__`/`import_module` as a string, or listed as a string such as dispatch's command
  table, counts too);
- a row naming a package on its own layer or above, or one the table does not hold;
- a package (a folder with `__init__.py`, or a top-level module) missing from the table;
- an import circle between modules, anywhere in the package;
- a package map that is not complete: a package whose `__init__.py` docstring names one of its
  own modules (`name.py`) names them all (and each sub-package as `name/`).

Exit 0 when nothing is found, 1 otherwise. Standard library only; tests/scripts/test_architecture.py
runs it on the real tree and on a fixture that breaks every rule.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FACE = "__init__"  # the package face: the version every package may read
ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([\w.]+)`\s*\|[^|]*\|\s*([^|]*?)\s*\|\s*$")
MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


def read_table(doc: Path) -> dict[str, tuple[int, set[str]]]:
    """{package: (layer, packages it may import)} from the doc's table rows."""
    table: dict[str, tuple[int, set[str]]] = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line.strip())
        if m:
            allowed = {w.strip().strip("`") for w in m.group(3).split(",")} - {"", "—", "-"}
            table[m.group(2)] = (int(m.group(1)), allowed)
    return table


def modules(root: Path) -> dict[str, Path]:
    """{dotted module name: file} for every Python file under the package root (content/ is data)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if len(rel.parts) > 1 and rel.parts[1] == "content":
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def package_of(module: str, top: str) -> str:
    """The table's name for a module: its first component below the package (a top-level module is its own)."""
    parts = module.split(".")
    if len(parts) == 1:
        return FACE
    return parts[1]


def _strings_naming_modules(tree: ast.AST):
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and MODULE_NAME.match(node.value):
            yield node.lineno, node.value


def imports(module: str, path: Path, known: dict[str, Path], top: str):
    """(line, imported module) for every import in one file, resolved to a known module where possible."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    yield node.lineno, _known(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] != top:
                continue
            for alias in node.names:
                full = f"{name}.{alias.name}"
                yield node.lineno, full if full in known else _known(name, known)
    for line, name in _strings_naming_modules(tree):
        if name.split(".")[0] == top and name in known:
            yield line, name


def _known(name: str, known: dict[str, Path]) -> str:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def unmapped(root: Path) -> list[str]:
    """One finding per module a package map leaves out (see the module doc), package by package."""
    findings = []
    root = Path(root)
    for init in sorted(root.rglob("__init__.py")):
        pkg = init.parent
        text = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        own = {f"{m.stem}.py" for m in pkg.glob("*.py") if m.name != "__init__.py"}
        own |= {f"{d.name}/" for d in pkg.iterdir() if (d / "__init__.py").is_file()}
        named = {name for name in own if re.search(r"(?<![\w./])" + re.escape(name), text)}
        if not any(name.endswith(".py") for name in named):
            continue  # no package map here
        for name in sorted(own - named):
            findings.append(f"{pkg.relative_to(root.parent)}/__init__.py: the package map does not name {name}")
    return findings


def check(root: Path, doc: Path) -> list[str]:
    root = Path(root)
    top = root.name
    table = read_table(doc)
    known = modules(root)
    findings: list[str] = []
    if not table:
        return [f"{doc}: no table rows found (| layer | `package` | what it decides | may import |)"]
    for pkg, (layer, allowed) in sorted(table.items()):
        for dep in sorted(allowed):
            if dep not in table:
                findings.append(f"{doc}: {pkg} may import {dep}, which the table does not hold")
            elif table[dep][0] >= layer:
                findings.append(f"{doc}: {pkg} (layer {layer}) may import {dep} (layer {table[dep][0]}): not a lower layer")
    present = {package_of(m, top) for m in known} - {FACE}
    present |= {m.split(".")[1] for m in known if m.count(".") == 1 and known[m].name != "__init__.py"}
    for pkg in sorted(present - set(table)):
        findings.append(f"{root / pkg}: package {pkg} is not in {doc.name}'s table")
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in sorted(known.items()):
        src = package_of(module, top)
        for line, target in imports(module, path, known, top):
            if not target or target == module:
                continue
            graph[module].add(target)
            dst = package_of(target, top)
            if dst == src or dst == FACE or src not in table:
                continue
            if dst not in table[src][1]:
                findings.append(f"{path.relative_to(root.parent)}:{line}: {src} imports {target} ({dst}), "
                                f"which {doc.name} does not allow {src} to import")
    for comp in _cycles(graph):
        findings.append(f"import circle between {len(comp)} modules: {', '.join(comp)}")
    return findings + unmapped(root)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=REPO / "msd_core", help="the package folder (default msd_core/)")
    ap.add_argument("--doc", type=Path, default=REPO / "docs" / "ARCHITECTURE.md", help="the table (default docs/ARCHITECTURE.md)")
    args = ap.parse_args(argv)
    findings = check(args.root, args.doc)
    for f in findings:
        print(f)
    if not findings:
        print(f"layers: {args.root.name} holds to {args.doc.name} (no forbidden import, no circle)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
