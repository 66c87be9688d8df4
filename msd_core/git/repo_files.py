"""Where the repository is and what HEAD is, read from git's own files (no git process).

`layout(cwd)` finds the working tree holding `cwd`, its git directory and the common
directory (a linked worktree's `.git` file names its git directory, whose `commondir`
names the main repository's `.git`); `head(gitdirs)` reads HEAD: the branch it names
(None when detached) and the commit it points at (None on an unborn branch), following
loose refs and `packed-refs`.

These answer what `git rev-parse --show-toplevel/--git-dir/--git-common-dir`,
`git rev-parse --verify -q HEAD` and `git symbolic-ref -q --short HEAD` answer, for the
ordinary layouts only. Anything else raises `Unsure`, and the caller asks git
(msd_core.git.runner does): git's environment variables (GIT_DIR, GIT_WORK_TREE, ...),
a repository found across a filesystem boundary or owned by another user (safe.directory),
a config that sets core.worktree, core.bare, includes or another ref storage (reftable),
a HEAD or ref that is not a plain file in the expected form (corrupt, symlinked), a branch
name git would shorten differently (a tag or top-level ref of the same name), `cwd`
inside a git directory. None is returned only where git would also find nothing.

`main_project(root)`: the project (a `.planning/` root, at the top or below it) at `root` as the
main checkout holds it: from a linked worktree (an executor's `.claude/worktrees/...`) the same
folder of the main checkout, where its run records and evidence marker are; `root` itself otherwise.
Every command that reads run records from a worktree or a root below the top asks it.

Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# environment that changes where git looks or how it names refs
GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_NAMESPACE",
           "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
           "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG")
# refs that live in a worktree's own git directory rather than the common one
PER_WORKTREE = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")
HEX = frozenset("0123456789abcdef")
MAX_SYMREF_DEPTH = 5
MAX_FILE = 1 << 12  # HEAD, a loose ref, a .git file: a line each
MAX_CONFIG = 1 << 20


class Unsure(Exception):
    """The files do not settle it: ask git."""


class Layout:
    __slots__ = ("top", "gitdir", "common")

    def __init__(self, top: str, gitdir: str, common: str):
        self.top, self.gitdir, self.common = top, gitdir, common

    @property
    def linked(self) -> bool:
        return self.gitdir != self.common

    def __repr__(self) -> str:  # for test failures
        return f"Layout(top={self.top!r}, gitdir={self.gitdir!r}, common={self.common!r})"


def _read(path: str, limit: int | None) -> bytes | None:
    """The bytes of the regular file at `path` (never through a symlink, never past `limit`);
    None when absent; Unsure for anything else (safe_read is the one reader)."""
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, limit, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise Unsure(f"{path}: {exc}") from None


def _small(path: str) -> str | None:
    """A small regular file's text (None when absent); Unsure for anything else."""
    data = _read(path, MAX_FILE)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unsure(f"{path} is not text") from None


