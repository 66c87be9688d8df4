"""Held-out check on the real `.planning/` trees of ../shared/corpus/planning: each copied into a
git repository with msd's merge drivers, two synthetic branches off it (the edits agents make:
a phase appended at the end of the phase list on both sides at the same number, a different
phase ticked on each side, a requirement added on one side and another ticked on the other, a
decision and a blocker through `msd_run state patch`), merged both ways. Every merge must leave
no conflict marker in STATE.md, ROADMAP.md or REQUIREMENTS.md, keep every edit of both sides, and
leave the derived lines the file has in sync; `msd_run phase reconcile` then gives the two new
phases numbers of their own. The edits are found with this file's own patterns, never with the
code under test."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import corpus_tree_names
from tests.kit.gitkit import git, new_repo, run_msd
from tests.kit.teamkit import MARKER_RE, in_sync, merge, register

pytestmark = [pytest.mark.slow, pytest.mark.corpus]

CHECK = re.compile(r"^\s*[-*]\s*\[(?P<mark>[ xX✓])\]\s*(?:\*\*)?\s*Phase\s+(?P<num>\d+)(?:\.\d+)?\b")
REQ = re.compile(r"^\s*[-*]\s+\[(?P<mark>[ xX])\]\s*\*\*[A-Za-z][A-Za-z0-9_]*-\d+[A-Za-z]?\*\*")
HEADING = re.compile(r"^\s*#{2,4}\s*Phase\s+(?P<num>\d+)\b")


def live(lines: list[str]) -> list[int]:
    """Indexes of lines outside code fences and <details> blocks."""
    out, fenced, details = [], False, False
    for i, line in enumerate(lines):
        s = line.strip().lower()
        if s.startswith("```"):
            fenced = not fenced
            continue
        details = details or s.startswith("<details")
        if not fenced and not details:
            out.append(i)
        if s.startswith("</details"):
            details = False
    return out


def append_phase(text: str, name: str) -> tuple[str, str | None]:
    """A phase after the highest one listed (checklist line after the last live one, block at the end)."""
    lines = text.split("\n")
    idx = live(lines)
    checks = [i for i in idx if CHECK.match(lines[i])]
    nums = [int(m.group("num")) for i in idx for m in [CHECK.match(lines[i]) or HEADING.match(lines[i])] if m]
    # every phase archived (inside <details>): the new one follows the highest of them
    nums = nums or [int(m.group("num")) for line in lines for m in [CHECK.match(line) or HEADING.match(line)] if m]
    if not nums:
        return text, None
    n = str(max(nums) + 1)
    if checks:
        lines.insert(checks[-1] + 1, f"- [ ] **Phase {n}: {name}** - synthetic {name.lower()}")
    text = "\n".join(lines).rstrip("\n") + f"\n\n### Phase {n}: {name}\n**Goal**: {name.lower()} goal\n"
    return text, n


def tick(text: str, pattern: re.Pattern, which: int) -> tuple[str, str | None]:
    lines = text.split("\n")
    open_ = [i for i in live(lines) if (m := pattern.match(lines[i])) and m.group("mark") == " "]
    if not open_:
        return text, None
    i = open_[which]
    lines[i] = lines[i].replace("[ ]", "[x]", 1)
    return "\n".join(lines), lines[i]


def side(root: Path, label: str, which: int) -> dict:
    pl = root / ".planning"
    facts: dict = {"roadmap": [], "requirements": [], "state": []}
    road = pl / "ROADMAP.md"
    text, number = append_phase(road.read_text(encoding="utf-8"), f"{label} work")
    text, ticked = tick(text, CHECK, which)
    road.write_text(text, encoding="utf-8")
    facts["roadmap"] += [f"Phase {number}: {label} work", f"**Goal**: {label.lower()} work goal"] if number else []
    facts["roadmap"] += [ticked] if ticked else []
    facts["number"] = number
    reqs = pl / "REQUIREMENTS.md"
    if reqs.is_file():
        text = reqs.read_text(encoding="utf-8")
        if which == 0:
            lines = text.split("\n")
            found = [i for i in live(lines) if REQ.match(lines[i])]
            if found:
                line = f"- [ ] **{label.upper()}-01**: synthetic requirement"
                lines.insert(found[-1] + 1, line)
                text = "\n".join(lines)
                facts["requirements"].append(line)
        else:
            text, ticked = tick(text, REQ, 0)
            facts["requirements"] += [ticked] if ticked else []
        reqs.write_text(text, encoding="utf-8")
    if (pl / "STATE.md").is_file():
        op = "--add-decision" if which == 0 else "--add-blocker"
        r = run_msd(["state", "patch", op, f"{label} synthetic note"], root)
        if r.returncode == 0:
            facts["state"].append(f"{label} synthetic note")
        run_msd(["state", "sync"], root)
        # state sync derives ROADMAP's boxes: a hand tick of a phase whose files say it is not
        # done is unticked on this side already; the side committed the line as sync left it
        after = road.read_text(encoding="utf-8")
        facts["roadmap"] = [t if t in after or "[x]" not in t else t.replace("[x]", "[ ]", 1)
                            for t in facts["roadmap"]]
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{label} work")
    return facts


def planning_markers(root: Path) -> list[str]:
    return [n for n in ("STATE.md", "ROADMAP.md", "REQUIREMENTS.md")
            if (root / ".planning" / n).is_file() and MARKER_RE.search((root / ".planning" / n).read_text(errors="replace"))]


@pytest.mark.parametrize("name", corpus_tree_names())
def test_two_branches_off_a_real_tree_merge_both_ways(corpus_dir, tmp_path, name):
    seed = new_repo(tmp_path / "seed")
    shutil.copytree(corpus_dir / name / ".planning", seed / ".planning", symlinks=True)
    for p in [seed, *seed.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)
    if not (seed / ".planning/ROADMAP.md").is_file():
        pytest.skip("no ROADMAP.md in this tree")
    register(seed)
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "corpus tree")
    has_state = (seed / ".planning/STATE.md").is_file()
    git(seed, "checkout", "-q", "-b", "alpha")
    alpha = side(seed, "Alpha", 0)
    git(seed, "checkout", "-q", "-b", "beta", "main")
    beta = side(seed, "Beta", -1)
    for ours, theirs in (("alpha", "beta"), ("beta", "alpha")):
        git(seed, "checkout", "-q", "-B", f"merge-{ours}", ours)
        r = merge(seed, theirs)
        assert r.returncode == 0, f"{name}: {ours} <- {theirs}: {r.stdout}{r.stderr}"
        assert planning_markers(seed) == [], name
        pl = seed / ".planning"
        for facts in (alpha, beta):
            road = (pl / "ROADMAP.md").read_text(encoding="utf-8")
            assert all(t in road for t in facts["roadmap"]), (name, facts["roadmap"])
            if facts["requirements"]:
                reqs = (pl / "REQUIREMENTS.md").read_text(encoding="utf-8")
                assert all(t in reqs for t in facts["requirements"]), (name, facts["requirements"])
            if facts["state"]:
                state = (pl / "STATE.md").read_text(encoding="utf-8")
                assert all(t in state for t in facts["state"]), (name, facts["state"])
        if has_state:
            report = in_sync(seed)
            assert report["changed"] == [], (name, report, r.stderr)
    if alpha["number"] and alpha["number"] == beta["number"]:
        out = run_msd(["phase", "reconcile"], seed)
        assert out.returncode == 0, (name, out.stderr)
        road = (seed / ".planning/ROADMAP.md").read_text(encoding="utf-8")
        n = int(alpha["number"])
        # ours (beta) keeps n; alpha gets the next number no phase folder has (some trees keep
        # folders of phases their roadmap lists only in an archived block)
        folders = (seed / ".planning/phases").iterdir() if (seed / ".planning/phases").is_dir() else []
        held = {int(m.group(1)) for p in folders if (m := re.match(r"0*(\d+)-", p.name))}
        new = next(k for k in range(n + 1, n + 1000) if k not in held)
        assert f"Phase {n}: Beta work" in road and f"Phase {new}: Alpha work" in road, name
        moved = json.loads(out.stdout)["phase"]["renumbered"]
        assert [(m["from"], m["to"], m["name"]) for m in moved] == [(str(n), str(new), "Alpha work")], name
