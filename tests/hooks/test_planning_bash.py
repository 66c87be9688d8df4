"""The planning guard's Bash half (msd_core/hooks/planning_bash.py through `msd_run hook pre-tool-use` and the
guard server): each way a shell command writes a file, against each kind of `.planning/` file the write
guard keeps, refused; the workflows' own commands (moves inside `.planning/`, appends, reads, msd_run) go
ahead. Before planning_bash.py every one of these commands went through unjudged."""

from __future__ import annotations

import json

import pytest

from msd_core.hooks import planning_bash

# each way of writing a file: the command for a target path
WRITES = {
    "redirect": "echo '{{}}' > {t}",
    "clobber": "echo x >| {t}",
    "both streams": "make &> {t}",
    "tee": "echo x | tee {t}",
    "sudo tee": "echo x | sudo tee {t} >/dev/null",
    "sed -i": "sed -i s/true/false/ {t}",
    "perl -pi": "perl -pi -e 's/a/b/' {t}",
    "perl -i.bak": "perl -i.bak -pe 's/a/b/' {t}",
    "sed -ni": "sed -ni '1p' {t}",
    "perl open": "perl -e 'open(F, \">{t}\"); close F'",
    "python append": "python3 -c \"open('{t}', 'a').write('x')\"",
    "cp": "cp /tmp/other {t}",
    "mv onto": "mv /tmp/other {t}",
    "install": "install -m 644 /tmp/other {t}",
    "rsync": "rsync -a /tmp/other {t}",
    "ln -sf": "ln -sf /tmp/other {t}",
    "dd of=": "dd if=/dev/zero of={t} count=1",
    "truncate": "truncate -s 0 {t}",
    "rm": "rm -f {t}",
    "rm glob": "rm -f {t}*",
    "find -delete": "find {t} -delete",
    "unlink": "unlink {t}",
    "shred": "shred -u {t}",
    "git rm": "git rm -q {t}",
    "bash -c": "bash -c 'echo > {t}'",
    "timeout wrapper": "timeout 5 sed -i s/a/b/ {t}",
    "env wrapper": "env A=1 truncate -s0 {t}",
    "substitution": "x=$(echo y > {t})",
    "here-doc to sh": "sh <<'EOF'\necho > {t}\nEOF",
    "variable": "F={t}; echo > $F",
    "python": "python3 -c \"open('{t}', 'w').write('')\"",
    "node": "node -e \"require('fs').writeFileSync('{t}', '')\"",
}
TARGETS = {"config": ".planning/config.json", "records": ".planning/.msd/guard/references.json",
           "flow state": ".planning/state.json", "document": ".planning/STATE.md",
           "roadmap": ".planning/ROADMAP.md", "summary": ".planning/phases/01-foundation/01-01-SUMMARY.md"}


@pytest.fixture()
def project(planning_project):
    pl = planning_project / ".planning"
    (pl / ".msd" / "guard").mkdir(parents=True)
    (pl / ".msd" / "guard" / "references.json").write_text("{}\n")
    (pl / "state.json").write_text('{"flow": "plan-phase"}\n')
    return planning_project


def bash(decide, proj, command, **extra):
    return decide(proj, "Bash", {"command": command}, **extra)


@pytest.mark.parametrize("target", TARGETS.values(), ids=list(TARGETS))
@pytest.mark.parametrize("form", WRITES.values(), ids=list(WRITES))
def test_every_write_form_of_every_kept_file_is_refused(project, decide, form, target):
    reason = bash(decide, project, form.format(t=target))
    assert reason and reason.startswith("msd guard: this command is refused: it would "), form
    assert target in reason
    assert "msd guard allow " + target in reason


