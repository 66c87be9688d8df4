#!/usr/bin/env python3
"""Regenerate tests/golden/installed-paths.txt: the sorted paths `msd install --local` writes.

Run after changing the shipped content (msd_core/content), then review the diff:

    .venv/bin/python scripts/update_golden.py          # rewrite the golden file
    .venv/bin/python scripts/update_golden.py --check  # exit 1 if it is out of date

Bookkeeping under msd-core/.msd/ (pristine copies) mirrors the list and is left out.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "installed-paths.txt"
sys.path.insert(0, str(REPO))


def installed_paths(content_dir: Path | None = None) -> list[str]:
    """Install into a throw-away project and list every file under its .claude/ (bookkeeping excluded)."""
    import os

    from msd_core.install.installer import install
    from msd_core.install.source import resolve_source
    from msd_core.paths import resolve_target

    with tempfile.TemporaryDirectory(prefix="msd-golden-") as tmp:
        target = resolve_target("local", project_dir=tmp)
        install(target, source=resolve_source(content_dir))
        out = []
        for dirpath, _dirs, names in os.walk(target.config):
            for n in names:
                rel = Path(dirpath, n).relative_to(target.config).as_posix()
                if not rel.startswith("msd-core/.msd/"):
                    out.append(rel)
        return sorted(out)


def render(paths: list[str]) -> str:
    return "".join(p + "\n" for p in paths)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the golden file is out of date")
    args = ap.parse_args(argv)
    text = render(installed_paths())
    if args.check:
        current = GOLDEN.read_text() if GOLDEN.exists() else ""
        if current != text:
            print(f"{GOLDEN.relative_to(REPO)} is out of date: run scripts/update_golden.py", file=sys.stderr)
            return 1
        return 0
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN.relative_to(REPO)} ({len(text.splitlines())} paths)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
