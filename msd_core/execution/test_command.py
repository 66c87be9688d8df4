"""Which command runs a project's test suite, proposed from the files in its repository.

`detect(root)` returns {"command": <best guess or None>, "candidates": [{"command", "evidence"}]}.
It reads only marker files, never runs anything:

  pytest      pyproject.toml with [tool.pytest...], pytest.ini, tox.ini/setup.cfg with a
              pytest section, conftest.py, or a tests/ folder beside a Python project file
              -> `python -m pytest -q`
  npm test    package.json whose scripts.test is set and is not npm's placeholder
              ("no test specified") -> `npm test` (`pnpm test`/`yarn test` beside their lockfile)
  cargo       Cargo.toml -> `cargo test`
  go          go.mod -> `go test ./...`
  make        a Makefile/GNUmakefile with a `test:` target -> `make test`

The first candidate in that order is the proposal; the user confirms it (or `none`) and it
is stored as `testing.command`. Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.files.bounded import loads_json

MAX_READ = 512 * 1024
_MAKE_TEST = re.compile(r"^test\s*:", re.M)


def _read(path: Path) -> str | None:
    try:
        from msd_core.files.safe_read import read_text

        return read_text(path, MAX_READ, follow_symlinks=False)
    except OSError:
        return None


def _python(root: Path) -> str | None:
    pyproject = _read(root / "pyproject.toml")
    if pyproject and "[tool.pytest" in pyproject:
        return "pyproject.toml has [tool.pytest]"
    if (root / "pytest.ini").is_file():
        return "pytest.ini"
    for name in ("tox.ini", "setup.cfg"):
        text = _read(root / name)
        if text and ("[pytest]" in text or "[tool:pytest]" in text):
            return f"{name} has a pytest section"
    if (root / "conftest.py").is_file():
        return "conftest.py"
    has_project = any((root / n).is_file() for n in ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"))
    if has_project and ((root / "tests").is_dir() or (root / "test").is_dir()):
        return "a Python project file and a tests/ folder"
    return None


def _node(root: Path) -> tuple[str, str] | None:
    text = _read(root / "package.json")
    if not text:
        return None
    try:
        data = loads_json(text, "package.json")
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or not test.strip() or "no test specified" in test:
        return None
    tool = "pnpm" if (root / "pnpm-lock.yaml").is_file() else "yarn" if (root / "yarn.lock").is_file() else "npm"
    return f"{tool} test", f"package.json scripts.test = {test.strip()[:80]!r}"


def detect(root: Path) -> dict:
    root = Path(root)
    candidates: list[dict] = []
    why = _python(root)
    if why:
        candidates.append({"command": "python -m pytest -q", "evidence": why})
    node = _node(root)
    if node:
        candidates.append({"command": node[0], "evidence": node[1]})
    if (root / "Cargo.toml").is_file():
        candidates.append({"command": "cargo test", "evidence": "Cargo.toml"})
    if (root / "go.mod").is_file():
        candidates.append({"command": "go test ./...", "evidence": "go.mod"})
    for name in ("Makefile", "GNUmakefile", "makefile"):
        text = _read(root / name)
        if text and _MAKE_TEST.search(text):
            candidates.append({"command": "make test", "evidence": f"{name} has a test target"})
            break
    return {"command": candidates[0]["command"] if candidates else None, "candidates": candidates}
