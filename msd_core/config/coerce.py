"""Turn command-line text into a typed config value, and check values found in files.

`coerce(key, text)` is what `config set` uses: it raises UsageError (exit 2) listing
what is allowed. `problem(key, value)` says what is wrong with a value already stored
in a file (None when it is fine); stored values are reported, never rewritten.
"""

from __future__ import annotations

from msd_core.config import schema
from msd_core.errors import UsageError
from msd_core.files.bounded import loads_json


def _bad(key: str, text: str) -> UsageError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return UsageError(f"invalid value {shown!r} for {key}: allowed {schema.allowed_text(key)}")


def _bool(key: str, text: str) -> bool:
    word = text.strip().lower()
    if word in schema.TRUE_WORDS:
        return True
    if word in schema.FALSE_WORDS:
        return False
    raise _bad(key, text)


def _int(key: str, text: str, s: dict) -> int:
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise _bad(key, text) from None
    if (s.get("min") is not None and value < s["min"]) or (s.get("max") is not None and value > s["max"]):
        raise _bad(key, text)
    return value


def _object(key: str, text: str) -> dict:
    import json

    try:
        value = loads_json(text, f"the value for {key}")
    except json.JSONDecodeError:
        raise _bad(key, text) from None
    if not isinstance(value, dict):
        raise _bad(key, text)
    fields = {k.rsplit(".", 1)[1]: k for k in schema.children(key)}
    out = {}
    for name, item in value.items():
        if name not in fields:
            close = schema.suggest(f"{key}.{name}")
            hint = f"did you mean {close}?" if close else None
            raise UsageError(f"unknown field {name!r} in {key}", hint=hint)
        msg = problem(fields[name], item)
        if msg:
            raise UsageError(f"invalid {fields[name]}: {msg}")
        out[name] = item
    return out


def _list(key: str, text: str) -> list[str]:
    """A JSON list of texts, or texts separated by commas (blanks dropped)."""
    if text.strip().startswith("["):
        try:
            value = loads_json(text, f"the value of {key}")
        except (ValueError, RecursionError):
            raise _bad(key, text) from None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _bad(key, text)
        return [v.strip() for v in value if v.strip()]
    return [part.strip() for part in text.split(",") if part.strip()]


def coerce(key: str, text: str):
    """The typed value of `text` for schema key `key` (UsageError, exit 2, if invalid)."""
    s = schema.keys()[key]
    t = s["type"]
    if t == "bool":
        return _bool(key, text)
    if t == "int":
        return _int(key, text, s)
    if t == "enum":
        word = text.strip().lower()
        for allowed in s["values"]:
            if word == allowed.lower():
                return allowed
        raise _bad(key, text)
    if t == "string":
        if s.get("nullable") and text.strip() == "null":
            return None
        return text
    if t == "list":
        return _list(key, text)
    if t == "bool_or_object":
        if text.strip().startswith("{"):
            return _object(key, text)
        return _bool(key, text)
    raise UsageError(f"{key} has an unsupported schema type {t!r}")


def coerce_unknown(text: str, current):
    """Value for a key the schema does not know but the file already has: keep its JSON type."""
    if isinstance(current, bool):
        word = text.strip().lower()
        if word in schema.TRUE_WORDS:
            return True
        if word in schema.FALSE_WORDS:
            return False
        raise UsageError(f"invalid value {text!r}: the file holds a bool here (allowed true or false)")
    if isinstance(current, (int, float, dict, list)) or current is None:
        import json

        shown = text if len(text) <= 40 else f"{text[:37]}... ({len(text)} characters)"
        try:
            return loads_json(text, f"the value {shown!r}")  # too deep, too long a number: one line, exit 2
        except json.JSONDecodeError:
            if current is None:
                return text
            raise UsageError(f"invalid value {text!r}: the file holds a {type(current).__name__} here; give JSON") from None
    return text


def _shown(value) -> str:
    import json  # only for a message: the guard hooks check values that are nearly always fine

    return json.dumps(value)


def problem(key: str, value) -> str | None:
    """What is wrong with a stored `value` for `key`, or None if it is valid."""
    s = schema.keys()[key]
    t = s["type"]
    if t == "bool":
        return None if isinstance(value, bool) else f"expected true or false, found {_shown(value)}"
    if t == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and s.get("min") is not None and value < s["min"]:
            ok = False
        if ok and s.get("max") is not None and value > s["max"]:
            ok = False
        return None if ok else f"expected {schema.allowed_text(key)}, found {_shown(value)}"
    if t == "enum":
        if isinstance(value, str) and value in s["values"]:
            return None
        return f"expected one of {schema.allowed_text(key)}, found {_shown(value)}"
    if t == "string":
        if isinstance(value, str) or (value is None and s.get("nullable")):
            return None
        return f"expected {schema.allowed_text(key)}, found {_shown(value)}"
    if t == "list":
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return None
        return f"expected {schema.allowed_text(key)}, found {_shown(value)}"
    if t == "bool_or_object":
        if isinstance(value, bool):
            return None
        if isinstance(value, dict):
            for name, item in value.items():
                sub = f"{key}.{name}"
                if sub in schema.keys():
                    msg = problem(sub, item)
                    if msg:
                        return f"{name}: {msg}"
            return None
        return f"expected {schema.allowed_text(key)}, found {_shown(value)}"
    return None


def normalize(key: str, value):
    """A stored value as code should see it: enum words case-folded ("YOLO" -> "yolo")."""
    s = schema.keys().get(key)
    if s and s["type"] == "enum" and isinstance(value, str) and value not in s["values"]:
        for allowed in s["values"]:
            if value.strip().lower() == allowed.lower():
                return allowed
    return value
