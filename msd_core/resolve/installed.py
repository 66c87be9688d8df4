"""Open an installed msd-core tree: `<root>/manifest.json`, relpaths relative to `<root>/..`.

The manifest (and its registry) is the only thing the resolver trusts. Every file it
hands out is read with manifest.read_verified: hash-checked, inside the config folder,
no symlink followed.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core import paths
from msd_core.errors import IntegrityError, NotInstalledError
from msd_core.ownership.manifest import Manifest, load_manifest, read_verified


class Install:
    __slots__ = ("root", "config", "manifest")

    def __init__(self, root: Path, config: Path, manifest: Manifest):
        self.root = root  # <config>/msd-core
        self.config = config  # <config>
        self.manifest = manifest

    def read(self, relpath: str) -> bytes:
        try:
            return read_verified(self.config, self.manifest, relpath)
        except OSError as exc:  # e.g. a folder where the part should be
            raise IntegrityError(f"installed file {self.abspath(relpath)} cannot be read ({exc.strerror})",
                                 hint=repair_hint(self.config, self.manifest.scope)) from None
        except IntegrityError as exc:  # modified or missing: name the command that restores it
            raise IntegrityError(exc.message, hint=repair_hint(self.config, self.manifest.scope)) from None

    def abspath(self, relpath: str) -> str:
        return str(self.config.joinpath(*relpath.split("/")))

    def section(self, name: str) -> dict:
        reg = self.manifest.registry.get(name, {})
        if not isinstance(reg, dict):
            raise IntegrityError(f"install manifest at {self.root} has an invalid registry '{name}' table")
        return reg


def root_path(root: str | os.PathLike | None) -> Path:
    """`--root` as an absolute path (`~` expanded); default: the global install."""
    if root is None or str(root) == "":
        return paths.default_resolve_root()
    return paths.given_install_root(root)


def repair_hint(config: Path, scope: str | None) -> str:
    from msd_core.ownership.hints import repair_hint as hint  # only on a failure: off the hot path

    return hint(config, scope)


def open_install(root: str | os.PathLike | None) -> Install:
    """Load the install at `root`. NotInstalledError (exit 3) names `msd install` when absent;
    a corrupt manifest names the exact `msd install ... --repair` that rebuilds it."""
    rp = root_path(root)
    if rp.name != paths.INSTALL_DIRNAME:
        raise NotInstalledError(f"{rp} is not an installed {paths.INSTALL_DIRNAME} folder")
    try:
        manifest = load_manifest(rp.parent)
    except NotInstalledError:
        raise
    except IntegrityError as exc:
        raise IntegrityError(exc.message, hint=repair_hint(rp.parent, None)) from None
    return Install(rp, rp.parent, manifest)


def registered_relpath(rel: object, prefix: str, where: str) -> str:
    """A registry path, checked to be a string under `prefix` (IntegrityError otherwise)."""
    if not isinstance(rel, str) or not rel.startswith(prefix) or ".." in rel.split("/"):
        raise IntegrityError(f"install manifest registry has an invalid path for {where}")
    return rel
