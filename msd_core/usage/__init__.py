"""What the host's own session transcripts say a project's work cost, attributed to msd's steps.

Claude Code 2.1.332 writes every request's real usage into its session transcripts (verified in
the real CLI; tests/host/test_usage_host.py):

  locate.py     where a project's transcripts are (`<config>/projects/<folder>/`, subagents beside)
  jsonl.py      reading a JSONL file in bounded memory (one line at a time, long lines skipped)
  attribute.py  one transcript's requests, each given its msd command, phase, plan and agent
  report.py     the totals per phase, plan, agent and command; context shares of the window
  cache.py      the same, kept up to date incrementally for the status line and the hooks
  project.py    `msd usage`'s answer for one project

Standard library only (the status line and the hooks read it on msd_run's hot path).
"""
