"""One door for outside reads (DESIGN.md, "One project, one door"): every read of bytes msd does not
own goes through msd_core/files/ (safe_read: regular files only, size caps; bounded: parse caps;
walk: iterative, depth-capped folder walks; numbers: counts checked before arithmetic). This test
reads the package's source (tests/kit/door_scan.py walks each module's syntax tree) and fails on a
module that reads a file another way, unless the module is below with the reason it reads only
bytes msd owns. A synthetic module shows the scan finds each way around the door."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.door_scan import findings

PACKAGE = Path(__file__).resolve().parents[2] / "msd_core"

# module (relative to msd_core/) -> why what it reads is msd's own
OWN_BYTES = {
    "config/schema.py": "the settings schema shipped inside the package (schema.json beside it)",
    "install/source.py": "the shipped content tree of this msd_core (the wheel's or a checkout's msd_core/content/)",
    "install/verify.py": "the installed distribution's own files, checked against the wheel's RECORD",
    "install/health.py": "walks msd's install folder and the areas the manifest says msd installed",
    "install/uninstaller.py": "walks the backups msd made of its own install areas, to remove them",
    "ownership/record.py": "lists the files under a backup folder msd made (files_under), to record them",
    "plugin/rebuild.py": "walks the plugin folder msd builds, to compare it with the build",
    "checks/fields.py": "`msd check content`: the package's own source and schema",
    "checks/generated.py": "`msd check content`: the generated files of msd's own content tree",
    "checks/model.py": "`msd check content`: msd's own content tree",
    "checks/runner.py": "`msd check content`: the tiers file of msd's own content tree",
    "checks/sizes.py": "`msd check content`: the tiers file of msd's own content tree",
    "checks/wording.py": "`msd check content`: msd's own content tree",
    "bench/eager.py": "offline token benchmarks over msd's own shipped content",
    "bench/listing.py": "offline token benchmarks over msd's own shipped content",
    "bench/tokens.py": "offline token benchmarks over msd's own shipped content and its PERFORMANCE.md",
}


def _bypasses() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("files/"):  # the door itself
            continue
        found = findings(path.read_text(encoding="utf-8"), rel)
        if found:
            out[rel] = found
    return out


def test_every_outside_read_goes_through_the_door():
    found = _bypasses()
    unexplained = {rel: f for rel, f in found.items() if rel not in OWN_BYTES}
    assert unexplained == {}, "read these through msd_core/files/ (safe_read, bounded, walk), or say why the bytes are msd's own"


def test_each_allowance_is_still_needed():
    """An allow-list entry whose module no longer reads around the door is dropped, so the list stays a list of reasons."""
    found = _bypasses()
    assert sorted(rel for rel in OWN_BYTES if rel not in found) == []


BYPASSES = {
    "builtin open": ("def f(p):\n    with open(p) as fh:\n        return fh.read()\n", "open() reads a file"),
    "open rb": ("def f(p):\n    return open(p, 'rb').read()\n", "open() reads a file"),
    "open r+": ("def f(p):\n    return open(p, mode='r+')\n", "open() reads a file"),
    "open computed mode": ("def f(p, m):\n    return open(p, m)\n", "open() reads a file"),
    "io.open": ("import io\ndef f(p):\n    return io.open(p, 'rb')\n", "io.open() reads a file"),
    "codecs.open": ("import codecs\ndef f(p):\n    return codecs.open(p)\n", "codecs.open() reads a file"),
    "Path.open": ("def f(p):\n    with p.open() as fh:\n        return fh.read()\n", ".open() reads a file"),
    "os.open": ("import os\ndef f(p):\n    return os.read(os.open(p, os.O_RDONLY), 10)\n", "os.open() for reading"),
    "os.open via a variable": ("import os\nFLAGS = os.O_RDONLY | os.O_NONBLOCK\ndef f(p):\n    return os.open(p, FLAGS)\n",
                               "os.open() for reading"),
    "read_text": ("def f(p):\n    return p.read_text(encoding='utf-8', errors='replace')\n", ".read_text() reads a file"),
    "read_text positional": ("def f(p):\n    return p.read_text('utf-8')\n", ".read_text() reads a file"),
    "read_bytes": ("def f(p):\n    return p.read_bytes()\n", ".read_bytes() reads a file"),
    "json.load": ("import json\ndef f(fh):\n    return json.load(fh)\n", "json.load() reads a file object"),
    "tomllib.load": ("import tomllib\ndef f(fh):\n    return tomllib.load(fh)\n", "tomllib.load() reads a file object"),
    "os.walk": ("import os\ndef f(p):\n    return list(os.walk(p))\n", "os.walk() walks without a depth bound"),
    "rglob": ("def f(p):\n    return list(p.rglob('*.md'))\n", ".rglob() walks without a depth bound"),
}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_the_scan_finds_each_way_around_the_door(name):
    source, what = BYPASSES[name]
    assert [w for _line, w in findings(source)] == [what]


def test_the_scan_leaves_writes_msds_helpers_and_the_door_alone():
    source = (
        "import os\n"
        "from msd_core.files.safe_read import read_text, read_regular\n"
        "from msd_core.review.project_files import read_text as project_text\n"
        "def f(p, planning_guard, root):\n"
        "    open(p, 'w').write('x')\n"                       # a write
        "    open(p, mode='ab')\n"                             # an append
        "    os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT)\n"  # a log or a lock
        "    os.open(p, os.O_RDONLY | os.O_DIRECTORY)\n"       # a folder descriptor
        "    read_regular(p, 10)\n"
        "    planning_guard.read_text(os.path.join(p, 'x'))\n"  # msd's helper: the path comes first
        "    project_text(root, 'a.md', 10)\n"
        "    p.write_text('x')\n"
    )
    assert findings(source) == []
