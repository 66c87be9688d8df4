"""Each remaining guard of the planning runtime, shown failing on purpose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from msd_core.errors import OperationFailed, UsageError
from msd_core.planning import compile_plan as cp
from msd_core.planning.project import read_text_file
from msd_core.planning.state import apply_patch
from msd_core.planning.summary import Skip, summary_facts


def test_read_text_file_size_cap(tmp_path):
    f = tmp_path / "STATE.md"
    f.write_text("x" * 101)
    with pytest.raises(OperationFailed, match="larger than 100 bytes"):
        read_text_file(f, "STATE.md", max_bytes=100)
    assert read_text_file(f, "STATE.md", max_bytes=101)[1] == "x" * 101


def test_read_text_file_folder(tmp_path):
    with pytest.raises(OperationFailed, match="is a folder"):
        read_text_file(tmp_path, "plan")


def test_read_text_file_fifo_is_refused_without_blocking(tmp_path, msd_run):
    import os

    fifo = tmp_path / "01-01-PLAN.md"
    os.mkfifo(fifo)
    with pytest.raises(OperationFailed, match="not a regular file"):
        read_text_file(fifo, "plan")
    r = msd_run(["template", "select", str(fifo), "--root", str(tmp_path)], timeout=30)
    assert r.returncode == 1 and "not a regular file" in r.stderr


def test_read_text_file_error_class_and_symlink_choice(tmp_path):
    real = tmp_path / "real.md"
    real.write_bytes(b"ok \xff")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(OperationFailed, match="symlink"):
        read_text_file(link, "plan")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_text_file(real, "plan", error=UsageError)
    assert read_text_file(link, "plan", follow_symlinks=True, strict_utf8=False)[1] == "ok \ufffd"


@pytest.mark.parametrize("name", ["bad name", "-x", "a:b", ""])
def test_field_name_validated(name):
    with pytest.raises(UsageError):
        apply_patch("---\na: 1\n---\n", [("field", name, "v")])


def test_resolve_blocker_needs_text():
    with pytest.raises(UsageError, match="give part"):
        apply_patch("### Blockers\n- x\n", [("resolve-blocker", "   ")])


def test_summary_symlink_skipped(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("---\nprovides: [a]\n---\n")
    link = tmp_path / "01-a" / "01-01-SUMMARY.md"
    link.parent.mkdir()
    link.symlink_to(real)
    r = summary_facts(link)
    assert isinstance(r, Skip) and r.reason == "symlink (not followed)"


def _project(tmp_path: Path, plan_body: str) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    plan = root / ".planning" / "01-01-PLAN.md"
    plan.write_text(plan_body)
    return root, plan


def test_total_inline_cap(tmp_path, monkeypatch):
    root, plan = _project(tmp_path, "@a.md\n@b.md\n")
    (root / "a.md").write_text("A" * 60)
    (root / "b.md").write_text("B" * 60)
    monkeypatch.setattr(cp, "MAX_TOTAL_BYTES", 100)
    c = cp.Compiler(plan, root, tmp_path / "cfg/msd-core")
    text = c.compile(plan.read_bytes())
    assert [i["path"] for i in c.inlined] == ["a.md"]
    assert c.refused == [{"ref": "b.md", "in": ".planning/01-01-PLAN.md", "reason": "inlining it would exceed 100 bytes in all"}]
    assert "B" * 60 not in text and "\n@b.md\n" in text


def test_depth_cap(tmp_path, monkeypatch):
    root, plan = _project(tmp_path, "@d1.md\n")
    for i in range(1, 5):
        (root / f"d{i}.md").write_text(f"DEPTH{i}\n@d{i + 1}.md\n")
    (root / "d5.md").write_text("DEPTH5\n")
    monkeypatch.setattr(cp, "MAX_DEPTH", 2)
    c = cp.Compiler(plan, root, tmp_path / "cfg/msd-core")
    text = c.compile(plan.read_bytes())
    assert [i["path"] for i in c.inlined] == ["d1.md", "d2.md"]
    assert "DEPTH2" in text and "DEPTH3" not in text and "\n@d3.md\n" in text


def test_plan_size_cap(tmp_path, msd_run):
    root, plan = _project(tmp_path, "x" * (cp.MAX_PLAN_BYTES + 1))
    r = msd_run(["compile-plan", str(plan), "--root", str(tmp_path / "cfg/msd-core")])
    assert r.returncode == 1 and "larger than" in r.stderr and "Traceback" not in r.stderr


def test_cycle_inlined_once(tmp_path):
    root, plan = _project(tmp_path, "@a.md\n")
    (root / "a.md").write_text("AAA\n@b.md\n")
    (root / "b.md").write_text("BBB\n@a.md\n")
    c = cp.Compiler(plan, root, tmp_path / "cfg/msd-core")
    text = c.compile(plan.read_bytes())
    assert text.count("AAA") == 1 and text.count("BBB") == 1 and "<!-- @a.md: inlined above -->" in text


def test_json_errors_flag(tmp_path, msd_run):
    r = msd_run(["--json-errors", "state", "get", "--cwd", str(tmp_path)])
    assert r.returncode == 1
    err = json.loads(r.stderr)
    assert err["error"] == "failed" and "no .planning/" in err["message"]
