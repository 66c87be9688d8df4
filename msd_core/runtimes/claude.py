"""Claude Code: commands become skills (skills/msd-<name>/SKILL.md), agents stay agents/*.md,
the `Bash(msd_run *)` permission goes into settings.json (msd_core/runtimes/claude_settings.py).
The host renders `!` shell lines in a skill, so detail parts are inserted before the model reads it.
"""

from __future__ import annotations

from msd_core.paths import Target
from msd_core.runtimes import claude_settings as settings_mod
from msd_core.runtimes.base import Runtime
from msd_core.shipped.layout import UNLISTED_AGENTS_PREFIX, installed_relpath
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

    def unlisted_agent_relpath(self, dest: str) -> str | None:
        # Claude Code lists every agents/*.md to the model on every turn (`- name: description
        # (Tools: ...)`, 29-39 proxy tokens each); a file under msd-core/ is not listed. The
        # content then spawns the host's general-purpose agent, which fetches the role with
        # `msd_run agent-role` (its skill payload says so: msd_core/agents/skills.py).
        return UNLISTED_AGENTS_PREFIX + dest.rsplit("/", 1)[-1]

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        return skill_from_command(name, data)

    def home_token(self, target: Target, dest: str) -> str:
        return home_token(target, dest)


RUNTIME = Claude()
