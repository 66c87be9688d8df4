"""`python -m msd_core.run` is `msd_run` (the same process handling: msd_core.run_entry)."""

from msd_core.run_entry import main

main()
