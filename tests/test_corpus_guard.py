"""The session guard: a test run that writes into the read-only corpus fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run_suite(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    corpus = tmp_path / "corpus"
    (corpus / "demo" / ".planning").mkdir(parents=True)
    (corpus / "demo" / ".planning" / "STATE.md").write_text("# State\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(HERE / "conftest.py", suite / "conftest.py")
    (suite / "test_probe.py").write_text(body)
    env = dict(os.environ, MSD_TEST_CORPUS=str(corpus))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_writing_into_the_corpus_fails_the_session(tmp_path):
    r = _run_suite(tmp_path, "from conftest import CORPUS\n\ndef test_x():\n    (CORPUS / 'demo' / '.planning' / 'x.md').write_text('oops')\n")
    assert r.returncode != 0
    assert "wrote into the read-only corpus" in r.stderr + r.stdout


def test_reading_the_corpus_passes(tmp_path):
    r = _run_suite(tmp_path, "from conftest import CORPUS\n\ndef test_x():\n    assert (CORPUS / 'demo' / '.planning' / 'STATE.md').read_text()\n")
    assert r.returncode == 0, r.stdout + r.stderr