def _owned(path: str, uid: int) -> None:
    try:
        if os.stat(path).st_uid != uid:
            raise Unsure(f"{path} belongs to another user (git's safe.directory decides)")
    except OSError as exc:
        raise Unsure(f"{path}: {exc}") from None


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _has_head(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD"))


def _looks_like_gitdir(path: str) -> bool:
    return _has_head(path) and _is_dir(os.path.join(path, "refs")) and _is_dir(os.path.join(path, "objects"))


def _check_config(common: str) -> None:
    text = _small_config(os.path.join(common, "config"))
    section = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip().lower()
        if not line:
            continue
        if line.startswith("["):
            section = line.strip("[]").split(None, 1)[0].split(".", 1)[0]
            if section in ("include", "includeif"):
                raise Unsure("the repository's config includes other files")
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if section == "core" and (key == "worktree" or (key == "bare" and value in ("", "true", "yes", "on", "1"))):
            raise Unsure(f"core.{key} is set")
        if section == "extensions" and key not in ("objectformat",):
            raise Unsure(f"extensions.{key} is set")


def _small_config(path: str) -> str:
    data = _read(path, MAX_CONFIG)
    return "" if data is None else data.decode("utf-8", "replace")


def layout(cwd: str | os.PathLike) -> Layout | None:
    """The repository holding `cwd`, or None when git would find none; Unsure otherwise."""
    for name in GIT_ENV:
        if name in os.environ:
            raise Unsure(f"{name} is set")
    here = os.path.realpath(os.fspath(cwd))
    try:
        dev = os.stat(here).st_dev
    except OSError as exc:
        raise Unsure(f"{here}: {exc}") from None
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    d = here
    while True:
        dotgit = os.path.join(d, ".git")
        try:
            st = os.lstat(dotgit)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise Unsure(f"{dotgit}: {exc}") from None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                gitdir = dotgit
            elif stat.S_ISREG(st.st_mode):
                text = _small(dotgit) or ""
                first = text.split("\n", 1)[0].rstrip("\r")
                if not first.startswith("gitdir: ") or text.count("\n") > 1:
                    raise Unsure(f"{dotgit} is not a gitdir: file")
                target = first[len("gitdir: "):]
                gitdir = os.path.realpath(os.path.join(d, target))
            else:
                raise Unsure(f"{dotgit} is neither a folder nor a file")
            if not _has_head(gitdir):
                raise Unsure(f"{gitdir} is not a git directory")
            common = gitdir
            pointer = _small(os.path.join(gitdir, "commondir"))
            if pointer is not None:
                common = os.path.realpath(os.path.join(gitdir, pointer.strip("\r\n")))
            if not _looks_like_gitdir(common):
                raise Unsure(f"{common} is not a git directory")
            if uid is not None:
                for p in (d, dotgit, gitdir):
                    _owned(p, uid)
            _check_config(common)
            return Layout(d, gitdir, common)
        if os.path.basename(d) == ".git" or _looks_like_gitdir(d):
            raise Unsure(f"{d} is itself a git directory")
        parent = os.path.dirname(d)
        if parent == d:
            return None
        try:
            if os.stat(parent).st_dev != dev:
                raise Unsure("the search for .git crosses a filesystem boundary")
        except OSError as exc:
            raise Unsure(f"{parent}: {exc}") from None
        d = parent


def _valid_hash(text: str) -> bool:
    return len(text) in (40, 64) and set(text) <= HEX


def _packed(common: str, ref: str) -> str | None:
    text = _packed_text(common)
    if text is None:
        return None
    for line in text.splitlines():
        value, _, name = line.partition(" ")
        if name == ref and not line.startswith(("#", "^")):
            if not _valid_hash(value):
                raise Unsure(f"packed-refs has a bad line for {ref}")
            return value
    return None


def _packed_text(common: str) -> str | None:
    data = _read(os.path.join(common, "packed-refs"), None)  # no cap: a repository may have many refs
    return None if data is None else data.decode("utf-8", "replace")


def _ref_ok(ref: str) -> bool:
    """A ref name in the plain form (refs/heads/x, refs/tags/x/y): anything odd goes to git."""
    if not ref.startswith("refs/") or ref.endswith(("/", ".lock", ".")) or "//" in ref or ".." in ref or "@{" in ref:
        return False
    return not any(c in ref for c in " ~^:?*[\\\x7f") and all(ord(c) > 32 for c in ref) and \
        not any(part.startswith(".") for part in ref.split("/"))


def _resolve(lay: Layout, ref: str) -> tuple[str, str | None]:
    """(the ref a chain of symbolic refs ends at, the commit it points at or None when it does not exist)."""
    for _ in range(MAX_SYMREF_DEPTH):
        if not _ref_ok(ref):
            raise Unsure(f"ref {ref!r} is not in the plain form")
        base = lay.gitdir if ref.startswith(PER_WORKTREE) else lay.common
        try:
            text = _small(os.path.join(base, *ref.split("/")))
        except Unsure:
            if _is_dir(os.path.join(base, *ref.split("/"))):  # refs/heads/a when refs/heads/a/b exists
                text = None
            else:
                raise
        if text is None:
            return ref, (_packed(lay.common, ref) if base == lay.common else None)
        value = text.strip()
        if text.count("\n") > 1:
            raise Unsure(f"ref {ref} holds more than one line")
        if value.startswith("ref: "):
            ref = value[5:].strip()
            continue
        if not _valid_hash(value):
            raise Unsure(f"ref {ref} holds no commit hash")
        return ref, value
    raise Unsure("symbolic refs nest too deep")


def _short_is_plain(lay: Layout, branch: str) -> bool:
    """git shortens refs/heads/<b> to <b> unless another ref it would also read as <b> exists
    (<b>, refs/<b>, refs/tags/<b>, refs/remotes/<b>, refs/remotes/<b>/HEAD)."""
    others = (branch, "refs/" + branch, "refs/tags/" + branch, "refs/remotes/" + branch, f"refs/remotes/{branch}/HEAD")
    for base in {lay.gitdir, lay.common}:
        for name in others:
            if os.path.lexists(os.path.join(base, *name.split("/"))):
                return False
    packed = _packed_text(lay.common)
    if packed:
        names = set(others)
        for line in packed.splitlines():
            if line.partition(" ")[2] in names:
                return False
    return True


class Head:
    __slots__ = ("branch", "commit")

    def __init__(self, branch: str | None, commit: str | None):
        self.branch, self.commit = branch, commit


def head(lay: Layout) -> Head:
    """HEAD of the worktree `lay` describes: (branch or None when detached, commit or None when unborn)."""
    text = _small(os.path.join(lay.gitdir, "HEAD"))
    if text is None:
        raise Unsure("no HEAD file")
    value = text.strip()
    if text.count("\n") > 1:
        raise Unsure("HEAD holds more than one line")
    if value.startswith("ref: "):
        ref, commit = _resolve(lay, value[5:].strip())
        if not ref.startswith("refs/heads/"):
            raise Unsure(f"HEAD names {ref!r}")
        branch = ref[len("refs/heads/"):]
        if not _short_is_plain(lay, branch):
            raise Unsure(f"git would shorten {ref} differently")
        return Head(branch, commit)
    if _valid_hash(value):
        return Head(None, value)
    raise Unsure("HEAD holds neither a ref nor a commit hash")


def main_project(root) -> Path:
    """The project at `root` as the main checkout holds it: in a linked worktree (its top's `.git` file
    names the worktree's git dir, whose `commondir` leads to the main `.git`) the same folder below the
    main checkout's top (`services/api/` for a project below the work tree's top); `root` itself otherwise,
    or when the main checkout has no such project."""
    from msd_core.lean.project_rule import work_tree_top

    top = work_tree_top(str(root))
    if top is None:
        return Path(root)
    rel = os.path.relpath(os.path.abspath(root), top)
    if rel.startswith(".."):
        return Path(root)
    main = _main_checkout(Path(top))
    if main is None:
        return Path(root)
    project = main if rel == "." else main / rel
    return project if (project / ".planning").is_dir() else Path(root)


def _main_checkout(top: Path) -> Path | None:
    """The main checkout of the linked worktree whose top is `top`; None when `top` is not one."""
    from msd_core.files.safe_read import read_head

    dot = top / ".git"
    try:
        if dot.is_symlink() or not dot.is_file():
            return None
        line = read_head(dot, 4096, follow_symlinks=False).decode("utf-8", "replace").strip()
        if not line.startswith("gitdir:"):
            return None
        gitdir = Path(line[len("gitdir:"):].strip())
        gitdir = gitdir if gitdir.is_absolute() else (top / gitdir)
        common = read_head(gitdir / "commondir", 4096).decode("utf-8", "replace").strip()
        common_dir = Path(common) if Path(common).is_absolute() else gitdir / common
        return common_dir.resolve().parent
    except OSError:
        return None
