"""A newcomer's first steps with `msd` (issue 47 item 8): what the install says to do next, the
remedies it prints, and the small mistakes answered with one clear line."""

from __future__ import annotations

from pathlib import Path

from tests.kit.installkit import FIXTURE

CONTENT = ["--content-dir", str(FIXTURE)]
REPO = Path(__file__).resolve().parents[2]


def test_the_install_ends_by_saying_the_next_step(msd, tmp_path):
    for scope, where in (("--global", "your project's folder"), ("--local", "this project's folder")):
        proc = msd(["install", scope, *CONTENT], cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        last = proc.stdout.strip().splitlines()[-1]
        assert last == f"Next: start `claude` in {where} and type /msd-new-project"
    dry = msd(["install", "--local", "--dry-run", *CONTENT], cwd=tmp_path)
    assert "Next:" not in dry.stdout


def test_the_readme_set_up_says_the_same_next_step():
    setup = REPO.joinpath("README.md").read_text().split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "pipx install . && msd install --global" in setup
    assert "start `claude` in your project's folder and type `/msd-new-project`" in " ".join(setup.split())
