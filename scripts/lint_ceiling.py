#!/usr/bin/env python3
"""Hold ruff's and mypy's finding counts at or below a ceiling that only goes down.

    python scripts/lint_ceiling.py [--ceilings .ci/lint-ceilings.json] [--lower]

Runs `ruff check` (the rules selected in pyproject.toml, on msd_core, scripts and tests) and
`mypy msd_core` (the settings in pyproject.toml), counts their findings and compares each count
with its ceiling in the ceilings file:

- above its ceiling: exit 1, naming the tool and the count (fix what the change added);
- below its ceiling: exit 1 too, telling you to lower the ceiling (`--lower` writes the new
  counts): a ceiling that is not lowered when findings are fixed would let them come back;
- equal: exit 0.

Both tools are pinned exactly in the `lint` extra, so a count changes only with the code. A tool
that is missing fails the check (exit 2), never skips it. tests/scripts/test_lint_ceiling.py
checks the counting and the verdicts.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CEILINGS = REPO / ".ci" / "lint-ceilings.json"
RUFF_ARGS = ["check", "--output-format", "json", "--no-cache", "msd_core", "scripts", "tests"]
MYPY_ARGS = ["msd_core"]
MYPY_FOUND = re.compile(r"^Found (\d+) errors? in \d+ files?", re.M)
MYPY_CLEAN = re.compile(r"^Success: no issues found", re.M)


def count_ruff(stdout: str) -> int:
    """Findings in `ruff check --output-format json` output (a JSON list)."""
    data = json.loads(stdout or "[]")
    if not isinstance(data, list):
        raise ValueError("ruff printed JSON that is not a list of findings")
    return len(data)


def count_mypy(stdout: str) -> int:
    """Errors in mypy's closing line ("Found N errors in M files" or "Success: no issues found")."""
    found = MYPY_FOUND.search(stdout)
    if found:
        return int(found.group(1))
    if MYPY_CLEAN.search(stdout):
        return 0
    raise ValueError("mypy printed no closing line (did it crash?)")


def verdicts(counts: dict[str, int], ceilings: dict[str, int]) -> list[tuple[str, str]]:
    """(tool, 'ok' | 'above' | 'below' | 'no ceiling') for each counted tool."""
    out = []
    for tool, n in counts.items():
        ceiling = ceilings.get(tool)
        if not isinstance(ceiling, int):
            out.append((tool, "no ceiling"))
        elif n > ceiling:
            out.append((tool, "above"))
        elif n < ceiling:
            out.append((tool, "below"))
        else:
            out.append((tool, "ok"))
    return out


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if not found:
        raise SystemExit(f"lint_ceiling: {name} is not installed (pip install -e '.[lint]'); the check cannot run")
    return found


def measure() -> dict[str, int]:
    ruff = subprocess.run([tool("ruff"), *RUFF_ARGS], cwd=REPO, capture_output=True, text=True, check=False)
    mypy = subprocess.run([tool("mypy"), *MYPY_ARGS], cwd=REPO, capture_output=True, text=True, check=False)
    try:
        return {"ruff": count_ruff(ruff.stdout), "mypy": count_mypy(mypy.stdout)}
    except ValueError as exc:
        raise SystemExit(f"lint_ceiling: {exc}\n{ruff.stderr[-2000:]}{mypy.stderr[-2000:]}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ceilings", type=Path, default=DEFAULT_CEILINGS, help="the JSON file of ceilings")
    parser.add_argument("--lower", action="store_true", help="write counts that are at or below their ceilings")
    args = parser.parse_args(argv)
    try:
        ceilings = json.loads(args.ceilings.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"lint_ceiling: cannot read {args.ceilings}: {exc}", file=sys.stderr)
        return 2
    counts = measure()
    result = verdicts(counts, ceilings)
    status = 0
    for name, verdict in result:
        n, ceiling = counts[name], ceilings.get(name)
        if verdict == "ok":
            print(f"{name}: {n} findings (ceiling {ceiling})")
        elif verdict == "above":
            print(f"{name}: {n} findings, above its ceiling {ceiling}: fix the ones this change added "
                  f"(`{name} {' '.join(RUFF_ARGS if name == 'ruff' else MYPY_ARGS)}`)", file=sys.stderr)
            status = 1
        else:
            if args.lower:
                ceilings[name] = n
                print(f"{name}: ceiling lowered to {n}")
                continue
            why = "has no ceiling" if verdict == "no ceiling" else f"is below its ceiling {ceiling}"
            print(f"{name}: {n} findings {why}: run `python scripts/lint_ceiling.py --lower` and commit "
                  f"{args.ceilings.name} (ceilings only go down)", file=sys.stderr)
            status = 1
    if args.lower and status == 0:
        args.ceilings.write_text(json.dumps(ceilings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
