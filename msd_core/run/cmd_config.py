"""`msd_run config get|set|unset|list`: the project's config for agents.

  config get KEY [--default V] [--raw]   JSON value (bare text with --raw)
  config set KEY VALUE [--create] [--personal]  {"key","value","previous","path","changed"}; a guard
                                          setting (`guards.*`) is refused (exit 2): `msd config set`
  config unset KEY [--personal]           {"key","removed","previous","path","changed"}
  config list [--json]                    one `key = value  (source)` line each (source: personal,
                                          project, user, default); --json: list of entries
  config migrate [--check]                move `depth` to `granularity`; list keys the schema dropped
                                          (msd_core.config.migrate); --check writes nothing

`--default V` answers for a key no file sets (instead of the schema default), and for a
key the schema does not know. `--create` lets `set` make .planning/config.json in the
current folder when no project is found above it. `--personal` sets or unsets a personal key
(mode, model_profile, ...) in this person's own layer, `.planning/.msd/personal.json`, which is
never committed; a key the team shares is refused there (exit 2). Standard library only.
"""

from __future__ import annotations

import json

from msd_core.run import options


def configure(parser) -> None:

    parser.add_argument("verb", choices=["get", "set", "unset", "list", "migrate"], metavar="get|set|unset|list|migrate",
                        help="get KEY, set KEY VALUE, unset KEY, list, or migrate")
    parser.add_argument("--check", action="store_true", help="migrate: report only")
    parser.add_argument("key", nargs="?", help="dotted key, e.g. workflow.research")
    parser.add_argument("value", nargs="?", help="value for set (coerced by the key's type)")
    parser.add_argument("--default", dest="default", default=None, metavar="VALUE",
                        help="get: value when no file sets the key (default: the schema default)")
    options.raw(parser, what="the bare value (get)")
    options.json(parser, default=False, dest="as_json")
    parser.add_argument("--create", action="store_true", help="set: create .planning/config.json here if no project is found")
    parser.add_argument("--personal", action="store_true",
                        help="set/unset: your own value of a personal key (.planning/.msd/personal.json, not committed)")
    options.cwd(parser)


def _parse_default(text: str):
    from msd_core.files.bounded import loads_json

    try:
        return loads_json(text, "--default")
    except ValueError:  # not JSON, too deep, or a number too long to read: keep the text
        return text


def raw_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def _need(args, n: int) -> None:
    from msd_core.errors import UsageError

    given = [a for a in (args.key, args.value) if a is not None]
    if len(given) != n:
        want = {0: "no key", 1: "a KEY", 2: "a KEY and a VALUE"}[n]
        raise UsageError(f"config {args.verb} takes {want}", hint="see `msd_run config --help`")


GUARD_PREFIX = "guards."


def _not_a_guard(key) -> None:
    """msd_run is the agent's runtime: the guard settings (`guards.*`) are changed by a person,
    with `msd config set` (which asks them, through the host's permission prompt, when an agent
    tries it); msd's records in config.json (store.RECORDS: `evidence`) are written by msd alone. Exit 2."""
    from msd_core.errors import UsageError

    if isinstance(key, str) and (key == "guards" or key.startswith(GUARD_PREFIX)):
        raise UsageError(f"{key} is a guard setting, which msd_run does not change",
                         hint=f"the user changes it in their terminal: `msd config set {key} ...`")
    from msd_core.config.store import RECORDS

    if isinstance(key, str) and key.split(".", 1)[0] in RECORDS:
        raise UsageError(f"{key} is msd's record of this project, not a setting",
                         hint="a person records it with `msd_run evidence adopt`")


def _begin_evidence(config_path: str) -> None:
    """msd made this project's config.json (the new-project flow's first setting): from now on its
    SUMMARYs need their recorded commits (msd_core.progress.evidence)."""
    from pathlib import Path

    from msd_core.progress import evidence

    evidence.mark_since(evidence.main_root(Path(config_path).parent.parent), publish=True)


def run(args):
    from msd_core.config import store

    if args.verb == "get":
        _need(args, 1)
        value, source = store.get_with_source(args.key, args.cwd)
        if args.default is not None and source in ("default", None):
            value = _parse_default(args.default)
        elif source is None:
            raise store._unknown_key(args.key, store.load_layers(args.cwd))
        if args.raw:
            return raw_text(value)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if args.verb == "set":
        _need(args, 2)
        _not_a_guard(args.key)
        out = store.set_value(args.key, args.value, args.cwd, create=args.create, personal=args.personal)
        if out.pop("created", False) and not args.personal:
            _begin_evidence(out["path"])
        return out
    if args.verb == "migrate":
        _need(args, 0)
        from msd_core.config.migrate import migrate

        return migrate(args.cwd, check=args.check)
    if args.verb == "unset":
        _need(args, 1)
        _not_a_guard(args.key)
        return store.unset_value(args.key, args.cwd, personal=args.personal)
    _need(args, 0)
    entries = store.list_entries(args.cwd)
    if args.as_json:
        return entries
    lines = []
    for e in entries:
        mark = "" if e["known"] else "  [not in schema, kept]"
        if e.get("problem"):
            mark += f"  [invalid: {e['problem']}]"
        lines.append(f"{e['key']} = {raw_text(e['value'])}  ({e['source']}){mark}")
    return "\n".join(lines)
