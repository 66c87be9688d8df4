"""Which files hold credentials, and whether a Read or a Grep would show one to the agent.

A name is matched case-insensitively against each pattern (`*` any run of characters, `?` one,
`[...]` a set); a pattern holding a `/` is matched against the end of the path
(`.aws/credentials`). The built-in list (BUILT_IN) is extended by the project's
`guards.secret_files`; a file matching `guards.secret_allow` (its name or its path relative to
the project) is one the user lets the agent read. Names ending in EXEMPT (templates such as
`.env.example`, public keys) never count.

Read: the path as given and, when it is a symlink, the file it leads to. Grep: its `path` when that
names a secret file, and its `glob` when that picks secret files out (`.env*`, `*.pem`; not `*` or
`*.json`, which search everything). Glob is not guarded: it lists names, as `ls` does. Bash:
secret_bash.py. Standard library only.
"""

from __future__ import annotations

import os

# (pattern, what such a file holds): the documented list (README "Hooks", docs/CONTRACTS.md)
BUILT_IN = (
    (".env", "environment secrets"), (".env.*", "environment secrets"), ("*.env", "environment secrets"),
    (".envrc", "environment secrets (direnv)"),
    ("*.pem", "a private key or certificate"), ("*.key", "a private key"), ("*.p12", "a key store"),
    ("*.pfx", "a key store"), ("*.jks", "a Java key store"), ("*.keystore", "a key store"), ("*.ppk", "a PuTTY private key"),
    ("id_rsa", "an SSH private key"), ("id_dsa", "an SSH private key"), ("id_ecdsa", "an SSH private key"),
    ("id_ed25519", "an SSH private key"),
    (".netrc", "login credentials"), ("_netrc", "login credentials"), (".pgpass", "database passwords"),
    (".git-credentials", "git credentials"), (".npmrc", "a registry token"), (".pypirc", "a registry token"),
    (".htpasswd", "password hashes"), ("credentials", "cloud credentials"), ("*credentials*.json", "service credentials"),
    ("service-account*.json", "a service account key"), ("client_secret*.json", "an OAuth client secret"),
    (".docker/config.json", "registry credentials"), (".kube/config", "cluster credentials"),
    (".secrets", "secrets"), ("secrets.json", "secrets"), ("secrets.yml", "secrets"), ("secrets.yaml", "secrets"),
    ("secrets.toml", "secrets"), ("*.secret", "a secret"), ("*.tfvars", "Terraform variables (often secrets)"),
    ("*.tfstate", "Terraform state (holds secrets in clear)"),
)
EXEMPT = ("*.example", "*.sample", "*.template", "*.tmpl", "*.dist", "*.pub")

# names no secret pattern is meant to match: a name pattern matching one of these searches everything
ORDINARY = ("readme.md", "main.py", "index.ts", "app.js", "data.json", "config.yaml", "notes.txt", "makefile",
            "a.c", "style.css", "go.mod", "cargo.toml", "settings.py", "package.json")


def _glob(name: str, pattern: str) -> bool:
    if not any(c in pattern for c in "?["):  # the common case, without fnmatch's compiled patterns
        parts = pattern.split("*")
        if len(parts) == 1:
            return name == pattern
        if not (name.startswith(parts[0]) and name.endswith(parts[-1])) or len(name) < len(parts[0]) + len(parts[-1]):
            return False
        at, end = len(parts[0]), len(name) - len(parts[-1])
        for mid in parts[1:-1]:
            found = name.find(mid, at, end)
            if found < 0:
                return False
            at = found + len(mid)
        return True
    import fnmatch

    return fnmatch.fnmatchcase(name, pattern)


def matches(path: str, pattern: str) -> bool:
    """`pattern` (lower case) against `path`: its name, or its last folders for a pattern with `/`."""
    path = path.replace("\\", "/").rstrip("/").lower()
    if "/" not in pattern:
        return _glob(path.rsplit("/", 1)[-1], pattern)
    depth = pattern.count("/") + 1
    return _glob("/".join(path.split("/")[-depth:]), pattern)


