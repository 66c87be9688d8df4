"""The config schema: which keys exist, their type, default, allowed values and meaning.

The data lives in `schema.json` beside this module (read by msd_core.files.bounded, which needs no
json module for a well-formed file: no TOML/YAML, no re on the hot path). Keys are dotted paths into the nested config object:
`workflow.research` is `{"workflow": {"research": ...}}`.

Types: `bool`, `int` (optional min/max), `string` (optional `nullable`), `enum`
(`values`), `list` (a list of texts), and `bool_or_object` (a bool, or an object whose fields
are the schema keys below it; `parallelization` is the one such key).

`"scope": "project"` marks a key only the project's config.json sets (the user defaults do
not apply to it): the guard keys, which the hooks read from the project alone.

The test-suite switch: the schema default of `workflow.compact_content` is false unless
the environment variable MSD_COMPACT_DEFAULT says true/false (1/0, on/off, yes/no). The
suite's `--compact on|off` option sets it, so every test runs both ways; a project's
config.json or the user defaults always win over it.
"""

from __future__ import annotations

import os

from msd_core.files.bounded import loads_json

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json")  # no pathlib: the guard hooks read it
COMPACT_KEY = "workflow.compact_content"
TRACE_KEY = "workflow.trace_loads"
COMPACT_DEFAULT_ENV = "MSD_COMPACT_DEFAULT"

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")

_cache: dict | None = None


def keys() -> dict[str, dict]:
    """{dotted key: spec}, in schema order."""
    global _cache
    if _cache is None:
        with open(SCHEMA_FILE, encoding="utf-8") as fh:
            _cache = loads_json(fh.read(), SCHEMA_FILE)["keys"]
    return _cache


def spec(key: str) -> dict | None:
    return keys().get(key)


def env_bool(name: str) -> bool | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def default(key: str):
    """The schema default of `key` (MSD_COMPACT_DEFAULT applies to workflow.compact_content)."""
    if key == COMPACT_KEY:
        flipped = env_bool(COMPACT_DEFAULT_ENV)
        if flipped is not None:
            return flipped
    s = keys()[key]
    value = s.get("default")
    if isinstance(value, (dict, list)):
        return _copied(value)
    return value


def _copied(value):
    """A JSON value's own copy (a caller may change a default it was given)."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def children(prefix: str) -> list[str]:
    """Schema keys directly or indirectly below `prefix` (e.g. all `workflow.*`)."""
    head = prefix + "."
    return [k for k in keys() if k.startswith(head)]


def is_prefix(key: str) -> bool:
    return bool(children(key))


def object_parent(key: str) -> str | None:
    """The `bool_or_object` key that `key` is a field of (parallelization.x -> parallelization)."""
    if "." not in key:
        return None
    parent = key.rsplit(".", 1)[0]
    s = spec(parent)
    return parent if s is not None and s.get("type") == "bool_or_object" else None


def allowed_text(key: str) -> str:
    """What `key` accepts, in words, for error messages."""
    s = keys()[key]
    t = s["type"]
    if t == "bool":
        return "true or false"
    if t == "enum":
        return ", ".join(s["values"])
    if t == "int":
        lo, hi = s.get("min"), s.get("max")
        if lo is not None and hi is not None:
            return f"a whole number from {lo} to {hi}"
        return "a whole number"
    if t == "string":
        return "any text" + (" (or null)" if s.get("nullable") else "")
    if t == "list":
        return 'a JSON list of texts (["a", "b"]) or texts separated by commas'
    if t == "bool_or_object":
        fields = ", ".join(k.rsplit(".", 1)[1] for k in children(key))
        return f"true, false, or a JSON object with {fields}"
    return t


def project_only(key: str) -> bool:
    """A key the user defaults do not set (`"scope": "project"`)."""
    s = keys().get(key)
    return bool(s) and s.get("scope") == "project"


def suggest(key: str, extra: list[str] | None = None) -> str | None:
    """The closest known key to a misspelt one (difflib), or None."""
    import difflib

    pool = list(keys()) + list(extra or [])
    close = difflib.get_close_matches(key, pool, n=1, cutoff=0.5)
    if close:
        return close[0]
    # a bare leaf name ("research") names its dotted key ("workflow.research")
    leaf = [k for k in keys() if k.rsplit(".", 1)[-1] == key]
    return leaf[0] if leaf else None
