"""`msd_run todo add|list|done|promote`: capture ideas in one line, list them, act on them.

add TEXT [--file F[:LINE]] [--phase N]   append to .planning/TODOS.md with time, phase
                                          (default: the current phase) and file -> {"id", ...}
list [--all] [--phase N]                 open todos (--all: done ones too) -> {"todos", "open"}
done ID                                  mark done
promote ID --after N [--name TEXT]       a decimal phase after N (msd_run phase insert) and the
                                          todo marked `→ phase <id>`, in one transaction
promote ID --quick                       the todo marked `→ quick`; prints its text for /msd-quick
Every change (not a --dry-run) also prints `commit_files`: the paths a commit of it names
(.planning/TODOS.md; a promote to a phase adds what the insert wrote, ROADMAP.md and STATE.md).
Rules in msd_core.planning.todos. Exit 0 ok, 1 failed, 2 bad usage / unknown id, 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="add|list|done|promote", parser_class=type(parser))
    sub.required = True
    a = sub.add_parser("add", help="append a todo with its context")
    a.add_argument("text", help="the idea, in one line")
    a.add_argument("--file", metavar="PATH[:LINE]", help="the file it is about")
    options.phase(a, default="the current phase")
    ls = sub.add_parser("list", help="list open todos")
    ls.add_argument("--all", action="store_true", help="include done and promoted todos")
    options.phase(ls)
    d = sub.add_parser("done", help="mark a todo done")
    d.add_argument("id", help="T3 or 3")
    p = sub.add_parser("promote", help="turn a todo into a phase or a quick task")
    p.add_argument("id", help="T3 or 3")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--after", metavar="N", help="insert a decimal phase after phase N")
    how.add_argument("--quick", action="store_true", help="hand it to /msd-quick")
    p.add_argument("--name", metavar="TEXT", help="the phase name (default: the todo's first words)")
    options.dry_run(p)
    for s in (a, ls, d, p):
        options.cwd(s)


def run(args: argparse.Namespace):
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked
    from msd_core.planning import project, todos
    from msd_core.progress.route import current_phase

    root = project.project_root(args.cwd)
    path = root / ".planning" / todos.FILE
    own = f".planning/{todos.FILE}"  # what a commit of an add, a done or a promote to quick names

    def read() -> str:
        if not (path.exists() or path.is_symlink()):
            return ""
        return project.read_text_file(path, todos.FILE)[1]

    if args.action == "list":
        items = todos.parse(read())
        phase = _phase_id(root, args.phase) if args.phase else None
        shown = [i for i in items if (args.all or not i["done"]) and (phase is None or i["phase"] == phase)]
        return {"file": f".planning/{todos.FILE}", "todos": shown, "open": sum(1 for i in items if not i["done"])}
    with locked(project.state_lock(root), lock_timeout_from_env(), what=f".planning/{todos.FILE}", anchor=root):
        text = read()
        if args.action == "add":
            phase = _phase_id(root, args.phase) if args.phase else current_phase(root)
            new_text, item = todos.add_line(text, args.text, phase, args.file)
            from msd_core.run.inputs import refuse_injected

            refuse_injected(root, path, new_text, text)
            atomic_write_bytes(path, new_text.encode("utf-8"), anchor=root)
            return {"file": f".planning/{todos.FILE}", **item, "commit_files": [own]}
        item = todos.find(todos.parse(text), args.id)
        if args.action == "done":
            atomic_write_bytes(path, todos.mark_done(text, item).encode("utf-8"), anchor=root)
            return {"id": item["id"], "done": True, "commit_files": [own]}
        if args.quick:
            if not args.dry_run:
                atomic_write_bytes(path, todos.mark_done(text, item, "quick").encode("utf-8"), anchor=root)
            return {"id": item["id"], "promoted": "quick", "text": item["text"], "dry_run": args.dry_run,
                    "next": "run /msd-quick with this text", **({} if args.dry_run else {"commit_files": [own]})}
        from msd_core.planning import phase_ops

        if not args.dry_run:
            phase_ops.recover(root)
        name = args.name or " ".join(item["text"].split()[:6])
        res = phase_ops.plan_insert(root, args.after, name)
        res.puts[todos.FILE] = todos.mark_done(text, item, f"phase {res.phase['id']}").encode("utf-8")
        report = phase_ops.apply(root, res, dry_run=args.dry_run)
    if not args.dry_run:
        from msd_core.errors import MsdError
        from msd_core.progress.state_sync import sync

        try:
            sync(root)
        except MsdError:
            pass
    out = {"id": item["id"], "promoted": f"phase {res.phase['id']}", **report}
    if not args.dry_run:
        from msd_core.run.cmd_phase import change_commit_files

        out["commit_files"] = change_commit_files(root, report)
    return out


def _phase_id(root, ref) -> str:
    from msd_core.planning.phase_ref import canonical_id, parse_ref

    return canonical_id(parse_ref(ref)[1])
