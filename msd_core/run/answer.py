"""A command's JSON answer printed with a non-zero exit code (the answer is the reason), for
commands whose decision is both the JSON and the exit code. Standard library only."""

from __future__ import annotations

import json
import sys


def with_code(result: dict, code: int) -> int:
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    return code
