"""`msd`: the people-facing command (typer + rich). Thin adapters over msd_core's logic."""
