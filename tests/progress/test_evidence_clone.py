"""A fresh clone of a project msd wrote asks for evidence from its first command (issue 45 item 1).

`.planning/.msd/evidence.json` is git-ignored, so a clone knows the project is msd's from what is
committed: config.json's `evidence` record (new-project, `msd init`, `msd_run evidence adopt`) or
msd's `Msd-Plan:` commits in its history (docs/CONTRACTS.md, msd_core/progress/committed_evidence.py).
Histories are real git repositories, cloned with `git clone`; expected routes come from the contract.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.kit.gitkit import git
from tests.progress.test_evidence import PHASE, SUMMARY, _commit, _msd, _next, _project, _write

PLAN2 = f"{PHASE}/01-02-PLAN.md"
SUMMARY2 = f"{PHASE}/01-02-SUMMARY.md"
PLAN3 = f"{PHASE}/01-03-PLAN.md"
SUMMARY3 = f"{PHASE}/01-03-SUMMARY.md"


def _plan(root: Path, rel: str, num: str, files: str) -> None:
    _write(root, rel, f"---\nphase: 01-core\nplan: {num}\nwave: 1\nfiles_modified: [{files}]\n---\n# Plan {num}\n")


def _hand_commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _clone(root: Path, dest: Path, *extra: str) -> Path:
    git(root.parent, "clone", "-q", *extra, root.as_uri() if extra else str(root), str(dest))
    git(dest, "config", "user.email", "mate@example.com")
    git(dest, "config", "user.name", "teammate")
    git(dest, "config", "commit.gpgsign", "false")
    assert not (dest / ".planning/.msd").exists()  # the clone has no marker of its own
    return dest


def _teammate_summary(clone: Path) -> None:
    """A teammate writes plan 01-02's code and SUMMARY and commits by hand: no msd commit behind it."""
    _write(clone, "src/c.txt", "c\n")
    _write(clone, SUMMARY2, "# done, says the teammate\n")
    _hand_commit(clone, "feat: 01-02 by hand")


def _unproven(root: Path) -> list[str]:
    return [u["plan"] for u in _next(root)["phase"].get("unproven", [])]


def _execute_01(root: Path) -> None:
    _write(root, "src/a.txt", "a\n")
    _write(root, "src/b.txt", "b\n")
    _commit(root, "src/a.txt", "src/b.txt")
    _write(root, SUMMARY, "# done\n")
    _commit(root, SUMMARY)


def _created_by(root: Path, how: str) -> None:
    if how == "flow":  # the new-project flow's ask-settings: its first `msd_run config set`
        _msd(root, "config", "set", "mode", "yolo", "--create")
    else:
        r = run_cli("msd_core", ["init", "new-project", "--cwd", str(root), "--defaults"])
        assert r.returncode == 0, r.stderr
    _hand_commit(root, "docs: initialize demo")  # new-project commits config.json with the other docs


@pytest.mark.parametrize("how", ["flow", "init"])
def test_a_fresh_clone_of_a_project_msd_created_asks_a_teammates_summary_for_its_commits(tmp_path, how):
    root = _project(tmp_path)
    _created_by(root, how)
    _plan(root, PLAN2, "02", "src/c.txt")
    _hand_commit(root, "docs: plan 01-02")
    _execute_01(root)
    clone = _clone(root, tmp_path / "clone")
    _teammate_summary(clone)
    out = _next(clone)  # the clone's first msd command
    assert out["route"] == "execute-phase", out
    assert "plan 01-02 has a SUMMARY but no commit recorded" in out["reason"]
    assert [u["plan"] for u in out["phase"]["unproven"]] == ["01-02"]  # 01-01 is proven by its trailers
    status = _msd(clone, "evidence", "status")
    assert (status["required"], status["source"]) == (True, "config")
    waves = _msd(clone, "wave", "plan", "--phase-dir", PHASE)
    assert [p["id"] for p in waves["plans"] if p.get("unproven")] == ["01-02"]
    assert _next(clone)["route"] == "execute-phase"  # the clone's own marker, once written, says the same


