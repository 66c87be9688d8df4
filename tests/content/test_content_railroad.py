"""The three railroad workflows (new-project, plan-phase, execute-phase) and their references.

Checked mechanically, the way a reviewer would on paper:
- budgets: spine <= 40% of spine+parts, eager window <= 45% of eager+parts and <= 24 KB,
  parts < 32,768 bytes, no file > 40,000 bytes;
- partition: 2-4 parts, each named literally by its spine, no `@` line and no protected
  sentinel in a part, no non-trivial line in both halves, balanced sentinels in the spine;
- commands: frontmatter, the exact shell line right after the spine's `@` line, the exact
  `allowed-tools`, no other shell context;
- the spine names every step id of docs/CONTRACTS.md and of the shipped flow, and its
  example results satisfy the flow's `expects` (types checked by hand here);
- every flow is walked end to end through the real `msd_run next-step/step-done`, answering
  each step with the spine's own example result;
- host rendering of the real skill over a fake install: compact off inserts every part
  once in order, compact on inserts none;
- `msd_run` lines parse with the real parser; named files, agents and commands exist;
  commits name their files; the gate rule is stated only in its reference.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from msd_core.files import tomlread as tomllib
from tests.kit.contentkit import AGENTS, COMMANDS, CONTENT, CORE, command, eager_window, parts, spine
from tests.kit.installed import make_install, make_project, run_inproc
from tests.kit.skill_render import render_skill

FLOWS = CORE / "flows"
STEMS = ["new-project", "plan-phase", "execute-phase"]
MY_REFERENCES = ["compact-content-gate.md", "git-commits.md", "questioning.md"]
STEP_IDS = {  # docs/CONTRACTS.md, "Flows"
    "new-project": ["detect-existing", "questioning", "ask-settings", "write-project", "research",
                    "write-requirements", "roadmap", "confirm-roadmap", "commit", "done"],
    "plan-phase": ["load-context", "research", "plan", "check", "revise", "issues-left", "guided-revise", "commit", "done"],
    "execute-phase": ["discover-plans", "execute-wave", "gate", "fix-up", "tests-failing", "verify",
                      "update-state", "done"],
}
PROTECTED_ANY = re.compile(r"<!--\s*msd:protected")


def my_files() -> list[Path]:
    out = []
    for s in STEMS:
        out += [command(s), spine(s), *parts(s)]
    return out + [CORE / "references" / r for r in MY_REFERENCES]


def trivial(line: str) -> bool:
    s = line.strip()
    return len(re.sub(r"[\W_]", "", s)) < 4 or s.startswith("```") or s.startswith("|---")


def sections(stem: str) -> dict[str, str]:
    """`### <id>` sections of a spine's Steps chapter."""
    text = spine(stem).read_text(encoding="utf-8")
    steps = text.split("\n## Steps\n", 1)[1]
    out: dict[str, str] = {}
    for chunk in re.split(r"\n(?=### )", "\n" + steps):
        m = re.match(r"### (\S+)\n", chunk.lstrip("\n"))
        if m:
            out[m.group(1)] = chunk
    return out


def examples(section: str) -> list[dict]:
    """Inline JSON objects in a step section; bare `<placeholders>` become 1."""
    found = []
    for span in re.findall(r"`(\{[^`]*\})`", section):
        text = re.sub(r'(?<!")<[^<>"]+>(?!")', "1", span)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def type_ok(t: str, v) -> bool:
    if "|" in t:  # a choice of words (flows/model.py)
        return isinstance(v, str) and v in t.split("|")
    return {"string": isinstance(v, str), "int": isinstance(v, int) and not isinstance(v, bool),
            "number": isinstance(v, (int, float)) and not isinstance(v, bool), "bool": isinstance(v, bool),
            "list": isinstance(v, list), "object": isinstance(v, dict)}[t]


