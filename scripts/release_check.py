#!/usr/bin/env python3
"""Check a release's sdist and wheel the way the release workflow does, locally or in CI.

    python scripts/release_check.py                  # build into a temp folder, check everything
    python scripts/release_check.py --dist dist      # check the sdist and wheel already in dist/
    python scripts/release_check.py --tag v0.1.0     # also: the tag names the package version
    python scripts/release_check.py --no-smoke       # skip the fresh-venv run (no network)

Checks, each printed as `ok <check>` or `FAIL <check>: <why>` (exit 1 on any failure):
  metadata   name, version, Requires-Python, license (and LICENSE file), entry points
             msd and msd_run, dependencies as declared in pyproject.toml
  contents   the wheel holds msd_core/content/** exactly as in the source tree, no tests
             or stray files; the sdist holds LICENSE, README.md, pyproject.toml, tests/
  tag        `vX.Y.Z` == the wheel's version (when --tag is given, or GITHUB_REF_TYPE=tag)
  twine      `twine check --strict` on both files
  contents+  `check-wheel-contents` on the wheel
  smoke      the wheel installed into a fresh venv (dependencies from the package index):
             `msd --version`, `msd_run --help`, `msd install --local` in a scratch project,
             `msd check content`; HOME points at a scratch folder throughout
twine and check-wheel-contents come from the `release` extra (`pip install -e '.[release]'`);
a missing tool is a failure, never a skip, so a green run means every check ran.
"""

from __future__ import annotations

import argparse
import email.parser
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "msd_core" / "content"
SKIP = {"__pycache__", ".DS_Store"}


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []

    def ok(self, name: str, detail: str = "") -> None:
        print(f"ok   {name}" + (f"  ({detail})" if detail else ""), flush=True)

    def fail(self, name: str, why: str) -> None:
        self.failures.append(f"{name}: {why}")
        print(f"FAIL {name}: {why}", flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900, **kw)


