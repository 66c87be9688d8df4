"""The hot-path probe: run one msd_run command in a fresh interpreter and see every module it loaded.

`probe(argv, cwd, out)` runs msd_core.run.dispatch.main in a new interpreter and returns
{"code", "out", "err", "modules"}; `denied(modules, allowed)` names the loaded modules of
DENY a command's row does not allow. Shared by the run, chain, execution and git tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Modules no hot command may import unless its row allows it (top-level package names).
DENY = frozenset({
    "typer", "rich", "click", "pydantic",          # the people-facing CLI stack
    "yaml", "filelock", "tomli", "tomllib",        # parsers and locks with light replacements
    "dataclasses", "inspect", "ast", "dis", "tokenize", "typing",  # dataclasses' import chain
    "sqlite3", "datetime",                         # memory only
    "tempfile", "shutil", "random", "hashlib", "_hashlib", "subprocess", "difflib", "importlib_metadata",
    "urllib", "ipaddress",                         # pathlib's one-branch need (msd_core.lean.stand_in)
})

PROBE = r"""
import io, json, sys, contextlib
from msd_core.run.dispatch import main
buf, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
    code = main(json.loads(sys.argv[1]))
with open(sys.argv[2], "w") as fh:
    json.dump({"code": code, "out": buf.getvalue(), "err": err.getvalue(), "modules": sorted(sys.modules)}, fh)
"""

def probe(argv: list[str], cwd: Path, out: Path, env: dict | None = None) -> dict:
    r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), str(out)], cwd=str(cwd), env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def denied(modules: list[str], allowed: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in DENY - allowed)
