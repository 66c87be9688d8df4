"""Which paths are package manifests or lock files: a change to one adds, removes or upgrades a
third-party package (a change a reviewer must see).

`msd_run commit` (msd_core.execution.commit) refuses such a change unless the plan's
`files_modified` names the file itself (a declared folder does not count) or `--deviation`
records the user's approval: a package name an agent proposes may be typosquatted or may not
exist at all, so a person decides. Standard library only.
"""

from __future__ import annotations

import re

NAMES = frozenset({
    # JavaScript / TypeScript
    "package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "pnpm-workspace.yaml",
    "bun.lock", "bun.lockb", "deno.json", "deno.jsonc", "deno.lock",
    # Python
    "pyproject.toml", "poetry.lock", "uv.lock", "pdm.lock", "Pipfile", "Pipfile.lock", "setup.py", "setup.cfg",
    "environment.yml", "environment.yaml",
    # Rust, Go, Ruby, PHP, JVM, .NET, Elixir, Dart, Swift
    "Cargo.toml", "Cargo.lock", "go.mod", "go.sum", "go.work", "go.work.sum", "Gemfile", "Gemfile.lock",
    "composer.json", "composer.lock", "pom.xml", "build.gradle", "build.gradle.kts", "gradle.lockfile",
    "packages.lock.json", "Directory.Packages.props", "mix.exs", "mix.lock", "pubspec.yaml", "pubspec.lock",
    "Package.swift", "Package.resolved",
})
_PATTERNS = re.compile(r"^(?:requirements|constraints)[\w.-]*\.(?:txt|in)$|^[\w.-]+\.csproj$")


def is_manifest(rel: str) -> bool:
    """Whether the repository path `rel` is a package manifest or lock file (any folder)."""
    name = rel.rstrip("/").rsplit("/", 1)[-1]
    if name in NAMES or _PATTERNS.match(name):
        return True
    parts = rel.split("/")
    return len(parts) >= 2 and parts[-2] == "requirements" and name.endswith(".txt")


def undeclared(rels: list[str], declared: list[str] | None) -> list[str]:
    """The manifests among `rels` that `declared` (a plan's files; None: no plan) does not name exactly."""
    named = set(declared or [])
    return [r for r in rels if is_manifest(r) and r not in named]