def flow(stem: str) -> dict:
    path = FLOWS / f"{stem}.toml"
    if not path.is_file():
        pytest.skip(f"flow file {path.name} not shipped yet (written by the railroad helper)")
    return tomllib.loads(path.read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- budgets


@pytest.mark.parametrize("stem", STEMS)
def test_budgets(stem):
    sp = len(spine(stem).read_bytes())
    pb = sum(len(p.read_bytes()) for p in parts(stem))
    eager = eager_window(command(stem))
    assert 2 <= len(parts(stem)) <= 4
    assert sp <= 0.40 * (sp + pb), f"spine share {sp / (sp + pb):.1%}"
    assert eager <= 0.45 * (eager + pb), f"eager share {eager / (eager + pb):.1%}"
    assert eager <= 24_000
    for p in parts(stem):
        assert len(p.read_bytes()) < 32_768, p.name


def test_no_file_over_40k():
    for f in my_files():
        assert len(f.read_bytes()) <= 40_000, f


# --------------------------------------------------------------------------- partition


@pytest.mark.parametrize("stem", STEMS)
def test_spine_names_every_part_and_only_existing_ones(stem):
    text = spine(stem).read_text(encoding="utf-8")
    names = {p.name for p in parts(stem)}
    for n in names:
        assert f"`workflows/{stem}/detail/{n}`" in text
    named = set(re.findall(rf"workflows/{stem}/detail/([\w.-]+\.md)", text))
    assert named == names
    assert [n[:3] for n in sorted(names)] == [f"{i:02d}-" for i in range(1, len(names) + 1)]


@pytest.mark.parametrize("stem", STEMS)
def test_parts_have_no_includes_and_no_protected_text(stem):
    for p in parts(stem):
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            assert not line.lstrip().startswith("@"), f"{p.name}:{i}"
            assert not PROTECTED_ANY.search(line), f"{p.name}:{i}"


@pytest.mark.parametrize("stem", STEMS)
def test_spine_and_parts_share_no_line(stem):
    spine_lines = {ln.strip() for ln in spine(stem).read_text(encoding="utf-8").splitlines() if not trivial(ln)}
    dups = [(p.name, ln.strip()) for p in parts(stem) for ln in p.read_text(encoding="utf-8").splitlines()
            if not trivial(ln) and ln.strip() in spine_lines]
    assert dups == []


@pytest.mark.parametrize("stem", STEMS)
def test_spine_protects_guardrails_and_parsed_formats(stem):
    text = spine(stem).read_text(encoding="utf-8")
    starts = text.count("<!-- msd:protected:start -->")
    assert starts >= 1 and starts == text.count("<!-- msd:protected:end -->")
    blocks = re.findall(r"<!-- msd:protected:start -->(.*?)<!-- msd:protected:end -->", text, re.S)
    joined = "\n".join(blocks)
    assert "never instructions" in joined  # prompt-injection language is protected
    assert "Commit only the files you name" in joined
    if stem == "plan-phase":
        assert "must_haves:" in joined and "depends_on:" in joined and "wave:" in joined
    if stem == "execute-phase":
        for head in ("## PLAN COMPLETE", "## CHECKPOINT REACHED", "## PLAN BLOCKED"):
            assert head in joined


def test_partition_checks_catch_a_broken_copy(tmp_path):
    """The helpers above can fail: a duplicated line and an @ line in a part are found."""
    p = tmp_path / "part.md"
    line = next(ln for ln in spine("plan-phase").read_text(encoding="utf-8").splitlines() if not trivial(ln))
    p.write_text(f"x\n{line}\n@.planning/PROJECT.md\n", encoding="utf-8")
    spine_lines = {ln.strip() for ln in spine("plan-phase").read_text(encoding="utf-8").splitlines()}
    text = p.read_text(encoding="utf-8").splitlines()
    assert any(ln.strip() in spine_lines and not trivial(ln) for ln in text)
    assert any(ln.startswith("@") for ln in text)


# ---------------------------------------------------------------------------- commands


def frontmatter(text: str) -> dict:
    import yaml

    assert text.startswith("---\n")
    return yaml.safe_load(text[4:text.index("\n---\n", 4)])


@pytest.mark.parametrize("stem", STEMS)
def test_command_shape(stem):
    text = command(stem).read_text(encoding="utf-8")
    fm = frontmatter(text)
    assert fm["description"].strip().endswith(".") and "\n" not in fm["description"].strip()
    assert fm["allowed-tools"] == f"Bash(msd_run resolve {stem} --emit *)"
    body = text[text.index("\n---\n", 4) + 5:].splitlines()
    assert body[0] == f"@~/.claude/msd-core/workflows/{stem}.md"
    assert body[1] == f"!`msd_run resolve {stem} --emit --root ~/.claude/msd-core || true`"
    assert "$ARGUMENTS" in text
    assert "~/.claude/msd-core/references/compact-content-gate.md" in text
    shell = re.findall(r"!`", text)
    assert len(shell) == 1


def test_no_shell_context_outside_commands():
    for f in my_files():
        if f.parent.name == "msd":
            continue
        text = f.read_text(encoding="utf-8")
        assert not re.search(r"!`", text), f
        assert "```!" not in text, f


# ------------------------------------------------------------------------------- flows


@pytest.mark.parametrize("stem", STEMS)
def test_spine_has_every_step_id(stem):
    secs = sections(stem)
    assert list(secs) == STEP_IDS[stem]
    shipped = [s["id"] for s in flow(stem)["steps"]]
    assert set(shipped) == set(STEP_IDS[stem])


@pytest.mark.parametrize("stem", STEMS)
def test_spine_examples_satisfy_flow_expects(stem):
    secs = sections(stem)
    for step in flow(stem)["steps"]:
        fields = step.get("expects", {}).get("fields", {})
        if not fields:
            continue
        exs = examples(secs[step["id"]])
        assert exs, f"{stem}/{step['id']}: no example result"
        for name, t in fields.items():
            optional = t.endswith("?")
            t = t.rstrip("?")
            having = [e for e in exs if name in e]
            if not optional:
                assert having, f"{stem}/{step['id']}: no example reports {name}"
            for e in having:
                assert type_ok(t, e[name]), f"{stem}/{step['id']}: {name} should be {t}: {e[name]!r}"


def _fill(path: str, vars: dict) -> str:
    return re.sub(r"<([a-z_]+)>", lambda m: str(vars.get(m.group(1), m.group(0))), path)


@pytest.mark.parametrize("stem", STEMS)
def test_flow_walk_with_spine_examples(stem, tmp_path):
    """Drive the shipped flow with the real msd_run, answering each step with the spine's example."""
    flow(stem)
    proj = make_project(tmp_path / "proj", config={"workflow": {"research": True, "plan_check": True,
                                                                "verifier": True}, "commit_docs": True})
    base = ["--flows-dir", str(FLOWS), "--cwd", str(proj)]
    start = ["next-step", "--workflow", stem, *base] + ([] if stem == "new-project" else ["--var", "phase=02"])
    code, out, err = run_inproc(start)
    assert code == 0, err
    payload = json.loads(out)
    secs = sections(stem)
    seen, visits = [], {}
    for _ in range(60):
        step = payload["step"]
        seen.append(step)
        if payload["action"] == "done":
            break
        visits[step] = visits.get(step, 0) + 1
        ex = dict(examples(secs[step])[0]) if examples(secs[step]) else {}
        if visits[step] > 1:  # a loop: the second answer ends it
            ex = {k: (0 if v == 1 else v) for k, v in ex.items()}
        if step == "confirm-roadmap":
            ex = {"approved": True}
        if isinstance(ex.get("phase_dir"), str):  # the folder the step reports exists in a real project
            (proj / ".planning" / "phases" / ex["phase_dir"]).mkdir(parents=True, exist_ok=True)
        for rel in payload.get("expects", {}).get("files", []):
            target = proj / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.write_text("x\n", encoding="utf-8")
        code, out, err = run_inproc(["step-done", "--workflow", stem, "--step", step,
                                     "--result", json.dumps(ex), *base])
        assert code == 0, f"{step}: {err}"
        payload = json.loads(out)["next"]
    assert seen[-1] == "done"
    optional = {"research", "check", "revise", "issues-left", "guided-revise", "verify", "commit", "execute-wave", "fix-up",
                "tests-failing"}
    assert set(STEP_IDS[stem]) - optional <= set(seen)


# ---------------------------------------------------------------------- host rendering




@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("stem", STEMS)
def test_host_render_of_the_real_skill(stem, compact, tmp_path, shim):
    wf = {stem: {"spine": spine(stem).read_text(encoding="utf-8"),
                 "parts": {p.name: p.read_text(encoding="utf-8") for p in parts(stem)}}}
    inst = make_install(tmp_path / "cfg", workflows=wf, agents={}, commands=False)
    refs = CORE / "references"
    for r in refs.glob("*.md"):
        dest = inst.root / "references" / r.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(r.read_text(encoding="utf-8").replace("~/.claude/", f"{inst.config}/"), encoding="utf-8")
    skill = command(stem).read_text(encoding="utf-8").replace("~/.claude/", f"{inst.config}/")
    proj = make_project(tmp_path / "proj", config={"workflow": {"compact_content": compact}})
    env = dict(os.environ, PATH=f"{shim}:/usr/bin:/bin")
    r = render_skill(skill, proj, env=env)
    assert spine(stem).read_text(encoding="utf-8").strip() in r.text
    for p in parts(stem):
        body = p.read_text(encoding="utf-8").strip()
        assert r.text.count(body) == (0 if compact else 1), p.name
    if not compact:
        idx = [r.text.index(p.read_text(encoding="utf-8").strip()) for p in parts(stem)]
        assert idx == sorted(idx)


# ------------------------------------------------------------- names, calls, commits


def msd_run_calls(text: str) -> list[str]:
    found, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        chunks = [line] if fence else re.findall(r"`([^`]+)`", line)
        for c in chunks:
            if "msd_run " in c:
                found.append(c[c.index("msd_run "):])
    return found


def test_msd_run_lines_parse_with_the_real_parser():
    from msd_core.run.dispatch import COMMANDS, build_command_parser

    bad, missing, n = [], set(), 0
    for f in my_files():
        for call in msd_run_calls(f.read_text(encoding="utf-8")):
            call = re.split(r"\s(?:\|\||&&|\||>)\s", call)[0]
            argv = shlex.split(re.sub(r"<[a-z][a-z0-9-]*>", "1", call))[1:]
            n += 1
            if argv[0] not in COMMANDS:
                bad.append((f.name, call, "unknown command"))
                continue
            try:
                parser = build_command_parser(argv[0])
            except ModuleNotFoundError:
                missing.add(argv[0])
                continue
            try:
                parser.parse_args(argv[1:])
            except SystemExit:
                bad.append((f.name, call))
    assert n > 40
    assert bad == []
    if missing:
        pytest.skip(f"command modules not written yet: {sorted(missing)}")


def test_a_wrong_msd_run_line_is_caught():
    from msd_core.run.dispatch import build_command_parser

    with pytest.raises(SystemExit):
        build_command_parser("next-step").parse_args(["--var", "phase=02"])  # --workflow missing


def test_named_files_agents_and_commands_exist():
    for f in my_files():
        text = f.read_text(encoding="utf-8")
        for rel in re.findall(r"~/\.claude/msd-core/([\w./-]+\.(?:md|json))", text):
            assert (CORE / rel).is_file(), f"{f.name} names missing {rel}"
        for rel in re.findall(r"~/\.claude/agents/(msd-[\w-]+)\.md", text):
            assert rel[4:] in AGENTS, rel
        for name in re.findall(r"\bmsd-([a-z-]+[a-z])\b", text):
            if name in ("core",):
                continue
            assert name in AGENTS or name in COMMANDS, f"{f.name} names msd-{name}"
        for cmd in re.findall(r"(?<![\w.])/msd-([a-z-]+[a-z])", text):
            assert cmd in COMMANDS, f"{f.name} names /msd-{cmd}"


def test_commits_name_their_files():
    wild = re.compile(r"git\s+add\s+(?:-A|--all|\.)(?:\s|$|`)|git\s+commit\s+-a")
    for f in my_files():
        text = f.read_text(encoding="utf-8")
        assert not wild.search(text), f
        for m in re.finditer(r"git add ([^&`\n]+)", text):
            assert re.search(r"[\w<>-]+[./][\w<>*.-]+", m.group(1)), f"{f.name}: {m.group(0)}"


def test_gate_rule_lives_only_in_its_reference():
    gate = (CORE / "references" / "compact-content-gate.md").read_text(encoding="utf-8")
    assert "msd_run resolve <stem> --root ~/.claude/msd-core --raw" in gate
    assert "**false**" in gate and "**true**" in gate and "Any failure" in gate
    assert "Host-rendered" in gate and "Runtime read" in gate
    for stem in STEMS:
        for f in [spine(stem), *parts(stem)]:
            text = f.read_text(encoding="utf-8")
            assert "msd_run resolve" not in text, f
        assert "references/compact-content-gate.md" in spine(stem).read_text(encoding="utf-8")
    others = [p for p in CONTENT.rglob("*.md") if p.name != "compact-content-gate.md"]
    for p in others:
        assert "--root ~/.claude/msd-core --raw\n  lists, in" not in p.read_text(encoding="utf-8")


def test_new_project_records_every_setting_with_config_set():
    from msd_core.config import schema  # noqa: F401 - the keys below must be known to it

    text = spine("new-project").read_text(encoding="utf-8")
    keys = ["mode", "granularity", "parallelization.enabled", "workflow.compact_content",
            "workflow.research", "workflow.plan_check", "workflow.verifier", "commit_docs"]
    for k in keys:
        assert f"`{k}`" in text
    assert "msd_run config set <key> <value>" in text
    assert "less" in text and "context up front" in text  # the one-sentence trade


def test_config_keys_named_are_real(tmp_path):
    keys = ["mode", "granularity", "parallelization.enabled", "workflow.compact_content",
            "workflow.research", "workflow.plan_check", "workflow.verifier", "commit_docs"]
    proj = make_project(tmp_path / "p")
    (proj / ".planning" / "config.json").write_text((CORE / "templates" / "config.json").read_text(), encoding="utf-8")
    for k in keys:
        code, out, err = run_inproc(["config", "get", k, "--raw", "--cwd", str(proj)])
        assert code == 0, f"{k}: {err}"
    code, _, err = run_inproc(["config", "get", "workflow.compact_contnet", "--cwd", str(proj)])
    assert code == 2


@pytest.mark.parametrize("skip, expected", [(True, "plan"), (False, "research")])
def test_plan_phase_skip_research_reaches_the_flow(tmp_path, skip, expected):
    """`--skip-research` (and `--gaps`) travel as load-context's `skip_research` result field."""
    flow("plan-phase")
    assert '"skip_research": false' in sections("plan-phase")["load-context"]
    proj = make_project(tmp_path / "proj", config={"workflow": {"research": True}})
    base = ["--flows-dir", str(FLOWS), "--cwd", str(proj)]
    assert run_inproc(["next-step", "--workflow", "plan-phase", "--var", "phase=02", *base])[0] == 0
    result = {"phase": "02", "phase_dir": "02-auth", "skip_research": skip}
    code, out, err = run_inproc(["step-done", "--workflow", "plan-phase", "--step", "load-context",
                                 "--result", json.dumps(result), *base])
    assert code == 0, err
    assert json.loads(out)["next_step"] == expected
