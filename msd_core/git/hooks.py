"""Whether `git commit` in a checkout could run a hook, from the files alone (no git process).

`may_run_hooks(top)` is False only when every place a hook could come from is known to be
empty, and True whenever it is unsure:

- the checkout's layout is not an ordinary one (msd_core.git.repo_files asks git), or git's
  config comes from the environment (any GIT_CONFIG* variable);
- the effective hooks folder (`<common git dir>/hooks`) holds an executable file whose name
  does not end in `.sample` (git runs only executable hooks; anything there counts);
- a config file git reads mentions a hook or an include anywhere (`core.hooksPath`, a
  `[hook "..."]` section for config-defined hooks, `[include]`/`[includeIf]` pulling in
  files not read here): the repository's `config` and `config.worktree`, the global
  ($XDG_CONFIG_HOME/git/config or ~/.config/git/config, ~/.gitconfig) and the system
  config (/etc/gitconfig, and `<prefix>/etc/gitconfig` for the prefix of the git found on
  PATH, before and after resolving symlinks); a config that cannot be read also counts.

A commit that no hook can touch contains exactly the changes of the paths it names, so
msd_core.execution.commit takes them from `git status` (or `git diff-index`) before
committing and the hash from HEAD's files after, instead of asking `git diff-tree`. With a hook anywhere it
keeps asking git: a pre-commit hook may stage more, a post-commit hook may amend.

Standard library only.
"""

from __future__ import annotations

import os

_MARKERS = ("hook", "include")
_MAX_CONFIG = 1 << 20


def _config_mentions(path: str) -> bool:
    """True when the file at `path` mentions a hook or an include, or cannot be read as a config."""
    from msd_core.files.safe_read import read_regular

    try:
        data = read_regular(path, _MAX_CONFIG)  # a dotfiles symlink is followed, as git does
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:  # unreadable, not a regular file, over the cap
        return True
    text = data.decode("utf-8", "replace").lower()
    return any(m in text for m in _MARKERS)


def _hooks_folder_has_one(folder: str) -> bool:
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        return True  # git would fail to run hooks from it, but do not guess
    except OSError:
        return True
    for name in names:
        if name.endswith(".sample"):
            continue
        if os.access(os.path.join(folder, name), os.X_OK):
            return True
    return False


def _git_prefixes(env: dict) -> list[str]:
    """Install prefixes of the git on PATH (the folder above its bin/), as found and as resolved."""
    found = []
    for folder in (env.get("PATH") or os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            for path in (candidate, os.path.realpath(candidate)):
                prefix = os.path.dirname(os.path.dirname(os.path.abspath(path)))
                if prefix not in found:
                    found.append(prefix)
            break
    return found


def config_files(common: str, gitdir: str, env: dict) -> list[str]:
    """Every config file git could read for this checkout (those that exist are scanned)."""
    home = env.get("HOME") or ""
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    files = [os.path.join(common, "config"), os.path.join(gitdir, "config.worktree")]
    if xdg:
        files.append(os.path.join(xdg, "git", "config"))
    if home:
        files.append(os.path.join(home, ".gitconfig"))
    files.append("/etc/gitconfig")
    files += [os.path.join(prefix, "etc", "gitconfig") for prefix in _git_prefixes(env)]
    return files


def may_run_hooks(top, env: dict | None = None) -> bool:
    from msd_core.git import repo_files

    env = os.environ if env is None else env
    if any(name.startswith("GIT_CONFIG") for name in env):
        return True
    try:
        lay = repo_files.layout(top)
    except repo_files.Unsure:
        return True
    if lay is None:
        return True
    if _hooks_folder_has_one(os.path.join(lay.common, "hooks")):
        return True
    return any(_config_mentions(path) for path in config_files(lay.common, lay.gitdir, env))
