"""msd-core's tests: one folder per package of msd_core (docs/ARCHITECTURE.md)."""
