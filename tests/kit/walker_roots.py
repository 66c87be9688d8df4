"""The walker (tests/kit/walker.py) over one repository holding three `.planning/` roots (issue 49).

A walk draws a repository: the top's own project, then services/api and apps/web, each made a root
of its own by /msd-new-project run in its folder (new-project's spine asks `msd_run workspace`
first), all served by one install at the top (global, or `msd install --local` committed there).
Each root draws its phases, plans, waves and settings as the one-root walker does. A phase may
depend on a phase of another root (`Depends on: Phase 2 of services/api`): apps/web's phase 1
always waits on a drawn phase of services/api, and, when the draw says so, services/api's phase 1
on a phase of the top's project (never a circle).

At every point the walk draws a root, then one of that root's moves (`Walk.choices`: follow what
`next` proposes, plan ahead, UAT pass or issue, insert, pause and resume) as the one-root walker
does; of the detours only docs-off (`/msd-settings commit_docs false` in that root: from then on its
planning files, and only its, may stay uncommitted), the others stay the one-root walker's. A root
whose current phase waits on another root's phase cannot execute or verify it: following it there
is /msd-progress, whose table names the root and phase waited on (`wait`).

Each root keeps its own model (`RootWalk`, a Walk whose cycle is that root's agent). After every
move, in the root moved (Walk.check, plus what it cannot see from one root):

  - every check of the one-root walker, in that root's folder (nothing uncommitted in the
    repository but the planning files of roots with commit_docs off, STATE.md and ROADMAP.md in
    sync, `next` as its model says, the user's notes);
  - nothing ticked without evidence of its own root: a ticked plan has a commit whose `Msd-Plan`
    trailer names it and whose `Msd-Root` names this root (msd_core.git.trailers.plans_of);
  - a phase waiting on another root: `next` says `wait-for-root` and names that root (`run_in`);

and across the repository: `msd_run workspace --json` run at the top lists exactly the three
roots, each with the command its model expects.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import Agent, Cycle, git, roadmap_marks
from tests.kit.walker import DONE, FAILING, GAPS_PLANNED, PLANNED, REVERIFY, USER_NOTES, USER_TEXT, WORDS, PhaseModel, Walk

TOP, API, WEB = ".", "services/api", "apps/web"
WAITING = (PLANNED, FAILING, GAPS_PLANNED, REVERIFY)  # the states in which a phase would execute or be verified


class RootCycle:
    """The cycle as one root's Walk sees it: that root's agent; its steps are the repository's, named with the root."""

    def __init__(self, cycle: Cycle, agent: Agent, rel: str):
        self.whole, self.agent, self.rel = cycle, agent, rel

    def step(self, name: str) -> Cycle:
        return self.whole.step(name if self.rel == TOP else f"{self.rel}: {name}")

    def report(self) -> str:
        return self.whole.report()


