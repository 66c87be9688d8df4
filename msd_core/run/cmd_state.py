"""`msd_run state get [<section>]` and `msd_run state patch [...]` (rules in msd_core.planning.state).

get            {"file", "frontmatter", "sections", "position"}
get SECTION    {"file", "section", "level", "fields", "content"}; a name that is no section
               is looked up as a field (`Status`) or frontmatter key; unknown → exit 1
patch          {"file", "written", "changed": [...], "not_found": [...][, "notes"]}; exit 0 when every
               requested change was made, 1 when something was not found (the rest is
               still written; the JSON is printed either way), 2 bad value, 4 lock timeout
sync           recompute the derived lines (msd_core.progress.state_sync) and write the ones
               that changed: {"file", "in_sync", "written", "changed": [{field, line, old, new}],
               "missing": [...]}; exit 0 (4 lock timeout). `--check` writes nothing and exits 1
               when a line would change. `--raw` prints the changes as `-old` / `+new` lines.
get --raw      the bare text: the whole file, a section's content, or a field's value
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


class _OrderedOp(argparse.Action):
    """Keeps patch operations in command-line order."""

    def __call__(self, parser, namespace, values, option_string=None):
        ops = getattr(namespace, "ops", None) or []
        name = self.dest.replace("_", "-")
        ops.append((name, *values) if isinstance(values, list) else (name, values))
        namespace.ops = ops


def configure(parser: argparse.ArgumentParser) -> None:
    options.cwd(parser)
    sub = parser.add_subparsers(dest="action", metavar="get|patch|sync", parser_class=type(parser))
    sub.required = True
    g = sub.add_parser("get", help="print STATE.md's outline, one section, or one field", description="print STATE.md's outline, one section, or one field")
    g.add_argument("section", nargs="?", help="section title (or a prefix of it), or a field name")
    options.cwd(g, sub=True)
    options.raw(g, what="the bare text (file, section content or field value)")
    s = sub.add_parser("sync", help="recompute STATE.md's derived lines from ROADMAP.md and the phase folders", description="recompute STATE.md's derived lines from ROADMAP.md and the phase folders")
    options.cwd(s, sub=True)
    s.add_argument("--check", action="store_true", help="report what would change; write nothing (exit 1 if out of sync)")
    options.json(s, default=True)
    options.raw(s, what="the changes as -old/+new lines")
    p = sub.add_parser("patch", help="change only the targeted lines of STATE.md", description="change only the targeted lines of STATE.md")
    options.cwd(p, sub=True)
    p.add_argument("--position", action=_OrderedOp, metavar="TEXT", help="the Phase: line of Position")
    p.add_argument("--status", action=_OrderedOp, metavar="TEXT", help="the Status: line (and frontmatter status)")
    p.add_argument("--add-decision", action=_OrderedOp, metavar="TEXT", help="append to Decisions")
    p.add_argument("--add-blocker", action=_OrderedOp, metavar="TEXT", help="append to Blockers/Concerns")
    p.add_argument("--resolve-blocker", action=_OrderedOp, metavar="TEXT", help="remove the blocker line containing TEXT")
    p.add_argument("--set-session", action=_OrderedOp, metavar="TEXT", help="Left off: TEXT, Last worked: now (older: Stopped at, Last session)")
    p.add_argument("--resume-file", action=_OrderedOp, metavar="PATH",
                   help="Handoff: under Session (older: Resume file); None clears it")
    p.add_argument("--field", action=_OrderedOp, nargs=2, metavar=("NAME", "VALUE"), help="an existing frontmatter key")


def _rel(path, root) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def run(args: argparse.Namespace):
    from msd_core.errors import OperationFailed, UsageError
    from msd_core.planning import project
    from msd_core.planning import state as st

    root = project.project_root(getattr(args, "cwd", None))
    path = project.state_file(root)
    if args.action == "sync":
        from msd_core.progress.state_sync import sync

        report = sync(root, check=args.check)
        if args.raw:
            for c in report["changed"]:
                sys.stdout.write(f"{c['field']} (line {c['line']})\n-{c['old']}\n+{c['new']}\n")
        else:
            sys.stdout.write(json.dumps(report, ensure_ascii=False, separators=(",", ":")) + "\n")
        return 1 if args.check and report["changed"] else 0
    if args.action == "get":
        _raw, text = project.read_text_file(path, "STATE.md")
        if args.section is None:
            return text if args.raw else {"file": _rel(path, root), **st.state_summary(text)}
        got = st.state_get(text, args.section)
        if got is None:
            titles = ", ".join(s.title for s in st.StateDoc(text).sections) or "none"
            raise OperationFailed(f"no section or field {args.section!r} in {_rel(path, root)} (sections: {titles})")
        if args.raw:
            value = got.get("content", got.get("value"))
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return {"file": _rel(path, root), **got}

    ops = getattr(args, "ops", None) or []
    if not ops:
        raise UsageError("state patch: nothing to change", hint="give --position, --status, --add-decision, ... ")
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked

    with locked(project.state_lock(root), lock_timeout_from_env(), what="STATE.md", anchor=root):
        raw, text = project.read_text_file(path, "STATE.md")
        new_text, changed, not_found = st.apply_patch(text, ops)
        new_raw = new_text.encode("utf-8")
        written = new_raw != raw
        if written:
            from msd_core.run.inputs import refuse_injected

            refuse_injected(root, path, new_text, text)  # a decision or blocker is screened as a Write of it would be
            atomic_write_bytes(path, new_raw, anchor=root)
    result = {"file": _rel(path, root), "written": written, "changed": changed, "not_found": not_found}
    set_status = [op[1] for op in ops if op[0] == "status"]
    if set_status:
        from msd_core.progress.lifecycle import KEPT_STATUSES

        replaced = [s for s in set_status if s not in KEPT_STATUSES]
        if replaced:  # `state sync` (every step-done, every commit naming STATE.md) derives Status
            result["notes"] = [f"status {s!r} is not one the runtime keeps: the next `msd_run state sync` replaces it "
                               "with the one the files give" for s in replaced]
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    if not_found:
        missing = "; ".join(
            f"{n['op']}: " + ", ".join(f"{k} {v!r}" for k, v in n.items() if k != "op") for n in not_found
        )
        sys.stderr.write(f"msd_run state patch: not found (nothing invented): {missing}\n")
        return 1
    return 0
