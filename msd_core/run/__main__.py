"""`python -m msd_core.run` is `msd_run` (the same process handling: msd_core.run.entry)."""

from msd_core.run.entry import main

main()
