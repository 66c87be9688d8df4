"""compile-plan: one self-contained compiled plan for the executor.

Where it goes. `.planning/.msd/compiled/<plan path under .planning/>` with the `.md`
ending turned into `.compiled.md` (compiled_path): msd's private folder, which ignores
itself, so nothing lands beside the plan and the project's .gitignore is never edited.

What is inlined. A line whose only content is `@<path>` (outside fenced code blocks;
the path must contain `/` or end in a file extension, so `@override` is no reference):
  - installed content: `~/.claude/msd-core/<rel>` (the source spelling) or any path under
    the install root (`--root`, the installer writes absolute paths). Only files listed in
    the install manifest are read, through manifest.read_verified (hash checked, no
    symlinks); a tampered or missing installed file fails the compile (IntegrityError,
    exit 3); a file under the root that the manifest does not list is refused.
  - project files: a relative path (taken from the project root) or an absolute path
    that, with every symlink resolved, stays inside the project root; regular UTF-8
    files up to MAX_FILE_BYTES, at most MAX_TOTAL_BYTES inlined in all.
  - anything else (absolute paths elsewhere, `~`/`$HOME` paths outside the install,
    `..` escapes, symlinks leading out, folders, globs, missing files) is refused: the
    reference line stays as written and the header says why.
Inlined installed files may reference further installed or project files; those are
inlined too, up to depth MAX_DEPTH, each file once (a repeat becomes a pointer line).

What is stripped. `<!-- msd:when tdd|checkpoint|user-setup -->` … `<!-- msd:end -->`
blocks whose condition the plan does not meet: tdd = some task has `tdd="true"` (or the
plan's type is tdd); checkpoint = some task type starts with `checkpoint`; user-setup =
the frontmatter `user_setup` is non-empty. Markers of kept blocks are removed. An
unknown condition or unbalanced markers keep the text and are reported as warnings.
Stripping runs on the plan and on every inlined file, before their references are read.

Freshness. The header records sha256 of every input (the plan, each inlined file, and
each refused or missing reference as null or its current hash) plus the compiler version
and the root. `compile` reuses the existing output when every input is unchanged;
`check` reports fresh/stale without writing.

Standard library only (manifest.py and fsutil.py are imported when needed).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.planning.plan import Plan, parse_plan

COMPILER_VERSION = 1
MAX_PLAN_BYTES = 1024 * 1024
MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 3
SOURCE_TOKEN = "~/.claude/msd-core/"
CONDITIONS = ("tdd", "checkpoint", "user-setup")

_REF_RE = re.compile(r"^(?P<indent>[ \t]*)@(?P<path>[^\s@][^\s]*)[ \t]*\r?$")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)")
_MARK_RE = re.compile(r"<!--\s*msd:(?:when\s+(?P<cond>[\w-]+)|(?P<end>end))\s*-->[ \t]*(?:\r?\n)?")
_INPUTS_RE = re.compile(r"^<!-- msd:inputs (?P<json>\{.*\}) -->$", re.M)


COMPILED_DIR = "compiled"  # under <project>/.planning/.msd/ (which git ignores by its own .gitignore)


def compiled_path(plan_path: Path, project_root: Path) -> Path:
    """`.planning/.msd/compiled/<plan's path under .planning/>` with `.compiled.md` for `.md`.

    `.planning/phases/02-auth/02-01-PLAN.md` → `.planning/.msd/compiled/phases/02-auth/02-01-PLAN.compiled.md`.
    A plan elsewhere in the project keeps its project-relative path under `compiled/_project/`.
    Nothing is written beside the plan and the project's own .gitignore is never touched."""
    from msd_core.paths import project_state_dir

    name = plan_path.name
    stem = name[:-3] if name.endswith(".md") else name
    planning = Path(project_root) / ".planning"
    try:
        rel = plan_path.parent.relative_to(planning)
    except ValueError:
        rel = Path("_project") / plan_path.parent.relative_to(project_root)
    return project_state_dir(Path(project_root)) / COMPILED_DIR / rel / (stem + ".compiled.md")


