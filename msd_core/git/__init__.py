"""Running git and reading its files: one launcher, the checkout's facts, what git says.

What msd decides with git (scoped commits, run records, wave merges) lives in
msd_core/execution; this package only asks git and reads what it keeps.
  runner.py        the one place that calls the git binary (started by msd_core/lean/spawn.py), and the facts about a checkout
  repo_files.py    where the repository is and what HEAD is, from git's own files (no git process)
  path_status.py   what one `git status` says about the paths a commit names
  hooks.py         whether `git commit` could run a hook, from the files alone
  branches.py      local branches: valid names, existence, switching, creating, deleting, what one holds
  trailers.py      commits as `git log` tells them, with named message trailers and the files changed
  exclude.py       msd's working files kept out of `git status` (the repository's exclude file)
  merge_config.py  msd's merge drivers in one repository's config and attributes: added, removed
"""
