"""The secret-file guard (msd_core/hooks/secret_files.py through `msd_run hook pre-tool-use`): a Read
or a Bash command that would show a credentials file is refused; templates, public keys, ordinary
files and commands that do not print the file go ahead; the project's config extends and
allows (the host hands the hook every Bash call: tests/install/test_host_hooks.py)."""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "app"
    (proj / ".planning").mkdir(parents=True)
    (proj / "config").mkdir()
    for name in (".env", ".env.local", ".env.example", "id_ed25519", "id_ed25519.pub", "config/master.key", "notes.md",
                 "vault.kdbx", ".env.test"):
        (proj / name).write_text("SECRET=1\n")
    return proj


def read(proj, name):
    return {"file_path": str(proj / name)}


@pytest.mark.parametrize("name,pattern", [(".env", ".env"), (".env.local", ".env.*"), ("id_ed25519", "id_ed25519"),
                                          ("config/master.key", "*.key")])
def test_reading_a_credentials_file_is_refused_with_what_to_do(project, decide, name, pattern):
    reason = decide(project, "Read", read(project, name))
    assert reason.startswith(f"msd guard: reading {project / name} is refused; a file named like `{pattern}` holds ")
    assert "Ask the user for the one value you need" in reason
    assert f"msd config set guards.secret_allow '[\"{os.path.basename(name)}\"]'" in reason


@pytest.mark.parametrize("name", [".env.example", "id_ed25519.pub", "notes.md", "vault.kdbx"])
def test_templates_public_keys_and_ordinary_files_are_read(project, decide, name):
    assert decide(project, "Read", read(project, name)) is None


def test_a_relative_path_and_a_symlink_to_a_secret_are_caught(project, decide):
    assert decide(project, "Read", {"file_path": ".env"})
    os.symlink(project / ".env", project / "settings.txt")
    assert "settings.txt" in decide(project, "Read", read(project, "settings.txt"))


def test_the_project_extends_and_allows_the_list(project, decide):
    cfg = project / ".planning" / "config.json"
    cfg.write_text(json.dumps({"guards": {"secret_files": ["*.kdbx"], "secret_allow": [".env.test"]}}))
    assert "`*.kdbx`" in decide(project, "Read", read(project, "vault.kdbx"))
    assert decide(project, "Read", read(project, ".env.test")) is None
    assert decide(project, "Read", read(project, ".env"))  # allowing one file allows no other
    cfg.write_text(json.dumps({"guards": {"secret_read": False}}))
    assert decide(project, "Read", read(project, ".env")) is None


def test_a_bad_guard_setting_counts_as_unset(project, decide):
    (project / ".planning" / "config.json").write_text(json.dumps({"guards": {"secret_read": "nope", "secret_allow": "*"}}))
    assert decide(project, "Read", read(project, ".env"))
    (project / ".planning" / "config.json").write_text("{not json")
    assert decide(project, "Read", read(project, ".env"))


def test_user_defaults_do_not_set_guard_keys(project, monkeypatch, tmp_path):
    """The guard keys are project settings: a user default is not what the hooks read, so the
    store does not report it as the effective value either."""
    from msd_core.config import store

    user = tmp_path / "userconf"
    user.mkdir()
    (user / "defaults.json").write_text(json.dumps({"guards": {"secret_read": False}, "mode": "yolo"}))
    monkeypatch.setenv("MSD_USER_CONFIG_DIR", str(user))
    assert store.get_value("mode", project) == "yolo"
    assert store.get_value("guards.secret_read", project) is True
    assert store.load_effective(project)["guards"]["secret_read"] is True


REFUSED = ["cat .env", "cat .env | head -3", "grep API_KEY .env.local", "head -n 2 config/master.key", "cat .env*",
           "cd config && cat master.key", "bash -c 'cat .env'", "sudo cat .env", "X=1 tail .env", "git show HEAD:.env",
           "echo $(cat .env)", "sort < .env", "git diff .env"]
ALLOWED = ["cat .env.example", "cp .env.example .env", "echo API_KEY=x >> .env", "ls -la .env",
           "git add .env", "wc -l < .env", "sed -i s/A/B/ .env", "cat notes.md", "grep -rn TODO src", "node -e 'process.env.X'"]


@pytest.mark.parametrize("command", REFUSED)
def test_a_bash_command_that_prints_a_secret_is_refused(project, decide, command):
    reason = decide(project, "Bash", {"command": command})
    assert reason and reason.startswith("msd guard: this command is refused: it would print ")


