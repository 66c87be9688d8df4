"""Every bound the hooks and the usage reader hold, each shown to hold (the limit crossed)."""

from __future__ import annotations

import io
import json

from msd_core.hooks import payload, position, statusline
from msd_core.usage import attribute, cache
from tests.kit.transcripts import Transcript, agent, usage


class _Stdin(io.TextIOWrapper):
    def isatty(self):
        return False


def _stdin(data: bytes):
    return _Stdin(io.BytesIO(data))


def test_a_payload_past_the_cap_reads_as_empty(monkeypatch):
    monkeypatch.setattr(payload, "MAX_PAYLOAD", 100)
    small = json.dumps({"source": "compact"}).encode()
    assert payload.read_payload(_stdin(small)) == {"source": "compact"}
    assert payload.read_payload(_stdin(json.dumps({"source": "compact", "pad": "x" * 200}).encode())) == {}


def test_a_long_result_and_question_are_cut_in_the_resume_text():
    pos = {"workflow": "w", "step": "s", "next": "msd_run next-step --workflow w", "last": {"step": "a", "result": {"x": "y" * 2000}},
           "question": "q" * 2000}
    text = position.describe(pos)
    assert text.count("y") < position.MAX_RESULT_CHARS and "...." in text  # the result cut, and marked
    assert text.count("q") <= position.MAX_RESULT_CHARS + 1  # the question cut ("question" has one q)


def test_the_status_line_stays_short(tmp_path, monkeypatch):
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    (root / ".planning" / "STATE.md").write_text("---\nmilestone: " + "M" * 300 + "\n---\n")
    monkeypatch.setattr(statusline, "MAX_CHARS", 30)
    out = statusline.line({"cwd": str(root), "context_window": {"used_percentage": 12}})
    assert len(out) == 30 and out.endswith("…") and out.startswith("msd " + "M" * 20)


def test_launches_past_the_cap_are_not_kept(tmp_path, monkeypatch):
    from msd_core.usage import report

    monkeypatch.setattr(attribute, "MAX_LAUNCHES", 2)
    t = Transcript("/p")
    t.reply(usage(1), [agent("x", "p", f"t{i}") for i in range(3)])
    path = t.write(tmp_path / "t.jsonl")
    scanner, _ = report.scan_file(path)
    assert sorted(scanner.state["launches"]) == ["t0", "t1"]


def test_a_cache_past_its_cap_is_rebuilt(tmp_path, monkeypatch):
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    cache.learn_window(root, "m", 5)
    assert cache.load(root)["windows"] == {"m": 5}
    monkeypatch.setattr(cache, "MAX_CACHE_BYTES", 4)
    assert cache.load(root)["windows"] == {}
