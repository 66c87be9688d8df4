"""Projects with records the report tests read (no tests here)."""

from __future__ import annotations

from tests.health.conftest import healthy, write  # noqa: F401 (the fixture is shared)