def _older_msd_history(root: Path) -> None:
    """A SUMMARY written before msd (several lines), then msd's first `commit --plan` for plan 01-03."""
    _write(root, SUMMARY, "# done before msd\n\nSome lines\nof summary.\n")
    _plan(root, PLAN3, "03", "src/d.txt")
    _hand_commit(root, "work from before msd")
    _write(root, "src/d.txt", "d\n")
    _msd(root, "commit", "--plan", PLAN3, "-m", "feat(01-03): d", "--", "src/d.txt")
    _write(root, SUMMARY3, "# done\n")
    _msd(root, "commit", "--plan", PLAN3, "-m", "docs(01-03): summary", "--", SUMMARY3)


def test_a_clone_of_an_older_msd_project_is_known_by_its_msd_commits(tmp_path):
    """No record in config.json (a project msd executed before issue 45): msd's commits in the history say
    it is msd's; a SUMMARY already in the tree before the first of them is taken on its word."""
    root = _project(tmp_path)
    _write(root, "src/old.txt", "old\n")
    _plan(root, PLAN2, "02", "src/c.txt")
    _older_msd_history(root)
    assert not (root / ".planning/config.json").exists()
    clone = _clone(root, tmp_path / "clone")
    assert _unproven(clone) == []  # 01-01 before msd, 01-03 proven by its trailers
    _teammate_summary(clone)
    out = _next(clone)
    assert out["route"] == "execute-phase" and [u["plan"] for u in out["phase"]["unproven"]] == ["01-02"], out
    assert _msd(clone, "evidence", "status")["source"] == "history"
    # the clone's first `wave plan` writes its marker from the history, not from what is summarised now
    waves = _msd(clone, "wave", "plan", "--phase-dir", PHASE)
    assert [p["id"] for p in waves["plans"] if p.get("unproven")] == ["01-02"]
    marker = json.loads((clone / ".planning/.msd/evidence.json").read_text())
    assert sorted(marker["cutoff"]) == ["01-core/01-01"]
    _write(clone, SUMMARY, "# rewritten after msd\n")  # changed since: no longer taken on its word
    assert sorted(u["plan"] for u in _next(clone)["phase"]["unproven"]) == ["01-01", "01-02"]


def test_a_tree_msd_never_wrote_is_still_taken_on_its_summaries(tmp_path):
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done\n")
    _hand_commit(root, "feat: 01-01 with a message that merely says Msd-Plan: 01-core/01-01 inline")
    clone = _clone(root, tmp_path / "clone")
    assert _next(clone)["route"] == "verify-work"
    status = _msd(clone, "evidence", "status")
    assert status["required"] is False and status["source"] is None
    assert not (clone / ".planning/.msd/evidence.json").exists()  # `next` writes nothing


def test_an_adopted_projects_cutoff_holds_in_a_clone(tmp_path):
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done before msd\n")
    _plan(root, PLAN2, "02", "src/c.txt")
    _hand_commit(root, "older work")
    adopted = _msd(root, "evidence", "adopt")
    assert adopted["cutoff"] == ["01-core/01-01"] and adopted["committed"] == str(root / ".planning/config.json")
    assert "problem" not in adopted
    _hand_commit(root, "chore: msd asks for evidence from now on")  # the person commits config.json
    clone = _clone(root, tmp_path / "clone")
    assert _msd(clone, "evidence", "status")["cutoff"] == ["01-core/01-01"]
    assert _unproven(clone) == []  # 01-01 is in the cutoff
    _teammate_summary(clone)
    out = _next(clone)
    assert out["route"] == "execute-phase" and [u["plan"] for u in out["phase"]["unproven"]] == ["01-02"], out
    # adopting again keeps the record as it is
    again = _msd(root, "evidence", "adopt")
    assert again["created"] is False and "problem" not in again