def secret_pattern(path: str, extra: tuple = ()) -> tuple[str, str] | None:
    """(pattern, what it holds) of the first pattern `path` matches, or None (exempt names too)."""
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower().rstrip(". ")
    if not name or any(_glob(name, e) for e in EXEMPT):
        return None
    for pattern, what in BUILT_IN:
        if matches(path, pattern):
            return pattern, what
    for pattern in extra:
        if isinstance(pattern, str) and pattern.strip() and matches(path, pattern.strip().lower()):
            return pattern.strip(), "secrets (guards.secret_files)"
    return None


def allowed(path: str, project: str | None, allow: tuple) -> bool:
    if not allow:
        return False
    names = [path]
    if project:
        rel = os.path.relpath(path, project) if os.path.isabs(path) else path
        if not rel.startswith(".."):
            names.append(rel)
    for pattern in allow:
        if not isinstance(pattern, str) or not pattern.strip():
            continue
        p = pattern.strip().lower()
        if any(matches(n, p) or _glob(n.replace("\\", "/").lower(), p) for n in names):
            return True
    return False


def read_finding(file_path: str, cwd: str | None, project: str | None, extra: tuple, allow: tuple) -> tuple[str, str, str] | None:
    """(the path as shown, pattern, what it holds) when reading `file_path` would show a secret file."""
    if not isinstance(file_path, str) or not file_path:
        return None
    full = file_path if os.path.isabs(file_path) or not cwd else os.path.join(cwd, file_path)
    candidates = [full]
    try:
        real = os.path.realpath(full)
    except (OSError, ValueError):
        real = full
    if real != os.path.abspath(full):
        candidates.append(real)
    for path in candidates:
        hit = secret_pattern(path, extra)
        if hit and not allowed(path, project, allow):
            return file_path, hit[0], hit[1]
    return None




def samples(extra: tuple = ()):
    """(a name each pattern matches, (pattern, what it holds)): the names a name pattern is tried on."""
    out = []
    for pattern, what in BUILT_IN + tuple((p.strip().lower(), "secrets (guards.secret_files)") for p in extra
                                           if isinstance(p, str) and p.strip()):
        name = pattern.rsplit("/", 1)[-1]
        for wild in "*?":
            name = name.replace(wild, "x")
        if "[" not in name:
            out.append((name, (pattern, what)))
    return out


def aimed(pattern: str, project: str | None, extra: tuple, allow: tuple) -> tuple[str, str, str] | None:
    """The finding when a name pattern (find -name, a Grep glob; case ignored) picks secret files out:
    it matches one of them and no ordinary name (`*` and `*.json` search everything: not aiming)."""
    import fnmatch

    pattern = pattern.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or pattern
    hit = secret_pattern(pattern, extra)
    if hit and not any(c in pattern for c in "*?[{"):
        return None if allowed(pattern, project, allow) else (pattern, hit[0], hit[1])
    test = pattern.lower()
    names = [test]
    if "{" in test and "}" in test.split("{", 1)[1]:  # rg's `*.{env,pem}`
        head, rest = test.split("{", 1)
        body, tail = rest.split("}", 1)
        names = [head + alt + tail for alt in body.split(",")]
    for p in names:
        if any(fnmatch.fnmatchcase(plain, p) for plain in ORDINARY):
            continue
        for sample, (pat, what) in samples(extra):
            if fnmatch.fnmatchcase(sample, p) and not allowed(sample, project, allow):
                return pattern, pat, what
    return None


def grep_finding(tool_input: dict, cwd: str | None, project: str | None, extra: tuple, allow: tuple):
    """(what it names, pattern, what it holds) when a Grep would search a secret file."""
    path = tool_input.get("path")
    if isinstance(path, str) and path:
        hit = read_finding(path, cwd, project, extra, allow)
        if hit:
            return hit
    glob = tool_input.get("glob")
    if isinstance(glob, str) and glob.strip():
        return aimed(glob.strip(), project, extra, allow)
    return None
