"""Which installed content an agent loads: workflow detail parts (`msd_run resolve`) and
subagent skill payloads (`msd_run agent-skills`).

  names.py        validates a stem/agent name before any filesystem access
  installed.py    opens an installed msd-core tree and its manifest (the only trust root)
  parts.py        a workflow stem -> its verified detail parts, gated by compact content
  agent_skills.py an agent -> its verified skill payload (compact or canonical)
  emit.py         the text a host inserts into a skill (`resolve --emit`), within a budget
  trace.py        the load trace: which content an agent was handed, one JSON line per call

Standard library only: all of it runs on msd_run's hot path.
"""
