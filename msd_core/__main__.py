"""`python -m msd_core` runs the people-facing `msd` command."""

from msd_core.cli.app import main

if __name__ == "__main__":
    main()
