"""Rule `flows`: every msd-core/flows/*.toml is a valid flow, and the content it names ships.

Validation is msd_core.flows.schema's (`validate_flow_text(text, name) -> [(line, message)]`,
name = the file's stem); this module only reports. When that module is absent (an older
checkout) the file is only required to parse as TOML. Each `msd-core/...` path a valid flow
names in `context_files` (schema.content_paths) must exist in this tree.
"""

from __future__ import annotations

from msd_core.checks.model import FLOW_RE, CheckContext, Violation
from msd_core.files import tomlread as tomllib
from msd_core.files.bounded import BoundedInputError, loads_toml

RULE = "flows"
FIX = "fix the flow file (see msd_core/flows/schema.py for the format)"


def _line_of(exc: Exception) -> int:
    """The line of a TOML error: `lineno` where the parser sets it (3.14+), else the "(at line N"
    its message carries (tomllib before 3.14, tomli)."""
    import re

    line = getattr(exc, "lineno", None)
    if isinstance(line, int) and line > 0:
        return line
    m = re.search(r"\(at line (\d+)", str(exc))
    return int(m.group(1)) if m else 1


def _validate(text: str, name: str) -> tuple[list[tuple[int, str]], list[str]]:
    """(problems, content paths named) for one flow file."""
    import importlib

    try:  # import_module consults sys.modules (a `from` import would take a loaded package's attribute)
        schema = importlib.import_module("msd_core.flows.schema")
    except ImportError:
        try:
            loads_toml(text, name)
        except BoundedInputError as exc:
            return [(1, exc.message)], []
        except tomllib.TOMLDecodeError as exc:
            return [(_line_of(exc), f"not valid TOML: {exc}")], []
        return [], []
    problems = list(schema.validate_flow_text(text, name))
    paths: list[str] = []
    if not problems and hasattr(schema, "content_paths"):
        flow, _ = schema.parse_flow(text, name)
        if flow is not None:
            paths = schema.content_paths(flow)
    return problems, paths


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    out: list[Violation] = []
    existing = set(tree.files)
    for rel in tree.files:
        m = FLOW_RE.match(rel)
        if not m:
            continue
        text = tree.text(rel)
        if text is None:
            out.append(Violation(rel, 0, RULE, "flow file is not UTF-8 text", FIX))
            continue
        try:
            problems, paths = _validate(text, m.group(1))
        except Exception as exc:  # a validator crash is reported, never raised
            problems, paths = [(0, f"flow validator failed: {type(exc).__name__}: {exc}")], []
        for line, message in problems:
            out.append(Violation(rel, int(line or 0), RULE, message, FIX))
        for path in paths:
            target = path.rstrip("/")
            if target not in existing and not any(f.startswith(target + "/") for f in existing):
                line = next((i for i, ln in enumerate(text.splitlines(), 1) if path in ln), 0)
                out.append(Violation(rel, line, RULE, f"context file {path!r} is not shipped in this tree",
                                     "name a shipped file or add it"))
    return out
