"""`msd_run claim`: who works on which phase (msd_core.planning.claims), and `msd_run next` routing
around phases other people hold; stale claims (too old, branch gone) hold nothing."""

from __future__ import annotations

import json

from msd_core.planning import claims
from tests.kit.gitkit import git, run_msd
from tests.kit.probe import denied, probe
from tests.kit.teamkit import make_project, msd


def as_person(root, name):
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", f"{name.lower()}@example.com")


def project(tmp_path, name="Ada"):
    root = make_project(tmp_path / "p", phases=(("1", "Core"), ("2", "Auth"), ("3", "Pay")))
    as_person(root, name)
    return root


def test_a_claim_names_who_where_and_when_and_is_committed(tmp_path):
    root = project(tmp_path)
    out = msd(root, "claim", "01")
    assert out["action"] == "claimed" and out["phase"] == "1"
    c = out["claim"]
    assert (c["phase"], c["by"], c["email"], c["branch"]) == ("1", "Ada", "ada@example.com", "main")
    assert out["commit"]["committed"] and git(root, "log", "-1", "--format=%s").strip() == "docs(claims): Ada claims phase 1"
    assert git(root, "status", "--porcelain").strip() == ""
    listed = msd(root, "claim", "--list")["claims"]
    assert [(x["phase"], x["mine"], x["stale"]) for x in listed] == [("1", True, False)]


def test_someone_elses_claim_is_refused_unless_forced_and_release_is_per_person(tmp_path):
    root = project(tmp_path)
    msd(root, "claim", "1")
    as_person(root, "Bob")
    r = run_msd(["claim", "1"], root)
    assert r.returncode == 1 and "phase 1 claimed by Ada (branch main" in r.stderr and "--force" in r.stderr
    out = msd(root, "claim", "1", "--force")
    assert [c["by"] for c in out["shared_with"]] == ["Ada"]
    assert msd(root, "claim", "1", "--release")["released"][0]["by"] == "Bob"
    assert [c["by"] for c in msd(root, "claim", "--list")["claims"]] == ["Ada"]
    assert msd(root, "claim", "1", "--release")["action"] == "not claimed"  # Bob holds nothing now
    assert msd(root, "claim", "1", "--release", "--force")["released"][0]["by"] == "Ada"
    assert msd(root, "claim", "--list")["claims"] == []


def test_next_passes_phases_others_hold_and_can_be_told_not_to(tmp_path):
    root = project(tmp_path)
    msd(root, "claim", "1")
    assert msd(root, "next")["phase"]["number"] == "1"  # my own claim: routed to it
    as_person(root, "Bob")
    out = msd(root, "next")
    assert out["phase"]["number"] == "2" and out["route"] == "discuss-phase"
    assert "phase 1 is claimed by Ada" in out["reason"] and out["claimed_by_others"][0].startswith("phase 1 claimed by Ada")
    assert msd(root, "next", "--ignore-claims")["phase"]["number"] == "1"
    as_person(root, "Ada")
    msd(root, "claim", "2")
    msd(root, "claim", "3")
    as_person(root, "Bob")
    out = msd(root, "next")
    assert out["route"] == "claimed" and out["command"] == "/msd-progress" and "--ignore-claims" in out["reason"]


def test_stale_claims_are_shown_as_stale_and_hold_nothing(tmp_path):
    root = project(tmp_path)
    msd(root, "claim", "1")
    git(root, "checkout", "-qb", "ada/auth")
    msd(root, "claim", "2")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", "ada/auth")  # the claim reached main; then the branch went
    path = root / ".planning/claims.json"
    data = json.loads(path.read_text())
    data["claims"][0]["at"] = "2020-01-01T00:00:00Z"
    path.write_text(json.dumps(data))
    git(root, "branch", "-D", "ada/auth")
    as_person(root, "Bob")
    listed = {c["phase"]: c for c in msd(root, "claim", "--list")["claims"]}
    assert listed["1"]["stale"] and listed["1"]["stale_why"] == "older than 14 days"
    assert listed["2"]["stale"] and listed["2"]["stale_why"] == "branch ada/auth is gone"
    assert msd(root, "next")["phase"]["number"] == "1"  # nothing held
    assert msd(root, "claim", "1")["action"] == "claimed"  # a stale claim does not refuse


