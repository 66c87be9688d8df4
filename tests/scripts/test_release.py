"""Release readiness: the sdist and wheel build with complete contents and truthful metadata
(scripts/release_check.py, the same checks the release workflow runs), every declared
dependency is imported, and the checks fail on the defects they exist for."""

from __future__ import annotations

import importlib.util
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from msd_core.files import tomlread
from tests.kit.scripts import load_script

REPO = Path(__file__).resolve().parents[2]


def _load_release_check():
    return load_script("release_check")


rc = _load_release_check()
PROJECT = tomlread.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# distribution name -> the module it is imported as
IMPORT_NAME = {"PyYAML": "yaml"}


def imported_modules(root: Path) -> set[str]:
    """Top-level module names imported anywhere under `root` (import X / from X import)."""
    names = set()
    for py in root.rglob("*.py"):
        for m in re.finditer(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", py.read_text(encoding="utf-8"), re.M):
            names.add(m.group(1))
    return names


def unused_dependencies(deps: list[str], imported: set[str]) -> list[str]:
    from packaging.requirements import Requirement

    out = []
    for d in deps:
        name = Requirement(d).name
        module = IMPORT_NAME.get(name, name.replace("-", "_").lower())
        if module not in imported:
            out.append(name)
    return out


def test_every_declared_dependency_is_imported_by_the_package():
    assert unused_dependencies(PROJECT["dependencies"], imported_modules(REPO / "msd_core")) == []


def test_the_unused_dependency_guard_catches_one():
    imported = imported_modules(REPO / "msd_core")
    assert unused_dependencies(["toml>=0.10", "importlib-resources>=6", "PyYAML>=6"], imported) == ["toml", "importlib-resources"]


def test_python_support_is_declared_truthfully():
    """requires-python is the lower bound CI tests; a 3.10-only fallback is marked for 3.10."""
    assert PROJECT["requires-python"] == ">=3.10"
    assert "tomli>=2.0; python_version < '3.11'" in PROJECT["dependencies"]
    classifiers = PROJECT["classifiers"]
    assert "Programming Language :: Python :: 3.10" in classifiers
    ci = (REPO / ".github" / "workflows" / "ci.yml").read_text()
    assert '"3.10"' in ci, "CI must test the lower bound"
    # no stdlib-only-since-3.11 module is imported directly (tomlread carries the fallback)
    offenders = [str(p.relative_to(REPO)) for d in ("msd_core", "tests", "scripts") for p in (REPO / d).rglob("*.py")
                 if re.search(r"^\s*import tomllib\b", p.read_text(encoding="utf-8"), re.M)
                 and p.name != "tomlread.py"]
    assert offenders == []


def test_license_file_is_the_one_the_metadata_names():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    if importlib.util.find_spec("build") is None:
        pytest.skip("`build` is not installed (pip install -e '.[test]')")
    out = tmp_path_factory.mktemp("dist")
    return rc.build(out)


@pytest.mark.slow
def test_sdist_and_wheel_build_with_complete_contents_and_metadata(dists):
    sdist, wheel = dists
    rep = rc.Report()
    version = rc.check_metadata(wheel, rep)
    rc.check_contents(sdist, wheel, rep)
    rc.check_tag(version, f"v{version}", rep)
    assert rep.failures == []
    from msd_core import __version__

    assert version == __version__ and wheel.name == f"msd_core-{__version__}-py3-none-any.whl"
    meta = rc.wheel_metadata(wheel)
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == ">=3.10"
    assert "tomli>=2.0; python_version < '3.11'" in meta.get_all("Requires-Dist")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    assert "msd_core/content/commands/msd/plan-phase.md" in names
    assert "msd_core/content/msd-core/registry.json" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {"LICENSE", "RELEASING.md", "scripts/release_check.py", "msd_core/content/msd-core/registry.json"} <= members


def test_find_dists_gives_absolute_paths_for_a_relative_folder(tmp_path, monkeypatch):
    """The release workflow runs `release_check.py --dist dist`; the fresh-venv run installs the
    wheel from another folder, so a relative path failed there (found by running the job's
    command locally). Empty stand-in files: only the names matter to find_dists."""
    (tmp_path / "dist").mkdir()
    for name in ("msd_core-9.9.9.tar.gz", "msd_core-9.9.9-py3-none-any.whl"):
        (tmp_path / "dist" / name).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    sdist, wheel = rc.find_dists(Path("dist"))
    assert sdist.is_absolute() and wheel.is_absolute()
    monkeypatch.chdir("/")
    assert sdist.exists() and wheel.exists()


@pytest.mark.slow
def test_release_checks_fail_on_a_wheel_missing_content_and_a_wrong_tag(dists, tmp_path):
    sdist, wheel = dists
    broken = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            if item.filename != "msd_core/content/commands/msd/plan-phase.md":
                dst.writestr(item, src.read(item.filename))
        dst.writestr("stray.txt", "x")
    rep = rc.Report()
    rc.check_contents(sdist, broken, rep)
    assert len(rep.failures) == 1
    assert "plan-phase.md" in rep.failures[0] and "stray.txt" in rep.failures[0]
    rep = rc.Report()
    rc.check_tag("0.1.0", "v0.1.1", rep)
    assert rep.failures == ["tag: tag 'v0.1.1' does not name the package version 0.1.0 (expected v0.1.0)"]


def test_release_check_metadata_fails_without_license_and_with_other_dependencies(tmp_path):
    wheel = tmp_path / "msd_core-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("msd_core-0.0.0.dist-info/METADATA",
                    "Metadata-Version: 2.4\nName: msd-core\nVersion: 0.0.0\nRequires-Python: >=3.8\n"
                    "Requires-Dist: typer>=0.12\n\n")
        zf.writestr("msd_core-0.0.0.dist-info/entry_points.txt", "[console_scripts]\nmsd = msd_core.cli.app:main\n")
    rep = rc.Report()
    rc.check_metadata(wheel, rep)
    (fail,) = rep.failures
    for why in ("Requires-Python '>=3.8'", "License-Expression None", "no License-File", "Requires-Dist",
                "entry point msd_run = msd_core.run.entry:main missing", "LICENSE is not in the wheel"):
        assert why in fail, why


def test_release_check_reports_a_missing_tool_as_a_failure(tmp_path, monkeypatch):
    monkeypatch.setattr(rc.sys, "executable", str(shutil.which("false") or "/bin/false"))
    rep = rc.Report()
    rc.check_tools(tmp_path / "a.tar.gz", tmp_path / "a.whl", rep)
    assert [f.split(":")[0] for f in rep.failures] == ["twine", "check-wheel-contents"]


def test_ci_runs_the_release_check_and_the_release_workflow_publishes_without_a_token():
    ci_run = (REPO / ".ci" / "run").read_text()
    assert "scripts/release_check.py" in ci_run and ".[release]" in ci_run
    release = (REPO / ".github" / "workflows" / "release.yml").read_text()
    assert "id-token: write" in release and "pypa/gh-action-pypi-publish" in release
    assert "password" not in release and "PYPI_TOKEN" not in release.upper().replace("-", "_")
    assert 'tags: ["v*"]' in release and '--tag "$GITHUB_REF_NAME"' in release


def test_readme_keeps_two_setup_commands_that_are_honest_today():
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)\n```", setup, re.S)
    assert blocks == ["pipx install . && msd install --global",
                      "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"]
    assert blocks[1] in (REPO / ".ci" / "run").read_text()  # CI runs the README's test command verbatim
    assert "after its first release the first line becomes\n`pipx install msd-core && msd install --global`" in setup
