"""A walker that explores milestones by itself: seeded random moves, invariants after every step.

The hand-written scenarios (tests/cycle/test_milestone.py) cover the paths their authors thought
of. A walk draws its project (how many phases, plans, waves, which plans break the suite, which
settings) and, at every point, one move among those a user or agent can make there:

  follow      do what `msd_run next` proposes (discuss, plan, execute, fix the tests, plan the
              gaps, re-verify, audit, complete), as the installed content says to do it
  plan-ahead  discuss and plan a later phase while the current one is not done
  uat-pass    /msd-verify-work of a finished phase, every test passing
  uat-issue   /msd-verify-work of a finished phase with one issue, diagnosed (reopens it)
  insert      /msd-insert-phase after a finished phase (a decimal phase comes before the rest)
  pause       /msd-pause-work: a handoff, then `next` must send the next session to resume-work;
              the move after it is always /msd-resume-work (which deletes the handoff)

and the detours (`Walk.detours`), each at most as often as a user would:

  quick / undo-quick        /msd-quick (PLAN, executor, SUMMARY, ROADMAP untouched), /msd-undo of it
  remove / move             /msd-remove-phase, /msd-move-phase of phases never discussed (the model
                            renumbers them as docs/CONTRACTS.md says and ROADMAP must agree)
  debug, debug-list, debug-resume, debug-close
                            /msd-debug: a session opened and committed by name, listed, resumed, closed
  docs-off                  /msd-settings commit_docs false: from then on .planning/ may stay uncommitted
  clone                     a teammate's clone adds a phase and pushes; this clone may add one too and
                            pulls: two phases of one number route to /msd-health, `phase reconcile`
  look, todo, explore, code-review
                            the reports (stats, health, forensics, milestone summary), /msd-todo (done,
                            or promoted to a quick task), /msd-explore, /msd-code-review of a done phase

Setup draws a global or a local install (`msd install --local`, committed; every command then names
`.claude/msd-core`). Parallel plans run in worktrees at any wave (two plans may share wave 2), and the
execute-wave prompt must name the wave `wave plan` lays out. A fixed scenario gives `script` (the
moves in order; one the point does not allow is passed over).

Every command comes from the installed content (tests/kit/cyclewalk.py). The walker keeps its own
model of where each phase is, written from docs/CONTRACTS.md, not read from the runtime, and
after every move checks (`Walk.check`):

  - nothing uncommitted (after docs-off: nothing outside .planning/);
  - STATE.md and ROADMAP.md agree with the files (`msd_run state sync --check` changes nothing);
  - `msd_run next` proposes what the model says comes next;
  - nothing is ticked done without evidence: every ticked plan has a commit whose `Msd-Plan`
    trailer names it;
  - nothing the user wrote is lost: the user's own notes file is byte-identical.

A check that an open seam trips (KNOWN_SEAMS, being fixed elsewhere) is recorded in `Walk.seams`
instead of failing the walk; its own xfail(strict=True) test in tests/cycle/test_walker.py runs it
with `strict_seams` and flips when the fix merges.

A failure names the seed, the compact setting and the moves so far: `python scripts/walk.py
--seed N` replays it, and a seed that ever failed is kept in tests/cycle/walker_seeds.txt.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import Agent, Content, Cycle, dirty, git, roadmap_marks

USER_NOTES = "notes/mine.md"
USER_TEXT = "# My notes\n\nThings I keep by hand; no tool may change them.\n"
WORDS = ["core", "streaks", "share", "export", "invite", "search", "sync", "themes"]
DONE, NEW, DISCUSSED, PLANNED, FAILING, GAPS, GAPS_PLANNED, REVERIFY = (
    "done", "new", "discussed", "planned", "failing", "gaps", "gaps-planned", "reverify")


@dataclass
class PhaseModel:
    phase: walk.Phase
    plans: list[walk.Plan]
    state: str = NEW
    gap_rounds: int = 0

    @property
    def number(self) -> str:
        return self.phase.number


@dataclass
class Walk:
    cycle: Cycle
    seed: int
    compact: str
    max_moves: int = 24
    rng: random.Random = field(init=False)
    phases: list[PhaseModel] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    audited: bool = False
    completed: bool = False
    debug_slugs: list[str] = field(default_factory=list)
    paused: str | None = None  # the handoff pause-work wrote, until resume-work removes it
    script: list[str] | None = None  # the moves to make, in order (a fixed scenario), instead of drawing them
    strict_seams: bool = False  # a known seam's check fails the walk instead of being recorded
    seams: list[str] = field(default_factory=list)  # known seams the walk tripped (KNOWN_SEAMS), with where
    quick: list[walk.Quick] = field(default_factory=list)  # quick tasks done and not undone
    quick_made: int = 0
    open_debug: list[str] = field(default_factory=list)  # /msd-debug sessions left open (committed)
    docs: bool = True  # commit_docs: off after the docs-off move
    install: str = ""  # "global" or "local": drawn at setup unless given
    cloned: bool = False  # a second clone added a phase and was merged back
    clone_both: bool | None = None  # the clone move: this clone adds a phase too (drawn unless given)
    _inserted: int = 0
    _surgery: int = 0

    def __post_init__(self):
        self.rng = random.Random(self.seed)

    # ------------------------------------------------------------------ drawing the project

    def _draw_plans(self, phase: walk.Phase, start: int = 1) -> list[walk.Plan]:
        n = self.rng.randint(1, 3)
        later_pair = n == 3 and self.rng.random() < 0.5  # two plans in wave 2: parallel worktrees after the first wave
        plans = []
        for i in range(n):
            pid = f"{phase.nn}-{start + i:02d}"
            wave = 1 if i == 0 else 2 if later_pair else self.rng.choice([1, 2])
            deps = [plans[0].pid] if wave == 2 else []
            plans.append(walk.Plan(pid, wave, [f"src/{phase.slug}-{start + i}.txt"], f"{phase.slug} part {start + i}",
                                   depends_on=deps, breaks=self.rng.random() < 0.25))
        return plans

    def _phase(self, number: str, word: str) -> walk.Phase:
        tag = word.upper()[:5]
        return walk.Phase(number, word.capitalize(), word, f"{word} works for the user", [f"{tag}-01"])

    def setup(self) -> None:
        a = self.cycle.agent
        words = self.rng.sample(WORDS, self.rng.randint(2, 3))
        for i, word in enumerate(words, start=1):
            phase = self._phase(str(i), word)
            self.phases.append(PhaseModel(phase, self._draw_plans(phase)))
        settings = {"mode": "yolo", "granularity": "coarse",
                    "parallelization.enabled": self.rng.choice(["true", "false"]),
                    "workflow.research": "false", "workflow.plan_check": "true",
                    "workflow.verifier": "true", "commit_docs": "true",
                    "workflow.compact_content": "true" if self.compact == "on" else "false"}
        self.install = self.install or self.rng.choice(["global", "local"])
        self.moves.append(f"new-project {len(words)} phases, parallel={settings['parallelization.enabled']}, "
                          f"install {self.install}")
        with self.cycle.step("new project"):
            walk.seed_repository(a, self.remote)
            a.write(USER_NOTES, USER_TEXT)
            git(a.project, "add", USER_NOTES)
            git(a.project, "commit", "-q", "-m", "my notes")
            if self.install == "local":
                self.install_locally()
            walk.new_project(a, [p.phase for p in self.phases], settings)
            self.check()

    @property
    def remote(self) -> Path:
        return self.cycle.agent.project.parent / "origin.git"

    def msd_install(self, where: Path, how: str) -> None:
        a = self.cycle.agent
        proc = subprocess.run([sys.executable, "-m", "msd_core", "install", how], cwd=str(where), env=a.env(),
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, f"msd install {how} in {where.name}: {proc.stderr}"

    def install_locally(self) -> None:
        """`msd install --local` in the project instead of the global install: the user commits what it
        installed (.claude/, .gitattributes, as its report says); every command then comes from the
        project's own copy (`--root .claude/msd-core`), and the global install is removed."""
        a = self.cycle.agent
        for args in (["install", "--local"], ["uninstall", "--global"]):
            proc = subprocess.run([sys.executable, "-m", "msd_core", *args], cwd=str(a.project), env=a.env(),
                                  capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, f"msd {' '.join(args)}: {proc.stderr}"
        assert not (Path(a.env()["HOME"]) / ".claude/msd-core").exists()
        git(a.project, "add", "-A")
        git(a.project, "commit", "-q", "-m", "msd installed locally")
        a.content = Content(a.project / ".claude")
        assert "--root .claude/msd-core" in a.content.spine("quick")

    # ------------------------------------------------------------------ the model

    def ordered(self) -> list[PhaseModel]:
        def key(p: PhaseModel):
            return tuple(int(x) for x in p.number.split("."))
        return sorted(self.phases, key=key)

    def current(self) -> PhaseModel | None:
        return next((p for p in self.ordered() if p.state != DONE), None)

    def expected(self) -> str:
        if self.paused is not None:
            return "/msd-resume-work"
        cur = self.current()
        if cur is None:
            if self.completed:
                return "/msd-new-milestone"
            return "/msd-complete-milestone" if self.audited else "/msd-audit-milestone"
        n = cur.number
        if cur.state == NEW:
            return f"/msd-discuss-phase {n}"
        if cur.state == DISCUSSED:
            return f"/msd-plan-phase {n}"
        if cur.state in (PLANNED, FAILING, GAPS_PLANNED):
            return f"/msd-execute-phase {n}"
        if cur.state == GAPS:
            return f"/msd-plan-phase {n} --gaps"
        if cur.state == REVERIFY:
            return f"/msd-verify-work {n}"
        raise AssertionError(f"no expectation for {cur.state}")

    # ------------------------------------------------------------------ the moves

    def choices(self) -> list[tuple[str, float]]:
        if self.paused is not None:
            return [("resume", 1.0)]
        out = [("follow", 4.0)]
        cur = self.current()
        if cur is not None:
            out.append(("pause", 0.5))
            later = [p for p in self.ordered() if p.state == NEW and p is not cur]
            if later and cur.state in (NEW, DISCUSSED, PLANNED):
                out.append(("plan-ahead", 1.0))
        finished = [p for p in self.ordered() if p.state == DONE]
        if finished and not self.audited:
            out.append(("uat-pass", 0.5))
            if any(p.gap_rounds == 0 for p in finished):
                out.append(("uat-issue", 1.0))
            if self._inserted < 1:
                out.append(("insert", 0.5))
        return out

    def detours(self) -> list[tuple[str, float]]:
        """The detours the content allows at any point of a milestone not yet audited."""
        if self.audited:
            return []
        out = [("debug", 0.4)]
        if self.quick_made < 2:
            out.append(("quick", 0.5))
        if self.quick and self.docs:  # undo refuses a tree with uncommitted changes
            out.append(("undo-quick", 0.6))
        if self.open_debug or self.debug_slugs:
            out += [("debug-list", 0.3), ("debug-resume", 0.3)]
        if self.open_debug:
            out.append(("debug-close", 0.3))
        if self.docs:
            out.append(("docs-off", 0.15))
        if self._surgery < 2 and self._removable():
            out.append(("remove", 0.4))
        if self._surgery < 2 and self._movable():
            out.append(("move", 0.4))
        if not self.cloned and self.docs:
            out.append(("clone", 0.3))
        out += [("look", 0.3), ("todo", 0.3), ("explore", 0.2)]
        if any(p.state == DONE for p in self.phases):
            out.append(("code-review", 0.3))
        return out

    def pick(self) -> str:
        names, weights = zip(*(self.choices() + (self.detours() if self.paused is None else [])), strict=True)
        if self.script is not None:  # the next scripted move the point allows (follow when none is left)
            while self.script:
                move = self.script.pop(0)
                if move in names:
                    return move
            return "follow"
        return self.rng.choices(names, weights=weights, k=1)[0]

    def run(self) -> list[str]:
        self.setup()
        for _ in range(self.max_moves if self.script is None else len(self.script)):
            if self.completed:
                break
            move = self.pick()
            getattr(self, "move_" + move.replace("-", "_"))()
        return self.moves

    def _step(self, name: str):
        self.moves.append(name)
        return self.cycle.step(name)

    def move_follow(self) -> None:
        a = self.cycle.agent
        cur = self.current()
        if cur is None:
            if not self.audited:
                with self._step("audit milestone"):
                    walk.audit_milestone(a, "v1.0")
                    self.audited = True
                    self.check()
            else:
                with self._step("complete milestone"):
                    walk.complete_milestone(a, "v1.0", "Walk", [p.phase for p in self.ordered()])
                    self.completed = True
                    self.check()
            return
        p, n = cur.phase, cur.number
        if cur.state == NEW:
            with self._step(f"discuss {n}"):
                walk.discuss_phase(a, p)
                cur.state = DISCUSSED
                self.check()
        elif cur.state == DISCUSSED:
            with self._step(f"plan {n}"):
                walk.plan_phase(a, p, cur.plans, walk.Checker([self.rng.choice([0, 0, 1])]))
                cur.state = PLANNED
                self.check()
        elif cur.state in (PLANNED, FAILING, GAPS_PLANNED):
            self._execute(cur)
        elif cur.state == GAPS:
            with self._step(f"plan gaps {n}"):
                start = len(cur.plans) + 1
                gap = [walk.Plan(f"{p.nn}-{start:02d}", 1, [f"src/{p.slug}-{start}.txt"], f"fix of {p.slug}",
                                 closes="U2", requirements=p.requirements)]
                walk.plan_phase(a, p, gap, walk.Checker([0]), gaps=True)
                cur.plans += gap
                cur.state = GAPS_PLANNED
                self.check()
        elif cur.state == REVERIFY:
            with self._step(f"re-verify {n}"):
                walk.verify_work(a, p)
                for slug in self.debug_slugs:
                    walk.close_debug(a, slug)
                self.debug_slugs.clear()
                cur.state = DONE
                self.check()

    def _execute(self, cur: PhaseModel) -> None:
        a, n = self.cycle.agent, cur.number
        todo = [pl for pl in cur.plans if not (a.project / cur.phase.dir / f"{pl.pid}-SUMMARY.md").exists()]
        breaks = any(pl.breaks for pl in todo)
        keeps_failing = cur.state != FAILING and breaks and self.rng.random() < 0.3
        gate = walk.Gate([False, False]) if keeps_failing else walk.Gate([True])
        isolated: list = []
        with self._step(f"execute {n}" + (" (suite keeps failing)" if keeps_failing else "")):
            walk.execute_phase(a, cur.phase, cur.plans, gate=gate, worktree_waves=isolated)
            if isolated:
                self.moves[-1] += f" (worktree waves {','.join(map(str, isolated))})"
            if keeps_failing:
                cur.state = FAILING
            elif cur.state == GAPS_PLANNED:
                cur.state = REVERIFY
            else:
                cur.state = DONE
            self.check(route="fix-tests" if keeps_failing else None)

    def move_plan_ahead(self) -> None:
        cur = self.current()
        later = next(p for p in self.ordered() if p.state == NEW and p is not cur)
        a = self.cycle.agent
        with self._step(f"plan ahead {later.number}"):
            walk.discuss_phase(a, later.phase)
            walk.plan_phase(a, later.phase, later.plans, walk.Checker([0]))
            later.state = PLANNED
            self.check()

    def _finished(self, pred=lambda p: True) -> PhaseModel:
        return self.rng.choice([p for p in self.ordered() if p.state == DONE and pred(p)])

    def move_uat_pass(self) -> None:
        target = self._finished()
        with self._step(f"uat {target.number} passes"):
            walk.verify_work(self.cycle.agent, target.phase)
            self.check()

    def move_uat_issue(self) -> None:
        target = self._finished(lambda p: p.gap_rounds == 0)
        with self._step(f"uat {target.number} finds an issue"):
            slug = walk.verify_work(self.cycle.agent, target.phase, issue="the list is empty after reload")
            if slug:
                self.debug_slugs.append(slug)
            target.gap_rounds += 1
            target.state = GAPS
            self.check()

    def move_insert(self) -> None:
        after = self._finished()
        word = next(w for w in WORDS if w not in {p.phase.slug for p in self.phases})
        number = f"{after.number}.1" if "." not in after.number else f"{after.number}1"
        if any(p.number == number for p in self.phases):
            return
        phase = self._phase(number, word)
        with self._step(f"insert {number} after {after.number}"):
            out = walk.phase_change(self.cycle.agent, "insert", after.number, word.capitalize(), goal=phase.goal)
            assert out["phase"]["number"] == number, out
            self.phases.append(PhaseModel(phase, self._draw_plans(phase)))
            self._inserted += 1
            self.check()

    def move_pause(self) -> None:
        """pause-work as its spine says: where we are, the handoff, STATE's session, the commit."""
        a, stem = self.cycle.agent, "pause-work"
        cur = self.current()
        with self._step(f"pause at phase {cur.number}"):
            a.begin("/msd-pause-work")
            a.run(stem, "Step 1", "msd_run state get")
            inside = cur.state != NEW and (a.project / cur.phase.dir).is_dir()
            handoff = f"{cur.phase.dir}/.continue-here.md" if inside else ".planning/.continue-here.md"
            a.write(handoff, f"---\npaused: 2026-12-07T01:00:00Z\nphase: {cur.phase.folder if inside else 'none'}\n"
                             f"plan: none\ntask: none\nstate: between-steps\n---\n# Paused at phase {cur.number}\n\n"
                             f"## Next\nRun {self.expected()}.\n")
            a.run(stem, "Step 4", "msd_run state patch --set-session", **{"one line": f"phase {cur.number}",
                                                                          "handoff-path": handoff})
            a.run(stem, "Step 4", "msd_run config get commit_docs")
            a.run(stem, "Step 4", "msd_run commit --files", **{"handoff-path": handoff, "where": f"phase {cur.number}"})
            self.paused = handoff
            nxt = self.check(route="resume-work")
            assert nxt.get("resume_file") == handoff, f"{nxt} ({self.where()})"

    def move_resume(self) -> None:
        a, stem = self.cycle.agent, "resume-work"
        handoff = self.paused
        with self._step("resume"):
            a.begin("/msd-resume-work")
            a.run(stem, "Step 1", "msd_run state get")
            nxt = json.loads(a.run(stem, "Step 1", "msd_run next").stdout)
            assert nxt["route"] == "resume-work", f"{nxt} ({self.where()})"
            tracked = git(a.project, "ls-files", "--", handoff).strip() != ""
            if tracked:
                a.run(stem, "Step 4", "git rm -q", **{"handoff-path": handoff})
            else:  # "plain `rm` if it was never committed" (commit_docs off when it was written)
                (a.project / handoff).unlink()
            a.run(stem, "Step 4", "msd_run state patch --set-session", what=f"the walk at {handoff}")
            line = a.content.command(stem, "Step 4", "msd_run commit --files")
            if tracked:
                a.sh(line, **{"handoff-path": handoff, "where": "the walk"})
            else:  # "leave <handoff-path> out when it was never committed"
                a.sh(line.replace("<handoff-path> ", ""), template=line, where="the walk")
            self.paused = None
            self.check()

    def move_quick(self, text: str | None = None) -> None:
        """/msd-quick: a small task with a PLAN, an executor, a SUMMARY; ROADMAP and `next` unchanged."""
        a = self.cycle.agent
        self.quick_made += 1
        text = text or f"fix the {self.rng.choice(['typo', 'label', 'colour', 'logging'])}"
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
        q = walk.Quick(f"{self.quick_made:03d}", slug, text, [f"src/quick-{self.quick_made}.txt"])
        road = (a.project / ".planning/ROADMAP.md").read_text()
        with self._step(f"quick {q.number}"):
            walk.quick_task(a, q)
            assert (a.project / q.dir / f"{q.number}-SUMMARY.md").is_file(), f"no SUMMARY ({self.where()})"
            assert (a.project / ".planning/ROADMAP.md").read_text() == road, f"quick changed ROADMAP.md ({self.where()})"
            recorded = git(a.project, "log", "--format=%(trailers:key=Msd-Plan,valueonly)")
            assert f"{q.number}-{q.slug}/{q.number}" in recorded, f"no commit recorded for {q.dir}: {recorded!r} ({self.where()})"
            self.quick.append(q)
            self.check()

    def move_undo_quick(self) -> None:
        """/msd-undo of the last quick task: its recorded commits reverted, its code gone, STATE recomputed."""
        a = self.cycle.agent
        q = self.quick.pop()
        with self._step(f"undo quick {q.number}"):
            out = walk.undo(a, q.plan_path)
            assert out["revert_commit"], out
            for rel in q.files:
                assert not (a.project / rel).exists(), f"{rel} survived the undo of quick {q.number} ({self.where()})"
            self.check()
            state = (a.project / ".planning/STATE.md").read_text()
            assert f"Quick task {q.number} done" not in state, \
                f"STATE.md still says the undone quick task {q.number} is done ({self.where()})"

    def _removable(self) -> PhaseModel | None:
        """A phase that was never discussed, with nothing but such phases after it (no renumbered folder)."""
        order = self.ordered()
        for i, p in enumerate(order):
            if p.state == NEW and "." not in p.number and all(o.state == NEW and "." not in o.number for o in order[i:]) \
                    and len([o for o in order if o.state != DONE]) > 1:
                return p
        return None

    def _movable(self) -> tuple[PhaseModel, PhaseModel] | None:
        """Two phases never discussed, the first before the second: move the first after the second."""
        news = [p for p in self.ordered() if p.state == NEW and "." not in p.number]
        if len(news) < 2 or any(p.state != NEW for p in self.ordered()[self.ordered().index(news[0]):]):
            return None
        return news[0], news[-1]

    def _renumber(self, renames: dict[str, str]) -> None:
        for p in [p for p in self.phases if p.number in renames]:
            self._renumber_one(p, renames[p.number])

    def _renumber_one(self, p: PhaseModel, number: str) -> None:
        """A phase never discussed under its new number (its plans drawn again: their ids carry it)."""
        p.phase = walk.Phase(number, p.phase.name, p.phase.slug, p.phase.goal, p.phase.requirements)
        p.plans = self._draw_plans(p.phase)

    def _roadmap_numbers(self) -> list[str]:
        return [k.split()[1] for k in roadmap_marks(self.cycle.agent.project) if k.startswith("Phase ")]

    def move_remove(self) -> None:
        """/msd-remove-phase of a phase never discussed: the later ones close the gap (one less each)."""
        target = self._removable()
        a = self.cycle.agent
        with self._step(f"remove phase {target.number}"):
            out = walk.phase_change(a, "remove", target.number)
            gone = int(target.number)
            self.phases.remove(target)
            expected = {p.number: str(int(p.number) - 1) for p in self.phases if "." not in p.number and int(p.number) > gone}
            self._renumber(expected)
            assert self._roadmap_numbers() == [p.number for p in self.ordered()], \
                f"ROADMAP phases {self._roadmap_numbers()} after remove, the model {[p.number for p in self.ordered()]} ({out})"
            self._surgery += 1
            self.check()

    def move_move(self) -> None:
        """/msd-move-phase n after m (both never discussed): n becomes m's decimal, the gap closes."""
        n, m = self._movable()
        a = self.cycle.agent
        with self._step(f"move phase {n.number} after {m.number}"):
            out = walk.phase_change(a, "move", n.number, m.number)
            moved = out["phase"]["number"]
            order = [p.number for p in self.ordered()]
            # the model: n leaves its place, the later integer phases close the gap, n follows m as its first decimal
            renames, k = {}, int(n.number)
            for p in self.ordered():
                if p is not n and "." not in p.number and int(p.number) > int(n.number):
                    renames[id(p)] = str(k)
                    k += 1
            m_now = renames.get(id(m), m.number)
            renames[id(n)] = f"{m_now}.1"
            for p in self.phases:
                if id(p) in renames:
                    self._renumber_one(p, renames[id(p)])
            assert moved == f"{m_now}.1", f"move {order}: the runtime numbered it {moved}, the model {m_now}.1 ({out})"
            assert self._roadmap_numbers() == [p.number for p in self.ordered()], \
                f"ROADMAP phases {self._roadmap_numbers()} after move, the model {[p.number for p in self.ordered()]}"
            self._surgery += 1
            self.check()

    def move_clone(self) -> None:
        """A teammate's clone adds a phase (/msd-add-phase) and pushes; here the user may add one too, then
        pulls. Two phases of one number: `next` routes to /msd-health, whose way forward is `msd_run phase
        reconcile` (contract: ours keeps the number, theirs takes the next)."""
        a = self.cycle.agent
        self.cloned = True
        top = max(int(p.number.split(".")[0]) for p in self.phases)
        last = next(p for p in reversed(self.ordered()) if "." not in p.number)
        free = [w for w in WORDS if w not in {p.phase.slug for p in self.phases}]
        theirs = PhaseModel(self._phase(str(top + 1), free[0]), [])
        both = self.rng.random() < 0.6 if self.clone_both is None else self.clone_both
        mine = PhaseModel(self._phase(str(top + 1), free[1]), []) if both else None
        with self._step(f"second clone adds phase {top + 1}" + (", so does this one" if both else "")):
            how = "--local" if self.install == "local" else "--global"
            if how == "--global":  # merge drivers: `msd install` run in each repository (git copies no config)
                self.msd_install(a.project, how)
                if dirty(a.project):
                    git(a.project, "add", "-A")
                    git(a.project, "commit", "-q", "-m", "msd merge drivers")
            git(a.project, "push", "-q", "origin", "main")
            other = a.project.parent / "teammate"
            git(a.project.parent, "clone", "-q", "-b", "main", str(self.remote), str(other))
            for key, value in (("user.email", "mate@example.com"), ("user.name", "mate"), ("commit.gpgsign", "false")):
                git(other, "config", key, value)
            self.msd_install(other, how)
            assert not dirty(other), f"`msd install {how}` in a fresh clone left {dirty(other)} ({self.where()})"
            mate = Agent(other, Content(other / ".claude") if how == "--local" else a.content, base_env=a.base_env)
            walk.add_phase(mate, theirs.phase, last.phase)
            assert not dirty(other), f"add-phase left {dirty(other)} in the clone ({self.where()})"
            git(other, "push", "-q", "origin", "main")
            if mine is not None:
                walk.add_phase(a, mine.phase, last.phase)
            git(a.project, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
            self.phases.append(theirs)
            if mine is None:
                theirs.plans = self._draw_plans(theirs.phase)
                self.check()
                return
            self.phases.append(mine)
            nxt = a.msd("next")
            assert (nxt["route"], nxt["command"]) == ("reconcile-phases", "/msd-health"), f"{nxt} ({self.where()})"
            out = walk.health_reconcile(a)
            a.run("phase-change", "Commit", "msd_run commit", op="reconcile", n=str(top + 1),
                  **{"commit-files": " ".join(out["out"]["commit_files"])})
            self._renumber_one(theirs, str(top + 2))
            mine.plans = self._draw_plans(mine.phase)
            assert self._roadmap_numbers() == [p.number for p in self.ordered()], \
                f"ROADMAP phases {self._roadmap_numbers()} after reconcile, the model {[p.number for p in self.ordered()]}"
            self.check()

    def move_look(self) -> None:
        """The read-only reports a user asks for at any point: stats, health, forensics, milestone summary.
        Each writes nothing (the invariants: the tree as it was, `next` unchanged)."""
        a = self.cycle.agent
        stem = self.rng.choice(["stats", "health", "forensics", "milestone-summary"])
        with self._step(f"look: /msd-{stem}"):
            a.begin(f"/msd-{stem}")
            start = {"stats": "msd_run stats --text", "health": "msd_run health --text",
                     "forensics": "msd_run forensics --text", "milestone-summary": "msd_run milestone-summary --text"}[stem]
            line = a.content.command(stem, "Step 1", start)
            proc = a.sh(line.replace(" --write", "").replace(" --milestone <v>", ""), ok=(0, 1), template=line)
            assert proc.stdout.strip(), f"/msd-{stem}: `{line}` printed nothing ({self.where()})"
            self.check()

    def move_todo(self) -> None:
        """/msd-todo: capture (with the file at hand), list, then done. TODOS.md is the runtime's."""
        a, stem = self.cycle.agent, "todo"
        with self._step("todo add, list"):
            a.begin("/msd-todo remember to trim the log")
            add = a.content.command(stem, "Capture", "msd_run todo add")
            out = json.loads(a.sh(add.replace('"<text>"', '"trim the log"'), template=add, file="src/core.txt").stdout)
            self._commit_todo(out, "add")
            a.begin("/msd-todo list")
            listed = json.loads(a.run(stem, "list", "msd_run todo list").stdout)
            assert out["id"] in [t["id"] for t in listed["todos"]], listed
            cur = self.current()
            if self.quick_made < 2 and cur is not None and self.rng.random() < 0.5:
                # promote: the phase it would be (dry run, shown), then the user picks a quick task
                a.begin(f"/msd-todo promote {out['id']}")
                road = (a.project / ".planning/ROADMAP.md").read_text()
                line = a.content.command(stem, "promote", "msd_run todo promote <id> --after")
                a.sh(line.replace('"<short name>"', '"trim the log"'), template=line, id=out["id"], n=cur.number)
                assert (a.project / ".planning/ROADMAP.md").read_text() == road, "a promote --dry-run changed ROADMAP.md"
                done = json.loads(a.run(stem, "promote", "msd_run todo promote <id> --quick", id=out["id"]).stdout)
                self._commit_todo(done, "promote")
                self.moves[-1] += ", promoted to a quick task"
                self.check()
                self.move_quick(done["text"])
                return
            a.begin(f"/msd-todo done {out['id']}")
            self._commit_todo(json.loads(a.run(stem, "done", "msd_run todo done", id=out["id"]).stdout), "done")
            self.moves[-1] += ", done"
            self.check()

    def _commit_todo(self, out: dict, what: str) -> None:
        line = self.cycle.agent.content.command("todo", "Commit", "msd_run commit --files")
        self.cycle.agent.sh(line, **{"commit-files": " ".join(out["commit_files"]), "what": what})

    def move_code_review(self) -> None:
        """/msd-code-review of a finished phase: its recorded commits, the reviewer's file, the commit."""
        a, stem = self.cycle.agent, "code-review"
        target = self._finished()
        p = target.phase
        with self._step(f"code review {p.number}"):
            a.begin(f"/msd-code-review {p.number}")
            out = json.loads(a.run(stem, "Step 1", "msd_run recorded --phase", n=p.number).stdout)
            assert out["commits"], f"phase {p.number} has no recorded commits to review ({self.where()})"
            spawn = walk.spawn(a, "reviewer")
            assert spawn.strip()
            a.write(f"{p.dir}/{p.nn}-REVIEW.md", f"---\nphase: {p.folder}\nstatus: clean\n"
                                                  f"counts: {{critical: 0, high: 0, medium: 0, low: 0}}\n---\n"
                                                  f"# Phase {p.number} review\n\nNo findings.\n")
            a.run(stem, "Step 4", "msd_run commit --files", **walk.values(p))
            self.check()

    def move_explore(self) -> None:
        """/msd-explore: answers from the code, the note in .planning/drafts/, recorded, committed by name."""
        a, stem = self.cycle.agent, "explore"
        with self._step("explore"):
            a.begin("/msd-explore how is the core list stored")
            a.run(stem, "Step 2", "msd_run memory search", text="core list")
            note = ".planning/drafts/explore-note.md"
            a.write(note, "## Questions\n\n### How is the core list stored?\nIn `src/core.txt:1`, one line.\n\n"
                          "## Open\n\nNothing.\n\n## If we build it\n\nKeep one file.\n")
            out = json.loads(a.run(stem, "Step 3", "msd_run explore record", topic="core list").stdout)
            a.run(stem, "Step 3", "msd_run commit --files", file=out["file"], topic="core list")
            self.check()

    def move_debug(self) -> None:
        """/msd-debug <symptom>: a session opened, diagnosed, committed by name; it stays open."""
        with self._step("debug start"):
            out = walk.debug_start(self.cycle.agent, f"the counter shows {self.rng.randint(2, 99)} twice")
            assert out["file"] == f".planning/debug/{out['slug']}.md", out
            self.open_debug.append(out["slug"])
            self.check()

    def move_debug_list(self) -> None:
        with self._step("debug list"):
            out = walk.debug_list(self.cycle.agent)
            listed = {s["slug"] for s in out["sessions"]}
            assert listed == set(self.open_debug) | set(self.debug_slugs), \
                f"debug list shows {sorted(listed)}, open: {sorted(set(self.open_debug) | set(self.debug_slugs))} ({self.where()})"
            self.check()

    def move_debug_resume(self) -> None:
        opened = self.open_debug + self.debug_slugs
        slug = self.rng.choice(opened + [None])
        with self._step(f"debug resume {slug or '(newest)'}"):
            proc = walk.debug_resume(self.cycle.agent, slug)
            assert proc.returncode == 0, f"resume refused an open session: {proc.stderr} ({self.where()})"
            out = json.loads(proc.stdout)
            if slug is not None:
                assert out["slug"] == slug, out
            else:
                assert out["slug"] in opened, out
            self.check()

    def move_debug_close(self) -> None:
        slug = self.open_debug.pop(0)
        with self._step(f"debug close {slug}"):
            walk.close_debug(self.cycle.agent, slug)
            assert not (self.cycle.agent.project / f".planning/debug/{slug}.md").exists()
            self.check()

    def move_docs_off(self) -> None:
        """/msd-settings commit_docs false: from now on .planning/ changes stay uncommitted, the code is committed."""
        a, stem = self.cycle.agent, "settings"
        with self._step("settings commit_docs false"):
            a.begin("/msd-settings commit_docs false")
            a.run(stem, "Step 1", "msd_run config migrate")
            before = a.run(stem, "Step 1", "msd_run config list").stdout
            a.run(stem, "Step 3", "msd_run config set <key>", key="commit_docs", value="false")
            after = a.run(stem, "Step 4", "msd_run config list").stdout
            assert before != after
            a.run(stem, "Step 3", "msd_run config unset", key="granularity")  # "back to its default" as well
            raw = a.run(stem, "Step 4", "msd_run config get commit_docs --raw").stdout.strip()
            assert raw == "false", raw  # Step 4's commit is only for `true`: config.json stays the user's change
            self.docs = False
            self.check()

    # ------------------------------------------------------------------ the invariants

    def seam(self, name: str, ok: bool, what: str) -> None:
        """One check that a known, open seam (KNOWN_SEAMS) trips: recorded, or (strict_seams) failed."""
        if ok:
            return
        assert name in KNOWN_SEAMS, name
        assert not self.strict_seams, f"known seam {name}: {what} ({self.where()})"
        self.seams.append(f"{name}: {what}")

    def where(self) -> str:
        return f"seed {self.seed}, compact {self.compact}, moves: {' -> '.join(self.moves)}"

    def may_stay_uncommitted(self) -> tuple[str, ...]:
        """The paths (from the repository's top) a check lets stay uncommitted: .planning/ after docs-off.
        (tests/kit/walker_roots.py: every root's with commit_docs off.)"""
        return () if self.docs else (".planning/",)

    def check(self, route: str | None = None) -> dict:
        a = self.cycle.agent
        left = dirty(a.project, self.may_stay_uncommitted())
        assert left == [], f"uncommitted after the step: {left} ({self.where()})\n{git(a.project, 'diff')[:3000]}"
        proc = a._exec(["msd_run", "state", "sync", "--check"], a.project)
        assert proc.returncode == 0, f"STATE.md/ROADMAP.md disagree with the files: {proc.stdout} ({self.where()})"
        nxt = a.msd("next")
        want = self.expected()
        assert nxt["command"] == want, f"next says {nxt['command']} ({nxt['reason']}), the model {want} ({self.where()})"
        if route is not None:
            assert nxt["route"] == route, f"{nxt} ({self.where()})"
        trailers = git(a.project, "log", "--format=%(trailers:key=Msd-Plan,valueonly)")
        proven = {line.strip().rsplit("/", 1)[-1] for line in trailers.splitlines() if line.strip()}
        ticked = {k for k, mark in roadmap_marks(a.project).items() if mark == "x" and not k.startswith("Phase")}
        assert ticked <= proven, f"ticked without a recorded commit: {sorted(ticked - proven)} ({self.where()})"
        assert (a.project / USER_NOTES).read_text() == USER_TEXT, f"the user's notes changed ({self.where()})"
        return nxt


KNOWN_SEAMS: dict[str, str] = {
    # open seams another change is fixing, each with an xfail(strict=True) test in tests/cycle/test_walker.py
    # (none open now: undo's "Left off" line and the local manifest's exclude path were fixed)
}


def seeds_file_seeds(text: str) -> list[int]:
    """The seeds in tests/cycle/walker_seeds.txt (one a line, `#` comments)."""
    return [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\b", text, re.M)]


def summary(w: Walk) -> str:
    return json.dumps({"seed": w.seed, "compact": w.compact, "moves": w.moves})
