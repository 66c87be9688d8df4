#!/usr/bin/env python3
"""Regenerate tests/golden/runtimes/<runtime>-<scope>.txt: what `msd install --runtime R --global|--local`
writes, one line per file: `<path> <sha256 of the normalised bytes>` (the manifest and msd-core/.msd/
bookkeeping left out).

Normalised: the throw-away HOME and project folders are replaced by `<HOME>` and `<PROJECT>`, so the
listing is the same on every machine.

    .venv/bin/python scripts/update_runtime_golden.py          # rewrite the golden files
    .venv/bin/python scripts/update_runtime_golden.py --check  # exit 1 if one is out of date
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN_DIR = REPO / "tests" / "golden" / "runtimes"
sys.path.insert(0, str(REPO))

ENV_KEYS = ("HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR", "XDG_CONFIG_HOME", "CODEX_HOME")


def installed_tree(runtime: str, scope: str) -> dict[str, bytes]:
    """Install into a throw-away HOME and project; {relpath under the runtime's folder: normalised bytes}."""
    import msd_core
    from msd_core.install.installer import install
    from msd_core.install.runner_path import own_runner
    from msd_core.paths import resolve_target

    msd_home = os.path.dirname(os.path.dirname(os.path.abspath(msd_core.__file__)))  # after <RUNNER_DIR>: a venv may lie inside it
    saved = {k: os.environ.get(k) for k in ENV_KEYS}
    with tempfile.TemporaryDirectory(prefix="msd-rt-golden-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        home.mkdir()
        project.mkdir()
        try:
            for k in ENV_KEYS:
                os.environ.pop(k, None)
            os.environ["HOME"] = str(home)
            target = resolve_target(scope, project_dir=project, runtime=runtime)
            install(target)
            out = {}
            for dirpath, _dirs, names in os.walk(target.config):
                for n in names:
                    rel = Path(dirpath, n).relative_to(target.config).as_posix()
                    if rel.startswith("msd-core/.msd/") or rel == "msd-core/manifest.json":  # bookkeeping
                        continue
                    data = Path(dirpath, n).read_bytes()
                    data = data.replace(str(own_runner().parent).encode(), b"<RUNNER_DIR>")  # the PATH hook (runner_hook.py)
                    data = data.replace(msd_home.encode(), b"<MSD_HOME>")  # the lean guard hook's start (host_hooks.lean_start)
                    data = data.replace(str(project).encode(), b"<PROJECT>").replace(str(home).encode(), b"<HOME>")
                    out[rel] = data
            return out
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def render(tree: dict[str, bytes]) -> str:
    return "".join(f"{rel} {hashlib.sha256(tree[rel]).hexdigest()}\n" for rel in sorted(tree))


def golden_path(runtime: str, scope: str) -> Path:
    return GOLDEN_DIR / f"{runtime}-{scope}.txt"


def main(argv: list[str] | None = None) -> int:
    from msd_core.runtimes import RUNTIMES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a golden file is out of date")
    args = ap.parse_args(argv)
    stale = []
    for runtime in RUNTIMES:
        for scope in ("global", "local"):
            text = render(installed_tree(runtime, scope))
            path = golden_path(runtime, scope)
            if args.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(str(path.relative_to(REPO)))
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print(f"out of date: {', '.join(stale)}: run scripts/update_runtime_golden.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
