"""A project's test files, read within bounds: where they are, the tests in each, what each imports.

`scan(root)` walks the project (not `.git`, `.planning` or any hidden folder, not the folders of
installed packages and build output in SKIP_DIRS; never through a symlink) and keeps a test file:

  by name     test_*.py, *_test.py, *_test.go, *.test.<js|ts|…>, *.spec.<js|ts|…>, *_spec.rb,
              *Test.java, *Tests.java, *Test.kt
  by place    a source file (CODE_SUFFIXES) anywhere under a folder named tests, test, __tests__ or spec

Bounds: MAX_ENTRIES entries looked at, MAX_TEST_FILES test files kept, MAX_FILE_BYTES per file.
What is not read is listed in `skipped` with its reason (a symlink, too large, binary, the
bounds reached, unreadable), never an error. Files are read through safe_read (a FIFO never blocks).

A file's tests (`blocks`): one per definition line, reaching to the next one:
  Python `def test_…` (also async), JS/TS `it("…")` / `test("…")` (also `.only`/`.skip`/`.each`),
  Go `func TestX(`, Rust a `fn` after a `#[…test]` attribute, Ruby `it "…"`.
Text before the first test is the file's preamble (a match there covers the file, no test name).

`imports(text)`: the import targets of a file as slash paths without an extension: Python
`import a.b` / `from a.b import c, d` (→ a/b, a/b/c, a/b/d; leading dots dropped), JS/TS
`import … from "x"` / `require("x")` / `import("x")` (leading ./ and ../ dropped), Go `"a/b"` import lines.

Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_ENTRIES = 50_000
MAX_TEST_FILES = 2_000
MAX_FILE_BYTES = 1024 * 1024
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "env", "site-packages", "build", "dist", "target",
                       "vendor", "coverage", "htmlcov"})
TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec"})
CODE_SUFFIXES = frozenset({".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".go", ".rs", ".rb", ".java", ".kt",
                           ".cs", ".php", ".swift", ".ex", ".exs"})
_JS = r"(?:js|jsx|ts|tsx|mjs|cjs)"
_NAME_RE = re.compile(r"^(?:test_.+\.py|.+_test\.py|.+_test\.go|.+\.(?:test|spec)\." + _JS + r"|.+_spec\.rb"
                      r"|.+Tests?\.java|.+Test\.kt)$")
_DEF_RE = re.compile(
    r"^[ \t]*(?:async[ \t]+)?def[ \t]+(?P<py>test\w*)"
    r"|^[ \t]*(?:it|test)(?:\.(?:only|skip|each\([^)]*\)))?[ \t]*\([ \t]*(?P<q>['\"`])(?P<js>.+?)(?P=q)"
    r"|^func[ \t]+(?P<go>Test\w*)[ \t]*\("
    r"|^[ \t]*it[ \t]+(?P<rq>['\"])(?P<rb>.+?)(?P=rq)",
    re.M)
_RUST_RE = re.compile(r"^[ \t]*#\[[\w:]*test[\w:]*\][ \t]*\n(?:[ \t]*#\[.*\][ \t]*\n)*[ \t]*(?:pub[ \t]+)?(?:async[ \t]+)?fn[ \t]+(?P<rs>\w+)",
                      re.M)
_PY_IMPORT_RE = re.compile(r"^[ \t]*(?:from[ \t]+(?P<mod>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([\w, \t\n]+\)|[\w, \t]+)"
                           r"|import[ \t]+(?P<plain>[\w., \t]+))", re.M)
_JS_IMPORT_RE = re.compile(r"""(?:\bfrom[ \t]*|\brequire[ \t]*\([ \t]*|\bimport[ \t]*\(?[ \t]*)(['"])(?P<spec>[^'"\n]+)\1""")
_GO_IMPORT_RE = re.compile(r"""^[ \t]*(?:import[ \t]+)?(?:\w+[ \t]+)?"(?P<spec>[\w./-]+)"[ \t]*$""", re.M)


class TestBlock:
    """One test (name None: the file's preamble); `low` and `words` are computed once, on first use."""

    __slots__ = ("name", "text", "_low", "_words")

    def __init__(self, name: str | None, text: str):
        self.name, self.text = name, text
        self._low = self._words = None

    @property
    def low(self) -> str:
        if self._low is None:
            self._low = ((self.name or "") + "\n" + self.text).lower()
        return self._low

    @property
    def words(self) -> set[str]:
        """The block's words, lower-cased, whole and split at `_`, a plural `s` dropped (validate's keyword rule)."""
        if self._words is None:
            found = set(re.findall(r"[a-z0-9_]+", self.low))
            parts = {p for w in found if "_" in w for p in w.split("_") if p}
            self._words = {plural_dropped(w) for w in found | parts}
        return self._words


def plural_dropped(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


class TestFile:
    """A test file: rel (POSIX path from the root), text, blocks (the preamble first, name None)."""

    __slots__ = ("rel", "text", "blocks", "_imports")

    def __init__(self, rel: str, text: str):
        self.rel, self.text = rel, text
        self.blocks = split_blocks(text, rel)
        self._imports = None

    @property
    def imports(self) -> list[str]:
        if self._imports is None:
            self._imports = imports(self.text, self.rel)
        return self._imports

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.blocks if b.name]


def is_test_name(name: str) -> bool:
    return bool(_NAME_RE.match(name))


def is_test_path(rel_parts: tuple[str, ...]) -> bool:
    name = rel_parts[-1]
    if is_test_name(name):
        return True
    return os.path.splitext(name)[1] in CODE_SUFFIXES and any(p in TEST_DIRS for p in rel_parts[:-1])


def split_blocks(text: str, rel: str = "") -> list[TestBlock]:
    marks: list[tuple[int, str]] = []
    rx = _RUST_RE if rel.endswith(".rs") else _DEF_RE
    for m in rx.finditer(text):
        groups = m.groupdict()
        name = next((groups[k] for k in ("py", "js", "go", "rb", "rs") if groups.get(k)), None)
        if name:
            marks.append((m.start(), " ".join(name.split())[:200]))
    blocks = [TestBlock(None, text[: marks[0][0]] if marks else text)]
    for i, (start, name) in enumerate(marks):
        end = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        blocks.append(TestBlock(name, text[start:end]))
    return blocks


def _strip_rel(spec: str) -> str:
    spec = spec.strip()
    while spec.startswith(("./", "../")):
        spec = spec.split("/", 1)[1]
    spec = spec.lstrip("@/").rstrip("/")
    base, ext = os.path.splitext(spec)
    return base if ext in CODE_SUFFIXES else spec


def imports(text: str, rel: str = "") -> list[str]:
    out: list[str] = []

    def add(target: str) -> None:
        target = target.strip("/")
        if target and target not in out:
            out.append(target)

    suffix = os.path.splitext(rel)[1]
    if suffix in (".py", ""):
        for m in _PY_IMPORT_RE.finditer(text):
            if m.group("mod") is not None:
                mod = m.group("mod").lstrip(".").replace(".", "/")
                names = [n.strip().split()[0] for n in m.group("names").strip("()").replace("\n", ",").split(",")
                         if n.strip() and n.strip() != "*"]
                if mod:
                    add(mod)
                for n in names:
                    add(f"{mod}/{n}" if mod else n)
            else:
                for part in m.group("plain").split(","):
                    if part.strip():
                        add(part.strip().split()[0].replace(".", "/"))
    if suffix != ".py":
        for m in _JS_IMPORT_RE.finditer(text):
            add(_strip_rel(m.group("spec")))
    if suffix == ".go":
        for m in _GO_IMPORT_RE.finditer(text):
            add(m.group("spec"))
    return out


def scan(root: Path) -> tuple[list[TestFile], list[dict]]:
    """(test files, skipped [{file, reason}]) of the project at `root` (module docstring)."""
    from msd_core.files.safe_read import FileTooLarge, read_regular

    root = Path(root)
    found: list[TestFile] = []
    skipped: list[dict] = []
    seen = 0
    stack: list[tuple[str, tuple[str, ...]]] = [(str(root), ())]
    while stack:
        folder, parts = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError as exc:
            skipped.append({"file": "/".join(parts) or ".", "reason": f"unreadable folder ({exc.strerror or exc})"})
            continue
        for e in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                skipped.append({"file": "/".join(parts) or ".", "reason": f"more than {MAX_ENTRIES} entries: the rest not looked at"})
                return found, skipped
            rel_parts = parts + (e.name,)
            rel = "/".join(rel_parts)
            try:
                if e.is_symlink():
                    if is_test_path(rel_parts) or e.is_dir():
                        skipped.append({"file": rel, "reason": "a symlink, not followed"})
                    continue
                if e.is_dir(follow_symlinks=False):
                    if not e.name.startswith(".") and e.name not in SKIP_DIRS:
                        stack.append((e.path, rel_parts))
                    continue
            except OSError:
                continue
            if not is_test_path(rel_parts):
                continue
            if len(found) >= MAX_TEST_FILES:
                skipped.append({"file": rel, "reason": f"more than {MAX_TEST_FILES} test files: not read"})
                continue
            try:
                data = read_regular(e.path, MAX_FILE_BYTES, follow_symlinks=False)
            except FileTooLarge:
                skipped.append({"file": rel, "reason": f"larger than {MAX_FILE_BYTES} bytes: not read"})
                continue
            except OSError as exc:
                skipped.append({"file": rel, "reason": f"unreadable ({exc.strerror or exc})"})
                continue
            if b"\x00" in data[:8192]:
                skipped.append({"file": rel, "reason": "binary, not read"})
                continue
            found.append(TestFile(rel, data.decode("utf-8", errors="replace")))
    found.sort(key=lambda t: t.rel)
    return found, skipped