@dataclass
class RootWalk(Walk):
    """One root's walk: the one-root walker's model and moves, its cycle that root's (RootCycle)."""

    rel: str = TOP
    waits_on: dict[str, tuple[RootWalk, str]] = field(default_factory=dict)  # phase number -> (root, its phase)
    outer: RootsWalk | None = None  # the walk over the roots: a failure names its seed and moves

    def where(self) -> str:
        if self.outer is None:
            return super().where()
        return f"in {self.rel}, at {self.moves[-1] if self.moves else 'its setup'}: {self.outer.where()}"

    def detours(self) -> list[tuple[str, float]]:
        """The one-root walker walks the detours; here only commit_docs turned off in a root, whose planning
        files then stay uncommitted while the others' are committed (commit, wave merge, state sync per root)."""
        return [("docs-off", 0.15)] if self.docs and not self.audited else []

    def may_stay_uncommitted(self) -> tuple[str, ...]:
        roots = self.outer.roots.values() if self.outer is not None else [self]
        return tuple(".planning/" if r.rel == TOP else f"{r.rel}/.planning/" for r in roots if not r.docs)

    def blocked(self) -> tuple[RootWalk, str] | None:
        """(the root, its phase) the current phase waits on while it would execute or be verified; else None."""
        cur = self.current()
        if cur is None or cur.state not in WAITING or cur.number not in self.waits_on:
            return None
        other, number = self.waits_on[cur.number]
        theirs = next((p for p in other.phases if p.number == number), None)
        return None if theirs is not None and theirs.state == DONE else (other, number)

    def expected(self) -> str:
        if self.paused is None and self.blocked() is not None:
            return "/msd-progress"  # wait-for-root: discuss and plan may go ahead, execute and verify may not
        return super().expected()

    def choices(self) -> list[tuple[str, float]]:
        out = super().choices()
        return [("wait", w) if name == "follow" and self.blocked() else (name, w) for name, w in out]

    def move_wait(self) -> None:
        """/msd-progress in a root that waits: its table names the root and phase waited on."""
        other, number = self.blocked()
        a = self.cycle.agent
        with self._step(f"progress (waits on phase {number} of {other.rel})"):
            a.begin("/msd-progress")
            table = a.run("progress", "Step 2", "msd_run workspace").stdout
            assert f"waits on phase {number} of {other.rel}" in table, f"{table} ({self.where()})"
            self.check()

    def check(self, route: str | None = None) -> dict:
        nxt = super().check(route)
        held = self.blocked() if self.paused is None else None
        if held is not None:
            assert (nxt["route"], nxt.get("run_in")) == ("wait-for-root", held[0].rel), f"{nxt} ({self.where()})"
        self.check_own_evidence()
        return nxt

    def check_own_evidence(self) -> None:
        """Every plan ticked in this root's ROADMAP.md has a commit msd made for this root's plan."""
        from msd_core.git.trailers import PLAN_KEY, ROOT_KEY, plans_of

        a = self.cycle.agent
        logged = git(a.project, "log", "--format=%x1e%(trailers:key=Msd-Plan,valueonly,separator=%x1f)%x1d"
                                        "%(trailers:key=Msd-Root,valueonly,separator=%x1f)")
        rel = "" if self.rel == TOP else self.rel
        proven = set()
        for record in logged.split("\x1e")[1:]:
            plans, _sep, roots = record.strip().partition("\x1d")
            trailers = {PLAN_KEY: [v.strip() for v in plans.split("\x1f") if v.strip()],
                        ROOT_KEY: [v.strip() for v in roots.split("\x1f") if v.strip()]}
            proven |= {v.rsplit("/", 1)[-1] for v in plans_of(trailers, rel, only_root=False)}
        ticked = {k for k, mark in roadmap_marks(a.project).items() if mark == "x" and not k.startswith("Phase")}
        assert ticked <= proven, f"{self.rel}: ticked without a commit of its own: {sorted(ticked - proven)} ({self.where()})"


