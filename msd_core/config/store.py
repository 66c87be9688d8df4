"""The layered config store: where a value comes from, and how a file is changed safely.

Lookup of a dotted key (`workflow.research`), first hit wins:
  1. for a personal key (the schema marks it `personal`: mode, model_profile, ...), the
     person's own layer of this project, `.planning/.msd/personal.json` (never committed:
     msd's private folder ignores itself); a shared key found there is ignored (and
     `list_entries` says so), because what the team shares stays in config.json
  2. the project's `.planning/config.json` (project found by walking up from `cwd`)
  3. the user defaults, `paths.user_defaults_path()` (same JSON shape), except for keys the
     schema marks `"scope": "project"` (the guard keys: the hooks read the project alone)
  4. the schema default (`msd_core/config/schema.json`)

Public API (import lazily from other modules):
  get_value(key, cwd=None)        effective value (UsageError exit 2 for an unknown key)
  load_effective(cwd=None)        the whole effective config as a nested dict
  load_layers(cwd=None)           Layers: project root/path/data and user data, read once
  list_entries(cwd=None)          every key with value, source and any problem
  set_value(key, text, cwd=None, create=False, personal=False) / unset_value(key, cwd=None, personal=False)
                                  (personal: the person's own layer; a shared key is refused there)

Files that do not parse are reported with line and column (exit 2) and never rewritten.
Writes keep the file's other keys, their order and its indent; they are atomic and made
under a lock in `<project>/.planning/.msd/config.lock`. A failed set/unset leaves the file
byte-identical. Standard library only on the read path (filelock is loaded by a write).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from msd_core import paths
from msd_core.config import coerce, schema
from msd_core.errors import UsageError

CONFIG_NAME = "config.json"
PERSONAL_NAME = "personal.json"  # in the project's private .planning/.msd/
LOCK_NAME = "config.lock"
RECORDS = ("evidence",)  # what msd records in config.json beside the settings (`record`): never listed as a key
MAX_CONFIG_BYTES = 1 << 20  # 1 MiB: a config.json larger than this is refused, not parsed
_MISSING = object()


class Layers:
    """The config sources read for one call (a plain class: dataclasses costs import time)."""

    __slots__ = ("project_root", "project_path", "project", "user_path", "user", "personal")

    def __init__(self, project_root: Path | None, project_path: Path | None, project: dict | None,
                 user_path: Path | None, user: dict | None, personal: dict | None = None):
        self.project_root = project_root  # folder holding .planning/, or None
        self.project_path = project_path  # <root>/.planning/config.json (may not exist)
        self.project = project  # parsed project config, None when absent
        self.user_path = user_path
        self.user = user
        self.personal = personal  # parsed .planning/.msd/personal.json, None when absent

    def lookup(self, key: str, validate: bool = True):
        """(value, source) for `key`; value is _MISSING when no layer and no schema has it.
        A stored value the schema does not allow (`mode: "turbo"`) is read as the default, with
        one warning on stderr (`invalid_value`); `validate=False` hands back what is stored."""
        parts = key.split(".")
        if key not in schema.keys() and schema.is_prefix(key):
            return _effective_subtree(self, key), "merged"
        layers = ((self.personal if is_personal(key) else None, "personal"), (self.project, "project"), (self.user, "user"))
        for data, source in layers:
            if data is None or (source == "user" and schema.project_only(key)):
                continue
            found = _walk(data, parts, key)
            if found is not _MISSING:
                value = coerce.normalize(key, found)
                if validate and key in schema.keys():
                    if invalid_value(key, value, self._file_of(source)):
                        return schema.default(key), "default"
                    value = _bool_word(key, value)
                return value, source
        if key in schema.keys():
            return schema.default(key), "default"
        return _MISSING, None

    def _file_of(self, source: str) -> str:
        if source == "personal" and self.project_root is not None:
            return str(personal_path(self.project_root))
        return str(self.project_path if source == "project" else self.user_path)


_WARNED: set = set()  # (key, file) pairs already warned about in this process


def _bool_word(key: str, value):
    """A bool key stored as one of its words ("yes", "off") read as the bool it says."""
    if isinstance(value, str) and schema.spec(key)["type"] == "bool":
        return value.strip().lower() in schema.TRUE_WORDS
    return value


def stored_problem(key: str, value) -> str | None:
    """What is wrong with a stored value of a schema key, or None. A bool key's true/false words
    ("yes", "off") are fine: get_bool reads them."""
    msg = coerce.problem(key, value)
    if msg and schema.spec(key)["type"] == "bool" and isinstance(value, str) \
            and value.strip().lower() in schema.TRUE_WORDS + schema.FALSE_WORDS:
        return None
    return msg


def invalid_value(key: str, value, where: str) -> bool:
    """True when `value` (read from the file `where`) is not allowed for `key`; the first time in a
    process, one line on stderr says so and that the default is used instead."""
    msg = stored_problem(key, value)
    if msg is None:
        return False
    if (key, where) not in _WARNED:
        import sys

        _WARNED.add((key, where))
        try:
            sys.stderr.write(f"msd: warning: config {key} in {where}: {msg}; using the default "
                             f"{json.dumps(schema.default(key))} (fix: msd config set {key} <value>)\n")
        except (OSError, ValueError, AttributeError):
            pass
    return True


def is_personal(key: str) -> bool:
    """Whether the schema lets `key` live in a person's own layer."""
    s = schema.spec(key)
    return bool(s and s.get("personal"))


