"""A budget crossed is told once, in the real host (issue 31 item 2): with
`usage.context_warn_percent` set, a PostToolUse hook after a request that reported a large
context adds its warning to a following request the model receives, and no later call in the
session repeats it. The host writes a response's transcript line after that response's own
PostToolUse hooks have run, so the warning comes with the next tool call (seen in 2.1.332)."""

from __future__ import annotations

import json

import hostkit

WARNING = "msd: this session's context is at"


def test_the_context_warning_reaches_the_model_once(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    host.msd_run("config", "set", "usage.context_warn_percent", "50")
    script = [
        {**hostkit.bash("msd_run state get", when="GO"), "usage": {"input_tokens": 150000, "output_tokens": 3}},
        {**hostkit.bash("msd_run next --raw"), "usage": {"input_tokens": 160000, "output_tokens": 3}},
        {**hostkit.bash("msd_run state get"), "usage": {"input_tokens": 170000, "output_tokens": 3}},
        {"text": "done"},
    ]
    run = host.run("GO", script, transcripts=True)
    assert run.returncode == 0, run.stderr[-2000:]
    bodies = [json.dumps(b) for b in run.model_requests]
    assert len(bodies) == 4
    assert WARNING not in bodies[0]
    told = [i for i, b in enumerate(bodies) if WARNING in b]
    assert told and told[0] <= 2  # told by the second call at the latest
    assert bodies[-1].count(WARNING) == 1  # and never again
    assert "of 200,000 tokens; warning level 50%)" in bodies[-1]
