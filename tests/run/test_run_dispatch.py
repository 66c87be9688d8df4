"""msd_run's dispatcher: help, unknown commands, one-line errors."""

from msd_core.run.dispatch import COMMANDS


def test_top_help_lists_every_command_and_exit_codes(msd_run):
    r = msd_run(["--help"])
    assert r.returncode == 0
    for name in COMMANDS:
        assert name in r.stdout
    assert "4 lock not acquired" in r.stdout


def test_unknown_command_is_one_line_exit_2(msd_run):
    r = msd_run(["confg"])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "config" in r.stderr  # closest known command


def test_no_arguments_is_usage(msd_run):
    r = msd_run([])
    assert r.returncode == 2


def test_json_errors(msd_run):
    import json

    r = msd_run(["--json-errors", "nope"])
    assert r.returncode == 2
    payload = json.loads(r.stderr)
    assert payload["exit_code"] == 2 and payload["error"] == "usage"
