#!/usr/bin/env python3
"""What each start-up stand-in of `msd_run` saves: importing the real library vs the stand-in.

msd_run starts a fresh interpreter per call, so a few modules stand in for a library on the
common path and hand over to the library on the rest (docs/PERFORMANCE.md, "Start-up
stand-ins"). This script times, round-robin so machine load hits each alike, a fresh
`python -c` that imports msd_core and then either the real library or its stand-in, and prints
per stand-in the minimum over --runs of the CPU time (user + system) each adds over
`import msd_core` alone, and the difference: what the stand-in saves on a call that needs it.

    .venv/bin/python scripts/bench_stand_ins.py [--runs 21] [--json]

Standard library only.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASE = "import msd_core"

# stand-in -> (what it stands in for, the real import, the stand-in's import)
ROWS = {
    "lean/simple_yaml.py": ("PyYAML (frontmatter)", "import yaml", "import msd_core.lean.simple_yaml"),
    "lean/simple_toml.py": ("tomllib (flow files)", "import tomllib", "import msd_core.lean.simple_toml"),
    "lean/spawn.py": ("subprocess (running git)", "import subprocess", "import msd_core.lean.spawn"),
    "lean/record.py": ("dataclasses (record classes)", "import dataclasses", "import msd_core.lean.record"),
    "lean/stand_in.py": ("pathlib's urllib.parse import", "import pathlib",
                        "from msd_core.lean.stand_in import import_pathlib; import_pathlib()"),
}


def cpu(code: str, env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"{code!r} failed: {res.stderr.decode(errors='replace')[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    codes = {"base": BASE}
    for name, (_what, real, stand_in) in ROWS.items():
        codes[f"{name}|real"] = f"{BASE}; {real}"
        codes[f"{name}|stand-in"] = f"{BASE}; {stand_in}"
    best: dict[str, float] = {}
    for _ in range(runs):
        for key, code in codes.items():
            t = cpu(code, env)
            best[key] = min(best.get(key, t), t)
    base = best["base"]
    rows = []
    for name, (what, _real, _stand_in) in ROWS.items():
        real, stand = best[f"{name}|real"] - base, best[f"{name}|stand-in"] - base
        rows.append({"stand_in": name, "for": what, "real_ms": round(real * 1000, 1),
                     "stand_in_ms": round(stand * 1000, 1), "saved_ms": round((real - stand) * 1000, 1)})
    return {"runs": runs, "base_cpu_ms": round(base * 1000, 1), "rows": rows}


def show(out: dict) -> None:
    print(f"`python -c 'import msd_core'`: {out['base_cpu_ms']} ms CPU; min of {out['runs']} runs; ms CPU added:")
    print(f"{'stand-in':<26}{'for':<32}{'real':>7}{'stand-in':>10}{'saved':>8}")
    for r in out["rows"]:
        print(f"{r['stand_in']:<26}{r['for']:<32}{r['real_ms']:>7}{r['stand_in_ms']:>10}{r['saved_ms']:>8}")


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_cli import run  # the same --runs/--json command line

    return run(__doc__, 21, measure, show, argv)


if __name__ == "__main__":
    sys.exit(main())
