"""`check plan` and `verify` on every phase of the real-project corpus: no crash, every finding
a documented code with a line, nothing written (issue 30: old files stay readable)."""

from __future__ import annotations

import re

import pytest

from msd_core.execution import phase_files, plan_check, verify
from msd_core.planning.discovery import phase_dirs

CODES = set(re.findall(r"^  ([a-z-]+)\s+(?:blocker|warning)\s", plan_check.__doc__, re.M))


def test_the_code_list_is_read():
    assert {"decision-not-cited", "scope-cut", "key-links-missing", "dependency-cycle"} <= CODES


def test_every_corpus_phase_is_checked(corpus_dir):
    seen = {"phases": 0, "findings": 0, "verified": 0}
    for project in sorted(p for p in corpus_dir.iterdir() if (p / ".planning").is_dir()):
        for d in phase_dirs(project / ".planning"):
            if d.milestone is not None or d.number is None:
                continue
            try:
                files = phase_files.load(project, d.name)
            except Exception as exc:  # a UsageError (one line) is allowed; anything else is a defect
                assert getattr(exc, "exit_code", None) == 2, (d.path, exc)
                continue
            findings = plan_check.check(files)
            for f in findings:
                assert f["code"] in CODES and isinstance(f["line"], int) and f["line"] >= 0, f
            result = verify.verify(files)
            assert result["result"] in ("passed", "failed")
            seen["phases"] += 1
            seen["findings"] += len(findings)
            seen["verified"] += result["checked"]
    if not seen["phases"]:
        pytest.skip("no phase folder in the corpus")
    print(f"\ncorpus: {seen}")
