"""Helpers (no tests) shared by the flow, chain and next tests: fake installs and in-process flow walks."""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.ownership.manifest import Manifest
from msd_core.run.argtypes import name_values  # the command line splits NAME=VALUE; the walker does as it does

REPO = Path(__file__).resolve().parents[2]
SHIPPED_FLOWS = REPO / "msd_core" / "content" / "msd-core" / "flows"
FIXTURE_FLOWS = Path(__file__).resolve().parents[1] / "fixtures" / "flows"


def fake_install(config: Path, flows: dict[str, str] | None = None, extra: dict[str, str] | None = None) -> Path:
    """Write a minimal install (flows + a few templates) with a manifest; return <config>/msd-core."""
    if flows is None:
        flows = {p.stem: p.read_text() for p in SHIPPED_FLOWS.glob("*.toml")}
    files: dict[str, str] = {f"msd-core/flows/{name}.toml": text for name, text in flows.items()}
    for t in ("project.md", "requirements.md", "roadmap.md", "state.md", "plan.md", "config.json"):
        files.setdefault(f"msd-core/templates/{t}", f"template {t}\n")
    files.update(extra or {})
    hashes = {}
    for rel, text in files.items():
        path = config / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        hashes[rel] = sha256_bytes(text.encode())
    Manifest(version="0.0.test", scope="global", target=str(config), files=hashes).save(config)
    return config / "msd-core"


def write_config(project: Path, data: dict) -> None:
    (project / ".planning").mkdir(parents=True, exist_ok=True)
    (project / ".planning" / "config.json").write_text(json.dumps(data))


class Walker:
    """Drive one flow in-process (msd_core.flows.service) against a project folder."""

    def __init__(self, workflow: str, project: Path, flows_dir: Path = SHIPPED_FLOWS, root: str | None = None):
        from msd_core.flows import service

        self.service = service
        self.workflow = workflow
        self.project = project
        self.flows_dir = flows_dir
        self.root = root

    def ctx(self):
        return self.service.open_flow(self.workflow, cwd=self.project, flows_dir=str(self.flows_dir) if self.flows_dir else None,
                                      root=self.root)

    def next(self, *vars: str, restart: bool = False) -> dict:
        return self.service.next_step(self.ctx(), name_values(vars), restart=restart)

    def done(self, step: str, result: dict | None = None, *vars: str) -> dict:
        return self.service.step_done(self.ctx(), step, json.dumps(result) if result is not None else None, name_values(vars))

    def state(self) -> dict:
        return self.service.show(self.ctx())

    def plans(self, phase_dir: str, waves: dict[str, int]) -> None:
        """PLAN files in .planning/phases/<phase_dir>/: {plan id: wave}."""
        for pid, wave in waves.items():
            self.touch(f".planning/phases/{phase_dir}/{pid}-PLAN.md", f"---\nwave: {wave}\nfiles_modified: []\n---\n# {pid}\n")

    def summarise(self, phase_dir: str, *plan_ids: str) -> None:
        for pid in plan_ids:
            self.touch(f".planning/phases/{phase_dir}/{pid}-SUMMARY.md", f"# {pid} done\n")

    def touch(self, rel: str, text: str = "x\n") -> None:
        p = self.project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
