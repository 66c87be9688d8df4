"""Where the project stands, decided from its `.planning/` files and what git recorded.

  lifecycle.py           where the project stands: the one model `next`, `state sync`, `step-done` and `commit` ask
  route.py               `msd_run next`: what the project should do next
  evidence.py            whether a summarised plan is proven done by its recorded commits
  committed_evidence.py  whether a tree is one msd wrote, read from what is committed (a fresh clone's view)
  plan_moves.py          whether a plan's old name was moved to its current one by a renumber, not removed and reused
  plans.py               a phase's plans not done yet, as the runtime counts them
  state_sync.py          STATE.md's derived lines, recomputed from the project's files
  settle.py              finishing an interrupted phase change before anything reads the project
  autonomous.py          an autonomous run: which command comes next, or why the run stops
  cross_root.py          whether a phase's dependencies on other roots are met
  root_walk.py           the `.planning/` roots of a git work tree
  workspace.py           every project in one repository, with where each stands
"""
