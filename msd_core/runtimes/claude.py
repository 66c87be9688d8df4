"""Claude Code: commands become skills (skills/msd-<name>/SKILL.md), agents stay agents/*.md,
the `Bash(msd_run *)` permission goes into settings.json (msd_core/runtimes/claude_settings.py).
The host renders `!` shell lines in a skill, so detail parts are inserted before the model reads it.
"""

from __future__ import annotations

from msd_core.paths import Target
from msd_core.runtimes import claude_settings as settings_mod
from msd_core.runtimes.base import Runtime
from msd_core.shipped.layout import installed_relpath
from msd_core.shipped.text import home_token, skill_from_command


class Claude(Runtime):
    name = "claude"
    label = "Claude Code"
    renders_shell = True
    shared = settings_mod

    def installed_relpath(self, source_rel: str) -> str | None:
        return installed_relpath(source_rel)

    def owned_areas(self) -> tuple[str, ...]:
        return ("skills/", "agents/")

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        return skill_from_command(name, data)

    def home_token(self, target: Target, dest: str) -> str:
        return home_token(target, dest)


RUNTIME = Claude()