def _sha(data: bytes) -> str:
    return sha256_bytes(data)  # CPython's built-in SHA-256: no OpenSSL load


def conditions_met(plan: Plan) -> dict[str, bool]:
    return {"tdd": plan.has_tdd, "checkpoint": plan.has_checkpoint, "user-setup": plan.has_user_setup}


def _reason(cond: str) -> str:
    return {
        "tdd": 'no task has tdd="true"',
        "checkpoint": "no task type starts with checkpoint:",
        "user-setup": "the plan has no user_setup",
    }[cond]


def strip_sections(text: str, met: dict[str, bool], where: str, stripped: list, warnings: list) -> str:
    """Remove `msd:when` blocks whose condition is not met; drop the markers of kept blocks."""
    marks = list(_MARK_RE.finditer(text))
    if not marks:
        return text
    stack: list[tuple[re.Match, bool]] = []
    pairs: list[tuple[re.Match, re.Match, bool]] = []
    for m in marks:
        if m.group("cond"):
            stack.append((m, m.group("cond") in met))
        elif stack:
            start, known = stack.pop()
            pairs.append((start, m, known))
        else:
            warnings.append(f"{where}: `msd:end` without `msd:when` at line {text.count(chr(10), 0, m.start()) + 1}; kept")
    for start, _known in stack:
        warnings.append(f"{where}: `msd:when {start.group('cond')}` without `msd:end` at line "
                        f"{text.count(chr(10), 0, start.start()) + 1}; kept")
    cuts: list[tuple[int, int]] = []  # spans to delete
    for start, end, known in sorted(pairs, key=lambda p: p[0].start()):
        cond = start.group("cond")
        if any(a <= start.start() < b for a, b in cuts):
            continue  # inside a block already removed
        if not known:
            warnings.append(f"{where}: unknown condition `{cond}`; block kept")
            continue
        line = text.count("\n", 0, start.start()) + 1
        if met[cond]:
            cuts += [(start.start(), start.end()), (end.start(), end.end())]
        else:
            cuts.append((start.start(), end.end()))
            stripped.append({"file": where, "line": line, "condition": cond, "reason": _reason(cond)})
    out, pos = [], 0
    for a, b in sorted(cuts):
        if a < pos:
            continue
        out.append(text[pos:a])
        pos = b
    out.append(text[pos:])
    return "".join(out)


class Refused(Exception):
    pass


