"""`python -m msd_core.run` is `msd_run`."""

import sys

from msd_core.run.dispatch import main

sys.exit(main())
