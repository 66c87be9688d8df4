"""What Claude Code lists to the model on every turn for an installed config folder, item by item.

The host (2.1.332, /work/notes/host-facts.md section 6, measured) lists, in a system message every
request of a conversation carries:
  skill    `- <name>: <description>` (+ ` - <when_to_use>` when given), one line each, for every
           skills/*/SKILL.md without `disable-model-invocation: true`;
  agent    `- <name>: <description> (Tools: <tools, or All tools>)` for every agents/*.md.
`listing(config)` rebuilds those lines from the installed files and counts each one's proxy
tokens (newline included): the fixed per-turn overhead an install adds, which
scripts/bench_host_tokens.py measures in the real host (the two agreed: 658 listed, 659 measured,
when the full listing was last measured both ways).
"""

from __future__ import annotations

from pathlib import Path


def _frontmatter(path: Path) -> dict:
    import yaml

    from msd_core.files.bounded import parse
    from msd_core.shipped.text import split_frontmatter

    front, _body, _nl = split_frontmatter(path.read_text(encoding="utf-8"))
    if not front:
        return {}
    meta = parse(yaml.safe_load, "\n".join(front), "yaml", f"{path.name}'s frontmatter") or {}
    return meta if isinstance(meta, dict) else {}


def _one_line(value) -> str:
    return " ".join(str(value).split())


def lines(config: Path, prefix: str = "msd-") -> dict[str, str]:
    """{"skill <name>" | "agent <name>": the listed line} for the installed items named `prefix`*."""
    config = Path(config)
    out: dict[str, str] = {}
    for skill in sorted((config / "skills").glob(f"{prefix}*/SKILL.md")):
        meta = _frontmatter(skill)
        if meta.get("disable-model-invocation") is True:
            continue
        name = meta.get("name") or skill.parent.name
        line = f"- {name}: {_one_line(meta.get('description', ''))}"
        if meta.get("when_to_use"):
            line += f" - {_one_line(meta['when_to_use'])}"
        out[f"skill {name}"] = line
    for agent in sorted((config / "agents").glob(f"{prefix}*.md")):
        meta = _frontmatter(agent)
        name = meta.get("name") or agent.stem
        tools = meta.get("tools")
        if isinstance(tools, list):
            tools = ", ".join(str(t) for t in tools)
        out[f"agent {name}"] = f"- {name}: {_one_line(meta.get('description', ''))} (Tools: {_one_line(tools) if tools else 'All tools'})"
    return out


def listing(config: Path, count, prefix: str = "msd-") -> dict[str, int]:
    """{item: proxy tokens of its listed line, newline included} (see `lines`)."""
    return {item: count(line + "\n") for item, line in lines(config, prefix).items()}


# Per-turn listing budgets, proxy tokens (tests/bench/test_listing.py holds the shipped content to
# them; the real host's figure is scripts/bench_host_tokens.py's). core: a goal
# of its own (at most 130: the daily loop's listing small beside the full one). full: the goal is at most 0.17x the leading peer's full install (3,976 measured,
# so 676); the budget is held at what the listing costs now plus a few tokens, so that it cannot
# grow as commands are added: a new command is person-only (`disable-model-invocation: true`,
# not listed) or pays for its line by shortening another.
BUDGETS = {"core": 130, "full": 560}