def personal_keys() -> list[str]:
    return [k for k in schema.keys() if is_personal(k)]


def personal_path(root: Path) -> Path:
    return paths.project_state_dir(root) / PERSONAL_NAME


def _walk(data: dict, parts: list[str], key: str):
    node = data
    for i, part in enumerate(parts):
        if isinstance(node, dict) and part in node:
            node = node[part]
            continue
        # parallelization: true is the bool form of parallelization.enabled
        if isinstance(node, bool) and i == len(parts) - 1 and part == "enabled":
            parent = ".".join(parts[:i])
            if schema.spec(parent) and schema.spec(parent)["type"] == "bool_or_object":
                return node
        return _MISSING
    return node


def read_config_file(path: Path, what: str = "config") -> tuple[dict | None, bytes | None]:
    """(parsed object, raw bytes) of a JSON config file; (None, None) when absent.

    UsageError (exit 2) naming line and column when it does not parse; too large,
    not UTF-8 or not a JSON object are refused the same way.
    """
    from msd_core.files.jsonfile import read_json_object

    return read_json_object(path, what, MAX_CONFIG_BYTES, hint="fix the file by hand; msd will not rewrite it")


def _user_layer() -> tuple[Path | None, dict | None]:
    try:
        up = paths.user_defaults_path()
    except Exception:  # platformdirs missing or unusable: no user layer
        return None, None
    data, _ = read_config_file(up, "user defaults")
    return up, data


def _personal_layer(root: Path) -> dict | None:
    """The person's own layer; absent while msd's private folder is not a real folder (missing,
    a symlink, a file: nothing of it is read, as for every other private file)."""
    folder = paths.project_state_dir(root)
    if folder.is_symlink() or not folder.is_dir():
        return None
    return read_config_file(personal_path(root), "personal config")[0]


def load_layers(cwd: str | os.PathLike | None = None) -> Layers:
    root = paths.find_project_root(cwd)
    ppath = paths.planning_dir(root) / CONFIG_NAME if root else None
    project = read_config_file(ppath, "project config")[0] if ppath else None
    personal = _personal_layer(root) if root else None
    upath, user = _user_layer()
    return Layers(root, ppath, project, upath, user, personal)


def _effective_subtree(layers: Layers, prefix: str) -> dict:
    eff = _effective(layers)
    node = eff
    for part in prefix.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


