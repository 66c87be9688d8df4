"""Session transcripts laid out as Claude Code 2.1.332 writes them (the fields msd reads, as
observed in the real CLI: tests/host/test_usage_host.py reads real ones), for the usage and hook
tests. Plain module, no tests."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

_ids = itertools.count(1)


def usage(inp: int, cache_read: int = 0, cache_write: int = 0, out: int = 0) -> dict:
    return {"input_tokens": inp, "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write,
            "output_tokens": out, "service_tier": "standard"}


class Transcript:
    """Lines of one transcript file, built in order."""

    def __init__(self, cwd: str, session: str = "s1", agent_id: str | None = None):
        self.cwd, self.session, self.agent_id = cwd, session, agent_id
        self.lines: list[dict] = []
        self.parent: str | None = None

    def _common(self, kind: str) -> dict:
        uid = f"u{next(_ids)}"
        line = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None, "type": kind, "uuid": uid,
                "timestamp": "2026-12-01T10:00:00.000Z", "sessionId": self.session, "cwd": self.cwd, "version": "2.1.332"}
        if self.agent_id:
            line["agentId"] = self.agent_id
        self.parent = uid
        return line

    def user(self, content) -> "Transcript":
        self.lines.append({**self._common("user"), "message": {"role": "user", "content": content}})
        return self

    def command(self, name: str, args: str = "") -> "Transcript":
        return self.user(f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n"
                         f"<command-args>{args}</command-args>")

    def reply(self, use: dict, blocks: list[dict] | None = None, skill: str | None = None, model: str = "claude-opus-5-5") -> "Transcript":
        """One response: N content blocks become N assistant lines carrying the same id and full usage."""
        mid = f"msg_{next(_ids)}"
        for i, block in enumerate(blocks or [{"type": "text", "text": "ok"}]):
            line = {**self._common("assistant"), "requestId": f"req_{mid}", "apiBlockIndex": i,
                    "message": {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [block],
                                "usage": use}}
            if skill:
                line["attributionSkill"] = skill
            self.lines.append(line)
        return self

    def other(self, kind: str, **fields) -> "Transcript":
        self.lines.append({"type": kind, **fields})
        return self

    def write(self, path: Path, extra: bytes = b"") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in self.lines) + extra)
        return path


def bash(command: str, tid: str | None = None) -> dict:
    return {"type": "tool_use", "id": tid or f"toolu_{next(_ids)}", "name": "Bash", "input": {"command": command, "description": "x"}}


def agent(subagent_type: str, prompt: str, tid: str) -> dict:
    return {"type": "tool_use", "id": tid, "name": "Agent",
            "input": {"subagent_type": subagent_type, "description": "d", "prompt": prompt, "run_in_background": False}}


def meta(path: Path, agent_type: str, tool_use_id: str) -> None:
    path.with_name(path.name[: -len(".jsonl")] + ".meta.json").write_text(
        json.dumps({"agentType": agent_type, "isBuiltIn": False, "toolUseId": tool_use_id, "spawnDepth": 1}))
