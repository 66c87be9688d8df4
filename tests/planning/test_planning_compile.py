"""msd_run compile-plan and template select: inlining rules, hostile @ paths, stripping, freshness, corpus."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import corpus_tree_names

SECRET = "SECRET-OUTSIDE-7f3a"


def _w(p: Path, data: str | bytes) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def make_install(cfg: Path, files: dict[str, str]) -> Path:
    """A fake install: files under cfg/msd-core and a manifest written by hand (hashlib)."""
    hashes = {}
    for rel, text in files.items():
        _w(cfg / rel, text)
        hashes[rel] = hashlib.sha256(text.encode()).hexdigest()
    manifest = {"manifest_version": 1, "package": "msd-core", "version": "0.1.0", "scope": "global",
                "target": str(cfg), "runtime": "claude", "files": hashes, "created_dirs": [], "registry": {}}
    _w(cfg / "msd-core/manifest.json", json.dumps(manifest))
    return cfg / "msd-core"


INSTALLED = {
    "msd-core/workflows/execute-plan.md": (
        "# Execute\nALWAYS-EXECUTE\n<!-- msd:when tdd -->\nTDD-PROTOCOL red green refactor\n"
        "@~/.claude/msd-core/references/tdd.md\n<!-- msd:end -->\n"
        "<!-- msd:when checkpoint -->\nCHECKPOINT-PROTOCOL stop and ask\n<!-- msd:end -->\n"
        "<!-- msd:when user-setup -->\nUSER-SETUP-PROTOCOL\n<!-- msd:end -->\n"
        "@.planning/PROJECT.md\n"
    ),
    "msd-core/references/tdd.md": "TDD-REFERENCE-BODY\n",
}


def make_project(tmp_path: Path, plan_text: str) -> tuple[Path, Path, Path]:
    root = tmp_path / "proj"
    _w(root / ".planning/PROJECT.md", "PROJECT-BODY\n")
    _w(root / ".planning/phases/02-auth/02-CONTEXT.md", "CONTEXT-BODY\n")
    plan = _w(root / ".planning/phases/02-auth/02-01-PLAN.md", plan_text)
    inst = make_install(tmp_path / "cfg", INSTALLED)
    return root, plan, inst


def plan_text(*, tdd=False, checkpoint=False, user_setup=False, refs=()) -> str:
    fm = "---\nphase: 02-auth\nplan: 01\n" + ("user_setup:\n  - service: stripe\n" if user_setup else "user_setup: []\n") + "---\n"
    body = "<execution_context>\n@~/.claude/msd-core/workflows/execute-plan.md\n</execution_context>\n<context>\n"
    body += "@.planning/PROJECT.md\n@.planning/phases/02-auth/02-CONTEXT.md\n" + "".join(f"@{r}\n" for r in refs)
    body += "</context>\n<tasks>\n"
    tdd_attr = ' tdd="true"' if tdd else ""
    body += f'<task type="auto"{tdd_attr}><name>one</name><files>src/a.py</files></task>\n'
    if checkpoint:
        body += '<task type="checkpoint:human-verify"><name>look</name></task>\n'
    body += "</tasks>\n```python\n@override\n@.planning/PROJECT.md\n```\n"
    return fm + body


def _compile(msd_run, plan, inst, *extra, **kw):
    r = msd_run(["compile-plan", str(plan), "--root", str(inst), *extra], **kw)
    assert "Traceback" not in r.stderr
    return r


def test_compile_inlines_and_strips(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text())
    r = _compile(msd_run, plan, inst)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    compiled = Path(out["compiled"])
    assert compiled.name == "02-01-PLAN.compiled.md" and out["status"] == "written"
    text = compiled.read_text()
    assert text.startswith("<!-- msd:compiled from .planning/phases/02-auth/02-01-PLAN.md")
    assert [i["path"] for i in out["inlined"]] == [
        "msd-core/workflows/execute-plan.md", ".planning/PROJECT.md", ".planning/phases/02-auth/02-CONTEXT.md"]
    assert {s["condition"] for s in out["stripped"]} == {"tdd", "checkpoint", "user-setup"}
    assert "ALWAYS-EXECUTE" in text and "CONTEXT-BODY" in text and text.count("PROJECT-BODY") == 1
    for gone in ("TDD-PROTOCOL", "TDD-REFERENCE-BODY", "CHECKPOINT-PROTOCOL", "USER-SETUP-PROTOCOL"):
        assert gone not in text
    assert "<!-- @.planning/PROJECT.md: inlined above -->" in text
    assert "```python\n@override\n@.planning/PROJECT.md\n```" in text  # code blocks untouched
    assert 'no task has tdd="true"' in text.split("---")[0] or 'no task has tdd="true"' in text[:3000]
    assert compiled == root / ".planning/.msd/compiled/phases/02-auth/02-01-PLAN.compiled.md"
    assert not (root / ".gitignore").exists() and "gitignore" not in out
    assert not plan.with_name("02-01-PLAN.compiled.md").exists()  # nothing beside the plan


def test_compile_keeps_met_sections_without_markers(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text(tdd=True, checkpoint=True, user_setup=True))
    out = json.loads(_compile(msd_run, plan, inst).stdout)
    text = Path(out["compiled"]).read_text()
    assert out["stripped"] == []
    for kept in ("TDD-PROTOCOL", "TDD-REFERENCE-BODY", "CHECKPOINT-PROTOCOL", "USER-SETUP-PROTOCOL"):
        assert kept in text
    assert "msd:when" not in text.split("---\n", 3)[-1] and "msd:end" not in text


def test_strip_warnings_unknown_and_unbalanced():
    from msd_core.planning.compile_plan import strip_sections

    stripped, warnings = [], []
    text = "a\n<!-- msd:when moon -->\nM\n<!-- msd:end -->\n<!-- msd:end -->\n<!-- msd:when tdd -->\nT\n"
    assert strip_sections(text, {"tdd": False}, "x.md", stripped, warnings) == text
    assert stripped == [] and len(warnings) == 3
    assert any("unknown condition `moon`" in w for w in warnings)


def test_hostile_references_refused(tmp_path, msd_run):
    outside = _w(tmp_path / "outside/secret.md", SECRET + "\n")
    refs = [
        "../../../outside/secret.md",
        str(outside),
        "~/.ssh/id_rsa",
        "$HOME/.claude/get-shit-done/workflows/x.md",
        ".planning/link-out.md",
        ".planning/phases/",
        "src/*.py",
        "~/.claude/msd-core/../../outside/secret.md",
        "~/.claude/msd-core/planted.md",
        ".planning/big.md",
        ".planning/binary.md",
        ".planning/missing.md",
    ]
    root, plan, inst = make_project(tmp_path, plan_text(refs=refs))
    (root / ".planning/link-out.md").symlink_to(outside)
    _w(inst / "planted.md", SECRET + " planted\n")
    _w(root / ".planning/big.md", "x" * (256 * 1024 + 1))
    _w(root / ".planning/binary.md", b"\xff\xfe\x00bin")
    r = _compile(msd_run, plan, inst)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    reasons = {x["ref"]: x["reason"] for x in out["refused"]}
    assert set(reasons) == set(refs)
    assert reasons["../../../outside/secret.md"] == "`..` escapes are not followed"
    assert reasons[str(outside)] == "absolute path outside the project"
    assert reasons["~/.ssh/id_rsa"].startswith("home-relative")
    assert reasons["$HOME/.claude/get-shit-done/workflows/x.md"].startswith("home-relative")
    assert reasons[".planning/link-out.md"].startswith("resolves outside the project")
    assert reasons[".planning/phases/"] == "not a regular file"
    assert reasons["src/*.py"] == "glob patterns are not expanded"
    assert "`..`" in reasons["~/.claude/msd-core/../../outside/secret.md"]
    assert reasons["~/.claude/msd-core/planted.md"] == "under the install root but not in the install manifest"
    assert reasons[".planning/big.md"].startswith("larger than")
    assert reasons[".planning/binary.md"] == "not UTF-8 text"
    assert reasons[".planning/missing.md"] == "missing"
    text = Path(out["compiled"]).read_text()
    assert SECRET not in text
    for ref in refs:
        assert f"\n@{ref}\n" in text  # left as written


def test_absolute_installed_path_is_verified_and_tamper_fails(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text(refs=[]))
    plan.write_text(plan.read_text().replace("@~/.claude/msd-core/", f"@{inst}/"))
    out = json.loads(_compile(msd_run, plan, inst).stdout)
    assert out["inlined"][0] == {"path": "msd-core/workflows/execute-plan.md", "kind": "installed",
                                 "bytes": len(INSTALLED["msd-core/workflows/execute-plan.md"]),
                                 "in": ".planning/phases/02-auth/02-01-PLAN.md"}
    (inst / "workflows/execute-plan.md").write_text("TAMPERED\n")
    r = _compile(msd_run, plan, inst)
    assert r.returncode == 3 and "hash mismatch" in r.stderr and r.stdout == ""
    r = _compile(msd_run, plan, inst, "--check")
    assert r.returncode == 1 and "msd-core/workflows/execute-plan.md" in json.loads(r.stdout)["stale"]


def test_no_install_is_exit_3(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text())
    r = _compile(msd_run, plan, tmp_path / "nowhere/msd-core")
    assert r.returncode == 3 and "no msd-core install" in r.stderr


def test_freshness_reuse_and_check(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text(refs=[".planning/later.md"]))
    r = _compile(msd_run, plan, inst, "--check")
    assert r.returncode == 1 and json.loads(r.stdout)["stale"] == ["no compiled plan"]
    first = json.loads(_compile(msd_run, plan, inst).stdout)
    compiled = Path(first["compiled"])
    mtime = compiled.stat().st_mtime_ns
    again = json.loads(_compile(msd_run, plan, inst).stdout)
    assert again["status"] == "fresh" and compiled.stat().st_mtime_ns == mtime
    r = _compile(msd_run, plan, inst, "--check")
    assert r.returncode == 0 and json.loads(r.stdout) == {"plan": str(plan), "compiled": str(compiled), "fresh": True, "stale": []}
    (root / ".planning/phases/02-auth/02-CONTEXT.md").write_text("CONTEXT-CHANGED\n")
    r = _compile(msd_run, plan, inst, "--check")
    assert r.returncode == 1 and json.loads(r.stdout)["stale"] == [".planning/phases/02-auth/02-CONTEXT.md"]
    assert json.loads(_compile(msd_run, plan, inst).stdout)["status"] == "written"
    assert "CONTEXT-CHANGED" in compiled.read_text()
    _w(root / ".planning/later.md", "LATER\n")  # a missing reference appears
    r = _compile(msd_run, plan, inst, "--check")
    assert r.returncode == 1 and json.loads(r.stdout)["stale"] == [".planning/later.md"]
    assert "LATER" in compiled.read_text() or _compile(msd_run, plan, inst).returncode == 0
    assert "LATER" in compiled.read_text()
    compiled.write_text("edited by hand\n")
    assert json.loads(_compile(msd_run, plan, inst, "--check").stdout)["stale"] == ["no input record"]
    r = _compile(msd_run, plan, tmp_path / "cfg2/msd-core", "--check")
    assert r.returncode == 1


def test_project_gitignore_never_edited_and_cache_self_ignored(tmp_path, msd_run):
    import subprocess

    root, plan, inst = make_project(tmp_path, plan_text())
    (root / ".gitignore").write_bytes(b"node_modules/\r\n.env")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    _compile(msd_run, plan, inst)
    plan.write_text(plan.read_text() + "\nmore\n")
    out = json.loads(_compile(msd_run, plan, inst).stdout)
    assert out["status"] == "written"
    assert (root / ".gitignore").read_bytes() == b"node_modules/\r\n.env"  # byte for byte
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert ".msd" not in status and "compiled" not in status and ".planning/phases/02-auth/02-01-PLAN.md" in status


def test_compiled_folder_symlink_refused(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text())
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".planning/.msd").mkdir(parents=True)
    (root / ".planning/.msd/compiled").symlink_to(outside)
    r = _compile(msd_run, plan, inst)
    assert r.returncode == 1 and "symlink" in r.stderr and list(outside.iterdir()) == []


def test_compile_usage_errors(tmp_path, msd_run):
    root, plan, inst = make_project(tmp_path, plan_text())
    r = _compile(msd_run, tmp_path / "nope-PLAN.md", inst)
    assert r.returncode == 1 and "not inside a project" in r.stderr
    r = _compile(msd_run, root / ".planning/x-PLAN.md", inst)
    assert r.returncode == 1 and "no plan at" in r.stderr
    r = _compile(msd_run, plan.with_name("02-01-PLAN.compiled.md"), inst)
    assert r.returncode == 2 and "compiled plan" in r.stderr
    out = root / ".planning/.msd/compiled/phases/02-auth/02-01-PLAN.compiled.md"
    out.parent.mkdir(parents=True)
    out.symlink_to(tmp_path / "target.md")
    r = _compile(msd_run, plan, inst)
    assert r.returncode == 1 and "symlink" in r.stderr and not (tmp_path / "target.md").exists()


# ------------------------------------------------------------------ template select

def _plan(tasks: int, files: int, *, decision=False, deviations=None) -> str:
    fm = "---\nphase: 1\n" + (f"deviations: {deviations}\n" if deviations is not None else "") + "---\n"
    body = ""
    for i in range(tasks):
        fl = ", ".join(f"src/f{j}.py" for j in range(files)) if i == 0 else "src/f0.py"
        body += f'<task type="auto"><name>t{i}</name><files>{fl}</files></task>\n'
    if decision:
        body += '<task type="checkpoint:decision"><name>pick</name></task>\n'
    return fm + body


@pytest.mark.parametrize(
    "text,template",
    [
        (_plan(2, 3), "summary-minimal"),
        (_plan(1, 0), "summary-minimal"),
        (_plan(3, 3), "summary-standard"),
        (_plan(2, 4), "summary-standard"),
        (_plan(5, 6), "summary-standard"),
        (_plan(2, 7), "summary-complex"),
        (_plan(1, 1, decision=True), "summary-complex"),
        (_plan(1, 1, deviations="[renamed module]"), "summary-complex"),
        (_plan(1, 1, deviations=0), "summary-minimal"),
    ],
)
def test_template_select_rule(tmp_path, msd_run, text, template):
    plan = _w(tmp_path / "p/01-01-PLAN.md", text)
    root = tmp_path / "cfg/msd-core"
    r = msd_run(["template", "select", "01-01-PLAN.md", "--root", str(root), "--cwd", str(plan.parent)])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["template"] == template and out["path"] == str(root / "templates" / f"{template}.md")
    assert out["exists"] is False and out["rule"].startswith(template.split("-")[1])
    assert set(out["counts"]) == {"tasks", "files", "decisions", "deviations"}


def test_template_select_exists_and_counts(tmp_path, msd_run):
    root = tmp_path / "cfg/msd-core"
    _w(root / "templates/summary-standard.md", "x")
    plan = _w(tmp_path / "p/PLAN.md", _plan(3, 5))
    out = json.loads(msd_run(["template", "select", str(plan), "--root", str(root)]).stdout)
    assert out["exists"] is True and out["counts"] == {"tasks": 3, "files": 5, "decisions": 0, "deviations": 0}


def test_template_select_errors(tmp_path, msd_run):
    r = msd_run(["template", "select", str(tmp_path / "none.md")])
    assert r.returncode == 1 and "no plan at" in r.stderr and "Traceback" not in r.stderr
    r = msd_run(["template", "select", "x.md", "--cwd", str(tmp_path / "nodir")])
    assert r.returncode == 2
    r = msd_run(["template", "pick", "x.md"])
    assert r.returncode == 2


# ------------------------------------------------------------------ corpus

@pytest.mark.parametrize("tree", corpus_tree_names() or ["<no corpus>"])
def test_corpus_compile_and_select(tree, copy_corpus_tree, msd_run, tmp_path):
    from msd_core.planning.compile_plan import Compiler
    from msd_core.planning.discovery import phase_dirs, plan_files
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.template_select import choose

    root = copy_corpus_tree(tree)
    inst = make_install(tmp_path / "cfg", INSTALLED)
    plans = [f for ph in phase_dirs(root / ".planning") for f in plan_files(ph)]
    for p in plans:  # in-process over every plan: never raises
        raw = p.read_bytes()
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            continue
        name, counts, rule = choose(parse_plan(text))
        assert name.startswith("summary-") and rule
        c = Compiler(p, root, inst)
        out = c.compile(raw)
        assert out.startswith("<!-- msd:compiled from ")
        for item in c.refused:
            assert item["reason"]
    gitignore = (root / ".gitignore").read_bytes() if (root / ".gitignore").exists() else None
    for p in plans[:2]:  # and through the CLI
        r = _compile(msd_run, p, inst)
        assert r.returncode == 0, r.stderr
        compiled = Path(json.loads(r.stdout)["compiled"])
        assert (root / ".planning/.msd/compiled") in compiled.parents and compiled.is_file()
        assert ((root / ".gitignore").read_bytes() if (root / ".gitignore").exists() else None) == gitignore
        assert _compile(msd_run, p, inst, "--check").returncode == 0
        r = msd_run(["template", "select", str(p), "--root", str(inst)])
        assert r.returncode == 0 and "Traceback" not in r.stderr
