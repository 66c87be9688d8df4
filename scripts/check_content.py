#!/usr/bin/env python3
"""Check the content tree: the same code as `msd check content`, without typer.

    python scripts/check_content.py [--root DIR] [--base REV] [--json] [--write] [--peer DIR ...]

Exit 0 clean, 1 any violation, 2 bad usage.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from msd_core.checks.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
