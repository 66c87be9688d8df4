"""The planning commands stay on msd_run's light path: no typer/rich/click/pydantic; a warm digest skips PyYAML."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import io, contextlib, json, sys
from msd_core.run.dispatch import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'rich', 'click', 'pydantic', 'yaml', 'dataclasses'))
print(json.dumps({"rc": rc, "heavy": heavy}))
"""


def _probe(args):
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def _project(tmp_path):
    pl = tmp_path / ".planning"
    (pl / "phases/01-a").mkdir(parents=True)
    (pl / "STATE.md").write_text("---\nstatus: x\n---\n# State\n\n## Current Position\nPhase: 1 of 2\nStatus: x\n")
    (pl / "phases/01-a/01-01-SUMMARY.md").write_text("---\nphase: 1\nprovides: [a]\n---\n")
    (pl / "phases/01-a/01-01-PLAN.md").write_text('<task type="auto"><name>t</name></task>\n')
    return tmp_path


def test_no_heavy_imports(tmp_path):
    root = _project(tmp_path)
    outline = _probe(["state", "get", "--cwd", str(root)])  # parses the frontmatter: PyYAML allowed
    assert outline["rc"] == 0 and not {m.split(".")[0] for m in outline["heavy"]} & {"typer", "rich", "click", "pydantic"}
    for args in (["state", "get", "Current Position", "--cwd", str(root)], ["state", "get", "status", "--cwd", str(root)],
                 ["state", "patch", "--status", "y", "--cwd", str(root)],
                 ["template", "select", str(root / ".planning/phases/01-a/01-01-PLAN.md")]):
        out = _probe(args)
        assert out["rc"] == 0
        assert not {m.split(".")[0] for m in out["heavy"]} & {"typer", "rich", "click", "pydantic", "yaml"}, (args, out)
    cold = _probe(["history-digest", "--cwd", str(root)])
    assert cold["rc"] == 0 and "yaml" in cold["heavy"]  # parsed this time
    warm = _probe(["history-digest", "--cwd", str(root)])
    assert warm["rc"] == 0 and warm["heavy"] == [], warm  # cache hit: no PyYAML, no dataclasses
