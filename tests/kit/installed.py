"""Fake msd-core installs for tests: files under a config folder plus a manifest.

Written independently of the installer and of msd_core.shipped.registry (hashes with hashlib,
registry by hand), so resolver tests neither wait for nor trust the code under test.

    inst = make_install(tmp_path / "cfg")                # plan-phase with 3 parts, 2 agents
    inst.root            # <cfg>/msd-core  (what --root takes)
    inst.part_paths("plan-phase")                        # absolute paths in reading order
    inst.part_texts("plan-phase")
    inst, proj = make_world(tmp_path)                    # an install and a project with phase 01-core
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

CONTRACT_SHELL_LINE = "!`msd_run resolve {stem} --emit --root ~/.claude/msd-core || true`"


def part_text(stem: str, n: int, size: int = 0) -> str:
    """A recognisable part body; `size` pads it to about that many characters."""
    body = f"# {stem} detail {n:02d}\n\nUNIQUE-{stem.upper()}-PART-{n:02d} do the thing number {n}.\n"
    if size > len(body):
        filler = f"padding line for part {n:02d} of {stem}.\n"
        body += filler * ((size - len(body)) // len(filler) + 1)
    return body


def spine_text(stem: str) -> str:
    return f"# {stem} spine\n\nSPINE-{stem.upper()} run the workflow step by step.\n"


def command_text(stem: str) -> str:
    """A command (skill) whose workflow is split, carrying the contract's shell line."""
    return (
        "---\n"
        f"name: msd-{stem}\n"
        f"description: run the {stem} workflow\n"
        f"allowed-tools: Bash(msd_run resolve {stem} --emit *)\n"
        "---\n"
        f"@~/.claude/msd-core/workflows/{stem}.md\n"
        + CONTRACT_SHELL_LINE.format(stem=stem) + "\n"
        "\nFollow the workflow.\n"
    )


def default_workflows() -> dict:
    return {
        "plan-phase": {"spine": spine_text("plan-phase"),
                       "parts": {f"0{i}-step-{i}.md": part_text("plan-phase", i) for i in (1, 2, 3)}},
        "execute-phase": {"spine": spine_text("execute-phase"), "parts": {}},
    }


def default_agents() -> dict:
    return {
        "executor": {"core": "# executor agent\n", "canonical": "# executor skills\nCANONICAL-EXECUTOR full rules.\n",
                     "compact": "# executor skills (compact)\nCOMPACT-EXECUTOR short rules.\n"},
        "planner": {"core": "# planner agent\n", "canonical": "---\nname: planner-skills\n---\nCANONICAL-PLANNER rules.\n",
                    "compact": None},
    }


@dataclass
class FakeInstall:
    config: Path
    files: dict = field(default_factory=dict)  # relpath -> sha256
    registry: dict = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.config / "msd-core"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def part_relpaths(self, stem: str) -> list[str]:
        return list(self.registry["workflows"][stem]["parts"])

    def part_paths(self, stem: str) -> list[str]:
        return [str(self.config / rel) for rel in self.part_relpaths(stem)]

    def part_texts(self, stem: str) -> list[str]:
        return [(self.config / rel).read_text(encoding="utf-8") for rel in self.part_relpaths(stem)]

    def skill_path(self, stem: str) -> Path:
        return self.config / "skills" / f"msd-{stem}" / "SKILL.md"

    def spine_path(self, stem: str) -> Path:
        return self.config / "msd-core" / "workflows" / f"{stem}.md"

    def write_manifest(self) -> None:
        data = {"manifest_version": 1, "package": "msd-core", "version": "0.0.0-test", "scope": "global",
                "target": str(self.config), "runtime": "claude", "files": dict(sorted(self.files.items())),
                "created_dirs": [], "registry": self.registry, "settings_permission": None}
        self.root.mkdir(parents=True, exist_ok=True)
        self.manifest_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _put(inst: FakeInstall, rel: str, text: str) -> None:
    path = inst.config / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(data)
    inst.files[rel] = hashlib.sha256(data).hexdigest()