@dataclass
class RootsWalk:
    """Three roots in one repository, walked together: a seeded draw of a root, then of its move."""

    cycle: Cycle
    seed: int
    compact: str
    max_moves: int = 30
    install: str = ""
    rng: random.Random = field(init=False)
    roots: dict[str, RootWalk] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.rng = random.Random(self.seed)

    @property
    def top(self) -> Path:
        return self.cycle.agent.project

    def where(self) -> str:
        return f"roots seed {self.seed}, compact {self.compact}, install {self.install}, moves: {' -> '.join(self.moves)}"

    def _root(self, rel: str, agent: Agent) -> RootWalk:
        seed = self.rng.randrange(1 << 30)
        return RootWalk(RootCycle(self.cycle, agent, rel), seed, self.compact, install=self.install or "global", rel=rel,
                        outer=self)

    def setup(self) -> None:
        self.install = self.install or self.rng.choice(["global", "local"])
        top = self._root(TOP, self.cycle.agent)
        top.setup()  # the repository, the user's notes, the install at the top, the top's own project
        self.roots[TOP] = top
        self.moves.append(f"{TOP}: {top.moves[0]}")
        used = {p.phase.slug for p in top.phases}
        for rel in (API, WEB):
            self._new_root(rel, used)
        api, web = self.roots[API], self.roots[WEB]
        self._depend(web, "1", api, self.rng.choice([p.number for p in api.phases]))
        if self.rng.random() < 0.5:
            self._depend(api, "1", top, self.rng.choice([p.number for p in top.phases]))
        self.check_workspace()

    def _new_root(self, rel: str, used: set[str]) -> None:
        """The user's package at `rel` (code, suite, notes), then /msd-new-project there: a root of its own."""
        top_agent = self.cycle.agent
        for name, text in {"src/core.txt": f"{rel} core\n", "tests/run.sh": walk.SUITE, USER_NOTES: USER_TEXT}.items():
            p = self.top / rel / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        git(self.top, "add", "-A")
        git(self.top, "commit", "-q", "-m", f"{rel}: initial code")
        agent = Agent(self.top / rel, top_agent.content, base_env=top_agent.base_env)
        root = self._root(rel, agent)
        words = root.rng.sample([w for w in WORDS if w not in used], 2)
        used.update(words)
        for i, word in enumerate(words, start=1):
            phase = root._phase(str(i), word)
            root.phases.append(PhaseModel(phase, root._draw_plans(phase)))
        settings = {"mode": "yolo", "granularity": "coarse",
                    "parallelization.enabled": root.rng.choice(["true", "false"]),
                    "workflow.research": "false", "workflow.plan_check": "true", "workflow.verifier": "true",
                    "commit_docs": "true", "workflow.compact_content": "true" if self.compact == "on" else "false"}
        with root._step(f"new-project {len(words)} phases, parallel={settings['parallelization.enabled']}"):
            agent.begin("/msd-new-project")  # new-project's spine: inside another root? the user says: its own
            ws = json.loads(agent.run("new-project", "One repository, several projects", "msd_run workspace").stdout)
            assert (ws["current"], ws["start_is_root"]) == (TOP, False), f"{ws} ({self.where()})"
            agent.run("new-project", "One repository, several projects", "mkdir -p .planning")
            walk.new_project(agent, [p.phase for p in root.phases], settings)
            root.check()
        self.moves.append(f"{rel}: {root.moves[-1]}")
        self.roots[rel] = root

    def _depend(self, root: RootWalk, number: str, other: RootWalk, theirs: str) -> None:
        """`Depends on: Phase <theirs> of <other>` on the ROADMAP.md line of `root`'s phase `number` (its first)."""
        a = root.cycle.agent
        with root._step(f"phase {number} depends on phase {theirs} of {other.rel}"):
            road = a.project / ".planning/ROADMAP.md"
            text = road.read_text()
            assert text.count("Depends on: nothing") == 1, text
            a.write(".planning/ROADMAP.md", text.replace("Depends on: nothing", f"Depends on: Phase {theirs} of {other.rel}"))
            a.sh("msd_run state sync")
            a.sh('msd_run commit --files .planning/ROADMAP.md .planning/STATE.md -m "docs: a phase needs another root\'s"')
            root.waits_on[number] = (other, theirs)
            root.check()
        self.moves.append(f"{root.rel}: {root.moves[-1]}")

    def check_workspace(self) -> None:
        """`msd_run workspace --json` at the top: the three roots, each with the command its model expects."""
        out = self.cycle.agent.msd("workspace", "--json")
        listed = {r["root"]: r for r in out["roots"]}
        assert sorted(listed) == sorted(self.roots), f"workspace lists {sorted(listed)} ({self.where()})"
        for rel, root in self.roots.items():
            want = root.expected()
            assert listed[rel]["command"] == want, f"workspace: {rel} {listed[rel]}, its model {want} ({self.where()})"

    def open_roots(self) -> list[RootWalk]:
        return [r for r in self.roots.values() if not r.completed]

    def run(self) -> list[str]:
        self.setup()
        for _ in range(self.max_moves):
            open_ = self.open_roots()
            if not open_:
                break
            root = self.rng.choice(open_)
            names, weights = zip(*(root.choices() + (root.detours() if root.paused is None else [])), strict=True)
            move = self.rng.choices(names, weights=weights, k=1)[0]
            before = len(root.moves)
            getattr(root, "move_" + move.replace("-", "_"))()
            self.moves += [f"{root.rel}: {m}" for m in root.moves[before:]]
            self.check_workspace()
        return self.moves