@pytest.mark.parametrize("record", ['"yes"', "[]", "{}", '{"since": "x", "cutoff": {}}', '{"since": true, "cutoff": {}}',
                                    '{"since": 1e400, "cutoff": {}}', '{"since": 5}', '{"since": 5, "cutoff": []}'])
def test_a_config_record_of_the_wrong_shape_is_ignored(tmp_path, record):
    root = _project(tmp_path)
    _write(root, ".planning/config.json", '{"mode": "yolo", "evidence": ' + record + "}\n")
    _write(root, SUMMARY, "# done\n")
    _hand_commit(root, "hand-made")
    clone = _clone(root, tmp_path / "clone")
    r = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True)
    assert r.stdout == ""
    assert _next(clone)["route"] == "verify-work"  # as if there were no record: taken on its SUMMARY
    assert _msd(clone, "evidence", "status")["required"] is False
    adopted = _msd(clone, "evidence", "adopt")  # the person's way forward is named, the file is left as it is
    assert "remove it and run `msd_run evidence adopt` again" in adopted["problem"]
    assert json.loads((clone / ".planning/config.json").read_text())["evidence"] == json.loads(record)


def test_a_cutoff_entry_that_is_not_a_hash_exempts_nothing(tmp_path):
    root = _project(tmp_path)
    _write(root, ".planning/config.json", '{"evidence": {"since": 5, "cutoff": {"01-core/01-01": 7}}}\n')
    _write(root, SUMMARY, "# done\n")
    _hand_commit(root, "hand-made")
    out = _next(_clone(root, tmp_path / "clone"))
    assert out["route"] == "execute-phase" and "01-01 has a SUMMARY but no commit recorded" in out["reason"]


def test_the_record_is_not_a_setting(tmp_path):
    root = _project(tmp_path)
    _msd(root, "config", "set", "mode", "yolo", "--create")
    listed = json.dumps(_msd(root, "config", "list"))
    assert '"evidence' not in listed
    r = run_cli("msd_core.run", ["config", "set", "evidence.since", "1"], cwd=root)
    assert r.returncode == 2 and "msd_run evidence adopt" in r.stderr


