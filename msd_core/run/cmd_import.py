"""`msd_run import scan|requirements`: a PRD, spec or docs folder brought into REQUIREMENTS.md.

    msd_run import scan <source>
    msd_run import requirements <source> --draft <path>|- [--replace]

Rules in msd_core.review.material. scan: JSON {source, documents: [{path, lines, bytes,
headings}], skipped?}; exit 1 when no document can be read. requirements: the draft checked
and written as .planning/REQUIREMENTS.md; JSON {file, backup?, v1, v2, out, documents_cited,
commit_files} (`backup`: where --replace kept the file it replaced). Exit 2: a source that
does not exist, a draft that does not check out (the line names the requirement); 1:
REQUIREMENTS.md exists (without --replace), the draft drops an id ROADMAP.md maps (named, with
the way forward), the injection screen refused the text; 4: lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options

MAX_DRAFT_BYTES = 2 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="scan|requirements")

    def common(p):
        p.add_argument("source", help="the material: a file or a folder")
        options.cwd(p)
        options.json_errors(p, hidden=True)
        return p

    common(subs.add_parser("scan", help="the documents of the material, with their headings"))
    p = common(subs.add_parser("requirements", help="check the drafted requirements and write REQUIREMENTS.md"))
    p.add_argument("--draft", required=True, metavar="PATH", help="the drafted requirements, JSON (`-`: stdin)")
    p.add_argument("--replace", action="store_true", help="replace an existing REQUIREMENTS.md")


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.planning.project import project_root
    from msd_core.review import material

    base = Path(args.cwd or ".").expanduser().absolute()
    source = Path(args.source).expanduser()
    source = source if source.is_absolute() else base / source
    if args.verb == "scan":
        return material.scan(source)
    from msd_core.run.inputs import read_input, screen

    root = project_root(args.cwd)
    from msd_core.run.inputs import drop_draft

    raw = read_input(args.draft, "--draft", MAX_DRAFT_BYTES, base)
    out = material.requirements(root, source, raw, replace=args.replace, screen=screen())
    drop_draft(args.draft, base, root)
    return out
