"""`msd` subcommands for this concern (placeholder until implemented)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `msd` app."""
    return None
