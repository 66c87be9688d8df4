"""Install a pinned agent CLI from npm into a cache folder outside the repo, once per machine.

The folder is $MSD_RUNTIME_CLI_CACHE (default /tmp/msd-runtime-clis) / <name>-<version>;
a finished install leaves a `.ok` marker, so a later run reuses it offline. Skips (pytest.skip,
with the reason) when node/npm are missing or the registry cannot be reached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PINNED = {
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
}


def cache_root() -> Path:
    return Path(os.environ.get("MSD_RUNTIME_CLI_CACHE") or "/tmp/msd-runtime-clis")


def cli_binary(runtime: str) -> Path:
    package, version, binary = PINNED[runtime]
    folder = cache_root() / f"{runtime}-{version}"
    exe = folder / "node_modules" / ".bin" / binary
    if (folder / ".ok").is_file() and exe.exists():
        return exe
    if not shutil.which("npm") or not shutil.which("node"):
        pytest.skip("node/npm not installed: cannot install the real CLI")
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "npm_config_cache": str(cache_root() / ".npm")}
    try:
        proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"{package}@{version}"],
                              capture_output=True, text=True, timeout=600, env=env)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {package}@{version} timed out (registry unreachable?)")
    if proc.returncode != 0 or not exe.exists():
        pytest.skip(f"npm install {package}@{version} failed (registry unreachable?): {proc.stderr.strip()[-300:]}")
    (folder / ".ok").write_text(f"{package}@{version}\n")
    return exe
