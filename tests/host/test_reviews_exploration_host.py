"""The commands of reviews, UI, exploration and material brought in, in the real host.

- Each is person-only (`disable-model-invocation: true`): the host leaves it out of the listing
  the model sees (the full listing has no room for more), and runs it when a person types it.
- The first request of each stays under 4,000 proxy tokens over a plain prompt, compact
  content off and on.
- /msd-secure-phase walked with a scripted model: its calls run under the permission msd
  installs, and the review lands in the phase folder as gaps `msd_run next` routes.
- /msd-spike walked: the branch is made and the finding recorded after it is removed.
"""

from __future__ import annotations

import json
import subprocess

import hostkit
import pytest
from hostkit import bash

NEW = ["msd-secure-phase", "msd-ui-phase", "msd-ui-review", "msd-spike", "msd-explore", "msd-import", "msd-docs-update"]
ARGS = ["--permission-mode", "acceptEdits"]


def listing(run: hostkit.HostRun) -> str:
    return hostkit.request_text(run.first_request)


def test_the_new_commands_are_not_listed_but_load_when_typed(host_global):
    host = host_global
    text = listing(host.run("1", [{"text": "ok"}]))
    assert "msd-plan-phase" in text
    for name in NEW:
        assert name not in text, f"{name} is listed to the model despite disable-model-invocation"
        run = host.run(f"/{name} 1", [{"text": "ok"}])
        assert run.returncode == 0, run.stderr
        assert f"<command-name>/{name}</command-name>" in run.first_user_text
        assert run.refusals == [] and run.permission_denials == []


@pytest.mark.parametrize("compact", ["false", "true"])
def test_first_request_under_4000_proxy_tokens(host_global, compact):
    tok = pytest.importorskip("msd_core.bench.tokenizer")
    _label, count = tok.load()
    host = host_global
    hostkit.planning_project(host.project)
    host.msd_run("config", "set", "workflow.compact_content", compact)
    base = count(listing(host.run("1", [{"text": "ok"}])))
    costs = {name: count(listing(host.run(f"/{name} 1", [{"text": "ok"}]))) - base for name in NEW}
    print("first-request cost over a plain prompt, compact", compact, costs)
    for name, cost in costs.items():
        assert 0 < cost < 4000, f"/{name}: first request costs {cost} proxy tokens"


def _project(root):
    hostkit.planning_project(root)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text('import subprocess\n@app.route("/run")\ndef run(c):\n    return subprocess.run(c, shell=True)\n')
    plan = root / ".planning" / "phases" / "01-auth" / "01-01-PLAN.md"
    plan.write_text("---\nphase: 01-auth\nplan: 01\ntype: execute\nwave: 1\nfiles_modified: [src/app.py]\n---\n<objective>x</objective>\n")
    (plan.parent / "01-01-SUMMARY.md").write_text("---\nphase: 01-auth\nplan: 01\n---\n# done\n")
    (plan.parent / "01-VERIFICATION.md").write_text("---\nstatus: passed\n---\n")


def test_secure_phase_walked(host_global):
    host = host_global
    _project(host.project)
    findings = host.project / ".planning" / "drafts" / "01-security.json"
    body = {"findings": [{"id": "S1", "severity": "critical", "category": "elevation-of-privilege", "file": "src/app.py",
                          "line": 4, "title": "shell from input", "what": "c runs in a shell", "evidence": "c=id",
                          "fix": "argument list", "truth": "no input reaches a shell", "status": "open"}]}
    script = [
        bash("msd_run security scope --phase 1"),
        {"when": '"surface":"shell"', "tool_use": [{"name": "Write", "input": {"file_path": str(findings),
                                                                               "content": json.dumps(body)}}]},
        bash(f"msd_run security record --phase 1 --findings {findings.relative_to(host.project)}", when=""),
        {"when": '"status":"gaps_found"', "text": "RECORDED"},
    ]
    run = host.run("/msd-secure-phase 1", script, args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "RECORDED", run.tool_results
    review = host.project / ".planning" / "phases" / "01-auth" / "01-SECURITY.md"
    assert "status: gaps_found" in review.read_text()
    nxt = json.loads(host.msd_run("next", "--json").stdout)
    assert nxt["route"] == "plan-gaps"


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60).stdout


def test_spike_walked(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    _git(host.project, "init", "-q", "-b", "main")
    _git(host.project, "-c", "user.email=t@e", "-c", "user.name=t", "add", "-A")
    _git(host.project, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m", "init")
    finding = host.project / ".planning" / "drafts" / "spike-finding.md"
    script = [
        bash('msd_run spike start "does the cache fit" --slug cache'),
        {"when": '"switched_to":"spike/cache"', "tool_use": [{"name": "Write", "input": {"file_path": str(finding),
                                                                                        "content": "It fits in 80 MB.\n"}}]},
        bash("msd_run spike finish cache --finding .planning/drafts/spike-finding.md --verdict works --branch remove",
             when=""),
        {"when": '"branch_kept":false', "text": "FINISHED"},
    ]
    run = host.run('/msd-spike "does the cache fit"', script, args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "FINISHED", run.tool_results
    assert _git(host.project, "branch", "--show-current").strip() == "main"
    assert "spike/cache" not in _git(host.project, "branch", "--list")
    assert "It fits in 80 MB." in (host.project / ".planning" / "spikes" / "cache.md").read_text()


def test_explore_walked(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    (host.project / "src").mkdir()
    (host.project / "src" / "cache.py").write_text("class Cache:\n    pass\n")
    note = host.project / ".planning" / "drafts" / "explore-note.md"
    script = [
        {"tool_use": [{"name": "Write", "input": {"file_path": str(note),
                                                  "content": "## Questions\n\n### Where is the cache?\n`src/cache.py:1`\n"}}]},
        bash('msd_run explore record --topic "the cache" --note .planning/drafts/explore-note.md', when=""),
        {"when": '"cites":1', "text": "NOTED"},
    ]
    run = host.run("/msd-explore where is the cache", script, args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "NOTED", run.tool_results
    assert "`src/cache.py:1`" in (host.project / ".planning" / "explorations" / "the-cache.md").read_text()
    assert not note.exists()


def test_ui_phase_walked(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    (host.project / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Login screen** - sign in\n")
    spec = host.project / ".planning" / "phases" / "01-auth" / "01-UI-SPEC.md"
    text = ("# UI\n\n## Screens\nLogin.\n\n## States\nloading spinner, empty form, error banner.\n\n## Copy\n\"Sign in\"\n\n"
            "## Layout\nOne column.\n\n## Visual\nThe Button component.\n\n## Accessibility\nLabels on every field.\n")
    script = [
        bash("msd_run ui detect --phase 1"),
        {"when": '"ui":true', "tool_use": [{"name": "Write", "input": {"file_path": str(spec), "content": text}}]},
        bash("msd_run ui contract --phase 1", when=""),
        {"when": '"status":"complete"', "text": "AGREED"},
    ]
    run = host.run("/msd-ui-phase 1", script, args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "AGREED", run.tool_results