class Compiler:
    def __init__(self, plan_path: Path, project_root: Path, install_root: Path):
        self.plan_path = plan_path
        self.project = Path(os.path.realpath(project_root))
        self.root = Path(install_root)
        self.config = self.root.parent
        self._manifest = None
        self.inputs: dict[str, str | None] = {}
        self.inlined: list[dict] = []
        self.refused: list[dict] = []
        self.stripped: list[dict] = []
        self.warnings: list[str] = []
        self.total = 0
        self.seen: set[str] = set()
        self.met: dict[str, bool] = {}

    # ---------------------------------------------------------------- resolving
    def manifest(self):
        if self._manifest is None:
            from msd_core.ownership.manifest import load_manifest

            self._manifest = load_manifest(self.config)
        return self._manifest

    def _installed_rel(self, ref: str) -> str | None:
        """`msd-core/<rel>` relative to the config folder, when `ref` names installed content."""
        if ref.startswith(SOURCE_TOKEN):
            tail = ref[len(SOURCE_TOKEN):]
        else:
            if not os.path.isabs(ref):
                return None
            root = os.path.normpath(str(self.root))
            norm = os.path.normpath(ref)
            if not norm.startswith(root + os.sep):
                return None
            tail = norm[len(root) + 1:]
        parts = tail.split("/")
        if any(p in ("", ".", "..") for p in parts):
            raise Refused("`..` or empty segment in an installed path")
        return f"{self.root.name}/{tail}"

    def read_installed(self, rel: str) -> bytes:
        from msd_core.ownership.manifest import read_verified

        man = self.manifest()
        if rel not in man.files:
            raise Refused("under the install root but not in the install manifest")
        return read_verified(self.config, man, rel)  # IntegrityError (exit 3) if tampered

    def read_project(self, ref: str) -> tuple[str, bytes]:
        if ref.startswith(("~", "$")):
            raise Refused("home-relative path outside the msd-core install")
        raw = Path(ref) if os.path.isabs(ref) else self.project / ref
        if not os.path.isabs(ref) and ".." in Path(ref).parts:
            raise Refused("`..` escapes are not followed")
        real = Path(os.path.realpath(raw))
        if real != self.project and self.project not in real.parents:
            if os.path.isabs(ref) and not str(os.path.normpath(raw)).startswith(str(self.project) + os.sep):
                raise Refused("absolute path outside the project")
            raise Refused("resolves outside the project (symlink or escape)")
        if any(ch in ref for ch in "*?["):
            raise Refused("glob patterns are not expanded")
        from msd_core.files.safe_read import FileTooLarge, NotRegularFile, read_regular

        try:
            data = read_regular(real, MAX_FILE_BYTES)
        except FileNotFoundError:
            raise Refused("missing") from None
        except FileTooLarge:
            raise Refused(f"larger than {MAX_FILE_BYTES} bytes") from None
        except NotRegularFile:
            raise Refused("not a regular file") from None
        except OSError as exc:
            raise Refused(f"unreadable ({exc.strerror or exc})") from None
        if self.total + len(data) > MAX_TOTAL_BYTES:
            raise Refused(f"inlining it would exceed {MAX_TOTAL_BYTES} bytes in all")
        return real.relative_to(self.project).as_posix(), data

    # ---------------------------------------------------------------- expanding
    def expand(self, text: str, where: str, depth: int) -> str:
        text = strip_sections(text, self.met, where, self.stripped, self.warnings)
        out: list[str] = []
        fenced = None
        for line in text.splitlines(keepends=True):
            f = _FENCE_RE.match(line)
            if fenced:
                if f and f.group(1) == fenced:
                    fenced = None
                out.append(line)
                continue
            if f:
                fenced = f.group(1)
                out.append(line)
                continue
            m = _REF_RE.match(line.rstrip("\n"))
            ref = m.group("path") if m else None
            if not ref or not ("/" in ref or re.search(r"\.\w{1,8}$", ref)):
                out.append(line)
                continue
            out.append(self.inline(ref, line, where, depth))
        return "".join(out)

    def inline(self, ref: str, line: str, where: str, depth: int) -> str:
        eol = "\n" if line.endswith("\n") else ""
        key = None
        try:
            rel = self._installed_rel(ref)
            if rel is not None:
                key = rel
                if key in self.seen:
                    return f"<!-- @{ref}: inlined above -->{eol}"
                data = self.read_installed(rel)
                kind = "installed"
            else:
                key, data = self.read_project(ref)
                if key in self.seen:
                    return f"<!-- @{ref}: inlined above -->{eol}"
                kind = "project"
            try:
                body = data.decode("utf-8")
            except UnicodeDecodeError:
                raise Refused("not UTF-8 text") from None
        except Refused as exc:
            self.refused.append({"ref": ref, "in": where, "reason": str(exc)})
            self.inputs[f"ref:{ref}"] = self._probe(ref)
            return line
        self.seen.add(key)
        self.total += len(data)
        self.inputs[key] = _sha(data)
        self.inlined.append({"path": key, "kind": kind, "bytes": len(data), "in": where})
        if depth < MAX_DEPTH:
            body = self.expand(body, key, depth + 1)
        else:
            body = strip_sections(body, self.met, key, self.stripped, self.warnings)
        if body and not body.endswith("\n"):
            body += "\n"
        return f'<inlined path="{key}">\n{body}</inlined>{eol}'

    def _probe(self, ref: str) -> str | None:
        """Current hash of a refused reference's project file (so its appearance makes the output stale)."""
        if os.path.isabs(ref) or ref.startswith(("~", "$")) or ".." in Path(ref).parts:
            return None
        from msd_core.files.safe_read import read_regular

        try:
            return _sha(read_regular(self.project / ref, MAX_FILE_BYTES, follow_symlinks=False))
        except OSError:
            return None

    # ---------------------------------------------------------------- output
    def compile(self, plan_bytes: bytes) -> str:
        text = plan_bytes.decode("utf-8")
        plan = parse_plan(text)
        self.met = conditions_met(plan)
        plan_key = self.plan_key()
        self.inputs = {plan_key: _sha(plan_bytes)}
        self.seen.add(plan_key)
        body = self.expand(text, plan_key, 1)
        return self.header(plan_key) + body

    def plan_key(self) -> str:
        try:
            return Path(os.path.realpath(self.plan_path)).relative_to(self.project).as_posix()
        except ValueError:
            return str(self.plan_path)

    def header(self, plan_key: str) -> str:
        meta = {"compiler": COMPILER_VERSION, "root": str(self.root), "inputs": self.inputs}
        lines = [
            f"<!-- msd:compiled from {plan_key} by `msd_run compile-plan`; do not edit, recompile instead -->",
            f"<!-- msd:inputs {json.dumps(meta, ensure_ascii=False, sort_keys=True, separators=(',', ':'))} -->",
            f"# Compiled plan: {plan_key}",
            "",
            "Inlined files:" if self.inlined else "Inlined files: none",
        ]
        lines += [f"- {i['path']} ({i['kind']}, {i['bytes']} bytes)" for i in self.inlined]
        lines.append("Stripped sections:" if self.stripped else "Stripped sections: none")
        lines += [f"- `{s['condition']}` block at {s['file']}:{s['line']}: {s['reason']}" for s in self.stripped]
        if self.refused:
            lines.append("References left as written (refused, not read):")
            lines += [f"- @{r['ref']} (in {r['in']}): {r['reason']}" for r in self.refused]
        lines += ["", "---", ""]
        return "\n".join(lines) + "\n"


