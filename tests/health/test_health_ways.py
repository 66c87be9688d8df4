"""Every health finding that a person or agent can act on names the command that moves forward,
and the commands it names exist: a slash command msd ships, or an `msd_run` command."""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.health import check
from msd_core.health.codes import CODES, ERROR, NO_WAY, WARNING, WAYS, repair_of
from msd_core.progress.route import decide
from msd_core.run.dispatch import COMMANDS

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"


def test_every_error_or_warning_has_a_repair_or_a_way_forward():
    lacking = [code for code, (sev, _what, _repair) in CODES.items()
               if sev in (ERROR, WARNING) and not repair_of(code) and code not in WAYS and code not in NO_WAY]
    assert lacking == []
    assert set(WAYS) <= set(CODES) and set(NO_WAY) <= set(CODES)


def test_the_commands_a_way_names_exist():
    shipped = {p.stem for p in (CONTENT / "commands" / "msd").glob("*.md")}
    for code, way in WAYS.items():
        for name in re.findall(r"/msd-([a-z-]+)", way):
            assert name in shipped, (code, name)
        for name in re.findall(r"\bmsd_run ([a-z-]+)", way):
            assert name in COMMANDS, (code, name)


def test_a_shared_phase_number_names_reconcile_in_health_and_next(healthy):
    """Two clones each added a phase 2 and merged: ROADMAP.md lists both, phases/ holds both folders."""
    (healthy / ".planning/phases/02-login").mkdir()
    found = [f.to_json() for f in check.findings(healthy) if f.code == "phase-number-shared"]
    assert len(found) == 1 and "msd_run phase reconcile" in found[0]["next"]
    assert decide(healthy)["route"] != "reconcile-phases"  # ROADMAP.md lists one phase 2: reconcile has nothing to do
    roadmap = healthy / ".planning/ROADMAP.md"
    roadmap.write_text(roadmap.read_text().replace("- [ ] **Phase 3", "- [ ] **Phase 2: auth** - again\n- [ ] **Phase 3"))
    assert decide(healthy)["route"] != "reconcile-phases"  # one phase listed twice is not two phases
    roadmap.write_text(roadmap.read_text().replace("- [ ] **Phase 3", "- [ ] **Phase 2: Login** - sso\n- [ ] **Phase 3"))
    answer = decide(healthy)
    assert answer["route"] == "reconcile-phases" and answer["command"] == "/msd-health"
    assert "msd_run phase reconcile" in answer["reason"]
    assert answer["shared_numbers"] == {"2": ["Auth", "Login"]}


def test_a_phase_not_started_while_a_later_one_is_is_no_finding(healthy):
    """Planning ahead: phase 3 has a folder, phase 2 (unticked) has none yet: nothing is wrong."""
    (healthy / ".planning/phases/02-auth/.keep").unlink()
    (healthy / ".planning/phases/02-auth").rmdir()
    assert "roadmap-phase-missing-folder" not in [f.code for f in check.findings(healthy)]