def make_install(config: Path, workflows: dict | None = None, agents: dict | None = None,
                 commands: bool = True) -> FakeInstall:
    """Write a fake install under `config` (the Claude config folder) and return it."""
    config = Path(config).absolute()
    inst = FakeInstall(config)
    workflows = default_workflows() if workflows is None else workflows
    agents = default_agents() if agents is None else agents
    reg_wf, reg_agents = {}, {}
    for stem, wf in workflows.items():
        spine_rel = f"msd-core/workflows/{stem}.md"
        _put(inst, spine_rel, wf["spine"])
        parts = []
        for name in sorted(wf["parts"]):
            rel = f"msd-core/workflows/{stem}/detail/{name}"
            _put(inst, rel, wf["parts"][name])
            parts.append(rel)
        reg_wf[stem] = {"spine": spine_rel, "parts": parts}
        if commands and wf["parts"]:
            skill_rel = f"skills/msd-{stem}/SKILL.md"
            _put(inst, skill_rel, command_text(stem).replace("~/.claude/", str(config) + "/"))
    for name, ag in agents.items():
        core = f"agents/msd-{name}.md"
        _put(inst, core, ag.get("core", f"# {name}\n"))
        skills = {"canonical": None, "compact": None}
        if ag.get("canonical") is not None:
            skills["canonical"] = f"msd-core/agent-skills/{name}.md"
            _put(inst, skills["canonical"], ag["canonical"])
        if ag.get("compact") is not None:
            skills["compact"] = f"msd-core/agent-skills/{name}.compact.md"
            _put(inst, skills["compact"], ag["compact"])
        reg_agents[name] = {"core": core, "extensions": {}, "skills": skills}
    inst.registry = {"registry_version": 1, "workflows": reg_wf, "agents": reg_agents}
    inst.write_manifest()
    return inst


def make_project(base: Path, config: dict | None = None, raw: str | None = None) -> Path:
    """A project folder with .planning/ and (optionally) a config.json; returns the project root."""
    base = Path(base)
    (base / ".planning").mkdir(parents=True, exist_ok=True)
    if raw is not None:
        (base / ".planning" / "config.json").write_text(raw, encoding="utf-8")
    elif config is not None:
        (base / ".planning" / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return base


PHASE_STATE = "# Project State\n\n## Current Position\nPhase: 1 of 2 (Core)\nStatus: In progress\n"
PHASE_SUMMARY = "---\nphase: 01-core\nplan: 01\nsubsystem: core\nprovides: [x]\n---\n# Summary\n"
PHASE_PLAN = "---\nphase: 01-core\nplan: 02\ntype: execute\n---\n<tasks><task type=\"auto\"><name>T</name></task></tasks>\n"


def make_world(base: Path) -> tuple[FakeInstall, Path]:
    """An install under <base>/cfg and a yolo project under <base>/proj whose .planning/ has a
    STATE.md (phase 1 of 2, in progress) and phase 01-core with a summary (01-01) and a plan (01-02)."""
    inst = make_install(Path(base) / "cfg")
    proj = make_project(Path(base) / "proj", {"mode": "yolo"})
    planning = proj / ".planning"
    (planning / "STATE.md").write_text(PHASE_STATE)
    phase = planning / "phases" / "01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-SUMMARY.md").write_text(PHASE_SUMMARY)
    (phase / "01-02-PLAN.md").write_text(PHASE_PLAN)
    return inst, proj


def run_inproc(argv: list[str]) -> tuple[int, str, str]:
    """Run msd_run's dispatcher in this process: (exit code, stdout, stderr). Fast path for tests."""
    import contextlib
    import io

    from msd_core.run.dispatch import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def compact_project(tmp_path: Path, compact: bool | None) -> Path:
    """A project in tmp_path/proj whose config sets workflow.compact_content (None: leaves it unset)."""
    cfg = {} if compact is None else {"workflow": {"compact_content": compact}}
    return make_project(tmp_path / "proj", cfg)
