"""Typed results of `msd` commands and the versioned JSON envelope they render to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON_SCHEMA_VERSION = 1


def json_text(obj: Any) -> str:
    """How every `msd ... --json` prints a document (indent 2, non-ASCII kept, one trailing newline)."""
    import json

    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


@dataclass
class OperationResult:
    command: str
    exit_code: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def envelope(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": JSON_SCHEMA_VERSION,
            "command": self.command,
            "ok": self.ok,
            "exit_code": self.exit_code,
        }
        out.update(self.data)
        out["warnings"] = list(self.warnings)
        out["errors"] = list(self.errors)
        return out
