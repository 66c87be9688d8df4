"""The registry: which workflow spines have which detail parts, and which agent files exist.

Generated from the content tree (never hand-written): `build_registry()` reads a tree laid
out like msd_core/content and returns the registry the installer copies into the manifest
and the resolver trusts. Paths are relative to the installed <config> folder.

  {"workflows": {stem: {"spine": "msd-core/workflows/<stem>.md",
                        "parts": ["msd-core/workflows/<stem>/detail/NN-<slug>.md", ...]}},
   "agents":    {name: {"core": "agents/msd-<name>.md",
                        "extensions": {ext: "msd-core/agent-ext/<name>/<ext>.md"},
                        "skills": {"canonical": "msd-core/agent-skills/<name>.md" | null,
                                   "compact": "msd-core/agent-skills/<name>.compact.md" | null}}}}

Parts are in reading order: sorted by file name (the NN- prefix). Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.shipped.layout import is_static_name

REGISTRY_VERSION = 1


def _names(d: Path, suffix: str = ".md") -> list[str]:
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if p.is_file() and not p.is_symlink() and p.name.endswith(suffix))


def build_registry(content_root: Path) -> dict:
    """Build the registry from a source content tree (a folder laid out like msd_core/content)."""
    root = Path(content_root)
    workflows: dict[str, dict] = {}
    wf_dir = root / "msd-core" / "workflows"
    for fname in _names(wf_dir):
        stem = fname[:-3]
        if not is_static_name(stem):
            continue
        parts_dir = wf_dir / stem / "detail"
        parts = [f"msd-core/workflows/{stem}/detail/{p}" for p in _names(parts_dir)]
        workflows[stem] = {"spine": f"msd-core/workflows/{fname}", "parts": parts}

    agents: dict[str, dict] = {}
    for fname in _names(root / "agents"):
        if not fname.startswith("msd-"):
            continue
        name = fname[len("msd-"):-3]
        if not is_static_name(name):
            continue
        ext_dir = root / "msd-core" / "agent-ext" / name
        extensions = {p[:-3]: f"msd-core/agent-ext/{name}/{p}" for p in _names(ext_dir) if is_static_name(p[:-3])}
        skills_dir = root / "msd-core" / "agent-skills"
        canonical = f"msd-core/agent-skills/{name}.md" if (skills_dir / f"{name}.md").is_file() else None
        compact = f"msd-core/agent-skills/{name}.compact.md" if (skills_dir / f"{name}.compact.md").is_file() else None
        agents[name] = {
            "core": f"agents/{fname}",
            "extensions": extensions,
            "skills": {"canonical": canonical, "compact": compact},
        }
    return {"registry_version": REGISTRY_VERSION, "workflows": workflows, "agents": agents}


def dumps(registry: dict) -> str:
    """The committed form of registry.json: stable key order, 2-space indent, trailing newline."""
    return json.dumps(registry, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