@pytest.mark.parametrize("command,way", [
    ("sed -i s/true/false/ .planning/config.json", "msd config set guards."),
    ("echo '{}' > .planning/config.json", "msd_run config set"),
    ("rm .planning/.msd/guard/references.json", "msd_run keeps"),
    ("echo x >> .planning/state.json", "never changes it"),
    ("echo '' > .planning/STATE.md", "`msd_run state patch`"),
    ("truncate -s0 .planning/ROADMAP.md", "`msd_run phase remove <n>`"),
    ("rm .planning/REQUIREMENTS.md", "the Write or Edit tool"),
    ("rm -rf .planning/phases/02-accounts", "`msd_run phase remove <n>`"),
    ("rm -rf .planning", "the folder .planning and the documents in it"),
    ("find .planning -name '*.md' -exec rm {} +", "the folder .planning"),
    ("rsync -a --delete /tmp/empty/ .planning/phases/", "the folder .planning/phases"),
    ("mv .planning/STATE.md /tmp/", "move the document .planning/STATE.md"),
    ("mv .planning/config.json .planning/old.json", "config.json"),
    ("cd .planning && echo > STATE.md", ".planning/STATE.md"),
])
def test_each_refusal_names_the_way_forward(project, decide, command, way):
    reason = bash(decide, project, command)
    assert reason and way in reason


def test_from_inside_the_planning_folder_a_bare_name_is_judged(project, decide):
    """The call's cwd inside `.planning/`: the command need not spell `.planning` at all."""
    assert bash(decide, project / ".planning", "echo > STATE.md")
    assert bash(decide, project / ".planning", "ls -la") is None


@pytest.mark.parametrize("command", [
    "ls -la .planning",
    "cat .planning/STATE.md | head",
    "grep -n Phase .planning/ROADMAP.md > /tmp/phases.txt",
    "echo '- note' >> .planning/STATE.md",  # an append loses nothing
    "echo x | tee -a .planning/ROADMAP.md",
    "echo x &>> .planning/PROJECT.md",
    "mkdir -p .planning/milestones/v1.0-phases",
    "git mv .planning/phases/01-foundation .planning/milestones/v1.0-phases/01-foundation",
    "git mv .planning/REQUIREMENTS.md .planning/milestones/v1.0-REQUIREMENTS.md",
    "mv .planning/phases/02-accounts .planning/milestones/v1.0-phases/",
    "git rm -q .planning/phases/02-accounts/02-01-PLAN.md",  # a PLAN with no SUMMARY yet: a replan
    "rm .planning/.continue-here.md",  # the handoff resume-work deletes
    "rm -rf .planning/drafts/x",
    "rmdir .planning/phases/03-payments",  # an empty folder loses nothing
    "find .planning -name '*.md' -newer .planning/STATE.md",
    "git rm --cached .planning/STATE.md",
    "echo '# Notes' > .planning/research/NEW.md",  # a new document loses nothing
    "cp .planning/ROADMAP.md /tmp/roadmap.bak",
    "echo > /tmp/STATE.md; rm -rf build/.planning-cache",
    "msd_run state patch --set-session 'Paused'",
    "msd_run commit --files .planning/STATE.md .planning/ROADMAP.md -m 'docs: x'",
    "python3 -c \"print(open('.planning/STATE.md').read())\"",
    "echo hi > out.txt 2>/dev/null",
    # reads that look like writes to a careless reader: a json.dumps, a str.replace, perl -M, sed -n
    "python3 -c \"import json; print(json.dumps(json.load(open('.planning/config.json'))))\"",
    "python3 -c \"print(open('.planning/STATE.md').read().replace('a', 'b'))\"",
    "perl -Mstrict -ne 'print if /Phase/' .planning/ROADMAP.md",
    "sed -n '1,5p' .planning/STATE.md",
    "sed -E 's/x/y/' .planning/STATE.md > /tmp/state.txt",
])
def test_the_workflows_commands_and_reads_go_ahead(project, decide, command):
    assert bash(decide, project, command) is None


def test_a_plan_with_its_summary_is_history_and_is_not_deleted(project, decide):
    folder = project / ".planning" / "phases" / "02-accounts"
    (folder / "02-01-SUMMARY.md").write_text("---\nplan: 01\n---\n# Done\n")
    assert "02-01-PLAN.md" in bash(decide, project, "git rm -q .planning/phases/02-accounts/02-01-PLAN.md")


def test_a_move_inside_planning_that_replaces_a_document_is_refused(project, decide):
    assert "ROADMAP.md" in bash(decide, project, "mv .planning/PROJECT.md .planning/ROADMAP.md")


def test_planning_write_off_lets_documents_through_but_not_config_or_records(project, decide):
    (project / ".planning" / "config.json").write_text(json.dumps({"guards": {"planning_write": False}}))
    assert bash(decide, project, "echo > .planning/STATE.md") is None
    assert bash(decide, project, "rm -rf .planning/phases/02-accounts") is None
    assert bash(decide, project, "sed -i s/false/true/ .planning/config.json")  # as the write guard: guards are the user's
    assert bash(decide, project, "rm .planning/state.json")


