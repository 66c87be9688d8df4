"""Rule `template-fields`: every field a template asks for has a reader or a writer.

A template's fields (`msd-core/templates/*`):
  - its frontmatter keys, top level (`phase:`, `subsystem:`);
  - its label lines outside code fences and HTML comments: `Label: value`,
    `**Label**: value`, `**Label:** value`, optionally as a list item (`- Label: value`);
  - for `config.json`, every key and key path (`workflow.verifier`): these pass only when
    the config schema (msd_core/config/schema.json, what `msd_run config` reads and checks)
    has the key, or keys under it.

A field passes when somebody uses it:
  - code reads it: the name is in a string literal (docstrings do not count) of the runtime's
    source (msd_core/planning, flows, memory, run, config), in the config schema's keys, or
    a STATE.md label of msd_core.planning.state_labels;
  - or an agent reads it or a workflow writes it: the name occurs, as a whole word and in
    any letter case, in a content file that is not a template.
`_` / `-` / space spellings of a name are one name. A field nobody reads or writes is dead
text an agent still spends effort filling: drop it from the template, or name it where it is used.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path

from msd_core.checks.model import CheckContext, Violation
from msd_core.files.bounded import loads_json

RULE = "template-fields"
_TEMPLATE_RE = re.compile(r"^msd-core/templates/[^/]+\.(md|json)$")
_FM_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*):")
_LABEL_RE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*(?P<b>[A-Za-z][\w /-]{0,40}?)(?::\*\*|\*\*:)|(?P<p>[A-Z][\w /-]{0,30}?):)(?:[ \t]|$)")
_PACKAGE = Path(__file__).resolve().parents[1]
RUNTIME_DIRS = ("planning", "flows", "memory", "run", "config")


def _template_fields(rel: str, text: str) -> list[tuple[int, str]]:
    """[(line, field name)] a template declares."""
    if rel.endswith(".json"):
        try:
            data = loads_json(text, rel)
        except ValueError:
            return []
        out: list[tuple[int, str]] = []

        def walk(obj, prefix: str) -> None:
            for key, value in obj.items():
                path = f"{prefix}{key}"
                line = next((n for n, ln in enumerate(text.splitlines(), 1) if f'"{key}"' in ln), 0)
                out.append((line, path))
                if isinstance(value, dict):
                    walk(value, path + ".")

        if isinstance(data, dict):
            walk(data, "")
        return out
    lines = text.splitlines()
    out = []
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            for i in range(1, end):
                m = _FM_KEY_RE.match(lines[i])
                if m:
                    out.append((i + 1, m.group(1)))
            start = end + 1
    fenced = comment = False
    for i in range(start, len(lines)):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if "<!--" in line:
            comment = "-->" not in line
            continue
        if comment:
            comment = "-->" not in line
            continue
        if fenced or line.lstrip().startswith("<"):
            continue
        m = _LABEL_RE.match(line)
        if m:
            name = (m.group("b") or m.group("p")).strip()
            if "{{" not in name:
                out.append((i + 1, name))
    return out


def _spellings(name: str) -> set[str]:
    base = name.lower()
    words = re.split(r"[-_ ]+", base)
    return {base, "-".join(words), "_".join(words), " ".join(words)}


def _mentioned(name: str, text: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text) for s in _spellings(name))


@lru_cache(maxsize=1)
def schema_keys() -> frozenset[str]:
    try:
        keys = json.loads((_PACKAGE / "config" / "schema.json").read_text(encoding="utf-8")).get("keys", {})
    except (OSError, ValueError):
        return frozenset()
    return frozenset(keys) | {k.rsplit(".", i)[0] for k in keys for i in range(1, k.count(".") + 1)}


@lru_cache(maxsize=1)
def runtime_strings() -> str:
    """Every string literal of the runtime's source (not docstrings), the config schema's key
    paths and the STATE.md labels, lower-cased, one per line."""
    from msd_core.planning.state_labels import known_labels

    found: list[str] = []
    for sub in RUNTIME_DIRS:
        for path in sorted((_PACKAGE / sub).rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, UnicodeDecodeError):
                continue
            docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
            found += [n.value for n in ast.walk(tree)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]
    found += sorted(schema_keys())
    found += sorted(known_labels())
    return "\n".join(found).lower()


def check(ctx: CheckContext) -> list[Violation]:
    templates = [rel for rel in ctx.tree.files if _TEMPLATE_RE.match(rel)]
    if not templates:
        return []
    others = "\n".join((ctx.tree.text(rel) or "") for rel in ctx.tree.files
                       if rel.endswith(".md") and rel not in templates).lower()
    code = runtime_strings()
    out: list[Violation] = []
    for rel in templates:
        text = ctx.tree.text(rel)
        if text is None:
            continue
        for line, name in _template_fields(rel, text):
            if rel.endswith(".json"):
                if name in schema_keys():
                    continue
            elif _mentioned(name, code) or _mentioned(name, others):
                continue
            out.append(Violation(
                rel, line, RULE,
                f"template field {name!r} is read by no runtime command or agent and written by no workflow",
                "drop it from the template, or name it in the agent or workflow that reads or writes it"))
    return out
