"""Which files hold credentials, and whether a Read or a Bash command would show one to the agent.

A name is matched case-insensitively against each pattern (`*` any run of characters, `?` one,
`[...]` a set); a pattern holding a `/` is matched against the end of the path
(`.aws/credentials`). The built-in list (BUILT_IN) is extended by the project's
`guards.secret_files`; a file matching `guards.secret_allow` (its name or its path relative to
the project) is one the user lets the agent read. Names ending in EXEMPT (templates such as
`.env.example`, public keys) never count.

Read: the path as given and, when it is a symlink, the file it leads to.
Bash: the host starts this check only for a command that names a secret-looking file (the `if`
rules of msd_core/install/host_hooks.py: SECRET_WORDS, lower case, so a name in capitals or one
matching only a project's own pattern is not seen there; every Read is checked); the command is split into simple commands and one
that runs a program which prints what it reads (READERS; `git show/diff/log/blame/grep`), or
feeds it a file with `<`, is refused when a file argument (shell globs expanded) matches.
Not seen: files reached through variables, scripts, `python -c`, a directory searched as a
whole (`grep -r KEY .`), or a copy made first. Standard library only.
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

# programs that print what they read (a file argument of theirs reaches the agent)
READERS = frozenset((
    "cat tac head tail less more most bat batcat nl od xxd hexdump hd strings base64 base32 "
    "grep egrep fgrep zgrep rg ag ack sed awk gawk mawk nawk cut sort uniq paste column fold fmt "
    "diff cmp comm sdiff jq yq openssl dotenv"
).split())
GIT_READERS = frozenset(("show", "diff", "log", "blame", "grep", "cat-file"))
WRAPPERS = frozenset(("sudo", "env", "nohup", "time", "command", "exec", "nice", "stdbuf", "doas"))
SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh"))
SEPARATORS = frozenset((";", "&&", "||", "|", "&", "(", ")", "{", "}", "|&", ";;", "!"))
MAX_COMMAND = 64 << 10  # a longer command is not parsed (allowed as it is)
MAX_DEPTH = 3  # `bash -c "..."` inside `bash -c` ...


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


def _allowed(path: str, project: str | None, allow: tuple) -> bool:
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
        if hit and not _allowed(path, project, allow):
            return file_path, hit[0], hit[1]
    return None


# ------------------------------------------------------------------ Bash


def _words(command: str) -> list[str]:
    import shlex

    text = command.replace("`", " ; ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unbalanced quote: read it as plain words
        return text.split()


def _segments(words: list[str]):
    current: list[str] = []
    for w in words:
        if w in SEPARATORS or w == "$":  # `$(` arrives as `$` and `(`
            if current:
                yield current
            current = []
        else:
            current.append(w)
    if current:
        yield current


def _expand(word: str, cwd: str | None) -> list[str]:
    if any(c in word for c in "*?[") and cwd:
        import glob

        base = word if os.path.isabs(word) else os.path.join(cwd, word)
        return glob.glob(base)[:200] or [word]  # as the shell expands it: `*` skips dot files
    return [word]


REDIRECTS = frozenset(("<", ">", ">>", "<<", "<<<", "0<", "1>", "2>", "&>", ">&", "<>"))


def _redirections(seg: list[str]) -> tuple[list[str], list[str]]:
    """(the words without redirections, the files fed in with `<`)."""
    words, fed = [], []
    i = 0
    while i < len(seg):
        w = seg[i]
        if w in REDIRECTS:
            if w in ("<", "0<", "<>") and i + 1 < len(seg):
                fed.append(seg[i + 1])
            i += 2
            continue
        words.append(w)
        i += 1
    return words, fed


def _program(seg: list[str]) -> tuple[str | None, list[str]]:
    i = 0
    while i < len(seg):
        w = seg[i]
        if "=" in w and not w.startswith("-") and w.split("=", 1)[0].replace("_", "").isalnum():
            i += 1  # VAR=value
        elif os.path.basename(w) in WRAPPERS:
            i += 1
            while i < len(seg) and seg[i].startswith("-"):
                i += 1
        else:
            return os.path.basename(w), seg[i + 1:]
    return None, []


def bash_finding(command: str, cwd: str | None, project: str | None, extra: tuple, allow: tuple,
                 depth: int = 0) -> tuple[str, str, str] | None:
    """(the file named, pattern, what it holds) when `command` would print a secret file."""
    if not isinstance(command, str) or not command or len(command) > MAX_COMMAND or depth > MAX_DEPTH:
        return None
    for seg in _segments(_words(command)):
        words, fed = _redirections(seg)
        prog, args = _program(words)
        files: list[str] = []
        if prog in SHELLS or prog == "eval":
            inner = args[args.index("-c") + 1] if "-c" in args and args.index("-c") + 1 < len(args) else (" ".join(args) if prog == "eval" else None)
            if inner:
                hit = bash_finding(inner, cwd, project, extra, allow, depth + 1)
                if hit:
                    return hit
        elif prog == "git" and args:
            sub = next((a for a in args if not a.startswith("-")), None)
            if sub in GIT_READERS:
                files += [a.split(":", 1)[-1] for a in args if not a.startswith("-") and a != sub]
        elif prog in READERS and not (prog == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args)):
            files += fed + [a for a in args if not a.startswith("-")]
        for f in files:
            for path in _expand(f, cwd):
                hit = read_finding(path, cwd, project, extra, allow)
                if hit:
                    return f, hit[1], hit[2]
    return None