def _fast_history(root: Path, count: int) -> None:
    """`count` commits of a file outside .planning/, made by git fast-import on top of HEAD."""
    head = git(root, "rev-parse", "HEAD").strip()
    stream = []
    for i in range(count):
        body = f"{i}\n"
        msg = f"c{i}\n"
        stream.append(f"commit refs/heads/main\ncommitter t <t@e> {1700000000 + i} +0000\ndata {len(msg)}\n{msg}"
                      + (f"from {head}\n" if i == 0 else "")
                      + f"M 644 inline noise.txt\ndata {len(body)}\n{body}\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="".join(stream), text=True, check=True)
    git(root, "reset", "-q", "--hard", "main")


def test_a_long_history_and_a_shallow_clone_get_a_safe_answer(tmp_path):
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done before msd\n")
    _hand_commit(root, "older work")
    _fast_history(root, 20000)
    t0 = time.monotonic()
    assert _next(root)["route"] == "verify-work"  # no msd commit in 20,001: taken on its SUMMARY
    assert time.monotonic() - t0 < 30
    _plan(root, PLAN2, "02", "src/c.txt")
    _hand_commit(root, "plan 2")
    _write(root, "src/c.txt", "c\n")
    _msd(root, "commit", "--plan", PLAN2, "-m", "feat(01-02): c", "--", "src/c.txt")
    clone = _clone(root, tmp_path / "clone")
    assert _unproven(clone) == []  # 01-01 was in the tree before msd's first commit
    _write(clone, SUMMARY, "# rewritten\n")
    assert _unproven(clone) == ["01-01"]
    # a clone cut at msd's commit cannot see the tree before it: taken on its SUMMARYs, as before issue 45
    shallow = _clone(root, tmp_path / "shallow", "--depth", "1")
    _write(shallow, SUMMARY, "# rewritten\n")
    assert _unproven(shallow) == []
    assert _msd(shallow, "evidence", "status")["required"] is False


def _crlf(clone: Path) -> bool:
    return b"\r\n" in (clone / SUMMARY).read_bytes()


@pytest.mark.parametrize("how", ["autocrlf", "attributes"])
def test_a_summary_from_before_msd_checked_out_with_crlf_is_still_unchanged(tmp_path, how):
    """git writes the SUMMARY with CRLF line ends in this clone (core.autocrlf=true, or an eol rule in
    .gitattributes): its bytes differ from the blob, its content does not, so it stays taken on its word."""
    root = _project(tmp_path)
    if how == "attributes":
        _write(root, ".gitattributes", "*.md text eol=crlf\n")
    _older_msd_history(root)
    extra = ("-c", "core.autocrlf=true") if how == "autocrlf" else ()
    clone = _clone(root, tmp_path / "clone", *extra)
    assert _crlf(clone)
    assert _unproven(clone) == []  # 01-01 was in the tree before msd's first commit, unchanged since
    _msd(clone, "wave", "plan", "--phase-dir", PHASE)  # the clone's marker, copied from the history
    assert sorted(json.loads((clone / ".planning/.msd/evidence.json").read_text())["cutoff"]) == ["01-core/01-01"]
    _write(clone, SUMMARY, "# rewritten after msd\n")  # a real change is still one
    assert _unproven(clone) == ["01-01"]


def test_an_adopted_cutoff_holds_in_a_clone_that_checks_out_crlf(tmp_path):
    root = _project(tmp_path)
    _write(root, SUMMARY, "# done before msd\n\nSome lines\nof summary.\n")
    _hand_commit(root, "older work")
    assert _msd(root, "evidence", "adopt")["cutoff"] == ["01-core/01-01"]
    _hand_commit(root, "chore: msd asks for evidence from now on")
    clone = _clone(root, tmp_path / "clone", "-c", "core.autocrlf=true")
    assert _crlf(clone)
    assert _unproven(clone) == []  # config.json's cutoff names 01-01, whose SUMMARY reads the same
    _write(clone, SUMMARY, "# rewritten after adoption\r\n")
    assert _unproven(clone) == ["01-01"]


@pytest.mark.parametrize("stored", ["lf", "mixed"])
def test_a_cutoff_an_older_msd_hashed_from_the_bytes_still_holds(tmp_path, stored):
    """An older msd wrote each cutoff entry as the sha256 of the SUMMARY's bytes. `lf`: an adopter whose git
    checked it out with CRLF recorded those bytes; a clone with the file's LF text takes it on its word. `mixed`:
    a SUMMARY committed with mixed line ends, hashed as it is, reads the same in a clone. Other text still
    needs its commits."""
    import hashlib

    root = _project(tmp_path)
    lf = b"# done before msd\n\nSome lines\nof summary.\n"
    hashed = lf.replace(b"\n", b"\r\n") if stored == "lf" else lf.replace(b"\n\nSome", b"\r\n\nSome")
    (root / SUMMARY).write_bytes(lf if stored == "lf" else hashed)
    record = {"since": 5, "cutoff": {"01-core/01-01": hashlib.sha256(hashed).hexdigest()}}
    _write(root, ".planning/config.json", json.dumps({"evidence": record}) + "\n")
    _hand_commit(root, "older work, adopted")
    clone = _clone(root, tmp_path / "clone")
    assert (clone / SUMMARY).read_bytes() == (lf if stored == "lf" else hashed)
    assert _unproven(clone) == []
    _write(clone, SUMMARY, "# rewritten after adoption\n")
    assert _unproven(clone) == ["01-01"]
