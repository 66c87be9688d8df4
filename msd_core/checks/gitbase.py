"""The content tree as it was at `--base REV`, read from git (never checked out).

`load_base(root, rev, tiers_path)` returns a BaseSnapshot: the content files under `root` at
REV (bytes), the tier file's text at REV, and the `Msd-Boundary-Move` and
`Msd-Protected-Edit` trailers of the commits in REV..HEAD. A REV that does not name a commit, or a root outside a git work
tree, is a usage error (exit 2).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from msd_core.checks.model import CONTENT_TOPS, workflows_of
from msd_core.errors import UsageError

BOUNDARY_TRAILER = "Msd-Boundary-Move"
PROTECTED_TRAILER = "Msd-Protected-Edit"  # a deliberate rewrite of a spine's protected text


@dataclass
class BaseSnapshot:
    rev: str  # as given
    sha: str
    files: dict[str, bytes] = field(default_factory=dict)  # content relpath -> bytes at REV
    tiers_text: str | None = None  # None when the tier file did not exist at REV
    boundary_moves: set[str] = field(default_factory=set)  # stems declared in REV..HEAD
    protected_edits: set[str] = field(default_factory=set)  # stems whose protected text was rewritten on purpose

    def text(self, rel: str) -> str | None:
        data = self.files.get(rel)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def workflows(self):
        return workflows_of(sorted(self.files))


def _git(cwd: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(cwd), *args], input=input, capture_output=True, timeout=60)


def _cat_blobs(cwd: Path, specs: list[str]) -> list[bytes | None]:
    """Read many `REV:path` objects with one `git cat-file --batch`."""
    if not specs:
        return []
    proc = _git(cwd, "cat-file", "--batch", input=("\n".join(specs) + "\n").encode())
    out = proc.stdout
    pos = 0
    blobs: list[bytes | None] = []
    for _ in specs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] == b"missing":
            blobs.append(None)
            continue
        size = int(header[2])
        blobs.append(out[pos:pos + size])
        pos += size + 1
    return blobs


def parse_trailer_values(text: str) -> set[str]:
    """Stems named by trailer values: one per line, several allowed separated by commas or spaces."""
    stems: set[str] = set()
    for value in text.splitlines():
        for item in re.split(r"[,\s]+", value.strip()):
            if item:
                stems.add(item)
    return stems


def load_base(root: Path, rev: str, tiers_path: Path) -> BaseSnapshot:
    root = Path(root).absolute()
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
    except FileNotFoundError as exc:
        raise UsageError("a base revision needs git, which was not found on PATH", about="base") from exc
    if top.returncode != 0:
        raise UsageError(f"{rev}: {root} is not inside a git work tree", about="base")
    toplevel = Path(top.stdout.decode().strip())
    if not rev or rev.startswith("-"):
        raise UsageError(f"{rev!r} is not a git revision", about="base")
    verify = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if verify.returncode != 0:
        raise UsageError(f"{rev!r} is not a git revision in {toplevel}", hint="give a commit, branch or tag", about="base")
    sha = verify.stdout.decode().strip()
    prefix = _git(root, "rev-parse", "--show-prefix").stdout.decode().strip()
    snap = BaseSnapshot(rev=rev, sha=sha)

    listing = _git(root, "ls-tree", "-r", "-z", "--full-tree", "--name-only", sha, "--", *(f"{prefix}{t}" for t in CONTENT_TOPS))
    paths = [p for p in listing.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    rels = [p[len(prefix):] for p in paths if p.startswith(prefix)]
    blobs = _cat_blobs(root, [f"{sha}:{p}" for p in paths])
    for rel, blob in zip(rels, blobs):
        if blob is not None:
            snap.files[rel] = blob

    try:
        tiers_rel = Path(tiers_path).absolute().relative_to(toplevel).as_posix()
    except ValueError:
        tiers_rel = None
    if tiers_rel:
        blob = _cat_blobs(root, [f"{sha}:{tiers_rel}"])[0]
        if blob is not None:
            snap.tiers_text = blob.decode("utf-8", "replace")

    log = _git(root, "log", f"--format=%(trailers:key={BOUNDARY_TRAILER},valueonly)", f"{sha}..HEAD")
    if log.returncode == 0:
        snap.boundary_moves = parse_trailer_values(log.stdout.decode("utf-8", "replace"))
    log = _git(root, "log", f"--format=%(trailers:key={PROTECTED_TRAILER},valueonly)", f"{sha}..HEAD")
    if log.returncode == 0:
        snap.protected_edits = parse_trailer_values(log.stdout.decode("utf-8", "replace"))
    return snap
