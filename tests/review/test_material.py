"""`msd_run import` and `msd_run docs drift` (issue 33.8): material brought into REQUIREMENTS.md
with each requirement's source checked, and the docs a milestone left behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

PRD = "# Shop\n\n## Accounts\nPeople sign up with an email.\nThey reset a password by mail.\n\n## Later\nSSO.\n"


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    (root / ".planning" / "PROJECT.md").write_text("# Shop\n")
    material = tmp_path / "material"
    (material / "specs").mkdir(parents=True)
    (material / "prd.md").write_text(PRD)
    (material / "specs" / "api.md").write_text("# API\n\nGET /items lists items.\n")
    (material / "logo.png").write_bytes(b"\x89PNG\0\0")
    return root, material


def req(**over):
    r = {"id": "ACCT-01", "category": "Accounts", "text": "A person signs up with an email", "tier": "v1",
         "source": "prd.md:4"}
    r.update(over)
    return {k: v for k, v in r.items() if v is not None}


def draft(msd_run, root, material, reqs, *extra):
    return msd_run(["import", "requirements", str(material), "--draft", "-", *extra], cwd=root,
                   input=json.dumps({"requirements": reqs}))


def test_scan_lists_the_documents_with_their_headings(msd_run, proj):
    root, material = proj
    r = msd_run(["import", "scan", str(material)], cwd=root)
    assert r.returncode == 0, r.stderr
    docs = {d["path"]: d for d in json.loads(r.stdout)["documents"]}
    assert set(docs) == {"prd.md", "specs/api.md"}  # the image is no document
    assert docs["prd.md"]["lines"] == 8 and {"line": 3, "text": "Accounts"} in docs["prd.md"]["headings"]


def test_scan_of_nothing_readable_fails(msd_run, proj, tmp_path):
    root, _ = proj
    (tmp_path / "empty").mkdir()
    r = msd_run(["import", "scan", str(tmp_path / "empty")], cwd=root)
    assert r.returncode == 1 and "no readable document" in r.stderr
    r = msd_run(["import", "scan", str(tmp_path / "nowhere")], cwd=root)
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_a_linked_document_is_skipped(msd_run, proj, tmp_path):
    root, material = proj
    (tmp_path / "secret.md").write_text("# outside\n")
    os.symlink(tmp_path / "secret.md", material / "link.md")
    out = json.loads(msd_run(["import", "scan", str(material)], cwd=root).stdout)
    assert "link.md" not in {d["path"] for d in out["documents"]}
    assert out["skipped"][0]["path"] == "link.md"


def test_requirements_are_written_with_their_sources(msd_run, proj):
    root, material = proj
    r = draft(msd_run, root, material, [
        req(), req(id="ACCT-02", text="A person resets a password by mail", source="prd.md:4-5"),
        req(id="API-01", category="API", text="Items are listed", source="specs/api.md:3", tier="v2"),
        req(id="ACCT-03", text="Single sign-on", tier="out", reason="after launch", source="prd.md:8", category=None)])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["v1"], out["v2"], out["out"], out["documents_cited"]) == (2, 1, 1, 2)
    text = (root / ".planning" / "REQUIREMENTS.md").read_text()
    assert "# Requirements: Shop" in text
    assert "- [ ] **ACCT-02**: A person resets a password by mail (source: prd.md:4-5)" in text
    assert "- **API-01**: Items are listed (source: specs/api.md:3)" in text
    assert "| ACCT-03: Single sign-on | after launch | prd.md:8 |" in text
    assert "| ACCT-01 | - | Pending |" in text and "API-01 | - |" not in text


BAD = [
    ("id", req(id="acct-1"), "`id` must look like AUTH-01"),
    ("tier", req(tier="must"), "`tier` must be v1, v2 or out"),
    ("no text", req(text=" "), "`text` is missing"),
    ("long text", req(text="x " * 200), "longer than 300"),
    ("no category", req(category=None), "`category` is missing"),
    ("out without reason", req(tier="out"), "needs a `reason`"),
    ("no source", req(source=None), "`source` must be"),
    ("source shape", req(source="prd.md"), "`source` must be"),
    ("unknown document", req(source="roadmap.md:1"), "not a document of the material"),
    ("line past end", req(source="prd.md:9"), "not inside prd.md (8 lines)"),
    ("range backwards", req(source="prd.md:5-4"), "not inside prd.md"),
    ("line zero", req(source="prd.md:0"), "not inside prd.md"),
    ("unknown field", req(priority="high"), "unknown field"),
    ("not an object", "ACCT-01", "is not an object"),
]


@pytest.mark.parametrize("name,bad,message", BAD, ids=[b[0] for b in BAD])
def test_each_check_of_a_drafted_requirement_fails(msd_run, proj, name, bad, message):
    root, material = proj
    r = draft(msd_run, root, material, [bad])
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (root / ".planning" / "REQUIREMENTS.md").exists()


def test_a_duplicate_id_and_an_empty_or_broken_draft_fail(msd_run, proj):
    root, material = proj
    r = draft(msd_run, root, material, [req(), req()])
    assert r.returncode == 2 and "listed twice" in r.stderr
    assert draft(msd_run, root, material, []).returncode == 2
    r = msd_run(["import", "requirements", str(material), "--draft", "-"], cwd=root, input="{nope")
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    r = msd_run(["import", "requirements", str(material), "--draft", "-"], cwd=root, input='{"requirements": [], "x": 1}')
    assert r.returncode == 2 and "nothing else" in r.stderr


def test_an_existing_requirements_file_is_replaced_only_when_asked(msd_run, proj):
    root, material = proj
    (root / ".planning" / "REQUIREMENTS.md").write_text("mine\n")
    r = draft(msd_run, root, material, [req()])
    assert r.returncode == 1 and "exists; not replaced" in r.stderr
    assert (root / ".planning" / "REQUIREMENTS.md").read_text() == "mine\n"
    assert draft(msd_run, root, material, [req()], "--replace").returncode == 0
    assert "ACCT-01" in (root / ".planning" / "REQUIREMENTS.md").read_text()


def test_a_single_file_is_cited_by_its_name(msd_run, proj):
    root, material = proj
    r = draft(msd_run, root, material / "prd.md", [req()])
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ docs drift


@pytest.fixture
def built(tmp_path):
    root = tmp_path / "app"
    phase = root / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text("---\nphase: 01-core\nplan: 01\ntype: execute\nwave: 1\n"
                                         "files_modified: [src/store.py, docs/store.md]\n---\n<objective>x</objective>\n")
    (root / "src").mkdir()
    (root / "src" / "store.py").write_text("x = 1\n")
    (root / "src" / "old.py").write_text("y = 1\n")
    (root / "docs").mkdir()
    (root / "docs" / "store.md").write_text("The store is `src/store.py`.\n")  # updated in the milestone
    (root / "docs" / "guide.md").write_text("Start in `src/old.py`; data lives in [store](../src/store.py).\n")
    (root / "README.md").write_text("Run `src/main.py`. See https://example.com/a/b.py\n")
    return root


def drift(msd_run, root, *extra):
    r = msd_run(["docs", "drift", *extra], cwd=root)
    return r.returncode, json.loads(r.stdout)


def test_docs_that_name_changed_or_missing_files_are_stale(msd_run, built):
    code, out = drift(msd_run, built)
    assert code == 0 and out["changed_files"] == 2 and out["documents"] == 3
    stale = {d["path"]: d for d in out["stale"]}
    assert set(stale) == {"docs/guide.md", "README.md"}
    assert stale["docs/guide.md"]["changed"] == ["src/store.py"] and stale["docs/guide.md"]["broken"] == []
    assert stale["README.md"]["broken"] == ["src/main.py"]
    assert out["current"] == ["docs/store.md"]  # names a changed file, and was updated with it


def test_check_fails_while_a_doc_is_stale_and_passes_once_none_is(msd_run, built):
    assert drift(msd_run, built, "--check")[0] == 1
    (built / "README.md").write_text("Run the app.\n")
    (built / "docs" / "guide.md").write_text("Start in `src/old.py`.\n")
    code, out = drift(msd_run, built, "--check")
    assert code == 0 and out["stale"] == []


def test_a_linked_doc_is_not_read(msd_run, built, tmp_path):
    (tmp_path / "elsewhere.md").write_text("`src/missing/x.py`\n")
    os.symlink(tmp_path / "elsewhere.md", built / "docs" / "linked.md")
    _code, out = drift(msd_run, built)
    assert "docs/linked.md" not in {d["path"] for d in out["stale"]}


def test_scan_of_a_folder_nested_1100_deep_lists_what_is_within_reach(msd_run, proj):
    """Once a RecursionError (exit 1): the walk is iterative and stops MAX_DEPTH levels down."""
    from msd_core.files.walk import MAX_DEPTH

    root, material = proj
    deep = str(material)
    for _ in range(1100):  # os.makedirs and Path.mkdir(parents=True) recurse once per level themselves
        deep = os.path.join(deep, "d")
        os.mkdir(deep)
    deep = Path(deep)
    (deep / "bottom.md").write_text("# Bottom\n")
    (material.joinpath(*["d"] * 3) / "near.md").write_text("# Near\n")
    try:
        r = msd_run(["import", "scan", str(material)], cwd=root)
    finally:  # shutil.rmtree (pytest's clean-up) recurses once per level too: remove it bottom up
        (deep / "bottom.md").unlink()
        while deep != material / "d":
            for name in os.listdir(deep):
                os.unlink(deep / name)
            os.rmdir(deep)
            deep = deep.parent
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {d["path"] for d in out["documents"]} == {"prd.md", "specs/api.md", "d/d/d/near.md"}
    (left,) = out["skipped"]
    assert left["path"] == "/".join(["d"] * (MAX_DEPTH + 1)) and "levels deep" in left["reason"]


def test_a_replacing_import_keeps_every_id_the_roadmap_maps_and_a_backup(msd_run, proj):
    """`--replace` of a REQUIREMENTS.md whose ids ROADMAP.md maps: a draft dropping one is refused
    (the ids named, nothing written); one keeping them, or moving one out of scope with its id, is
    written and the old file kept in .planning/.msd/backups/."""
    root, material = proj
    pl = root / ".planning"
    old = ("# Requirements\n\n- [ ] **ACCT-01**: A person signs up\n- [ ] **ACCT-02**: A person resets a password\n"
           "- [ ] **ACCT-09**: Not on any phase\n")
    (pl / "REQUIREMENTS.md").write_text(old)
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n### Phase 1: Accounts\nRequirements: ACCT-01, ACCT-02\n")
    r = draft(msd_run, root, material, [req()], "--replace")
    assert r.returncode == 1 and "the draft drops ACCT-02, which ROADMAP.md maps to phases" in r.stderr
    assert 'tier "out"' in r.stderr and "msd_run phase remove" in r.stderr
    assert (pl / "REQUIREMENTS.md").read_text() == old and not (pl / ".msd" / "backups").exists()
    r = draft(msd_run, root, material, [req(), req(id="ACCT-02", text="Resets wait", tier="out", reason="later",
                                                   source="prd.md:4", category=None)], "--replace")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["backup"].startswith(".planning/.msd/backups/REQUIREMENTS-") and (root / out["backup"]).read_text() == old
    assert "| ACCT-02: Resets wait | later | prd.md:4 |" in (pl / "REQUIREMENTS.md").read_text()
