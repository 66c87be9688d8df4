#!/usr/bin/env python3
"""What each start-up trick of `msd_run` saves, measured side by side in one run.

msd_run starts a fresh interpreter for every call, so a few tricks keep its start-up small.
Each is kept only while it saves at least 1 ms of some hot command (issue 27; the gettext
stand-in, lazily compiled patterns and a raised GC threshold saved less and were removed). This script
copies this checkout's `msd_core` once per variant, takes one trick out of each copy (a
small source patch, listed in VARIANTS), and runs the hot commands of every variant
round-robin in one temporary project (a copy of a corpus tree, or a small made-up one,
with `msd install --local`), so machine load hits every variant alike.

It prints, per command and variant, the median CPU time (user + system) of the process and
the difference to the unchanged copy: a positive number is what the trick saves.

    python scripts/bench_startup.py [--runs 21] [--json] [--only VARIANT]...

Standard library only (plus the checkout's own `msd` to make the install).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "planning"

# variant -> [(file under msd_core/, old text, new text)] (old "": append): each takes exactly one trick out.
VARIANTS: dict[str, list[tuple[str, str, str]]] = {
    "argparse untranslated": [(
        "run/dispatch.py",
        '    from msd_core.lean.stand_in import import_with\n\n'
        '    module = import_with("argparse", {"gettext": {"gettext": _untranslated, "ngettext": _untranslated_n}})\n'
        "    module._ = _untranslated\n    module.ngettext = _untranslated_n\n",
        '    import argparse as module\n',
    )],
    "pathlib stand-in": [(
        "run/dispatch.py",
        '    from msd_core.lean.stand_in import import_pathlib\n\n    import_pathlib()\n',
        '    import pathlib  # noqa: F401\n',
    )],
    "fast exit": [(
        "run/entry.py", "    os._exit(code)\n", "    sys.exit(code)\n",
    )],
    "record classes": [(
        "lean/record.py", "", "\nfrom dataclasses import dataclass as record, field  # noqa: E402,F811\n",
    )],
}

COMMANDS = [
    ("config get", ["config", "get", "mode", "--raw"]),
    ("state get", ["state", "get"]),
    ("next", ["next", "--raw"]),
    ("resolve", ["resolve", "execute-phase", "--root", ".claude/msd-core", "--raw"]),
    ("history-digest", ["history-digest"]),
]


def make_variant(base: Path, name: str, patches) -> Path:
    out = base / name.replace(" ", "-")
    shutil.copytree(REPO / "msd_core", out / "msd_core", ignore=shutil.ignore_patterns("__pycache__", "content"))
    os.symlink(REPO / "msd_core" / "content", out / "msd_core" / "content")
    for rel, old, new in patches:
        path = out / "msd_core" / rel
        text = path.read_text(encoding="utf-8")
        if old and old not in text:
            raise SystemExit(f"bench: variant {name!r}: {rel} no longer holds the text it patches; update VARIANTS")
        path.write_text(text.replace(old, new, 1) if old else text + new, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(out / "msd_core")], check=True)
    return out


def project(base: Path) -> Path:
    proj = base / "project"
    tree = None
    if CORPUS.is_dir():
        for t in sorted(CORPUS.iterdir()):
            pl = t / ".planning"
            if (pl / "STATE.md").is_file() and any(pl.glob("phases/*/*-SUMMARY.md")):
                tree = t
                break
    if tree is not None:
        shutil.copytree(tree / ".planning", proj / ".planning", symlinks=True)
    else:
        (proj / ".planning" / "phases" / "01-start").mkdir(parents=True)
        (proj / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Start**\n")
        (proj / ".planning" / "STATE.md").write_text("# State\n\nStatus: Ready to plan\n")
        (proj / ".planning" / "PROJECT.md").write_text("# Project\n")
    msd = Path(sys.executable).with_name("msd")
    cmd = [str(msd)] if msd.exists() else [sys.executable, "-m", "msd_core"]
    subprocess.run([*cmd, "install", "--local"], cwd=proj, check=True, capture_output=True)
    return proj


def cpu_of(argv: list[str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def launcher(folder: Path, args: list[str]) -> list[str]:
    code = (f"import sys; sys.path.insert(0, {str(folder)!r}); sys.argv = ['msd_run', *{args!r}]; "
            "from msd_core.run.entry import main; main()")
    return [sys.executable, "-I", "-c", code]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21, help="rounds after one warm-up round (default 21)")
    ap.add_argument("--json", action="store_true", help="print the medians as JSON")
    ap.add_argument("--only", action="append", default=[], help="measure only variants whose name holds this text")
    args = ap.parse_args(argv)
    chosen = {k: v for k, v in VARIANTS.items() if not args.only or any(o in k for o in args.only)}
    with tempfile.TemporaryDirectory(prefix="msd-bench-startup-") as tmp:
        base = Path(tmp)
        folders = {"unchanged": make_variant(base, "unchanged", [])}
        for name, patches in chosen.items():
            folders[name] = make_variant(base, name, patches)
        proj = project(base)
        times: dict[tuple[str, str], list[float]] = {}
        for round_no in range(args.runs + 1):
            for label, cmd in COMMANDS:
                for name, folder in folders.items():
                    t = cpu_of(launcher(folder, cmd), proj)
                    if round_no:
                        times.setdefault((label, name), []).append(t)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    if args.json:
        print(json.dumps([{"command": c, "variant": v, "cpu_ms": round(ms, 3)} for (c, v), ms in med.items()], indent=2))
        return 0
    names = list(folders)
    print(f"median CPU ms per call over {args.runs} rounds; 'saves' = without the trick minus unchanged")
    print(f"{'command':16}" + "".join(f"{n:>20}" for n in names))
    for label, _ in COMMANDS:
        row = f"{label:16}{med[(label, 'unchanged')]:>20.2f}"
        for n in names[1:]:
            row += f"{med[(label, n)]:>11.2f} saves {med[(label, n)] - med[(label, 'unchanged')]:+5.2f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