def build(outdir: Path) -> tuple[Path, Path]:
    """Build sdist and wheel (no isolation: hatchling comes from the running environment)."""
    r = run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(outdir), str(REPO)])
    if r.returncode != 0:
        raise SystemExit(f"build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return find_dists(outdir)


def find_dists(folder: Path) -> tuple[Path, Path]:
    """The one sdist and one wheel in `folder`, as absolute paths (the fresh-venv run installs
    the wheel from another working folder; the release workflow passes `--dist dist`)."""
    folder = folder.absolute()
    sdists = sorted(folder.glob("msd_core-*.tar.gz"))
    wheels = sorted(folder.glob("msd_core-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise SystemExit(f"{folder}: expected one msd_core sdist and one wheel, found {len(sdists)} and {len(wheels)}")
    return sdists[0], wheels[0]


def wheel_metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(name).decode("utf-8"))


def source_content_files() -> set[str]:
    out = set()
    for p in CONTENT.rglob("*"):
        if p.is_file() and not (set(p.relative_to(CONTENT).parts) & SKIP) and not p.name.endswith(".pyc"):
            out.add("msd_core/content/" + p.relative_to(CONTENT).as_posix())
    return out


def check_metadata(wheel: Path, rep: Report) -> str:
    """The wheel's metadata against pyproject.toml; returns the version."""
    sys.path.insert(0, str(REPO))
    from msd_core.files import tomlread

    project = tomlread.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    meta = wheel_metadata(wheel)
    version = meta["Version"]
    problems = []
    if meta["Name"] != project["name"]:
        problems.append(f"name {meta['Name']!r} != {project['name']!r}")
    if meta["Requires-Python"] != project["requires-python"]:
        problems.append(f"Requires-Python {meta['Requires-Python']!r} != {project['requires-python']!r}")
    if meta.get("License-Expression") != project["license"]:
        problems.append(f"License-Expression {meta.get('License-Expression')!r} != {project['license']!r}")
    if "LICENSE" not in (meta.get_all("License-File") or []):
        problems.append("no License-File: LICENSE")
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def norm(reqs):
        out = []
        for r in map(Requirement, reqs):
            out.append((canonicalize_name(r.name), str(r.specifier), str(r.marker or "")))
        return sorted(out)

    declared = norm(project["dependencies"])
    shipped = norm(d for d in meta.get_all("Requires-Dist") or [] if "extra ==" not in d)
    if declared != shipped:
        problems.append(f"Requires-Dist {shipped} != dependencies {declared}")
    with zipfile.ZipFile(wheel) as zf:
        ep_name = next((n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt")), None)
        eps = zf.read(ep_name).decode() if ep_name else ""
        licenses = [n for n in zf.namelist() if "/licenses/" in n and n.endswith("LICENSE")]
    for script, target in project["scripts"].items():
        if f"{script} = {target}" not in eps:
            problems.append(f"entry point {script} = {target} missing")
    if not licenses:
        problems.append("LICENSE is not in the wheel's .dist-info/licenses/")
    if problems:
        rep.fail("metadata", "; ".join(problems))
    else:
        rep.ok("metadata", f"{meta['Name']} {version}, Requires-Python {meta['Requires-Python']}")
    return version


def check_contents(sdist: Path, wheel: Path, rep: Report) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    content = {n for n in names if n.startswith("msd_core/content/")}
    want = source_content_files()
    problems = []
    if content != want:
        problems.append(f"wheel content differs from msd_core/content: missing {sorted(want - content)[:5]}, "
                        f"extra {sorted(content - want)[:5]}")
    stray = sorted(n for n in names if not n.startswith(("msd_core/", "msd_core-")) or "__pycache__" in n or n.endswith(".pyc"))
    if stray:
        problems.append(f"stray files in the wheel: {stray[:5]}")
    with tarfile.open(sdist) as tf:
        top = {"/".join(m.name.split("/")[1:]) for m in tf.getmembers()}
    for need in ("LICENSE", "README.md", "pyproject.toml", "RELEASING.md", "msd_core/__init__.py", "tests/conftest.py"):
        if need not in top:
            problems.append(f"sdist lacks {need}")
    if problems:
        rep.fail("contents", "; ".join(problems))
    else:
        rep.ok("contents", f"{len(content)} content files in the wheel, sdist complete")


def check_tag(version: str, tag: str | None, rep: Report) -> None:
    if tag is None:
        return
    if tag != f"v{version}":
        rep.fail("tag", f"tag {tag!r} does not name the package version {version} (expected v{version})")
    else:
        rep.ok("tag", tag)


def check_tools(sdist: Path, wheel: Path, rep: Report) -> None:
    for name, cmd in (("twine", [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)]),
                      ("check-wheel-contents", [sys.executable, "-m", "check_wheel_contents", str(wheel)])):
        r = run(cmd)
        if r.returncode != 0:
            missing = "No module named" in r.stderr
            why = "not installed (pip install -e '.[release]')" if missing else (r.stdout + r.stderr).strip()[-800:]
            rep.fail(name, why)
        else:
            rep.ok(name)


def smoke(wheel: Path, version: str, work: Path, rep: Report) -> None:
    """Install the wheel into a fresh venv and run the commands a new user runs first."""
    venv = work / "venv"
    home = work / "home"
    project = work / "project"
    home.mkdir()
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CLAUDE_CONFIG_DIR")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = run([sys.executable, "-m", "venv", str(venv)])
    if r.returncode != 0:
        rep.fail("smoke", f"venv: {r.stderr.strip()[-500:]}")
        return
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    r = run([str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel)], env=env, cwd=project)
    if r.returncode != 0:
        rep.fail("smoke", f"pip install of the wheel failed: {r.stderr.strip()[-800:]}")
        return
    steps = [
        ("msd --version", [str(bindir / "msd"), "--version"], lambda out: out.strip() == version),
        ("msd_run --help", [str(bindir / "msd_run"), "--help"], lambda out: "usage" in out.lower()),
        ("msd install --local", [str(bindir / "msd"), "install", "--local"], lambda out: "Installed msd-core" in out),
        ("msd check content", [str(bindir / "msd"), "check", "content"], lambda out: True),
    ]
    for name, cmd, good in steps:
        r = run(cmd, env=env, cwd=project)
        if r.returncode != 0 or not good(r.stdout):
            rep.fail(f"smoke: {name}", f"exit {r.returncode}: {(r.stdout + r.stderr).strip()[-800:]}")
        else:
            rep.ok(f"smoke: {name}")
    where = run([str(bindir / "python"), "-c", "import msd_core; print(msd_core.__file__)"], env=env, cwd=project)
    if str(venv) not in where.stdout:
        rep.fail("smoke: isolation", f"msd_core imported from {where.stdout.strip()}, not the venv")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dist", type=Path, help="folder holding the sdist and wheel (default: build them)")
    ap.add_argument("--tag", help="the git tag being released (vX.Y.Z)")
    ap.add_argument("--no-smoke", action="store_true", help="skip the fresh-venv run")
    args = ap.parse_args(argv)
    tag = args.tag
    if tag is None and os.environ.get("GITHUB_REF_TYPE") == "tag":
        tag = os.environ.get("GITHUB_REF_NAME")
    rep = Report()
    with tempfile.TemporaryDirectory(prefix="msd-release-") as tmp:
        tmpdir = Path(tmp)
        if args.dist:
            sdist, wheel = find_dists(args.dist)
        else:
            sdist, wheel = build(tmpdir / "dist")
        print(f"checking {sdist.name} and {wheel.name}", flush=True)
        version = check_metadata(wheel, rep)
        check_contents(sdist, wheel, rep)
        check_tag(version, tag, rep)
        check_tools(sdist, wheel, rep)
        if not args.no_smoke:
            (tmpdir / "smoke").mkdir()
            smoke(wheel, version, tmpdir / "smoke", rep)
    if rep.failures:
        print(f"{len(rep.failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all release checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