def _set_nested(tree: dict, parts: list[str], value) -> None:
    node = tree
    for part in parts[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    node[parts[-1]] = value


def _drop(tree: dict, parts: list[str]) -> None:
    node = tree
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(parts[-1], None)


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = json.loads(json.dumps(v)) if isinstance(v, (dict, list)) else v
    return out


def _effective(layers: Layers) -> dict:
    base: dict = {}
    for key in schema.keys():
        if schema.object_parent(key):
            continue  # fields of parallelization: the parent's default (a bool) stands for them
        _set_nested(base, key.split("."), schema.default(key))
    if layers.user:
        user = json.loads(json.dumps(layers.user))
        for key in schema.keys():
            if schema.project_only(key):
                _drop(user, key.split("."))
        base = _merge(base, user)
    if layers.project:
        base = _merge(base, layers.project)
    if layers.personal:
        for key in personal_keys():
            found = _walk(layers.personal, key.split("."), key)
            if found is not _MISSING:
                _set_nested(base, key.split("."), found)
    for key in schema.keys():
        found = _walk(base, key.split("."), key)
        if found is not _MISSING and isinstance(found, str):
            norm = coerce.normalize(key, found)
            if norm != found:
                _set_nested(base, key.split("."), norm)
    for key in schema.keys():  # a value the schema does not allow is read as its default (one warning)
        if schema.object_parent(key):
            continue
        found = _walk(base, key.split("."), key)
        if found is not _MISSING and found != schema.default(key):
            _value, source = layers.lookup(key, validate=False)
            if source in ("project", "user", "personal") and invalid_value(key, found, layers._file_of(source)):
                _set_nested(base, key.split("."), schema.default(key))
    return base


def load_effective(cwd: str | os.PathLike | None = None) -> dict:
    """The effective config (schema defaults < user defaults < project < personal keys of the
    person's own layer) as a nested dict."""
    return _effective(load_layers(cwd))


def _unknown_key(key: str, layers: Layers | None = None) -> UsageError:
    known = _file_keys(layers) if layers else []
    close = schema.suggest(key, known)
    hint = f"did you mean {close}?" if close else "see `msd_run config list`"
    return UsageError(f"unknown config key {key!r}", hint=hint)


def check_key_shape(key: str) -> None:
    if not isinstance(key, str) or not key or len(key) > 200 or any(p == "" for p in key.split(".")) or "\x00" in key:
        raise UsageError(f"invalid config key {key[:60]!r}: use dotted names like workflow.research")


def get_value(key: str, cwd: str | os.PathLike | None = None, layers: Layers | None = None):
    """The effective value of `key`. UsageError (exit 2) if no layer and no schema knows it."""
    check_key_shape(key)
    layers = layers or load_layers(cwd)
    value, _ = layers.lookup(key)
    if value is _MISSING:
        raise _unknown_key(key, layers)
    return value


def get_with_source(key: str, cwd: str | os.PathLike | None = None, layers: Layers | None = None):
    """(value, source) with source personal | project | user | default | merged; (_MISSING, None) if unknown."""
    check_key_shape(key)
    layers = layers or load_layers(cwd)
    return layers.lookup(key)


def get_bool(key: str, cwd: str | os.PathLike | None = None, layers: Layers | None = None) -> bool:
    """A bool key's value; UsageError if the stored value is not a bool (or a bool word)."""
    value = get_value(key, cwd, layers)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in schema.TRUE_WORDS + schema.FALSE_WORDS:
        return value.strip().lower() in schema.TRUE_WORDS
    raise UsageError(f"config key {key} must be true or false, found {json.dumps(value)}")


def _flatten(data: dict, prefix: str = "") -> list[tuple[str, object]]:
    out = []
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v and not (key in schema.keys() and schema.spec(key)["type"] == "bool_or_object"):
            out.extend(_flatten(v, key + "."))
        else:
            out.append((key, v))
    return out


def _file_keys(layers: Layers) -> list[str]:
    seen: list[str] = []
    for data in (layers.project, layers.user):
        if data:
            for k, _ in _flatten(data):
                if k.split(".", 1)[0] in RECORDS:
                    continue
                if k not in seen:
                    seen.append(k)
    return seen


def list_entries(cwd: str | os.PathLike | None = None, layers: Layers | None = None) -> list[dict]:
    """Every schema key, then every key found only in the files, with value, source and problem."""
    layers = layers or load_layers(cwd)
    out = []
    for key, s in schema.keys().items():
        value, source = layers.lookup(key, validate=False)  # listed as stored, with its problem
        entry = {"key": key, "value": value, "source": source, "known": True, "description": s.get("description", "")}
        if source in ("project", "user", "personal"):
            msg = coerce.problem(key, value)  # a bool word too: stored as text where the schema has a bool
            if msg:
                entry["problem"] = msg
        if not is_personal(key) and layers.personal and _walk(layers.personal, key.split("."), key) is not _MISSING:
            entry.setdefault("problem", f"also set in {PERSONAL_NAME}, which holds only personal settings "
                                        f"({', '.join(personal_keys())}); ignored there: the team shares it in {CONFIG_NAME}")
        out.append(entry)
    known = set(schema.keys())
    for key in _file_keys(layers):
        if key in known or any(key.startswith(k + ".") for k in known if schema.spec(k)["type"] == "bool_or_object"):
            continue
        value, source = layers.lookup(key)
        out.append({"key": key, "value": value, "source": source, "known": False, "description": ""})
    return out


# ---------------------------------------------------------------- writes


def _detect_format(raw: bytes | None) -> tuple[object, bool, bool]:
    """(indent, trailing newline, BOM) of an existing file, for a faithful rewrite."""
    if raw is None:
        return 2, True, False
    bom = raw.startswith(b"\xef\xbb\xbf")
    from msd_core.files.jsonedit import indent_of
    from msd_core.files.jsonfile import decode_utf8_sig

    text = decode_utf8_sig(raw)

    indent = None if "\n" not in text.strip() else indent_of(text)
    return indent, text.endswith("\n"), bom


def _dump(data: dict, raw: bytes | None, before: dict | None = None) -> bytes:
    """The new file: the old text with only the changed members edited (its line endings,
    spacing, number spellings and escapes kept); a full re-dump in the file's indent and
    line endings when a minimal edit is not possible."""
    bom = raw is not None and raw.startswith(b"\xef\xbb\xbf")
    if raw is not None and before is not None:
        from msd_core.files.jsonedit import rewrite
        from msd_core.files.jsonfile import decode_utf8_sig

        edited = rewrite(decode_utf8_sig(raw), before, data)
        if edited is not None:
            return (b"\xef\xbb\xbf" if bom else b"") + edited.encode("utf-8")
    indent, newline, bom = _detect_format(raw)
    if indent is None:
        text = json.dumps(data, ensure_ascii=False)
    else:
        text = json.dumps(data, ensure_ascii=False, indent=indent)
    if newline:
        text += "\n"
    if raw is not None and b"\r\n" in raw:
        text = text.replace("\n", "\r\n")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def _target_for_write(cwd, create: bool) -> tuple[Path, Path]:
    """(project root, config.json path) to write; UsageError with a hint when there is no project."""
    root = paths.find_project_root(cwd)
    if root is None:
        base = Path(cwd).absolute() if cwd else Path.cwd()
        if not create:
            raise UsageError(
                f"no project here: no .planning/ folder in {base} or above",
                hint="run inside a project, or make .planning/config.json here", remedy="create",
            )
        root = base
    return root, paths.planning_dir(root) / CONFIG_NAME


def _resolve_set_key(key: str, data: dict | None) -> str | None:
    """The schema key for `key`, None when the key is unknown but present in the file."""
    if key in schema.keys():
        return key
    if schema.is_prefix(key):
        sub = ", ".join(schema.children(key)[:6])
        raise UsageError(f"{key} is a group of keys; set one of them ({sub}, ...)")
    if data is not None and _walk(data, key.split("."), key) is not _MISSING:
        return None
    close = schema.suggest(key, [k for k, _ in _flatten(data)] if data else [])
    raise UsageError(f"unknown config key {key!r}", hint=f"did you mean {close}?" if close else "see `msd_run config list`")


def _apply_set(data: dict, key: str, value) -> None:
    parts = key.split(".")
    node = data
    for i, part in enumerate(parts[:-1]):
        here = ".".join(parts[: i + 1])
        nxt = node.get(part, _MISSING)
        if nxt is _MISSING:
            nxt = {}
            node[part] = nxt
        elif isinstance(nxt, bool) and schema.spec(here) and schema.spec(here)["type"] == "bool_or_object":
            if parts[i + 1:] == ["enabled"]:
                node[part] = value
                return
            nxt = {"enabled": nxt}
            node[part] = nxt
        elif not isinstance(nxt, dict):
            raise UsageError(f"cannot set {key}: {here} holds {json.dumps(nxt)}, not an object")
        node = nxt
    node[parts[-1]] = value


def _mutate(cwd, create: bool, change, personal: bool = False) -> dict:
    """Read-modify-write of the project config (or the person's own layer) under its lock;
    write only when it changed."""
    root, cfg = _target_for_write(cwd, create and not personal)
    if personal:
        from msd_core.files.private_dir import ensure_private_dir

        cfg = ensure_private_dir(root) / PERSONAL_NAME
    try:
        return _mutate_at(root, cfg, create, change)
    except OSError as exc:  # e.g. .planning is a file, a read-only disk, a symlinked lock: one line, exit 1
        from msd_core.errors import from_os_error

        raise from_os_error(exc, "write", exc.filename or cfg) from None


def _mutate_at(root: Path, cfg: Path, create: bool, change) -> dict:
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir

    lock = ensure_private_dir(root) / LOCK_NAME
    if not create or cfg.parent.is_dir():
        read_config_file(cfg, "project config")  # refuse a corrupt file before taking the lock
    with locked(lock, lock_timeout_from_env(), what=f"{cfg}", anchor=root):
        data, raw = read_config_file(cfg, "project config")
        before = json.loads(json.dumps(data)) if data is not None else None
        work = data if data is not None else {}
        result = change(work)
        changed = before != work or (data is None and result.get("create_file"))
        if changed:
            atomic_write_bytes(cfg, _dump(work, raw, before), anchor=root)
    result.pop("create_file", None)
    result.update({"path": str(cfg), "changed": bool(changed)})
    if data is None and changed:
        result["created"] = True  # this write made the file (the caller decides whether to say so)
    return result


def _personal_only(key: str) -> None:
    if not is_personal(key):
        raise UsageError(f"{key} is a setting the team shares: it stays in .planning/config.json",
                         hint=f"only {', '.join(personal_keys())} have a personal value", about="personal")


def set_value(key: str, text: str, cwd: str | os.PathLike | None = None, create: bool = False,
              personal: bool = False) -> dict:
    """Set `key` to the typed value of `text` in the project's config.json (or, `personal`, in
    the person's own layer)."""
    check_key_shape(key)
    if personal:
        _personal_only(key)

    def change(data: dict) -> dict:
        skey = _resolve_set_key(key, data)
        previous = _walk(data, key.split("."), key)
        if skey is None:
            value = coerce.coerce_unknown(text, previous)
        else:
            value = coerce.coerce(skey, text)
        _apply_set(data, key, value)
        out = {"key": key, "value": value, "previous": None if previous is _MISSING else previous, "create_file": True}
        if personal:
            out["layer"] = "personal"
        return out

    return _mutate(cwd, create, change, personal)


def record(name: str, value, cwd: str | os.PathLike | None = None, create: bool = False) -> dict:
    """Keep `value` under the top-level `name` of the project's config.json, unless the file holds one:
    a record msd writes (RECORDS: `evidence`, msd_core.progress.committed_evidence), not a setting."""

    def change(data: dict) -> dict:
        if name not in data:
            data[name] = value
        return {"key": name, "create_file": True}

    return _mutate(cwd, create, change)


def unset_value(key: str, cwd: str | os.PathLike | None = None, personal: bool = False) -> dict:
    """Remove `key` from the project's config.json, or (`personal`) from the person's own layer
    (a no-op, file untouched, when absent)."""
    check_key_shape(key)
    if personal:
        _personal_only(key)
    root, cfg = _target_for_write(cwd, False)
    if personal:
        cfg = personal_path(root)
    data, _ = read_config_file(cfg, "project config")
    if key not in schema.keys() and (data is None or _walk(data, key.split("."), key) is _MISSING):
        if schema.is_prefix(key):
            raise UsageError(f"{key} is a group of keys; unset one of them")
        raise _unknown_key(key, Layers(root, cfg, data, None, None))
    if data is None:
        return {"key": key, "removed": False, "previous": None, "path": str(cfg), "changed": False}

    def change(work: dict) -> dict:
        parts = key.split(".")
        node = work
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and parts[-1] in node:
            previous = node.pop(parts[-1])
            return {"key": key, "removed": True, "previous": previous}
        return {"key": key, "removed": False, "previous": None}

    return _mutate(cwd, False, change, personal)
