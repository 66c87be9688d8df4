"""What msd recorded, told to a person.

  facts.py      what the reports share: the recorded commits per phase folder, the summary facts
                per phase, deviations, the gate's test counts, the usage meter's tokens per phase
  stats.py      `msd_run stats`: phases, plans, commits, tests and tokens, per phase and in total
  milestone.py  `msd_run milestone-summary`: a finished (or archived) milestone for a person
  forensics.py  `msd_run forensics`: after a failed or stuck run, what happened and where it went wrong

Every report only reads, except `milestone-summary --write` (one atomic file). Where the project
is comes from msd_core.progress.lifecycle.where, the one model of it.
"""