def test_msd_guards_off_turns_it_off(project, decide, monkeypatch):
    monkeypatch.setenv("MSD_GUARDS", "off")
    assert bash(decide, project, "echo > .planning/STATE.md") is None


def test_msd_guard_allow_lets_one_change_through(project, decide):
    from msd_core.hooks import guard_memory

    guard_memory.grant(str(project / ".planning"), "STATE.md", 5)
    assert bash(decide, project, "echo '# State' > .planning/STATE.md") is None
    assert bash(decide, project, "echo '# State' > .planning/STATE.md")  # used up


def test_a_long_command_naming_planning_is_refused_and_one_without_costs_nothing(project, decide, monkeypatch):
    monkeypatch.setattr(planning_bash, "MAX_SCAN", 1000)
    long = "echo " + "x" * 2000
    assert "more than the guard reads" in bash(decide, project, long + " > .planning/NEW.md")
    assert bash(decide, project, long + " > notes.txt") is None

    def boom(*_a):
        raise AssertionError("read a command with no .planning in it")

    monkeypatch.setattr(planning_bash, "touches", boom)
    assert bash(decide, project, "rm -rf build; echo > out.txt") is None


def test_a_command_too_slow_to_read_is_refused(project, decide, monkeypatch):
    monkeypatch.setattr(planning_bash, "TIME_LIMIT", -1.0)
    command = "; ".join(["echo x"] * 3000) + "; echo > .planning/NEW.md"
    assert "too complex" in bash(decide, project, command)


def test_touches_reports_each_form():
    got = {(t.path, t.how) for t in planning_bash.touches(
        "echo a > f1; echo b >> f2; tee -a f3 < x; sed -i s/a/b/ f4; rm f5; mv f6 d/f7; dd of=f8; make &>> f9", None)}
    assert got == {("f1", "replace"), ("f2", "append"), ("f3", "append"), ("f4", "edit"), ("f5", "delete"),
                   ("d/f7", "replace"), ("f6", "move"), ("f8", "replace"), ("f9", "append")}


def _content_commands() -> list[str]:
    """The shell commands msd's content has the agent run on `.planning/` files (backticked, any workflow)."""
    import re
    from pathlib import Path

    import msd_core

    found = set()
    for path in (Path(msd_core.__file__).parent / "content").rglob("*"):
        if path.suffix in (".md", ".toml") and path.is_file():
            for span in re.findall(r"`([^`\n]+)`", path.read_text(encoding="utf-8")):
                words = span.split()
                if len(words) > 1 and (".planning" in span or "-path>" in span) and (
                        words[0] in ("rm", "mv", "cp", "tee", "sed", "truncate", "ln", "mkdir")
                        or words[:2] in (["git", "mv"], ["git", "rm"])):
                    found.add(span)
    return sorted(found)


def test_the_contents_own_shell_commands_on_planning_files_go_ahead(project, decide):
    """Every such command the content names (complete-milestone's archive moves, a replan's `git rm`, resume-work
    deleting its handoff), filled in, and its plain form (`mv`, `rm`: no git), is not refused."""
    pl = project / ".planning"
    (pl / "v1.0-MILESTONE-AUDIT.md").write_text("# Audit\n")
    (pl / "phases" / "02-accounts" / ".continue-here.md").write_text("# Handoff\n")
    (pl / "milestones" / "v1.0-phases").mkdir(parents=True)
    values = {"version": "v1.0", "nn": "02", "NN": "02", "slug": "accounts", "NNN": "001",
              "handoff-path": ".planning/phases/02-accounts/.continue-here.md",
              "plan-path": ".planning/phases/02-accounts/02-01-PLAN.md"}
    commands = _content_commands()
    assert any(c.startswith("git mv .planning/phases/") for c in commands) and any("<plan-path>" in c for c in commands)
    for template in commands:
        line = template
        for name, value in values.items():
            line = line.replace(f"<{name}>", value)
        assert "<" not in line, f"fill {template}"
        for form in (line, line.removeprefix("git ")):
            assert bash(decide, project, form) is None, form
