"""The Agent Skills format's rules (agentskills.io/specification), checked on a skill folder without
npm: the reference validator (npm skills-ref, tests/runtimes/test_runtime_agents.py) checks the
frontmatter; this also checks the body's size and its references.

  - SKILL.md starts with YAML frontmatter, a mapping whose keys are among ALLOWED_KEYS;
  - `name`: 1-64 characters, lower-case letters, digits and single hyphens, not at either end,
    equal to the folder's name;
  - `description`: a non-empty string of at most 1,024 characters; `compatibility` at most 500;
    `metadata` a mapping of strings to strings;
  - the body: under 500 lines and 5,000 tokens (the spec's advice; counted with `msd bench`'s
    proxy tokenizer, msd_core/bench/tokenizer.py);
  - `references/`: files directly in it (one level deep), each named in the body by its relative
    path `references/<file>`.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ALLOWED_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000


def body_tokens(text: str) -> int:
    from msd_core.bench.tokenizer import load

    return load()[1](text)


def violations(skill_dir: Path) -> list[str]:
    """What in `skill_dir` breaks the format's rules; [] when it keeps them."""
    skill_md = skill_dir / "SKILL.md"
    if not skill_md.is_file():
        return ["no SKILL.md"]
    text = skill_md.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?)\n---\n(.*)\Z", text, re.S)
    if not m:
        return ["SKILL.md does not start with a frontmatter block"]
    try:
        front = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        return [f"frontmatter is not YAML: {exc}"]
    if not isinstance(front, dict):
        return ["frontmatter is not a mapping"]
    body = m.group(2)
    out = [f"key {k!r} is not allowed" for k in sorted(set(front) - ALLOWED_KEYS)]
    name = front.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > 64:
        out.append(f"name {name!r}: 1-64 lower-case letters, digits and single hyphens")
    elif name != skill_dir.name:
        out.append(f"name {name!r} differs from its folder {skill_dir.name!r}")
    desc = front.get("description")
    if not isinstance(desc, str) or not desc.strip() or len(desc) > 1024:
        out.append("description: a non-empty string of at most 1,024 characters")
    if "compatibility" in front and (not isinstance(front["compatibility"], str) or len(front["compatibility"]) > 500):
        out.append("compatibility: a string of at most 500 characters")
    meta = front.get("metadata", {})
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        out.append("metadata: a mapping of strings to strings")
    tokens = body_tokens(body)
    if len(body.splitlines()) >= MAX_BODY_LINES or tokens > MAX_BODY_TOKENS:
        out.append(f"body too large ({len(body.splitlines())} lines, {tokens} tokens)")
    refs = skill_dir / "references"
    if refs.exists():
        for p in sorted(refs.rglob("*")):
            rel = p.relative_to(skill_dir).as_posix()
            if p.is_dir() or p.parent != refs:
                out.append(f"{rel}: references go one level deep")
            elif rel not in body:
                out.append(f"{rel} is not named in the body")
    return out
