"""Claims in the real host: `/msd-progress` in a project where someone else holds phase 1.

The skill the model receives asks for a Claims line, and the `msd_run next` it runs (Bash, under
the one permission msd installs) passes phase 1 by, names who holds it and routes to phase 2."""

from __future__ import annotations

import json

from hostkit import bash

ARGS = ["--permission-mode", "acceptEdits"]


def test_progress_shows_claims_and_next_routes_around_them(host_global):
    host = host_global
    pl = host.project / ".planning"
    (pl / "phases").mkdir(parents=True)
    (pl / "PROJECT.md").write_text("# Demo\n")
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Core** - core\n- [ ] **Phase 2: Auth** - auth\n")
    (pl / "claims.json").write_text(json.dumps({"claims": [
        {"phase": "1", "by": "Bob", "email": "bob@example.com", "branch": "", "at": "2099-01-01T00:00:00Z"}]}))
    run = host.run("/msd-progress", [bash("msd_run next"), {"when": '"claims"', "text": "PROGRESS-DONE"}], args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.refusals == [] and run.permission_denials == []
    assert "Claims: phase 3 Bob" in run.first_user_text  # the report shape the workflow asks for
    name, _input, result, is_error = run.tool_results[-1]
    assert name == "Bash" and not is_error
    answer = json.loads(result[result.index("{"):])
    assert answer["route"] == "discuss-phase" and answer["phase"]["number"] == "2"
    assert answer["claimed_by_others"] == ["phase 1 claimed by Bob (since 2099-01-01)"]
    assert run.result.get("result", "").strip().endswith("PROGRESS-DONE")
