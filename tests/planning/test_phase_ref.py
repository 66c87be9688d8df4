"""Phase identity (msd_core.planning.phase_ref): any reference → one phase and folder; milestones stay apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import corpus_tree_names
from tests.kit.flowkit import fake_install


def _mk(root: Path, *folders: str, roadmap: str | None = None) -> Path:
    for f in folders:
        (root / ".planning" / f).mkdir(parents=True, exist_ok=True)
    if roadmap is not None:
        (root / ".planning" / "ROADMAP.md").write_text(roadmap)
    return root


@pytest.fixture
def tree(tmp_path):
    return _mk(tmp_path / "p", "phases/01-setup", "phases/02-auth", "phases/02.1-hotfix", "phases/12-search",
               "milestones/v1.0-phases/01-legacy", "milestones/v1.0-phases/02-old-auth",
               roadmap="# Roadmap\n- [x] **Phase 1: Setup**\n- [ ] **Phase 2: Auth**\n- [ ] **Phase 3: Payments & Billing**\n")


@pytest.mark.parametrize("ref,dirname", [
    ("1", "01-setup"), ("01", "01-setup"), ("Phase 2", "02-auth"), ("phase 02", "02-auth"), ("2", "02-auth"),
    ("02-auth", "02-auth"), ("2.1", "02.1-hotfix"), ("02.1", "02.1-hotfix"), ("12", "12-search"), (2, "02-auth"),
    ("v1.0/1", "01-legacy"), ("v1.0/02-old-auth", "02-old-auth"), ("1.0/2", "02-old-auth"),
])
def test_every_spelling_names_one_folder(tree, ref, dirname):
    from msd_core.planning.phase_ref import resolve

    ph = resolve(tree / ".planning", ref)
    assert ph.dirname == dirname and ph.folder.name == dirname and ph.id == dirname.split("-")[0]
    assert (ph.milestone is None) == (not str(ref).startswith(("v", "1.0/")))


def test_roadmap_phase_without_folder(tree):
    from msd_core.planning.phase_ref import resolve

    ph = resolve(tree / ".planning", "3")
    assert ph.folder is None and ph.id == "03" and ph.dirname == "03-payments-billing" and ph.name == "Payments & Billing"


@pytest.mark.parametrize("ref,msg", [
    ("7", "names no phase"), ("v2.0/1", "names no phase"), ("x", "not a phase reference"), ("", "not a phase reference"),
    ("../02", "not a phase reference"), ("02/../../etc", "not a phase reference"), (True, "not a phase reference"),
])
def test_references_that_name_nothing(tree, ref, msg):
    from msd_core.errors import UsageError
    from msd_core.planning.phase_ref import resolve

    with pytest.raises(UsageError) as err:
        resolve(tree / ".planning", ref)
    assert msg in err.value.message and err.value.exit_code == 2


def test_two_folders_one_number_is_a_clear_error(tree):
    from msd_core.planning.phase_ref import AmbiguousPhase, resolve

    (tree / ".planning/phases/02-auth-again").mkdir()
    with pytest.raises(AmbiguousPhase) as err:
        resolve(tree / ".planning", "2")
    assert "02-auth, 02-auth-again" in err.value.message and err.value.exit_code == 2
    assert resolve(tree / ".planning", "02-auth-again").dirname == "02-auth-again"  # the folder name still works
    assert resolve(tree / ".planning", "v1.0/2").dirname == "02-old-auth"  # another milestone is another phase


def test_flow_phase_two_gets_the_padded_folder(msd_run, tmp_path):
    """A model that reports "phase": "2" gets 02-auth/02-RESEARCH.md, not 2-RESEARCH.md."""
    install = fake_install(tmp_path / "cfg")
    proj = _mk(tmp_path / "proj", "phases/02-auth", roadmap="# Roadmap\n- [ ] **Phase 2: Auth**\n")
    (proj / ".planning/config.json").write_text('{"workflow": {"research": true}}')
    base = ["--workflow", "plan-phase", "--root", str(install), "--cwd", str(proj)]
    assert msd_run(["next-step", *base, "--var", "phase=2"]).returncode == 0
    r = msd_run(["step-done", *base, "--step", "load-context", "--result", "-"], input='{"phase": "2", "phase_dir": ""}')
    assert r.returncode == 0, r.stderr
    nxt = json.loads(r.stdout)["next"]
    assert nxt["step"] == "research"
    assert nxt["expects"]["files"] == [".planning/phases/02-auth/02-RESEARCH.md"]
    assert "02-auth/02-RESEARCH.md" in nxt["prompt"]
    state = json.loads((proj / ".planning/state.json").read_text())["workflows"]["plan-phase"]["vars"]
    assert state["phase"] == "02" and state["phase_dir"] == "02-auth"


def test_flow_ambiguous_phase_is_refused(msd_run, tmp_path):
    install = fake_install(tmp_path / "cfg")
    proj = _mk(tmp_path / "proj", "phases/02-a", "phases/02-b")
    r = msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install), "--cwd", str(proj), "--var", "phase=2"])
    assert r.returncode == 2 and "ambiguous" in r.stderr and "02-a, 02-b" in r.stderr and "Traceback" not in r.stderr


def test_result_from_stdin_and_its_errors(msd_run, tmp_path):
    install = fake_install(tmp_path / "cfg")
    proj = _mk(tmp_path / "proj", "phases/05-x")
    base = ["step-done", "--workflow", "plan-phase", "--root", str(install), "--cwd", str(proj), "--step", "load-context",
            "--result", "-"]
    r = msd_run(base, input="")
    assert r.returncode == 2 and "stdin is empty" in r.stderr
    r = msd_run(base, input="[1, 2]")
    assert r.returncode == 2 and "must be a JSON object" in r.stderr
    r = msd_run(base, input='{"phase": "5", "phase_dir": "05-x", "skip_research": true}')
    assert r.returncode == 0, r.stderr and json.loads(r.stdout)["recorded"] == "load-context"


@pytest.mark.parametrize("name", corpus_tree_names() or ["<no corpus>"])
def test_corpus_every_folder_resolves_to_itself(name, corpus_dir):
    """Every phase folder of every corpus project resolves from its own name, and every
    number resolves to one folder unless two folders of one milestone share it."""
    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.phase_ref import AmbiguousPhase, phase_key, resolve

    planning = corpus_dir / name / ".planning"
    dirs = phase_dirs(planning)
    keys = [phase_key(d) for d in dirs]
    assert len(keys) == len(set(keys))  # one key per folder: no two milestones merge
    for d in dirs:
        if d.milestone is not None or not d.name[:1].isdigit():
            continue
        assert resolve(planning, d.name, dirs=dirs).folder == d.path
        same = [e for e in dirs if e.milestone is None and e.number == d.number]
        if len(same) == 1:
            assert resolve(planning, d.number, dirs=dirs).folder == d.path
        else:
            with pytest.raises(AmbiguousPhase):
                resolve(planning, d.number, dirs=dirs)


def test_plain_numbers_parse_as_the_reference_pattern_reads_them():
    """parse_ref answers a plain number (2, 02, 2.1) without the reference pattern; over a
    grid of number-like texts it gives what the pattern gives, and refuses what it refuses."""
    import itertools

    from msd_core.errors import UsageError
    from msd_core.planning import phase_ref
    from msd_core.planning.discovery import normalize_phase

    def by_pattern(ref):
        text = " ".join(str(ref).split())
        m = phase_ref._REF_RE.match(text.strip().strip("'\"").rstrip("/"))
        if not m:
            return "refused"
        return m.group("ms"), normalize_phase(m.group("num")), (m.group("slug") or None)

    pieces = ["0", "01", "2", "10", "", ".", "²", "٣", "a", " ", "/", "'", "-x"]
    checked = 0
    for combo in itertools.product(pieces, repeat=3):
        ref = "".join(combo)
        try:
            got = phase_ref.parse_ref(ref)
        except UsageError:
            got = "refused"
        assert got == by_pattern(ref), repr(ref)
        checked += 1
    assert checked == len(pieces) ** 3
