"""`msd init new-project`: via flags, via --defaults, refusing without a terminal, and through a
real pseudo-terminal (os.openpty) with timeouts so it can never hang the suite."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from tests.conftest import compact_default

FLAGS = ["--mode", "--granularity", "--parallelization", "--compact", "--research", "--plan-check", "--verifier",
         "--commit-docs", "--defaults"]


def _config(project):
    return json.loads((project / ".planning" / "config.json").read_text())


def _settings(project):
    """config.json's settings, after checking msd's record beside them: a new project's evidence marker,
    committed with the file so a clone asks for evidence too (issue 45), its cutoff empty (nothing summarised)."""
    data = _config(project)
    record = data.pop("evidence")
    assert record["cutoff"] == {} and isinstance(record["since"], float)
    return data


def test_no_terminal_and_no_flags_exits_2_listing_flags(msd, tmp_path):
    t0 = time.monotonic()
    r = msd(["init", "new-project", "--cwd", str(tmp_path)])
    assert r.returncode == 2 and time.monotonic() - t0 < 30
    assert r.stderr.count("\n") == 1
    for flag in FLAGS:
        assert flag in r.stderr
    assert not (tmp_path / ".planning").exists()


def test_flags_answer_every_question(msd, tmp_path):
    r = msd(["init", "new-project", "--cwd", str(tmp_path), "--mode", "yolo", "--granularity", "fine",
             "--no-parallelization", "--compact", "--no-research", "--no-plan-check", "--verifier", "--no-commit-docs", "--json"])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == str(tmp_path / ".planning" / "config.json")
    assert _settings(tmp_path) == {
        "mode": "yolo", "granularity": "fine", "parallelization": False, "commit_docs": False,
        "workflow": {"compact_content": True, "research": False, "plan_check": False, "verifier": True},
    }


def test_defaults_answer_the_rest(msd, tmp_path):
    r = msd(["init", "new-project", "--cwd", str(tmp_path), "--defaults", "--mode", "yolo"])
    assert r.returncode == 0, r.stderr
    cfg = _config(tmp_path)
    assert cfg["mode"] == "yolo" and cfg["granularity"] == "standard" and cfg["parallelization"] is True
    assert cfg["workflow"] == {"compact_content": compact_default(), "research": True, "plan_check": True, "verifier": True}


def test_existing_config_is_kept_and_supplies_defaults(msd, tmp_path):
    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning" / "config.json").write_text(json.dumps({"model_profile": "quality", "granularity": "coarse"}, indent=4))
    r = msd(["init", "new-project", "--cwd", str(tmp_path), "--defaults"])
    assert r.returncode == 0, r.stderr
    cfg = _config(tmp_path)
    assert cfg["model_profile"] == "quality" and cfg["granularity"] == "coarse"
    assert (tmp_path / ".planning" / "config.json").read_text().startswith('{\n    "model_profile"')


@pytest.mark.parametrize("args,needle", [
    (["--mode", "fast"], "--mode must be one of"),
    (["--granularity", ""], "--granularity must be one of"),
])
def test_bad_flag_values_exit_2(msd, tmp_path, args, needle):
    r = msd(["init", "new-project", "--cwd", str(tmp_path), *args])
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / ".planning").exists()


def test_corrupt_existing_config_is_refused_and_kept(msd, tmp_path):
    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning" / "config.json").write_text("{broken")
    r = msd(["init", "new-project", "--cwd", str(tmp_path), "--defaults"])
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    assert (tmp_path / ".planning" / "config.json").read_text() == "{broken"


def test_missing_cwd_is_exit_2(msd, tmp_path):
    r = msd(["init", "new-project", "--cwd", str(tmp_path / "nope"), "--defaults"])
    assert r.returncode == 2


# ---------------------------------------------------------------- a real pseudo-terminal


class Pty:
    def __init__(self, args, cwd):
        self.master, slave = os.openpty()
        env = dict(os.environ, COLUMNS="200", TERM="dumb")
        self.proc = subprocess.Popen([sys.executable, "-m", "msd_core", *args], cwd=cwd, stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.buf = b""

    def expect(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while text.encode() not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {text!r}; got {self.buf[-400:]!r}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    if self.proc.poll() is not None:
                        raise AssertionError(f"process ended before {text!r}; got {self.buf[-400:]!r}")
                    continue
                self.buf += chunk
        idx = self.buf.index(text.encode()) + len(text)
        seen, self.buf = self.buf[:idx], self.buf[idx:]
        return seen.decode(errors="replace")

    def send(self, line: str) -> None:
        os.write(self.master, line.encode())

    def __enter__(self) -> "Pty":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:  # a failed expectation never leaves a process behind
            self.proc.kill()
            self.proc.wait(timeout=10)

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # EIO: the child closed its side; wait for it to exit
                    chunk = b""
                if chunk:
                    self.buf += chunk
                else:
                    time.sleep(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
            os.close(self.master)
            raise AssertionError("the wizard did not finish in time")
        code = self.proc.wait(5)
        try:
            while select.select([self.master], [], [], 0.1)[0]:
                chunk = os.read(self.master, 4096)
                if not chunk:
                    break
                self.buf += chunk
        except OSError:
            pass
        os.close(self.master)
        return code, self.buf.decode(errors="replace")


def test_wizard_in_a_pseudo_terminal(tmp_path):
    with Pty(["init", "new-project", "--cwd", str(tmp_path), "--no-commit-docs"], tmp_path) as pty:
        pty.expect("[INTERACTIVE/yolo]")
        pty.send("yo\n")
        pty.expect("[coarse/STANDARD/fine]")
        pty.send("sideways\n")  # invalid: asked again
        pty.expect("answer one of coarse, standard, fine")
        pty.expect("[coarse/STANDARD/fine]")
        pty.send("f\n")
        pty.expect("parallel?")
        pty.send("n\n")
        pty.expect("Compact content")
        pty.send("\n")  # default
        pty.expect("Research the domain")
        pty.send("no\n")
        pty.expect("Check each plan")
        pty.send("y\n")
        pty.expect("Verify each phase")
        pty.send("maybe\n")
        pty.expect("answer y or n")
        pty.send("yes\n")
        code, out = pty.finish()
    assert code == 0, out
    assert "commit docs" not in out.lower().split("wrote")[0]  # answered by its flag, never asked
    assert _settings(tmp_path) == {
        "mode": "yolo", "granularity": "fine", "parallelization": False, "commit_docs": False,
        "workflow": {"compact_content": compact_default(), "research": False, "plan_check": True, "verifier": True},
    }


def test_wizard_end_of_input_exits_2_without_writing(tmp_path):
    with Pty(["init", "new-project", "--cwd", str(tmp_path)], tmp_path) as pty:
        pty.expect("[INTERACTIVE/yolo]")
        pty.send("\x04")  # Ctrl-D: end of input
        code, out = pty.finish()
    assert code == 2 and "input ended" in out
    assert not (tmp_path / ".planning" / "config.json").exists()


def test_wizard_gives_up_after_repeated_nonsense(tmp_path):
    with Pty(["init", "new-project", "--cwd", str(tmp_path)], tmp_path) as pty:
        for _ in range(5):
            pty.expect("[INTERACTIVE/yolo]")
            pty.send("what\n")
        code, out = pty.finish()
    assert code == 2 and "no valid answer for --mode" in out


def test_a_project_msd_init_creates_asks_for_evidence_before_any_wave_plan(msd, tmp_path):
    """issue 45: `msd init new-project` is msd's first command, so the project carries the evidence
    marker from then on: a SUMMARY an agent writes without `msd_run wave plan` or a recorded commit
    is not taken on its word."""
    from msd_core.progress import evidence

    r = msd(["init", "new-project", "--cwd", str(tmp_path), "--defaults"])
    assert r.returncode == 0, r.stderr
    assert evidence.since(tmp_path) is not None
    phase = tmp_path / ".planning/phases/01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text("---\nwave: 1\nfiles_modified: [src/a.py]\n---\n# Plan\n")
    (phase / "01-01-SUMMARY.md").write_text("# done\n")
    lack = evidence.Reading(tmp_path).unproven(phase, "01-01", (phase / "01-01-PLAN.md").read_text())
    assert lack is not None and "no commit recorded" in lack["reason"]
    again = msd(["init", "new-project", "--cwd", str(tmp_path), "--defaults"])  # config.json exists: the marker stays
    assert again.returncode == 0 and evidence.since(tmp_path) is not None
