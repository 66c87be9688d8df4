"""Can the host run `msd_run`? The answer and the exact fix.

Claude Code runs a skill's shell lines (and the agent's Bash calls) with the PATH it was
started with: checked in Claude Code 2.1.332, where a folder added to PATH only in ~/.bashrc
was not seen by a skill's `!` line. So the PATH of the terminal running `msd install` is the
PATH a `claude` started from it will use; an app started another way (an IDE, a desktop
launcher) has its own. A plugin install (`msd plugin build`) does not depend on PATH: the
host puts the plugin's `bin/` on it. A plain install adds a SessionStart hook that puts this
msd_run's folder on the host's PATH (host_hooks.py); this check is about the terminal's PATH.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from msd_core.paths import RUNNER_EXE as EXE


def own_runner() -> Path:
    """The msd_run installed beside this msd (same environment)."""
    return Path(sys.executable).parent / EXE


def _profile() -> str:
    shell = os.path.basename(os.environ.get("SHELL", ""))
    return {"zsh": "~/.zshrc", "fish": "~/.config/fish/config.fish"}.get(shell, "~/.bashrc")


def check(path_env: str | None = None) -> dict:
    """{"on_path", "path", "fix"?, "note"?} for PATH `path_env` (default: this process's PATH)."""
    found = shutil.which("msd_run", path=path_env)
    ours = own_runner()
    if found:
        out = {"on_path": True, "path": found}
        if ours.exists() and os.path.realpath(found) != os.path.realpath(ours):
            out["note"] = (f"the msd_run found first on PATH ({found}) is not the one installed with this msd "
                           f"({ours}); the agent runs the first one")
        return out
    bindir = ours.parent
    if "pipx" in str(bindir).lower():
        fix = "run `pipx ensurepath`, open a new terminal, and start claude from it"
    elif ours.exists():
        profile = _profile()
        if profile.endswith("config.fish"):
            line = f"fish_add_path {bindir}"
        else:
            line = f'export PATH="{bindir}:$PATH"'
        fix = (f"run: echo '{line}' >> {profile}  then open a new terminal and start claude from it "
               f"(or, for this terminal only: {line})")
    else:
        fix = "install msd-core with pipx (see README) so `msd_run` lands in a folder on PATH"
    return {"on_path": False, "path": None, "fix": fix}
