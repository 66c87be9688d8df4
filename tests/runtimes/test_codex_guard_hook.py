"""msd's guard hook in Codex CLI: the `hooks.PreToolUse` group the codex install adds to hooks.json
(msd_core/runtimes/codex_hooks.py, hook_settings.py), msd's own `pre-tool-use` event (Codex reads
Claude Code's payload and answer), with the install guarantees: the user's own hooks and bytes kept,
uninstall giving the files back byte for byte. The real CLI: tests/runtimes/test_client_guards_cli.py."""

from __future__ import annotations

from msd_core.files.jsonedit import loads
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.runtimes.test_client_guard_hooks import _project, _tree

USER = '{"hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "echo mine"}]}]}}\n'
MINE = {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "echo mine"}]}


def test_codex_group_is_added_beside_the_users_hooks_and_uninstall_restores_the_bytes(tmp_path):
    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime="codex")
    t.config.mkdir(parents=True)
    (t.config / "hooks.json").write_text(USER)
    before = _tree(project)
    install(t, profile="core")
    assert loads((t.config / "hooks.json").read_text())["hooks"]["PreToolUse"] == [MINE, {"matcher": "^(Bash|apply_patch)$", "hooks": [
        {"type": "command", "command": "msd_run hook pre-tool-use --root .codex/msd-core", "timeout": 30}]}]
    assert (t.config / "rules/msd-core.rules").is_file()  # the own rules file is still installed
    uninstall(t)
    assert _tree(project) == before
