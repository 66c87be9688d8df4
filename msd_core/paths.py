"""The one place that decides every location msd reads or writes.

Nothing else in the package computes `~/.claude`, the user config folder or the
project's `.planning/` folder. Standard library only at import time (platformdirs is
imported lazily): this module is on `msd_run`'s hot path.

Environment overrides:
  CLAUDE_CONFIG_DIR     the global Claude config folder (default ~/.claude)
  MSD_USER_CONFIG_DIR   msd's per-user config folder (default: platformdirs user config dir "msd")
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from msd_core.lean import project_rule

INSTALL_DIRNAME = "msd-core"  # <config>/msd-core
MANIFEST_NAME = "manifest.json"  # <config>/msd-core/manifest.json
BOOKKEEPING_DIRNAME = ".msd"  # <config>/msd-core/.msd/ (pristine copies, backups, lock)
MANIFEST_REL = f"{INSTALL_DIRNAME}/{MANIFEST_NAME}"  # the manifest, relative to the config folder
SETTINGS_BEFORE_REL = f"{INSTALL_DIRNAME}/{BOOKKEEPING_DIRNAME}/settings.before.json"  # a permission file's bytes before msd's first write
PLANNING_DIRNAME = project_rule.PLANNING  # <project>/.planning (the project rule looks for it)
PROJECT_STATE_DIRNAME = ".msd"  # <project>/.planning/.msd/ (traces, memory db, locks)
SOURCE_HOME_TOKEN = "~/.claude/"  # how shipped content spells the install target
TXN_DIRNAME = ".msd-core.txn"  # <folder>/.msd-core.txn/: an all-or-nothing change under way (msd_core.files.txn)
STATE_DUE_NAME = "state-due"  # <project>/.planning/.msd/state-due: STATE.md is due to be re-derived (phase surgery)
RUNNER_EXE = "msd_run.exe" if os.name == "nt" else "msd_run"  # the runtime's program, beside msd


# Per agent runtime: (local folder name under the project, env var naming the global folder or None,
# global folder relative to HOME when the variable is unset). The formats live in msd_core/runtimes.
RUNTIME_DIRS = {
    "claude": (".claude", "CLAUDE_CONFIG_DIR", ".claude"),
    "gemini": (".gemini", "GEMINI_CLI_HOME", ".gemini"),       # GEMINI_CLI_HOME replaces HOME: <it>/.gemini
    "opencode": (".opencode", "OPENCODE_CONFIG_DIR", ".config/opencode"),
    "codex": (".codex", "CODEX_HOME", ".codex"),
    "agents": (".agents", None, ".agents"),  # the open Agent Skills folder (clients read <it>/skills); no variable names it
    "qwen": (".qwen", None, ".qwen"),  # Qwen Code: Agent Skills in <it>/skills, subagents in <it>/agents
    "copilot": (".github", "COPILOT_HOME", ".copilot"),  # Copilot CLI: <it>/skills, custom agents in <it>/agents
    "kimi": (".kimi-code", "KIMI_CODE_HOME", ".kimi-code"),  # Kimi Code: <it>/skills, agents in <it>/agents
}
RUNTIMES = tuple(RUNTIME_DIRS)
DEFAULT_RUNTIME = "claude"


def home() -> Path:
    return Path(os.path.expanduser("~"))


def default_global_config_dir() -> Path:
    """`~/.claude`, the default global target before any override."""
    return home() / ".claude"


def global_config_dir(config_dir: str | os.PathLike | None = None) -> Path:
    """Global target: `--config-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    if config_dir:
        return Path(os.path.expanduser(os.fspath(config_dir))).absolute()
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    if env:
        return Path(os.path.expanduser(env)).absolute()
    return default_global_config_dir()


def local_config_dir(project_dir: str | os.PathLike | None = None, runtime: str = DEFAULT_RUNTIME) -> Path:
    """Local target: `.claude` (or the runtime's folder) in `project_dir`, else in the top of the git
    work tree holding the current folder, else in the current folder."""
    base = Path(project_dir) if project_dir else local_project_dir()
    return base.absolute() / RUNTIME_DIRS[runtime][0]


def local_project_dir(start: str | os.PathLike | None = None) -> Path:
    """The folder a local install (or project-scoped registration) acts on: the top of the git work
    tree holding `start` (default: cwd), else `start` itself."""
    here = Path(start).absolute() if start else Path.cwd()
    return work_tree_top(here) or here


def runtime_global_dir(runtime: str, config_dir: str | os.PathLike | None = None) -> Path:
    """A runtime's global folder: `--config-dir`, else its environment variable, else its default."""
    if runtime == DEFAULT_RUNTIME:
        return global_config_dir(config_dir)
    if config_dir:
        return Path(os.path.expanduser(os.fspath(config_dir))).absolute()
    _local, env_name, rel = RUNTIME_DIRS[runtime]
    env = os.environ.get(env_name) if env_name else None
    if runtime == "gemini":
        return (Path(os.path.expanduser(env)).absolute() if env else home()) / ".gemini"
    if runtime == "opencode" and not env:
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        return (Path(xdg) if os.path.isabs(xdg) else home() / ".config") / "opencode"
    return Path(os.path.expanduser(env)).absolute() if env else home() / rel


def install_root(config: Path) -> Path:
    """`<config>/msd-core`: the installed content tree and its manifest."""
    return config / INSTALL_DIRNAME


def manifest_path(config: Path) -> Path:
    return install_root(config) / MANIFEST_NAME


def user_config_dir() -> Path:
    """msd's per-user config folder (holds defaults.json)."""
    env = os.environ.get("MSD_USER_CONFIG_DIR")
    if env:
        return Path(os.path.expanduser(env)).absolute()
    if sys.platform == "linux":
        # platformdirs' answer on Linux, without importing it (~7 ms with tempfile and shutil,
        # on every msd_run call): $XDG_CONFIG_HOME/msd if absolute, else ~/.config/msd.
        # tests/config/test_config_paths.py checks this against platformdirs.
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        if not xdg:
            return home() / ".config" / "msd"
        if os.path.isabs(xdg):
            return Path(xdg) / "msd"
    import platformdirs  # lazy: only the user-defaults lookup needs it

    return Path(platformdirs.user_config_dir("msd", appauthor=False))


def user_defaults_path() -> Path:
    return user_config_dir() / "defaults.json"


def host_edits_path() -> Path:
    """msd's record of the entries it added to other programs' files outside an install (`msd mcp install`)."""
    return user_config_dir() / "host-edits.json"


def find_project_root(start: str | os.PathLike | None = None) -> Path | None:
    """The one rule for which project a command acts on (docs/CONTRACTS.md, "Which project"):
    the nearest folder holding `.planning/`, searching up from `start` (default: cwd) but never
    above the top of the git work tree holding it; outside a work tree never above the home
    folder; never the filesystem root or the system temp folder itself. The walk itself is
    msd_core.lean.project_rule (os.path only, for the guard's lean start)."""
    found = project_rule.project_root(start)
    return Path(found) if found is not None else None


def work_tree_top(start: str | os.PathLike | None = None) -> Path | None:
    """The top of the git work tree holding `start` (default: cwd), found by the same walk (a
    stat of `.git` per folder, never a git process); None outside one."""
    found = project_rule.work_tree_top(start)
    return Path(found) if found is not None else None


def named_folder(text: str | os.PathLike) -> str:
    """A folder a person named (`--cwd` and the like), as given, when it exists (`~` expanded for the
    test); UsageError (exit 2) otherwise, so a mistyped folder is never read as "no project here"
    nor has folders made for it. The message says what is wrong with the folder; the command
    line's parser (msd_core.run.options.cwd) names the flag."""
    from msd_core.errors import UsageError

    text = os.fspath(text)
    path = os.path.expanduser(text)
    if os.path.isdir(path):
        return text
    what = "does not exist" if not os.path.lexists(path) else "is not a folder"
    shown = text if len(text) <= 200 else f"{text[:180]}... ({len(text)} characters)"
    raise UsageError(f"{shown} {what}")


def require_parent(folder: Path, what: str, hint: str) -> None:
    """UsageError (exit 2, one line) when `folder` is missing and so is the folder that would hold
    it: a target msd may create is the last folder of a path, never a tree of them."""
    folder = Path(folder)
    if os.path.lexists(folder) or os.path.lexists(folder.parent):
        return  # a file where the parent should be is the target check's to name
    from msd_core.errors import UsageError

    raise UsageError(f"{what} {folder} cannot be made: its parent folder {folder.parent} does not exist", hint=hint)


def planning_dir(project_root: Path) -> Path:
    return project_root / PLANNING_DIRNAME


def project_state_dir(project_root: Path) -> Path:
    """`<project>/.planning/.msd/`: msd's private per-project files (git-ignored)."""
    return planning_dir(project_root) / PROJECT_STATE_DIRNAME


CHAIN_DIRNAME = "chain"  # <project>/.planning/.msd/chain/: `msd chain`'s tickets, step results and run reports
CHAIN_TICKET_SUFFIX = ".ticket.json"
CHAIN_RESULT_SUFFIX = ".result.json"
CHAIN_REPORT_SUFFIX = ".chain.json"


def chain_dir(project_root: Path) -> Path:
    """`<project>/.planning/.msd/chain/` (not created here)."""
    return project_state_dir(project_root) / CHAIN_DIRNAME


class Target:
    """Where an install lives: its scope and its Claude config folder.

    Immutable value object (hand-written rather than a frozen dataclass: importing
    dataclasses pulls in `inspect`, ~7 ms on msd_run's hot path).
    """

    __slots__ = ("scope", "config", "runtime")
    scope: str  # "global" | "local"
    config: Path
    runtime: str  # a key of RUNTIME_DIRS

    def __init__(self, scope: str, config: Path, runtime: str = DEFAULT_RUNTIME):
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "runtime", runtime)

    def __setattr__(self, name, value):
        raise AttributeError(f"Target is immutable; cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"Target is immutable; cannot delete {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.scope, self.config, self.runtime) == (other.scope, other.config, other.runtime)

    def __hash__(self):
        return hash((self.scope, self.config, self.runtime))

    def __repr__(self):
        extra = "" if self.runtime == DEFAULT_RUNTIME else f", runtime={self.runtime!r}"
        return f"Target(scope={self.scope!r}, config={self.config!r}{extra})"

    @property
    def root(self) -> Path:
        return install_root(self.config)

    @property
    def manifest(self) -> Path:
        return manifest_path(self.config)

    @property
    def is_default_global(self) -> bool:
        return self.runtime == DEFAULT_RUNTIME and self.scope == "global" and self.config == default_global_config_dir()

    def rewrite_token(self) -> str:
        """What `~/.claude/` in shipped content becomes in this install."""
        return str(self.config).rstrip("/") + "/"


def resolve_target(scope: str, config_dir: str | os.PathLike | None = None, project_dir: str | os.PathLike | None = None,
                   runtime: str = DEFAULT_RUNTIME) -> Target:
    if runtime not in RUNTIME_DIRS:
        raise ValueError(f"unknown runtime {runtime!r}")
    if scope == "global":
        return Target("global", runtime_global_dir(runtime, config_dir), runtime)
    if scope == "local":
        if config_dir:
            return Target("local", Path(os.path.expanduser(os.fspath(config_dir))).absolute(), runtime)
        return Target("local", local_config_dir(project_dir, runtime), runtime)
    raise ValueError(f"unknown scope {scope!r}")


def default_resolve_root() -> Path:
    """The installed tree `msd_run resolve` uses when no `--root` is given: the global install."""
    return install_root(global_config_dir())


def given_install_root(root: str | os.PathLike) -> Path:
    """A `--root` the caller gave, as an absolute path (`~` expanded). A path that names no msd-core
    folder (another folder, a file, a path that is not there) is the caller's mistake: UsageError
    (exit 2) naming it. A `.../msd-core` that is missing or lacks its manifest is an install gone:
    the manifest's reader says so (exit 3, run `msd install`)."""
    from msd_core.errors import UsageError

    path = Path(os.path.expanduser(os.fspath(root))).absolute()
    if path.name == INSTALL_DIRNAME and (path.is_dir() or not os.path.lexists(path)):
        return path
    hint = f"give the installed {INSTALL_DIRNAME} folder, e.g. ~/.claude/{INSTALL_DIRNAME} or ./.claude/{INSTALL_DIRNAME}"
    if not os.path.lexists(path):
        raise UsageError(f"{path} does not exist", hint=hint, about="root")
    raise UsageError(f"{path} is not an installed {INSTALL_DIRNAME} folder", hint=hint, about="root")