def recorded_inputs(compiled_text: str) -> dict | None:
    m = _INPUTS_RE.search(compiled_text[:200_000])
    if not m:
        return None
    try:
        from msd_core.files.bounded import loads_json

        meta = loads_json(m.group("json"), "the compiled plan's inputs")
    except ValueError:
        return None
    return meta if isinstance(meta, dict) and isinstance(meta.get("inputs"), dict) else None


def stale_inputs(meta: dict, compiler: Compiler) -> list[str]:
    """Inputs whose current hash differs from the recorded one (empty list: fresh)."""
    from msd_core.files.safe_read import read_regular

    if meta.get("compiler") != COMPILER_VERSION:
        return ["compiler version"]
    if meta.get("root") != str(compiler.root):
        return ["install root"]
    changed = []
    for key, recorded in meta["inputs"].items():
        if key.startswith("ref:"):
            current = compiler._probe(key[4:])
        elif key.startswith(compiler.root.name + "/"):
            current = _current_installed(compiler, key)
        else:
            p = compiler.project / key if not os.path.isabs(key) else Path(key)
            try:
                current = _sha(read_regular(p, MAX_FILE_BYTES + MAX_TOTAL_BYTES))
            except OSError:
                current = None
        if current != recorded:
            changed.append(key[4:] if key.startswith("ref:") else key)
    return changed


def _current_installed(compiler: Compiler, rel: str) -> str | None:
    from msd_core.files.safe_read import read_regular

    try:
        from msd_core.ownership.manifest import safe_path

        return _sha(read_regular(safe_path(compiler.config, rel), follow_symlinks=False))
    except Exception:
        return None


GITIGNORE_LINE = "*.compiled.md"
