"""The size tiers: fixed limits here, membership in size_tiers.toml (the one tier file).

A name's tier decides its byte limit (LF-normalised). Unlisted names and every detail part
fall under the hard cap: strictly below HARD_CAP bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from msd_core.files import tomlread as tomllib
from msd_core.files.bounded import BoundedInputError, loads_toml

HARD_CAP = 32_768  # size < HARD_CAP
CAP_TIER = "CAP"  # the implicit tier of anything unlisted
WORKFLOW_LIMITS = {"XL": 98_304, "LARGE": 61_440, "DEFAULT": 40_960}  # size <= limit
AGENT_LIMITS = {"LARGE": 49_152, "DEFAULT": 40_960}  # size <= limit
RANK = {CAP_TIER: 0, "DEFAULT": 1, "LARGE": 2, "XL": 3}
KINDS = {"workflows": WORKFLOW_LIMITS, "agents": AGENT_LIMITS}


@dataclass
class Tiers:
    """Tier membership: kind ("workflows" | "agents") -> name -> tier, plus problems found reading it."""

    members: dict[str, dict[str, str]] = field(default_factory=lambda: {"workflows": {}, "agents": {}})
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)

    def tier(self, kind: str, name: str) -> str:
        return self.members.get(kind, {}).get(name, CAP_TIER)

    def limit(self, kind: str, name: str) -> int | None:
        """The inclusive limit of a listed name, or None when it falls under the hard cap."""
        t = self.tier(kind, name)
        return None if t == CAP_TIER else KINDS[kind][t]


def _line_of(text: str, needle: str, nth: int = 1) -> int:
    """Line of the nth occurrence of needle (1 when not found)."""
    seen = 0
    for i, line in enumerate(text.splitlines(), 1):
        seen += line.count(needle)
        if seen >= nth:
            return i
    return 1


def parse_tiers(text: str) -> Tiers:
    """Read a tier file's text; every problem is recorded (line, message), never raised."""
    tiers = Tiers()
    try:
        data = loads_toml(text, "the tier file")
    except BoundedInputError as exc:
        tiers.problems.append((1, exc.message))
        return tiers
    except tomllib.TOMLDecodeError as exc:
        tiers.problems.append((getattr(exc, "lineno", 1) or 1, f"tier file is not valid TOML: {exc}"))
        return tiers
    for key in data:
        if key not in KINDS:
            tiers.problems.append((_line_of(text, f"[{key}"), f"unknown section [{key}] (expected [workflows] and [agents])"))
    for kind, limits in KINDS.items():
        section = data.get(kind, {})
        if not isinstance(section, dict):
            tiers.problems.append((_line_of(text, kind), f"`{kind}` must be a table"))
            continue
        listed: list[list[str]] = []
        for tier, names in section.items():
            if tier not in limits:
                tiers.problems.append((_line_of(text, f"{tier} ="), f"unknown {kind} tier {tier!r} (known: {', '.join(limits)})"))
                continue
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                tiers.problems.append((_line_of(text, f"{tier} ="), f"[{kind}] {tier} must be a list of names"))
                continue
            listed.append([])
            for name in names:
                if name in tiers.members[kind]:
                    nth = sum(name in ns for ns in listed) + 1
                    tiers.problems.append((_line_of(text, f'"{name}"', nth), f"{name!r} is listed in two {kind} tiers"))
                    continue
                tiers.members[kind][name] = tier
                listed[-1].append(name)
    return tiers