@pytest.mark.parametrize("command", ALLOWED)
def test_a_bash_command_that_does_not_print_one_goes_ahead(project, decide, command):
    assert decide(project, "Bash", {"command": command}) is None


def test_a_huge_command_is_refused_and_a_padded_one_read_whole(project, decide):
    """Padding no longer hides a read: a command past 64 KiB is read to its end, and one past what
    the guard reads (MAX_SCAN) is refused with the reason and what to do instead."""
    from msd_core.hooks import secret_bash

    padded = decide(project, "Bash", {"command": "true " + "x" * (70 << 10) + " ; cat .env"})
    assert padded and "it would print .env" in padded
    huge = decide(project, "Bash", {"command": "cat notes.md " + "x" * (secret_bash.MAX_SCAN + 1) + " .env"})
    assert huge.startswith("msd guard: this command is refused: it is ") and "Run it as shorter commands" in huge
    assert decide(project, "Bash", {"command": "cat .env 'unbalanced"})  # an open quote runs to the end: still read
    assert decide(project, "Bash", {"command": 7}) is None


def test_a_command_not_read_whole_goes_ahead_only_when_it_names_no_secret(project, decide):
    """Every Bash call reaches the guard, so a long here-document writing an ordinary file must not be
    refused for its length; one that names a secret in any spelling the guard knows (any case,
    quotes inside the name, an ANSI-C string) still is, as is a pattern of the project's own."""
    from msd_core.hooks import secret_bash

    body = "the environment, a monkey's key, package.json\n" * ((secret_bash.MAX_SCAN >> 5) + 1)
    assert len(body) > secret_bash.MAX_SCAN
    assert decide(project, "Bash", {"command": f"cat > notes.md <<'EOF'\n{body}EOF"}) is None
    for hidden in ("cat .E''NV", "cat $'\\x2eenv'", "less id_RSA"):
        refused = decide(project, "Bash", {"command": f"{hidden} # {body}"})
        assert refused and "KiB long, more than the guard reads" in refused, hidden
    (project / ".planning" / "config.json").write_text(json.dumps({"guards": {"secret_files": ["*.kdbx"]}}))
    assert decide(project, "Bash", {"command": f"less vault.KDBX # {body}"})


def test_sourcing_and_copying_are_refused_with_their_own_reason(project, decide):
    sourced = decide(project, "Bash", {"command": "source .env && npm test"})
    assert "it would source .env, and its values could then be printed" in sourced
    assert "let it load the file itself" in sourced
    copied = decide(project, "Bash", {"command": "cp .env notes.txt"})
    assert "it would copy .env to notes.txt, where the guard no longer sees it" in copied
    assert decide(project, "Bash", {"command": "cp .env .env.bak"}) is None  # the copy keeps a guarded name
    os.mkdir(project / "backup")
    assert decide(project, "Bash", {"command": "cp .env backup"}) is None  # backup/.env
    assert "move .env to notes.txt" in decide(project, "Bash", {"command": "mv .env notes.txt"})


def test_grep_is_guarded_on_its_path_and_glob(project, decide):
    assert "this search is refused: it would show lines of" in decide(project, "Grep", {"pattern": "K", "path": ".env"})
    assert decide(project, "Grep", {"pattern": "K", "glob": "**/.env.*"})
    assert decide(project, "Grep", {"pattern": "K", "glob": "*.json"}) is None  # every json file: not aimed
    assert decide(project, "Grep", {"pattern": "K", "path": ".env.example"}) is None
    assert decide(project, "Glob", {"pattern": "**/.env*"}) is None  # names only, as ls


def test_the_time_bound_refuses_rather_than_waves_through(project, decide, monkeypatch):
    from msd_core.hooks import secret_bash

    monkeypatch.setattr(secret_bash, "TIME_LIMIT", -1.0)  # every reading runs out of time at once
    reason = decide(project, "Bash", {"command": "cat notes.md .ENV"})
    assert reason and "too complex to check in time" in reason
    # one that names no secret in any spelling goes ahead: every Bash call reaches the guard
    assert decide(project, "Bash", {"command": "cat notes.md src/*.py"}) is None


def test_the_readme_documents_every_built_in_pattern():
    """README's Hooks section is the documented list: a pattern added to the code but not there fails."""
    from pathlib import Path

    from msd_core.hooks.secret_files import BUILT_IN, EXEMPT

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    hooks = readme.split("\n## Hooks\n", 1)[1].split("\n## ", 1)[0]
    assert [p for p, _what in BUILT_IN if f"`{p}`" not in hooks] == []
    assert [p for p in EXEMPT if f"`{p}`" not in hooks] == []
