"""Where a flow is read from, and where its installed context files are.

- From an install (the normal case): `<root>/flows/<name>.toml`, with `<root>` the
  installed `msd-core/` folder (`--root`, default the global install). The file must be
  listed in the install manifest and match its hash (read_verified). Installed context
  paths (`msd-core/...`) are listed only when the manifest records them and their hash
  matches; anything else is reported as unavailable, never returned.
- From a folder (`--flows-dir`, a development option): `<dir>/<name>.toml` read as is;
  installed context paths resolve under `--root`'s parent (default: the package's own
  content tree), checked only for existence.

The flow name is checked with layout.is_static_name before it touches a path.
Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.errors import IntegrityError, UsageError
from msd_core.flows.model import Flow
from msd_core.flows.schema import MAX_FLOW_BYTES, parse_flow
from msd_core.lean.record import record
from msd_core.shipped.layout import is_static_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Callable

FLOWS_SUBDIR = "flows"


@record
class FlowSource:
    flow: Flow
    origin: str  # absolute path of the flow file
    resolve_installed: Callable[[str], tuple[str | None, str | None]]


def _check_name(name: str) -> None:
    if not is_static_name(name):
        raise UsageError(f"invalid workflow name {name[:60]!r}: lower-case words joined by '-', e.g. plan-phase")


def _parse_or_raise(text: str, name: str, origin: str, exc_type) -> Flow:
    flow, errors = parse_flow(text, name)
    if flow is None:
        line, msg = errors[0]
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        raise exc_type(f"flow {origin}:{line}: {msg}{more}")
    return flow


def package_content_root() -> Path:
    """The shipped `msd-core/` tree inside the package (for --flows-dir development runs)."""
    return Path(__file__).resolve().parents[1] / "content" / "msd-core"


def from_dir(name: str, flows_dir: str, root: str | None = None) -> FlowSource:
    _check_name(name)
    path = Path(flows_dir).absolute() / f"{name}.toml"
    from msd_core.files.safe_read import read_regular

    try:
        raw = read_regular(path, MAX_FLOW_BYTES)
    except FileNotFoundError:
        raise UsageError(f"no flow named {name!r} in {Path(flows_dir).absolute()}") from None
    except OSError as exc:
        raise UsageError(f"cannot read flow {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"flow {path} is not UTF-8") from None
    flow = _parse_or_raise(text, name, str(path), UsageError)
    base = (Path(root).absolute() if root else package_content_root()).parent

    def resolve(rel: str) -> tuple[str | None, str | None]:
        target = base / rel
        return (str(target), None) if target.exists() else (None, "absent")

    return FlowSource(flow, str(path), resolve)


def from_install(name: str, root: str | None = None) -> FlowSource:
    from msd_core.ownership.manifest import load_manifest, read_verified, safe_path
    from msd_core.paths import INSTALL_DIRNAME, default_resolve_root, given_install_root

    _check_name(name)
    install = given_install_root(root) if root else default_resolve_root()
    config = install.parent
    manifest = load_manifest(config)
    rel = f"{INSTALL_DIRNAME}/{FLOWS_SUBDIR}/{name}.toml"
    if rel not in manifest.files:
        prefix = f"{INSTALL_DIRNAME}/{FLOWS_SUBDIR}/"
        known = sorted(p[len(prefix):-5] for p in manifest.files if p.startswith(prefix) and p.endswith(".toml"))
        raise UsageError(f"no flow named {name!r} in the install at {install}", hint="known: " + (", ".join(known) or "none"))
    data = read_verified(config, manifest, rel)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise IntegrityError(f"installed flow {rel} is not UTF-8") from None
    origin = str(safe_path(config, rel))
    flow = _parse_or_raise(text, name, origin, IntegrityError)

    def resolve(crel: str) -> tuple[str | None, str | None]:
        if crel not in manifest.files:
            return None, "not in the install manifest"
        try:
            read_verified(config, manifest, crel)
        except IntegrityError as exc:
            return None, exc.message
        return str(safe_path(config, crel)), None

    return FlowSource(flow, origin, resolve)


def load(name: str, root: str | None = None, flows_dir: str | None = None) -> FlowSource:
    if flows_dir:
        return from_dir(name, flows_dir, root)
    return from_install(name, root)