def test_the_stale_age_is_a_setting(tmp_path):
    root = project(tmp_path)
    msd(root, "claim", "1")
    now = claims._epoch(json.loads((root / ".planning/claims.json").read_text())["claims"][0]["at"])
    assert not claims.view(root, now=now + 3 * 86400)[0]["stale"]
    msd(root, "config", "set", "team.claim_stale_days", "2")
    assert claims.view(root, now=now + 3 * 86400)[0]["stale_why"] == "older than 2 days"


def test_a_claim_needs_a_git_identity(tmp_path, monkeypatch):
    root = project(tmp_path)
    git(root, "config", "--unset", "user.name")
    git(root, "config", "--unset", "user.email")
    r = run_msd(["claim", "1"], root, env_extra={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"})
    assert r.returncode == 2 and "git config user.name" in r.stderr and not (root / ".planning/claims.json").exists()


def test_a_damaged_claims_file_is_a_clear_error_and_next_still_routes(tmp_path):
    root = project(tmp_path)
    (root / ".planning/claims.json").write_text('{"claims": [oops')
    r = run_msd(["claim", "1"], root)
    assert r.returncode == 2 and "claims.json is not valid JSON" in r.stderr and "Traceback" not in r.stderr
    out = msd(root, "next")
    assert out["phase"]["number"] == "1" and any("claims not read" in n for n in out["notes"])
    (root / ".planning/claims.json").write_text('{"claims": [{"phase": 3}]}')
    assert "needs text fields" in run_msd(["claim", "--list"], root).stderr


def test_unknown_and_archived_phases_are_refused(tmp_path):
    root = project(tmp_path)
    assert run_msd(["claim", "9"], root).returncode == 2
    (root / ".planning/milestones/v1.0-phases/01-old").mkdir(parents=True)
    r = run_msd(["claim", "v1.0/01"], root)
    assert r.returncode == 2 and "archived milestone" in r.stderr


def test_merging_claim_files_keeps_every_claim_and_every_release():
    def text(*cs):
        return claims.dumps([{"phase": p, "by": b, "email": "", "branch": "", "at": at} for p, b, at in cs])

    base = text(("1", "Ada", "2026-01-01T00:00:00Z"), ("2", "Bob", "2026-01-01T00:00:00Z"))
    ours = text(("2", "Bob", "2026-01-01T00:00:00Z"), ("3", "Cy", "2026-01-02T00:00:00Z"))  # Ada released 1
    theirs = text(("1", "Ada", "2026-01-01T00:00:00Z"), ("2", "Bob", "2026-01-05T00:00:00Z"),  # Bob refreshed 2
                  ("4", "Dee", "2026-01-03T00:00:00Z"))
    merged = claims.parse(claims.merge_texts(base, ours, theirs))
    assert [(c["phase"], c["by"], c["at"][:10]) for c in merged] == [
        ("2", "Bob", "2026-01-05"), ("3", "Cy", "2026-01-02"), ("4", "Dee", "2026-01-03")]
    assert claims.merge_texts(base, "{", theirs) is None


def test_claim_imports_nothing_heavy(tmp_path):
    root = project(tmp_path)
    res = probe(["claim", "1"], root, tmp_path / "claim.json")
    assert res["code"] == 0, res["err"]
    assert denied(res["modules"], set()) == []
    res = probe(["next"], root, tmp_path / "next.json")
    assert res["code"] == 0 and json.loads(res["out"])["claims"][0]["phase"] == "1"
    assert denied(res["modules"], set()) == []
