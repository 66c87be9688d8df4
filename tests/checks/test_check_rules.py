"""Content guards: each fixture tree breaks exactly one rule, and the check names rule, file and line.

Expected (rule, file, line) triples are written by hand from the fixture files (line numbers
checked with grep), never produced by the code under test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from msd_core.checks import run_checks
from msd_core.checks.model import ContentTree, Locations
from msd_core.checks.textlines import is_trivial, normalise

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "content"
PLAN = "msd-core/workflows/plan.md"
PART1 = "msd-core/workflows/plan/detail/01-context.md"
PART2 = "msd-core/workflows/plan/detail/02-commit.md"

EXPECTED = {
    "size": {("size", PART1, 0)},
    "partition-disjoint": {("partition.disjoint", PART1, 5)},
    "partition-registration": {
        ("partition.registration", PLAN, 11),
        ("partition.registration", "msd-core/workflows/plan/detail/03-extra.md", 0),
    },
    "partition-protected": {("partition.protected", PLAN, 26), ("partition.protected", PART1, 14)},
    "includes": {("includes", "commands/msd/plan.md", 9), ("includes", PLAN, 7), ("includes", PART2, 11)},
    # stage-everything lines in a part, a bare `git commit` in a whole workflow and in a flow prompt
    "commit-scope": {("commit-scope", PART2, 6), ("commit-scope", PART2, 7), ("commit-scope", PART2, 10),
                     ("commit-scope", "msd-core/workflows/notes.md", 5), ("commit-scope", "msd-core/flows/plan.toml", 8)},
    # notes.md:6 abbreviates --status (argparse would accept `--stat`); plan.toml:8 is a flow prompt
    "contract": {("contract", "agents/msd-checker.md", 6), ("contract", PLAN, 26), ("contract", PLAN, 29),
                 ("contract", "msd-core/workflows/notes.md", 5), ("contract", "msd-core/workflows/notes.md", 6),
                 ("contract", "msd-core/flows/plan.toml", 8)},
    # a part's `state patch --set-session` (the spine names state patch, not that option), `git tag`,
    # a .gitignore instruction; its `config get` is read-only and passes
    "floor": {("floor", PART1, 14), ("floor", PART1, 15), ("floor", PART1, 16)},
    # a derived status and a placeholder; "Tests failing" (kept by the runtime) passes
    "statuses": {("statuses", PLAN, 26), ("statuses", PLAN, 27)},
    "shell-context": {
        ("shell-context", "commands/msd/notes.md", 7),
        ("shell-context", "commands/msd/peek.md", 1),
        ("shell-context", "commands/msd/peek.md", 7),
        ("shell-context", "commands/msd/plan.md", 7),
        ("shell-context", "commands/msd/wide.md", 5),
        ("shell-context", "msd-core/workflows/notes.md", 5),
    },
    "flows": {("flows", "msd-core/flows/notes.toml", 9), ("flows", "msd-core/flows/plan.toml", 10)},
    # a prompt naming <plan>, which only that step reports: the literal placeholder, then a stale value
    "flow-placeholders": {("flow-placeholders", "msd-core/flows/plan.toml", 8)},
    "generated": {("generated", "INVENTORY.md", 0), ("generated", "msd-core/registry.json", 14)},
    "agreement": {("template-headings", "msd-core/references/summary-notes.md", 4),
                  ("deviation-labels", "msd-core/references/summary-notes.md", 7),
                  ("deviation-labels", "msd-core/references/summary-notes.md", 8)},
    # `status` and `mode` have readers (route.py's strings, the config schema); these do not
    "template-fields": {("template-fields", "msd-core/templates/state.md", 2),
                        ("template-fields", "msd-core/templates/state.md", 9),
                        ("template-fields", "msd-core/templates/config.json", 3),
                        ("template-fields", "msd-core/templates/config.json", 4)},
}


def triples(report):
    return {(v.rule, v.file, v.line) for v in report.violations}


def test_passing_fixture_is_clean():
    report = run_checks(FIXTURES / "pass")
    assert report.violations == []
    assert report.exit_code == 0
    assert report.files_checked == 11


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_breaks_exactly_its_rule(name):
    report = run_checks(FIXTURES / name)
    assert triples(report) == EXPECTED[name]
    assert report.exit_code == 1
    for v in report.violations:
        assert v.message and v.fix  # every violation says what and how to fix it


def test_every_rule_has_a_failing_fixture():
    rules = {rule for triples_ in EXPECTED.values() for rule, _, _ in triples_}
    assert {"size", "partition.disjoint", "partition.registration", "partition.protected", "includes",
            "commit-scope", "contract", "shell-context", "flows", "generated", "template-headings",
            "deviation-labels", "template-fields", "floor", "statuses", "flow-placeholders"} <= rules


# --- building blocks -------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    """A writable copy of the passing fixture."""
    dest = tmp_path / "tree"
    shutil.copytree(FIXTURES / "pass", dest)
    return dest


def check_rule(root: Path, rule: str) -> set[tuple[str, int]]:
    """(file, line) of the violations of one rule, generated files refreshed first."""
    report = run_checks(root, write=True)
    return {(v.file, v.line) for v in report.violations if v.rule == rule}


def all_rules(root: Path) -> set[str]:
    return {v.rule for v in run_checks(root, write=True).violations}


@pytest.mark.parametrize("line, trivial", [
    ("", True), ("   ", True), ("---", True), ("|---|---:|", True), ("```bash", True), ("~~~", True),
    ("## Steps", True), ("</step>", True), ("<process>", True), ("<!-- msd:protected -->", True),
    ("fi", True), ("done", True), ("1.", True),
    ("## A heading long enough to be a real sentence", False),
    ('<step name="commit">', False), ("Commit the plans.", False), ("- Load PROJECT.md", False),
])
def test_trivial_line_definition(line, trivial):
    assert is_trivial(normalise(line)) is trivial


def test_normalise_collapses_whitespace():
    assert normalise("  a\t b   c ") == "a b c"


def test_tree_roles(tree):
    t = ContentTree(tree)
    assert t.role(PLAN) == "spine"
    assert t.role(PART1) == "part"
    assert t.role("msd-core/workflows/notes.md") == "whole"
    assert t.role("agents/msd-checker.md") == "other"


def test_locations_for_shipped_and_other_trees(tmp_path):
    repo = tmp_path / "repo"
    (repo / "msd_core" / "content").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("")
    shipped = Locations.for_root(repo / "msd_core" / "content")
    assert shipped.tiers == repo / "msd_core/checks/size_tiers.toml"
    assert shipped.inventory == repo / "docs/INVENTORY.md"
    other = Locations.for_root(tmp_path)
    assert other.inventory == tmp_path / "INVENTORY.md"
    assert other.tiers.name == "size_tiers.toml" and other.tiers.parent.name == "checks"  # packaged default


# --- size ----------------------------------------------------------------------------------


def _grow(path: Path, size: int) -> None:
    text = path.read_text()
    line = "Filler sentence that only adds bytes to this file for the size test.\n"
    while len(text.encode()) < size:
        text += line
    path.write_text(text)


def test_workflow_within_its_tier_passes_and_over_it_fails(tree):
    spine = tree / PLAN
    _grow(spine, 40_000)  # DEFAULT tier: <= 40,960
    assert check_rule(tree, "size") == set()
    _grow(spine, 41_000)
    assert check_rule(tree, "size") == {(PLAN, 0)}


def test_unlisted_file_has_the_hard_cap(tree):
    ref = tree / "msd-core/references/gate.md"
    _grow(ref, 32_700)
    assert check_rule(tree, "size") == set()
    _grow(ref, 32_800)
    assert check_rule(tree, "size") == {("msd-core/references/gate.md", 0)}


def test_sizes_are_lf_normalised(tree):
    ref = tree / "msd-core/references/gate.md"
    _grow(ref, 32_300)
    crlf = ref.read_bytes().replace(b"\n", b"\r\n")
    assert len(crlf) > 32_768
    ref.write_bytes(crlf)
    assert check_rule(tree, "size") == set()


def test_tier_file_problems_are_reported(tree):
    (tree / "size_tiers.toml").write_text('[workflows]\nDEFAULT = ["plan", "ghost"]\nHUGE = ["notes"]\n[agents]\nLARGE = ["checker"]\nDEFAULT = ["checker"]\n')
    found = check_rule(tree, "size")
    assert ("size_tiers.toml", 2) in found  # ghost does not exist
    assert ("size_tiers.toml", 3) in found  # unknown tier
    assert ("size_tiers.toml", 6) in found  # listed twice


def test_unparsable_tier_file_is_a_violation(tree):
    (tree / "size_tiers.toml").write_text("[workflows\n")
    assert ("size_tiers.toml", 1) in check_rule(tree, "size")


def test_agent_tiers(tree):
    agent = tree / "agents/msd-checker.md"
    _grow(agent, 45_000)
    assert check_rule(tree, "size") == {("agents/msd-checker.md", 0)}
    (tree / "size_tiers.toml").write_text('[workflows]\nDEFAULT = ["plan"]\n[agents]\nLARGE = ["checker"]\n')
    assert check_rule(tree, "size") == set()


# --- partition ---------------------------------------------------------------------------


def test_part_without_spine(tree):
    d = tree / "msd-core/workflows/orphan/detail"
    d.mkdir(parents=True)
    (d / "01-a.md").write_text("A part whose workflow has no spine at all.\n")
    assert check_rule(tree, "partition.registration") == {("msd-core/workflows/orphan/detail/01-a.md", 0)}


def test_trivial_lines_may_repeat_across_spine_and_part(tree):
    part = tree / PART1
    part.write_text(part.read_text() + "\n## Steps\n\n---\n")
    assert check_rule(tree, "partition.disjoint") == set()


@pytest.mark.parametrize("text, line", [
    ("<!-- msd:protected:end -->\n", 26),
    ("<!-- msd:protected:start -->\n<!-- msd:protected:start -->\nx y z w v u\n<!-- msd:protected:end -->\n", 27),
    ("<!-- msd:protected -->\n\nnot covered\n", 26),
    ("<!-- msd:protected:begin -->\n", 26),
])
def test_protected_marker_problems(tree, text, line):
    spine = tree / PLAN
    spine.write_text(spine.read_text() + "\n" + text)  # the spine has 24 lines; appended text starts on 26
    assert check_rule(tree, "partition.protected") == {(PLAN, line)}


# --- includes ------------------------------------------------------------------------------


@pytest.mark.parametrize("include, ok", [
    ("@~/.claude/msd-core/references/gate.md", True),
    ("@~/.claude/agents/msd-checker.md", True),
    ("@~/.claude/skills/msd-notes/SKILL.md", True),
    ("@.planning/phases/<phase-dir>/CONTEXT.md", True),
    ("@~/.claude/msd-core/../msd-core/references/gate.md", False),
    ("@.planning/../secrets.txt", False),
    ("@~/.claude/commands/msd/notes.md", False),  # source path, not installed path
    ("@$ARGUMENTS", False),
    ("  @/etc/passwd", False),
])
def test_include_targets(tree, include, ok):
    cmd = tree / "commands/msd/notes.md"
    cmd.write_text(cmd.read_text() + include + "\n")
    assert check_rule(tree, "includes") == (set() if ok else {("commands/msd/notes.md", 7)})


def test_at_lines_inside_fenced_code_are_not_includes(tree):
    cmd = tree / "commands/msd/notes.md"
    cmd.write_text(cmd.read_text() + "```python\n@pytest.fixture\n```\n")
    assert check_rule(tree, "includes") == set()


# --- commit scope -------------------------------------------------------------------------


@pytest.mark.parametrize("text, bad", [
    ("git add -A", True), ("git add --all", True), ("git add .", True), ("git add -u", True),
    ("git commit -a -m 'x'", True), ("git commit --all -m x", True), ("git commit -am x", True),
    ("git commit -av", True), ("msd_run commit 'docs: x'", True),
    ("`msd_run commit -m 'docs: x' --plan p`", True), ("msd_run commit -m x --files a.py", False),
    ("msd_run commit -m x -- a.py b.py", False), ("`msd_run commit --plan <plan-path> --list`", False),
    ("commit through `msd_run commit` only", False),
    ("git add src/a.py .planning/STATE.md", False), ("git add .planning/x.md", False),
    # every other git commit is bare: commits go through msd_run commit (issue 28, seam 8)
    ("git commit -m 'add a feature'", True), ("git commit -ma", True),
    ('git commit -m "fix -a flag"', True), ("`git add a.py b.py && git commit -m x`", True),
    ("Never a bare `git commit`; always `msd_run commit --files a.py -m x`.", False),
    ("Never use `git add -A`.", False), ("Do not run git commit -a here.", False),
    ("Never `git add -A`, `git add --all`, `git add .`, `git add -u` or `git commit -a`.", False),
    ("Do not stop here. Then run `git add -A`.", True),
    # committing STATE.md syncs it, which may tick ROADMAP.md's boxes: both are named (issue 45)
    ("`msd_run commit --files .planning/phases/01-x/01-UAT.md .planning/STATE.md -m x`", True),
    ("`msd_run commit -m x -- .planning/STATE.md`", True),
    ("`msd_run commit --files .planning/STATE.md .planning/ROADMAP.md -m x`", False),
    ("`msd_run commit --files a.md -m x -- .planning/ROADMAP.md .planning/STATE.md`", False),
])
def test_commit_scope_patterns(tree, text, bad):
    part = tree / PART2
    part.write_text(part.read_text() + text + "\n")
    lines = len(part.read_text().splitlines())
    found = check_rule(tree, "commit-scope")
    assert found == ({(PART2, lines)} if bad else set())


# --- field spelling (issue 45) ---------------------------------------------------------------


ROADMAP_TEMPLATE = "# Roadmap\n\n### Phase 1: {{Name}}\nGoal: {{goal}}\nRequirements: {{CAT}}-01\n**Owner**: {{who}}\n"


@pytest.mark.parametrize("text, bad", [
    ("Collect the IDs of the roadmap's `**Requirements**:` lines.", True),  # new-project's old detail line
    ("Check its `**Requirements:**` line.", True),
    ("Collect the IDs of the roadmap's `Requirements:` lines.", False),
    ("The phase's `Requirements:` count (`**Requirements**:` in older roadmaps).", False),
    ("Fill `**Owner**:` as the template does.", False),  # the template writes that one bold
    ("A `**Goal**:` line.", True),
])
def test_field_spelling_follows_the_template(tree, text, bad):
    (tree / "msd-core/templates/roadmap.md").write_text(ROADMAP_TEMPLATE)
    part = tree / PART2
    part.write_text(part.read_text() + text + "\n")
    lines = len(part.read_text().splitlines())
    assert check_rule(tree, "field-spelling") == ({(PART2, lines)} if bad else set())


# --- contract ------------------------------------------------------------------------------


@pytest.mark.parametrize("text, bad", [
    ("`msd_run config get workflow.research --raw`", False),
    ("`msd_run config get <key> --raw`", False),
    ('`msd_run config get "$KEY" --raw || true`', False),
    ("`X=$(msd_run config get mode --raw 2>/dev/null)`", False),
    ("`msd_run state get | head -5`", False),
    ("`msd_run state get > /tmp/state.json`", False),
    ("`command -v msd_run`", False),
    ("`msd_run`", False),
    ("`msd_run config get mode --nope`", True),
    ("`msd_run no-such-command`", True),
    ("`msd_run <command> get`", True),
    ("`msd_run config get 'unterminated`", True),
    ("`msd_run state patch --set-session \"plan <NN>-<PP> at task <n>\"`", True),  # upper-case placeholders
    ("`msd_run state patch --set-session \"plan <nn>-<pp> at task <n>\"`", False),
    ("`msd_run history-digest --phase <Phase>`", True),
    ("`msd_run extensions planner --phase-dir <phase-dir> --root ~/.claude/msd-core --raw`", False),
    ("`git log --oneline --grep \"(<NN>-<PP>)\"` then `ls .planning/phases/<NN>-<slug>/`", False),
    ("`msd_run config get <key> <value> <extra>`", True),
])
def test_contract_invocations(tree, text, bad):
    ref = tree / "msd-core/references/gate.md"
    ref.write_text(ref.read_text() + text + "\n")
    found = check_rule(tree, "contract")
    assert found == ({("msd-core/references/gate.md", 4)} if bad else set())


def test_contract_upper_case_placeholder_message_names_them(tree):
    ref = tree / "msd-core/references/gate.md"
    ref.write_text(ref.read_text() + "`msd_run next-step --workflow plan-phase --var phase=<NN> --var x=<NN>`\n")
    [v] = [v for v in run_checks(tree).violations if v.rule == "contract"]
    assert v.line == 4 and v.message.endswith("uses upper-case placeholder(s) <NN>") and "<nn>" in v.fix


def test_contract_reads_fenced_continuations(tree):
    ref = tree / "msd-core/references/gate.md"
    ref.write_text(ref.read_text() + "```bash\nmsd_run config get mode \\\n  --bogus\n```\n")
    assert check_rule(tree, "contract") == {("msd-core/references/gate.md", 5)}


# --- shell context ------------------------------------------------------------------------


@pytest.mark.parametrize("line, ok", [
    ("!`msd_run resolve plan --emit --root ~/.claude/msd-core || true`", True),
    ("!`msd_run resolve plan --emit --max-chars 20000 --root ~/.claude/msd-core || true`", True),
    ("!`msd_run  resolve plan --emit --root ~/.claude/msd-core --max-chars 9000 ||  true`", True),
    ("!`msd_run resolve <stem> --emit --root ~/.claude/msd-core || true`", False),
    ("!`msd_run resolve ${1} --emit --root ~/.claude/msd-core || true`", False),
    ("!`msd_run resolve $1 --emit --root ~/.claude/msd-core || true`", False),
    ("!`msd_run resolve ghost --emit --root ~/.claude/msd-core || true`", False),
    ("!`msd_run resolve plan --emit --root ~/.claude/msd-core`", False),
    ("!`msd_run resolve plan --emit --root ~/.claude/msd-core || true; rm -rf ~`", False),
    ("!`msd_run resolve plan --emit --max-chars 1 --root ~/.claude/msd-core --max-chars 2 || true`", False),
    ("!`msd_run resolve plan --emit --max-chars many --root ~/.claude/msd-core || true`", False),
    ("!`msd_run config get mode`", False),
    ("!`msd_run resolve plan$(id) --emit --root ~/.claude/msd-core || true`", False),
    ("!`msd_run resolve plan;id --emit --root ~/.claude/msd-core || true`", False),
])
def test_shell_context_forms(tree, line, ok):
    cmd = tree / "commands/msd/plan.md"
    text = cmd.read_text().replace("!`msd_run resolve plan --emit --root ~/.claude/msd-core || true`", line)
    cmd.write_text(text)
    assert check_rule(tree, "shell-context") == (set() if ok else {("commands/msd/plan.md", 7)})


def test_shell_context_needs_the_exact_permission(tree):
    cmd = tree / "commands/msd/plan.md"
    cmd.write_text(cmd.read_text().replace("Bash(msd_run resolve plan --emit *)", "Bash(msd_run *)"))
    assert check_rule(tree, "shell-context") == {("commands/msd/plan.md", 1)}


def test_shell_context_permission_as_a_yaml_list(tree):
    cmd = tree / "commands/msd/plan.md"
    cmd.write_text(cmd.read_text().replace("allowed-tools: Read, Write, Bash(msd_run resolve plan --emit *)",
                                           "allowed-tools:\n  - Read\n  - Bash(msd_run resolve plan --emit *)"))
    assert check_rule(tree, "shell-context") == set()


def test_shell_context_fenced_block_with_the_allowed_line_passes(tree):
    cmd = tree / "commands/msd/plan.md"
    cmd.write_text(cmd.read_text().replace("!`msd_run resolve plan --emit --root ~/.claude/msd-core || true`",
                                           "```!\nmsd_run resolve plan --emit --root ~/.claude/msd-core || true\n```"))
    assert check_rule(tree, "shell-context") == set()


# --- generated files, encoding ---------------------------------------------------------------


def test_inventory_lists_every_file_with_bytes_tier_and_role(tree):
    run_checks(tree, write=True)
    inv = (tree / "INVENTORY.md").read_text()
    assert f"| `{PLAN}` | 787 | DEFAULT | <=40960 | spine |" in inv  # 787 = wc -c of the fixture spine
    assert f"| `{PART1}` | 217 | part | <32768 | part |" in inv
    assert "| `msd-core/workflows/notes.md` | 150 | CAP | <32768 | whole |" in inv
    assert "size_tiers.toml" not in inv.split("| file |")[1]  # the tier file is not content


def test_write_reports_what_it_wrote_and_then_nothing(tree):
    (tree / "INVENTORY.md").unlink()
    first = run_checks(tree, write=True)
    assert first.wrote == ["INVENTORY.md"] and first.violations == []
    assert run_checks(tree, write=True).wrote == []


def test_adding_a_workflow_makes_the_registry_stale(tree):
    (tree / "msd-core/workflows/extra.md").write_text("# Extra\n\nAn extra workflow with one sentence.\n")
    rules = {v.rule: v for v in run_checks(tree).violations}
    assert "generated" in rules


def test_non_utf8_text_is_a_violation(tree):
    (tree / "msd-core/references/latin.md").write_bytes(b"caf\xe9\n")
    report = run_checks(tree, write=True)
    assert {(v.rule, v.file) for v in report.violations} == {("encoding", "msd-core/references/latin.md")}


# --- guards on the checker's own inputs --------------------------------------------------------


def test_command_whose_module_is_missing_is_unknown(tree, monkeypatch):
    from msd_core.run import dispatch

    monkeypatch.setitem(dispatch.COMMANDS, "ghost", ("msd_core.run.cmd_ghost_does_not_exist", "test"))
    ref = tree / "msd-core/references/gate.md"
    ref.write_text(ref.read_text() + "`msd_run ghost`\n")
    report = run_checks(tree, write=True)
    [v] = [v for v in report.violations if v.rule == "contract"]
    assert (v.file, v.line) == ("msd-core/references/gate.md", 4)
    assert "unknown msd_run command 'ghost'" in v.message


def test_command_whose_module_fails_to_import_is_a_violation_not_a_crash(tree, tmp_path, monkeypatch):
    from msd_core.run import dispatch

    pkg = tmp_path / "mods"
    pkg.mkdir()
    (pkg / "broken_cmd_for_test.py").write_text("raise RuntimeError('half written')\n")
    monkeypatch.syspath_prepend(str(pkg))
    monkeypatch.setitem(dispatch.COMMANDS, "broken", ("broken_cmd_for_test", "test"))
    ref = tree / "msd-core/references/gate.md"
    ref.write_text(ref.read_text() + "`msd_run broken --x`\n")
    [v] = [v for v in run_checks(tree, write=True).violations if v.rule == "contract"]
    assert "failed to load" in v.message and "half written" in v.message


def test_unclosed_frontmatter_fails_the_shell_context_check(tree):
    cmd = tree / "commands/msd/plan.md"
    cmd.write_text(cmd.read_text().replace("allowed-tools: Read, Write, Bash(msd_run resolve plan --emit *)\n---\n",
                                           "allowed-tools: Read, Write, Bash(msd_run resolve plan --emit *)\n"))
    assert check_rule(tree, "shell-context") == {("commands/msd/plan.md", 1)}


def test_flows_fall_back_to_toml_parsing_without_the_schema_module(tree, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "msd_core.flows.schema", None)  # import now raises ImportError
    flow = tree / "msd-core/flows/plan.toml"
    assert check_rule(tree, "flows") == set()
    flow.write_text(flow.read_text() + "\n[[steps]\n")
    assert check_rule(tree, "flows") == {("msd-core/flows/plan.toml", 16)}  # 14 lines + blank + [[steps]


def test_unreadable_generated_file_is_stale(tree):
    (tree / "msd-core/registry.json").write_bytes(b"\xff\xfe{}")
    report = run_checks(tree)
    assert ("generated", "msd-core/registry.json", 0) in triples(report)


def test_missing_tier_file_for_the_shipped_layout_is_a_usage_error(tmp_path):
    from msd_core.errors import UsageError

    root = tmp_path / "msd_core" / "content"
    shutil.copytree(FIXTURES / "pass", root)
    with pytest.raises(UsageError):
        run_checks(root)


def test_installed_package_layout_has_no_inventory_to_check(tmp_path):
    """site-packages/msd_core/content: no pyproject.toml beside it, so no docs/INVENTORY.md is expected."""
    site = tmp_path / "site-packages"
    root = site / "msd_core" / "content"
    shutil.copytree(FIXTURES / "pass", root)
    (site / "msd_core" / "checks").mkdir()
    shutil.copy(FIXTURES / "pass" / "size_tiers.toml", site / "msd_core" / "checks" / "size_tiers.toml")
    assert Locations.for_root(root).inventory is None
    assert run_checks(root).violations == []
    (site / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # a source checkout: inventory expected
    assert ("generated", "docs/INVENTORY.md", 0) in triples(run_checks(root))


def test_unreadable_file_is_a_violation_not_a_crash(tree, monkeypatch):
    real = Path.read_bytes
    target = (tree / "msd-core/references/gate.md").absolute()

    def fake(self):
        if self.absolute() == target:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", fake)
    report = run_checks(tree)
    assert ("encoding", "msd-core/references/gate.md", 0) in triples(report)


def test_command_of_a_split_workflow_needs_its_resolve_line(tree):
    cmd = tree / "commands/msd/plan.md"
    line = "!`msd_run resolve plan --emit --root ~/.claude/msd-core || true`\n"
    cmd.write_text(cmd.read_text().replace(line, ""))
    assert check_rule(tree, "shell-context") == {("commands/msd/plan.md", 6)}  # the spine's @ line
    cmd.write_text(cmd.read_text().replace("@~/.claude/msd-core/references/gate.md\n", "@~/.claude/msd-core/references/gate.md\n" + line))
    assert check_rule(tree, "shell-context") == {("commands/msd/plan.md", 6)}  # present, but not right after the spine


def test_command_of_a_whole_workflow_needs_no_resolve_line(tree):
    cmd = tree / "commands/msd/notes.md"
    assert "resolve" not in cmd.read_text()
    assert check_rule(tree, "shell-context") == set()


def test_resolve_line_for_another_workflow_after_a_spine_fails(tree):
    cmd = tree / "commands/msd/plan.md"
    cmd.write_text(cmd.read_text().replace("resolve plan --emit", "resolve notes --emit").replace(
        "Bash(msd_run resolve plan --emit *)", "Bash(msd_run resolve notes --emit *)"))
    assert check_rule(tree, "shell-context") == {("commands/msd/plan.md", 6)}


def test_a_command_whose_frontmatter_is_no_yaml_is_refused(tmp_path):
    """An unquoted `: ` in a description (what broke the install of a new command once)."""
    tree = tmp_path / "content"
    shutil.copytree(Path(__file__).resolve().parents[2] / "msd_core" / "content", tree)
    assert not [v for v in run_checks(tree).violations if v.rule == "frontmatter"]
    stats = tree / "commands" / "msd" / "stats.md"
    stats.write_text(stats.read_text().replace("description: Show the project in numbers (", "description: Numbers: ("))
    agent = tree / "agents" / "msd-planner.md"
    agent.write_text(agent.read_text().replace("description:", "summary:", 1))
    found = {(v.rule, v.file, v.line) for v in run_checks(tree).violations if v.rule == "frontmatter"}
    assert found == {("frontmatter", "commands/msd/stats.md", 1), ("frontmatter", "agents/msd-planner.md", 1)}


def test_a_command_named_outside_its_profile_is_a_violation(tree):
    """Rule named-commands: the fixture's commands (plan, notes) are in the full profile only, so a
    shared reference naming /msd-plan breaks the core profile; one naming a command that does not
    exist breaks both; the installed folder (`~/.claude/msd-core`, `/msd-core/`) is no command."""
    gate = tree / "msd-core" / "references" / "gate.md"
    gate.write_text(gate.read_text() + "Plan with `/msd-plan` first; see ~/.claude/msd-core/ and x/msd-core/.\n"
                    "Or run /msd-nowhere.\n")
    report = run_checks(tree, write=True)
    found = sorted((v.line, v.message) for v in report.violations if v.rule == "named-commands")
    assert found == [(4, "names /msd-plan, which the core profile does not install"),
                     (5, "names /msd-nowhere, which the core profile does not install"),
                     (5, "names /msd-nowhere, which the full profile does not install")]
    assert all(v.file == "msd-core/references/gate.md" for v in report.violations if v.rule == "named-commands")


def test_flow_placeholder_reported_on_one_branch_only_is_refused():
    """A field reported on one path to a step does not supply its prompt on the other path."""
    from msd_core.checks import flow_vars
    from msd_core.flows.schema import parse_flow

    text = "\n".join([
        'workflow = "w"', "version = 1", 'start = "ask"', "[inputs]", 'phase = "p"',
        "[[steps]]", 'id = "ask"', 'action = "run"', 'prompt = "Ask about <phase>."',
        'expects = { fields = { deep = "bool" } }', 'next = "use"',
        "[[steps.when]]", 'if = "result.deep == true"', 'goto = "dig"',
        "[[steps]]", 'id = "dig"', 'action = "run"', 'prompt = "Dig."', 'expects = { fields = { topic = "string" } }', 'next = "use"',
        "[[steps]]", 'id = "use"', 'action = "run"', 'prompt = "Use <topic> of <phase>."', 'next = "done"',
        "[[steps]]", 'id = "done"', 'action = "done"', ""])
    flow, errors = parse_flow(text, "w")
    assert errors == []
    found = flow_vars.problems(flow)
    assert [s for s, _ in found] == ["use"] and "<topic>" in found[0][1] and "always runs before" in found[0][1]
