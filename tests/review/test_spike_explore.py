"""`msd_run spike` and `msd_run explore` (issue 33.5): a spike's branch and finding, an
exploration note and its citations; every refusal on a fixture."""

from __future__ import annotations

import json

import pytest

from tests.kit.gitkit import git, new_repo

Q = "Can the cache hold a million keys?"
SLUG = "can-the-cache-hold-a"


@pytest.fixture
def repo(tmp_path):
    root = new_repo(tmp_path / "proj")
    (root / ".planning").mkdir()
    (root / ".planning" / "PROJECT.md").write_text("# Demo\n")
    (root / "src").mkdir()
    (root / "src" / "cache.py").write_text("class Cache:\n    pass\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def branch(root) -> str:
    return git(root, "branch", "--show-current").strip()


def start(msd_run, root, *extra):
    return msd_run(["spike", "start", Q, *extra], cwd=root)


def finish(msd_run, root, *extra, finding="The cache holds 1M keys in 80 MB.", slug=SLUG):
    return msd_run(["spike", "finish", slug, "--finding", "-", "--verdict", "works", *extra], cwd=root, input=finding)


def spike_work(root):
    (root / "bench.py").write_text("print('1M keys')\n")
    git(root, "add", "bench.py")
    git(root, "commit", "-q", "-m", "spike: bench the cache")


def test_a_spike_runs_on_its_branch_and_its_finding_outlives_it(msd_run, repo):
    r = start(msd_run, repo)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["branch"] == f"spike/{SLUG}" and out["base"] == "main" and branch(repo) == f"spike/{SLUG}"
    spike_work(repo)
    r = finish(msd_run, repo, "--branch", "remove")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert branch(repo) == "main" and out["commits"] == 1 and out["files"] == ["bench.py"]
    assert f"spike/{SLUG}" not in git(repo, "branch", "--list")
    note = (repo / out["file"]).read_text()
    assert "verdict: works" in note and "branch_kept: false" in note and "1M keys in 80 MB" in note
    assert f"git branch spike/{SLUG} {out['tip']}" in note  # how to restore it
    assert not (repo / "bench.py").exists()  # the experiment stayed on its branch
    listed = json.loads(msd_run(["spike", "list"], cwd=repo).stdout)
    assert listed["open"] == [] and listed["finished"][0]["verdict"] == "works"


def test_a_kept_branch_stays(msd_run, repo):
    assert start(msd_run, repo).returncode == 0
    spike_work(repo)
    out = json.loads(finish(msd_run, repo, "--branch", "keep").stdout)
    assert out["branch_kept"] is True and f"spike/{SLUG}" in git(repo, "branch", "--list")
    assert git(repo, "rev-parse", f"spike/{SLUG}").strip() == out["tip"]


def test_a_spike_needs_a_clean_tree_to_start_and_to_finish(msd_run, repo):
    (repo / "src" / "cache.py").write_text("changed\n")
    r = start(msd_run, repo)
    assert r.returncode == 1 and "uncommitted changes (src/cache.py)" in r.stderr and branch(repo) == "main"
    git(repo, "checkout", "--", "src/cache.py")
    assert start(msd_run, repo).returncode == 0
    (repo / "half.py").write_text("x\n")
    r = finish(msd_run, repo, "--branch", "remove")
    assert r.returncode == 1 and "half.py" in r.stderr
    assert branch(repo) == f"spike/{SLUG}" and (repo / "half.py").exists()  # nothing lost
    assert not (repo / ".planning" / "spikes").exists()


def test_a_slug_or_branch_in_use_is_refused(msd_run, repo):
    git(repo, "branch", f"spike/{SLUG}")
    r = start(msd_run, repo)
    assert r.returncode == 1 and "exists already" in r.stderr and branch(repo) == "main"
    assert start(msd_run, repo, "--slug", "other").returncode == 0
    git(repo, "switch", "-q", "main")
    r = start(msd_run, repo, "--slug", "other")
    assert r.returncode == 1 and "spike other exists already" in r.stderr


def test_no_spike_from_a_spike_branch_or_a_detached_head(msd_run, repo):
    assert start(msd_run, repo).returncode == 0
    r = start(msd_run, repo, "--slug", "nested")
    assert r.returncode == 1 and "already on spike branch" in r.stderr
    git(repo, "switch", "-q", "--detach", "main")
    r = start(msd_run, repo, "--slug", "detached")
    assert r.returncode == 1 and "detached" in r.stderr


@pytest.mark.parametrize("argv,message", [
    (["spike", "start", "   "], "needs a question"),
    (["spike", "start", "q" * 301], "longer than 300"),
    (["spike", "start", "ok", "--slug", "Bad Slug"], "lower-case letters"),
    (["spike", "finish", "../x", "--finding", "-", "--verdict", "works", "--branch", "keep"], "not a spike slug"),
    (["spike", "finish", SLUG, "--finding", "-", "--verdict", "great", "--branch", "keep"], "invalid choice"),
], ids=["empty question", "long question", "bad slug", "hostile slug", "bad verdict"])
def test_bad_usage_is_one_line_exit_2(msd_run, repo, argv, message):
    r = msd_run(argv, cwd=repo, input="x")
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert branch(repo) == "main"


def test_finishing_what_was_not_started_or_with_an_empty_finding_fails(msd_run, repo):
    r = finish(msd_run, repo, "--branch", "keep")
    assert r.returncode == 1 and f"no open spike {SLUG}" in r.stderr
    assert start(msd_run, repo).returncode == 0
    r = finish(msd_run, repo, "--branch", "keep", finding="  \n")
    assert r.returncode == 2 and "is empty" in r.stderr


def test_a_spike_whose_branch_was_deleted_by_hand_fails_cleanly(msd_run, repo):
    assert start(msd_run, repo).returncode == 0
    git(repo, "switch", "-q", "main")
    git(repo, "branch", "-D", f"spike/{SLUG}")
    r = finish(msd_run, repo, "--branch", "remove")
    assert r.returncode == 1 and "is gone" in r.stderr and "Traceback" not in r.stderr


def test_a_damaged_spike_record_fails_cleanly(msd_run, repo):
    assert start(msd_run, repo).returncode == 0
    (repo / ".planning" / ".msd" / "spikes" / f"{SLUG}.json").write_text("{broken")
    r = finish(msd_run, repo, "--branch", "remove")
    assert r.returncode == 1 and "cannot be read" in r.stderr
    listed = json.loads(msd_run(["spike", "list"], cwd=repo).stdout)
    assert listed["open"][0]["slug"] == SLUG and "error" in listed["open"][0]


def test_outside_a_git_checkout_a_spike_fails(msd_run, tmp_path):
    (tmp_path / "plain" / ".planning").mkdir(parents=True)
    r = msd_run(["spike", "start", "anything"], cwd=tmp_path / "plain")
    assert r.returncode == 1 and "Traceback" not in r.stderr


# ------------------------------------------------------------------ explore


def note(msd_run, root, text, topic="How the cache works", *extra):
    return msd_run(["explore", "record", "--topic", topic, "--note", "-", *extra], cwd=root, input=text)


def test_a_note_is_saved_with_its_checked_citations(msd_run, repo):
    r = note(msd_run, repo, "The cache is `src/cache.py:1`; a store would go in `src/store.py`.\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["file"] == ".planning/explorations/how-the-cache-works.md" and out["cites"] == 1
    assert out["not_found"] == ["src/store.py"]
    text = (repo / out["file"]).read_text()
    assert 'topic: "How the cache works"' in text and '"src/cache.py:1"' in text and text.count("# How the cache works") == 1
    assert not list((repo / ".planning").glob("phases"))  # no plans, no phase


def test_a_second_note_on_the_topic_never_overwrites_the_first(msd_run, repo):
    first = json.loads(note(msd_run, repo, "one").stdout)["file"]
    second = json.loads(note(msd_run, repo, "two").stdout)["file"]
    assert second.endswith("how-the-cache-works-2.md") and "one" in (repo / first).read_text()
    assert [n["file"] for n in json.loads(msd_run(["explore", "list"], cwd=repo).stdout)["notes"]] == sorted([first, second])


@pytest.mark.parametrize("text,message", [
    ("see `src/cache.py:9`", "the file has 2 lines"),
    ("see `src/cache.py:1-5`", "the file has 2 lines"),
    ("see `src/gone.py:1`", "no such file"),
    ("see `../etc/passwd:1`", "no such file"),
    ("   \n", "is empty"),
], ids=["line past end", "range past end", "missing file", "outside", "empty"])
def test_a_note_citing_what_is_not_there_is_refused(msd_run, repo, text, message):
    r = note(msd_run, repo, text)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert not (repo / ".planning" / "explorations").exists()


def test_a_url_is_not_a_citation(msd_run, repo):
    r = note(msd_run, repo, "from `https://example.com/docs/page.html:3`")
    assert r.returncode == 0 and json.loads(r.stdout)["cites"] == 0


def test_bad_topic_and_oversized_note_fail(msd_run, repo):
    assert note(msd_run, repo, "x", "  ").returncode == 2
    assert note(msd_run, repo, "x", "t" * 201).returncode == 2
    big = note(msd_run, repo, "x" * (256 * 1024 + 1))
    assert big.returncode == 2 and "larger than" in big.stderr
    bad = note(msd_run, repo, "x", "topic", "--slug", "UP")
    assert bad.returncode == 2 and "lower-case" in bad.stderr


def test_a_draft_of_the_finding_is_no_uncommitted_work(msd_run, repo):
    assert start(msd_run, repo).returncode == 0
    spike_work(repo)
    draft = repo / ".planning" / "drafts" / "spike-finding.md"
    draft.parent.mkdir()
    draft.write_text("It fits.\n")
    r = msd_run(["spike", "finish", SLUG, "--finding", ".planning/drafts/spike-finding.md", "--verdict", "works",
                 "--branch", "remove"], cwd=repo)
    assert r.returncode == 0, r.stderr
    assert not draft.exists() and "It fits." in (repo / ".planning" / "spikes" / f"{SLUG}.md").read_text()
