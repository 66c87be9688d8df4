"""Which files of a project are msd's own: the content a local install put there.

`owned_paths(root)`: project-relative POSIX paths of every file a local install's manifest
records (`<runtime folder>/<relpath>` for each runtime's folder under `root` that holds
`msd-core/manifest.json`), plus each install's own tree `<runtime folder>/msd-core/` as a
prefix (its manifest, VERSION and bookkeeping are msd's even where `files` does not list them).
A folder with no manifest, or a manifest that cannot be read, owns nothing: a review then sees
those files as the project's, which is the safe side. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.errors import MsdError
from msd_core.paths import INSTALL_DIRNAME, RUNTIME_DIRS


class Owned:
    """Files and folder prefixes (each ending in `/`) msd owns in a project."""

    __slots__ = ("files", "prefixes")

    def __init__(self, files: frozenset[str], prefixes: tuple[str, ...]):
        self.files = files
        self.prefixes = prefixes

    def __contains__(self, rel: str) -> bool:
        return rel in self.files or rel.startswith(self.prefixes)


def owned_paths(root: Path) -> Owned:
    from msd_core.ownership.manifest import load_manifest

    files: set[str] = set()
    prefixes: list[str] = []
    for folder in dict.fromkeys(local for local, _env, _rel in RUNTIME_DIRS.values()):
        config = Path(root) / folder
        if config.is_symlink() or not config.is_dir():
            continue
        try:
            manifest = load_manifest(config)
        except (MsdError, OSError):  # not installed here, or a manifest that cannot be read
            continue
        files.update(f"{folder}/{rel}" for rel in manifest.files)
        prefixes.append(f"{folder}/{INSTALL_DIRNAME}/")
    return Owned(frozenset(files), tuple(prefixes))
