#!/usr/bin/env python3
"""Offline token benchmark: `python scripts/bench_tokens.py [--json] [--compare] ...` = `msd bench tokens ...`."""

import sys

from msd_core.cli.app import app

if __name__ == "__main__":
    sys.argv = ["msd", "bench", "tokens", *sys.argv[1:]]
    app()
