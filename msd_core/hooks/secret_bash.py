"""Whether a Bash command would show a secret file to the agent (the Bash half of the secret guard).

The command is read at the word level (shell_words.py) and every simple command in it, in
command substitutions and in the `-c` strings of shells (to MAX_DEPTH), is judged after its
wrappers are taken off (`sudo -u root`, `nice -n 5`, `timeout 5`, `env A=1`, `xargs`, ...):

- a secret file given to a program as an argument counts as read, unless the program only
  touches its name or metadata (METADATA: ls, stat, rm, chmod, touch, test, echo, wc, checksums,
  ssh's key use, ...) or writes it (tee, `sed -i`, `>`/`>>` targets); grep's pattern and the
  value of `--exclude` are no files;
- `< secret` feeds it to the program (only a count or a checksum of it is fine: COUNTERS);
- `.`/`source` of it runs it in the shell, whose variables the agent can then print;
- `dd if=`, `git show REV:path`, `git cat-file`, `git diff/log/blame/grep`;
- `cp`/`mv`/`ln`/`install`/`rsync`/`scp` of it to the terminal (`-`, /dev/stdout) or to a name
  the guard does not know (a copy made to be read), and `dd of=` the same;
- `find ... -name <secret> -exec PROG {}`, `<names of secrets> | xargs PROG`, and a word that is
  a command substitution printing secret names (`$(echo .env)`, `$(find -name .env)`);
- parameters assigned a literal earlier in the command (`F=.env; cat $F`, `for f in .env`,
  `bash -c '...' _ .env`, `${F:-.env}`) are read with that value;
- a here-string or here-document is a shell's or an interpreter's script and xargs' names; a
  quoted secret name in an interpreter's one-line code (`python -c "open('.env')"`, `node -e`,
  awk's program) counts as opening it.

A command longer than MAX_SCAN, or one that takes longer than TIME_LIMIT to read, is refused
with its reason rather than waved through, unless no spelling of a secret name is in it at all
(could_name_one): every Bash call reaches the guard, so a long here-document writing an ordinary
file must not be refused for its length. Not seen: a program that opens the file by a name it
builds (`open('.e'+'nv')`) or from a script of its own, names built at run time (`cat $(printf '\\x2eenv')`
with escapes printf decodes, `cat .e${X}nv`), a directory read as a whole (`grep -r KEY .`,
`find . -exec cat {} +`). Standard library only.
"""

from __future__ import annotations

import os
import time

from msd_core.hooks import secret_files
from msd_core.hooks.shell_words import TooSlow, parse
from msd_core.hooks.shell_words import text as word_text

MAX_SCAN = 256 << 10  # characters: a longer command is refused, not read
MAX_DEPTH = 4  # `bash -c` inside `bash -c` ...
TIME_LIMIT = 1.0  # seconds for one command's reading (globs touch the disk)
MAX_GLOB = 200
FOLDER_NAMES = ("config", "config.json")  # the last part of the folder patterns (`.kube/config`)

# a secret path as their argument is not shown: names, metadata, counts, checksums, permissions
METADATA = frozenset((
    "ls ll la dir vdir tree exa eza lsd stat file wc du touch rm rmdir unlink shred srm trash trash-put chmod chown "
    "chgrp chattr lsattr setfacl getfacl xattr realpath readlink basename dirname mkdir test [ [[ echo printf true "
    "false : cd pushd popd which type hash whereis export unset alias declare local readonly typeset set shopt "
    "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum md5 tee truncate sleep kill "
    "wait exit return lsof fuser locate ssh ssh-add ssh-keygen ssh-copy-id sftp git"
).split())
COUNTERS = frozenset("wc md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum md5 file".split())
COPIERS = frozenset(("cp", "mv", "ln", "install", "rsync", "scp", "gcp", "gmv"))
SHELLS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "rbash"))
KEYWORDS = frozenset("if then else elif fi do done while until for in case esac select function { } ! time coproc".split())
TERMINAL = frozenset(("-", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2", "/proc/self/fd/1",
                      "/proc/self/fd/2", "/dev/console"))
GIT_READERS = frozenset("show diff log blame annotate grep cat-file archive whatchanged format-patch difftool range-diff".split())
GIT_QUIET = frozenset(("add", "rm", "mv", "status", "restore", "checkout", "commit", "reset", "stash", "switch", "clean",
                       "check-ignore", "ls-files", "update-index", "rev-parse", "check-attr", "init", "fetch", "pull",
                       "push", "branch", "tag", "merge", "rebase", "lfs", "hash-object", "apply", "am"))
GREPS = frozenset(("grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ugrep", "pcregrep"))
GREP_TAKES = frozenset(("-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C", "--context",
                        "--after-context", "--before-context", "--include", "--exclude", "--exclude-dir", "--include-dir",
                        "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "--color", "--colour", "-d", "-D",
                        "--devices", "--directories", "--label", "-M", "--max-columns", "-j", "--threads", "--ignore-file",
                        "--encoding", "--pre", "--sort", "--sortr", "--max-depth", "--max-filesize", "--replace"))
NAMERS = frozenset(("echo", "printf", "ls", "find", "fd", "fdfind", "realpath", "readlink", "basename", "locate"))
# wrapper: (its options that take a value, how many plain words come before the program)
WRAPPERS = {
    "sudo": ({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--host", "--prompt",
              "--chdir", "--role", "--type", "--close-from", "--other-user", "--command-timeout"}, 0),
    "doas": ({"-u", "-C"}, 0), "nice": ({"-n", "--adjustment"}, 0), "ionice": ({"-c", "-n", "-p", "-P", "-u"}, 0),
    "timeout": ({"-s", "-k", "--signal", "--kill-after"}, 1), "nohup": (set(), 0), "time": ({"-f", "-o", "--format", "--output"}, 0),
    "command": (set(), 0), "builtin": (set(), 0), "exec": ({"-a"}, 0), "stdbuf": ({"-i", "-o", "-e"}, 0),
    "busybox": (set(), 0), "toybox": (set(), 0), "setsid": (set(), 0), "chrt": (set(), 1), "taskset": (set(), 1),
    "unbuffer": (set(), 0), "caffeinate": ({"-t", "-w"}, 0), "catchsegv": (set(), 0), "chroot": ({"--userspec", "--groups"}, 1),
    "strace": ({"-e", "-o", "-p", "-s", "-u", "-a", "-E", "-P", "-I", "-X", "-b", "-O", "-S"}, 0),
    "ltrace": ({"-e", "-o", "-p", "-s", "-u", "-a", "-E", "-n", "-l", "-L", "-S"}, 0),
    "flock": ({"-w", "-E", "--timeout", "--conflict-exit-code"}, 1), "firejail": (set(), 0), "proxychains": ({"-f"}, 0),
    "torsocks": (set(), 0), "faketime": (set(), 1), "nsenter": ({"-t", "-S", "-G"}, 0), "unshare": (set(), 0),
    "runuser": ({"-u", "-g", "-G"}, 0), "sg": (set(), 1), "env": ({"-u", "--unset", "-C", "--chdir"}, 0),
}
AWKS = frozenset(("awk", "gawk", "mawk", "nawk"))
LEAVE_OUT = ("--exclude", "--ignore", "--exclude-dir", "--exclude-from", "--ignore-path", "--skip")
# interpreters and the options whose value is code: a quoted secret name in that code is opened by it
INTERPRETERS = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print"), "nodejs": ("-e", "--eval", "-p", "--print"),
                "deno": ("eval",), "bun": ("-e", "--eval", "-p", "--print"), "ruby": ("-e",), "perl": ("-e", "-E"),
                "php": ("-r",), "lua": ("-e",), "Rscript": ("-e",), "osascript": ("-e",), "pwsh": ("-c", "-Command")}
STRING_RUNNERS = {"su": "-c", "runuser": "-c", "script": "-c", "flock": "-c", "env": "-S", "ssh-agent": "-c"}


class Finding:
    """What would reach the agent: `path` as the command names it, the pattern it matches and what such a
    file holds, and `how` (the verb the refusal uses: "print", "source", "copy to <name>")."""

    __slots__ = ("path", "pattern", "what", "how")

    def __init__(self, path: str, pattern: str, what: str, how: str = "print"):
        self.path, self.pattern, self.what, self.how = path, pattern, what, how


class Refusal(Exception):
    """A command the guard will not read (too long, or too slow to read): its reason."""


class _Reader:
    def __init__(self, cwd, project, extra, allow):
        self.cwd, self.project, self.extra, self.allow = cwd, project, extra, allow
        self.deadline = time.monotonic() + TIME_LIMIT
        self.seen: dict[str, Finding | None] = {}

    # -------------------------------------------------------------- names

    def secret(self, word: str) -> Finding | None:
        """The finding when the file `word` names (globs expanded) is a secret one."""
        if word in self.seen:
            hit = self.seen[word]
            return Finding(hit.path, hit.pattern, hit.what) if hit else None
        if time.monotonic() > self.deadline:
            raise Refusal("it is too complex to check in time")
        hit = None
        for path in self.expand(word):
            if not self._maybe(path):
                continue
            found = secret_files.read_finding(path, self.cwd, self.project, self.extra, self.allow)
            if found:
                hit = Finding(word, found[1], found[2])
                break
        self.seen[word] = hit
        return Finding(hit.path, hit.pattern, hit.what) if hit else None

    def _maybe(self, path: str) -> bool:
        """Whether `path` could be a secret file: its name matches a pattern, or it is a symlink (or names
        a file a folder pattern such as `.kube/config` knows) whose target the full check resolves."""
        full = path if os.path.isabs(path) or not self.cwd else os.path.join(self.cwd, path)
        if (" " in path or "\n" in path) and not os.path.lexists(full):
            return False  # a sentence (`--title "load .env"`), not a file
        if secret_files.secret_pattern(path, self.extra):
            return True
        name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
        if name in FOLDER_NAMES:
            return True
        try:
            return os.path.islink(full)
        except (OSError, ValueError):
            return False

    def expand(self, word: str) -> list[str]:
        if word.startswith("~"):
            word = os.path.expanduser(word)
        words = _braces(word) if "{" in word and "," in word else [word]
        if any(c in word for c in "*?[") and self.cwd:
            import glob

            found = []
            for w in words:
                base = w if os.path.isabs(w) else os.path.join(self.cwd, w)
                found += glob.glob(base)[:MAX_GLOB] or [w]
            return found
        return words

    def aimed(self, pattern: str) -> Finding | None:
        hit = secret_files.aimed(pattern, self.project, self.extra, self.allow)
        return Finding(*hit) if hit else None


def _braces(word: str, budget: int = 64) -> list[str]:
    """`a{b,c}d` as the shell expands it (first brace pair first, at most `budget` words)."""
    start = word.find("{")
    end = word.find("}", start)
    if start < 0 or end < 0 or "," not in word[start:end]:
        return [word]
    out = []
    for alt in word[start + 1:end].split(","):
        out += _braces(word[:start] + alt + word[end + 1:], budget)
        if len(out) >= budget:
            break
    return out[:budget]


def bash_finding(command, cwd: str | None, project: str | None, extra: tuple, allow: tuple) -> Finding | None:
    """What `command` would show of a secret file, or None. Refusal for a command not read whole
    that could name one."""
    if not isinstance(command, str) or not command:
        return None
    try:
        if len(command) > MAX_SCAN:
            raise Refusal(f"it is {len(command) >> 10} KiB long, more than the guard reads ({MAX_SCAN >> 10} KiB)")
        return _commands(command, _Reader(cwd, project, extra, allow), {}, 0, cwd)
    except Refusal:
        if could_name_one(command, extra):
            raise
        return None


def could_name_one(command: str, extra: tuple = ()) -> bool:
    """Whether a command might name a secret file: every literal piece of some secret pattern (built-in
    or the project's) in it, in any case, once quotes and backslashes are taken out; or an ANSI-C
    string (`$'\\x2e...'`), which the shell decodes; a glob (`.en?`) does not count. Used only for a command
    the guard could not read whole."""
    if "$'" in command:
        return True
    plain = command.lower().translate(_QUOTING)
    return any(all(piece in plain for piece in pieces) for pieces in _pieces(extra))


_QUOTING = {ord(c): None for c in "'\"\\"}


def _pieces(extra: tuple) -> list[list[str]]:
    """Per secret pattern, its literal runs lower-cased (`*credentials*.json`: credentials, .json)."""
    out = []
    for pattern in [p for p, _what in secret_files.BUILT_IN] + [p for p in extra if isinstance(p, str)]:
        runs, run = [], ""
        for ch in pattern.lower() + "*":
            if ch in "*?[]":
                if run.rstrip("."):
                    runs.append(run.rstrip("."))
                run = ""
            else:
                run += ch
        out.append(runs)
    return out


def _commands(text: str, r: _Reader, values: dict, depth: int, cwd: str | None) -> Finding | None:
    if depth > MAX_DEPTH:  # nested past reading: any word naming a secret counts
        for word in text.replace("'", " ").replace('"', " ").split():
            hit = r.secret(word)
            if hit:
                return hit
        return None
    try:
        commands, subs = parse(text, r.deadline)
    except TooSlow:
        raise Refusal("it is too complex to check in time") from None
    for inner in subs:
        hit = _commands(inner, r, values, depth + 1, cwd)
        if hit:
            return hit
    values = dict(values)
    upstream: list[list[str]] = []  # the words of the commands piped into this one
    for cmd in commands:
        words = [_value(w, values, r, depth) for w in cmd.words]
        hit = _simple(words, cmd, r, values, depth, upstream)
        if hit:
            return hit
        _remember(words, values)
        upstream = upstream + [[t for t, _n in words]] if cmd.end == "|" else []
    return None


def _value(word, values: dict, r: _Reader, depth: int) -> tuple[str, list[str]]:
    """(the word's text, secret paths a command substitution in it prints as names)."""
    if isinstance(word, str):
        return word, []
    names: list[str] = []
    out = []
    for p in word:
        if isinstance(p, str):
            out.append(p)
        elif p[0] == "$":
            out.append(values.get(p[1], p[2] if len(p) > 2 else "$" + p[1]))
        else:
            printed = _printed(p[1], values) if p[0] == "(" else None
            if printed is not None:
                out.append(printed)
            else:
                out.append("$(...)")
                names += _named(p[1], r, values)
    return "".join(out), names


def _printed(text: str, values: dict) -> str | None:
    """What a command substitution prints when it is `echo`/`printf` of literal words alone."""
    commands, subs = parse(text)
    if len(commands) != 1 or subs:
        return None
    words = [word_text(w, values) for w in commands[0].words]
    if not words or words[0] not in ("echo", "printf"):
        return None
    args = [w for w in words[1:] if not (words[0] == "echo" and w in ("-n", "-e", "-E"))]
    if words[0] == "printf":
        if len(args) > 1 and args[0] in ("%s", "%s\\n", "%s\n"):
            args = args[1:]
        elif len(args) != 1 or "%" in args[0] or "\\" in args[0]:
            return None
    return " ".join(args)


def _named(text: str, r: _Reader, values: dict) -> list[str]:
    """Secret paths a command (a substitution, or one piped into xargs) prints as names."""
    commands, _subs = parse(text)
    found = []
    for cmd in commands:
        words = [word_text(w, values) for w in cmd.words]
        found += _names_of(words, r)
    return found


def _names_of(words: list[str], r: _Reader) -> list[str]:
    if not words or os.path.basename(words[0]) not in NAMERS:
        return []
    out = []
    args = words[1:]
    for i, w in enumerate(args):
        prev = args[i - 1] if i else ""
        if prev in ("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-g", "--glob"):
            if r.aimed(w):
                out.append(w)
        elif not w.startswith("-") and r.secret(w):
            out.append(w)
    return out


def _remember(words: list[tuple[str, list]], values: dict) -> None:
    """Parameters a command sets to literal text: `F=.env`, `export F=.env`, `for f in .env x`."""
    texts = [t for t, _n in words]
    if texts and texts[0] in ("export", "declare", "local", "readonly", "typeset"):
        texts = [t for t in texts[1:] if not t.startswith("-")]
    if texts and texts[0] == "for" and len(texts) > 2 and texts[2] == "in":
        values[texts[1]] = texts[3] if len(texts) > 3 else ""
        return
    for t in texts:
        if "=" in t and _is_name(t.split("=", 1)[0]):
            name, value = t.split("=", 1)
            values[name] = value
        else:
            return


def _is_name(text: str) -> bool:
    return bool(text) and not text[0].isdigit() and all(c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" for c in text)


def _unwrap(words: list[tuple[str, list]]) -> tuple[list[tuple[str, list]], str | None]:
    """The words from the program on (assignments, keywords and wrappers taken off), and the shell
    string a wrapper runs (`su -c`, `env -S`), if any."""
    i, n = 0, len(words)
    while i < n:
        text = words[i][0]
        prog = os.path.basename(text)
        if "=" in text and _is_name(text.split("=", 1)[0]):
            i += 1
            continue
        if text in KEYWORDS:
            i += 1
            if text in ("for", "select", "case"):
                return [], None
            continue
        if prog in STRING_RUNNERS:
            flag = STRING_RUNNERS[prog]
            for j in range(i + 1, n):
                t = words[j][0]
                if (t == flag or (t[:1] == "-" and t[1:2] != "-" and t.endswith(flag[1]))) and j + 1 < n:  # `-qc`
                    return [], words[j + 1][0]
        if prog not in WRAPPERS:
            return words[i:], None
        takes, plain = WRAPPERS[prog]
        i += 1
        if prog == "command" and i < n and words[i][0] in ("-v", "-V"):
            return [], None
        while i < n:
            t = words[i][0]
            if t == "--":
                i += 1
                break
            if t.startswith("-") and len(t) > 1:
                i += 2 if t in takes else 1
            elif prog == "env" and "=" in t and _is_name(t.split("=", 1)[0]):
                i += 1
            else:
                break
        i += plain
    return [], None


def _simple(words, cmd, r: _Reader, values: dict, depth: int, upstream) -> Finding | None:
    words, shell_string = _unwrap(words)
    if shell_string is not None:
        return _commands(shell_string, r, values, depth + 1, r.cwd)
    prog = os.path.basename(words[0][0]) if words else None
    args = words[1:]
    # input redirections: the program reads the file (a count or a checksum of it shows nothing)
    for op, target in cmd.redirects:
        if op in ("<", "<>") and prog not in COUNTERS:
            hit = r.secret(_value(target, values, r, depth)[0])
            if hit:
                return hit
    language = _language(prog)
    for op, target in cmd.redirects:  # a here-string or here-document is a shell's script, xargs' names
        if op in ("<<<", "<<") and language and (not args or args[0][0] == "-"):
            hit = _code(target if isinstance(target, str) else word_text(target, values), r)
            if hit:
                return hit
        if op in ("<<<", "<<") and prog in SHELLS and not any(t.startswith("-") and "c" in t[1:] for t, _n in args):
            body = target if isinstance(target, str) else word_text(target, values)
            hit = _commands(body, r, values, depth + 1, r.cwd)
            if hit:
                return hit
        elif op in ("<<<", "<<") and prog == "xargs":
            body = target if isinstance(target, str) else word_text(target, values)
            upstream = upstream + [["echo", *body.split()]]
    if prog is None:
        return None
    if prog == "cd" and args and r.cwd:
        r.cwd = os.path.join(r.cwd, os.path.expanduser(args[0][0]))
        return None
    if prog in SHELLS:
        return _shell(args, r, values, depth)
    if prog in AWKS:  # the first plain word is the program: `getline < ".env"`
        k = 0
        while k < len(args) and args[k][0].startswith("-"):
            k += 2 if args[k][0] in ("-F", "-v", "-f") else 1
        hit = _code(args[k][0], r) if k < len(args) else None
        if hit:
            return hit
    if language:
        flags = INTERPRETERS[language]
        for k, (t, _n) in enumerate(args[:-1]):
            if t in flags or (t[:1] == "-" and t[1:2] != "-" and len(t) > 2 and "-" + t[-1] in flags):  # `-pe`, `-ne`
                hit = _code(args[k + 1][0], r)
                if hit:
                    return hit
    if prog == "eval":
        return _commands(" ".join(t for t, _n in args), r, values, depth + 1, r.cwd)
    if prog in (".", "source"):
        hit = r.secret(args[0][0]) if args else None
        if hit:
            hit.how = "source"
        return hit
    if prog == "xargs":
        return _xargs(args, r, values, depth, upstream)
    if prog in ("find", "fd", "fdfind"):
        return _find(prog, args, r, values, depth)
    if prog == "git":
        return _git(args, r)
    if prog == "dd":
        return _dd(args, r)
    if prog in COPIERS:
        return _copy(prog, args, r)
    if prog == "watch":
        plain = [t for t, _n in args if not t.startswith("-")]
        return _commands(" ".join(plain), r, values, depth + 1, r.cwd) if plain else None
    if prog in ("sed", "gsed") and any(t.startswith("-i") or t.startswith("--in-place") for t, _n in args) \
            and not any("/dev/" in t or "/proc/self/fd" in t for t, _n in args):
        return None  # an edit in place prints nothing
    if prog in METADATA:
        return None
    if prog in GREPS:
        return _grep(args, r)
    return _arguments(args, r)


def _grep(args, r: _Reader) -> Finding | None:
    """grep/rg: the first plain word is the pattern (unless -e or -f gave one), the rest are files;
    `--include`/`-g` aimed at secret names searches them, `--exclude` leaves them out."""
    files, pattern_given, i = [], False, 0
    while i < len(args):
        t = args[i][0]
        key, _eq, val = t.partition("=")
        if t.startswith("-") and len(t) > 1 and t != "--":
            takes = key in GREP_TAKES and not _eq
            value = val if _eq else (args[i + 1][0] if takes and i + 1 < len(args) else "")
            if key in ("-e", "--regexp"):
                pattern_given = True
            elif key in ("-f", "--file"):
                pattern_given = True
                files.append((value, []))
            elif key in ("--include", "-g", "--glob", "--iglob", "--include-dir") and value and not value.startswith("!"):
                hit = r.aimed(value)
                if hit:
                    return hit
            i += 2 if takes else 1
            continue
        if t == "--":
            i += 1
            files += args[i:] if pattern_given else args[i + 1:]
            break
        if pattern_given:
            files.append(args[i])
        else:
            pattern_given = True
        i += 1
    return _arguments(files, r)


def _language(prog: str | None) -> str | None:
    """The INTERPRETERS key of `prog` (`python3.12` is python), or None."""
    if not prog:
        return None
    if prog.startswith("python"):
        return "python"
    return prog if prog in INTERPRETERS else None


def code_literals(code: str) -> list[tuple[str, str]]:
    """(the code since the previous literal, the literal) of each quoted string ('...', "..." or
    `...`, a backslash escaping the next character) in an interpreter's one-line code: what both
    guards read such code by (planning_bash.py too)."""
    out: list[tuple[str, str]] = []
    i, n, last = 0, len(code), 0
    while i < n:
        q = code[i]
        if q in "'\"`":
            j = i + 1
            while j < n and code[j] != q:
                j += 2 if code[j] == "\\" else 1
            out.append((code[last:i], code[i + 1:j]))
            i = last = j + 1
        else:
            i += 1
    return out


def _code(code: str, r: _Reader) -> Finding | None:
    """A secret file named by a quoted string in an interpreter's code (`open('.env')`)."""
    for _before, literal in code_literals(code):
        if literal and len(literal) < 512:
            hit = r.secret(literal)
            if hit:
                hit.how = "open"
                return hit
    return None


def _arguments(args, r: _Reader) -> Finding | None:
    """Any program given a secret path (`FILE`, `--opt=FILE`, `@FILE`) reads it; the value of an
    option that leaves files out (`--exclude .env`, `--ignore=.env`) does not count."""
    skip = False
    for text, names in args:
        if skip or text.startswith(LEAVE_OUT):
            skip = text in LEAVE_OUT
            continue
        for name in names:
            hit = r.secret(name)
            if hit:
                return hit
        candidates = [text]
        if text.startswith("-") and "=" in text:
            candidates.append(text.split("=", 1)[1])
        elif text.startswith("@") and len(text) > 1:
            candidates.append(text[1:])
        for c in candidates:
            if c and c not in ("-", "--"):
                hit = r.secret(c)
                if hit:
                    return hit
    return None


def _shell(args, r: _Reader, values: dict, depth: int) -> Finding | None:
    """`bash -c STRING [$0 $1 ...]` runs STRING with those parameters; `bash FILE` runs the file."""
    i = 0
    run_string = False
    while i < len(args) and args[i][0][:1] in ("-", "+") and args[i][0] not in ("-", "--"):
        flag = args[i][0]
        if flag in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if not flag.startswith("--") and "c" in flag[1:]:
            run_string = True
        i += 1
    if i < len(args) and args[i][0] == "--":
        i += 1
    if not run_string:
        return _arguments(args[i:], r)
    if i >= len(args):
        return None
    inner = dict(values)
    for k, (text, _n) in enumerate(args[i + 1:]):
        inner[str(k)] = text
    rest = [t for t, _n in args[i + 2:]]
    if rest:
        inner["@"] = inner["*"] = next((t for t in rest if r.secret(t)), rest[0])
    return _commands(args[i][0], r, inner, depth + 1, r.cwd)


def _xargs(args, r: _Reader, values: dict, depth: int, upstream) -> Finding | None:
    """`xargs [opts] PROG ARGS`: PROG reads what came in on its input (echo when none is given)."""
    takes = {"-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs",
             "--replace", "--eof", "--max-chars", "--max-lines"}
    i, fed = 0, []
    while i < len(args) and args[i][0].startswith("-"):
        t = args[i][0]
        if t in ("-a", "--arg-file") and i + 1 < len(args):
            fed.append(args[i + 1][0])
        elif t.startswith("--arg-file="):
            fed.append(t.split("=", 1)[1])
        i += 2 if t in takes else 1
    for f in fed:  # the file's lines become the program's arguments: its text reaches echo or PROG
        hit = r.secret(f)
        if hit:
            return hit
    rest = args[i:] or [("echo", [])]
    inner, _s = _unwrap(rest)
    prog = os.path.basename(inner[0][0]) if inner else None
    if prog in METADATA and prog not in ("echo", "printf"):
        return None
    for words in upstream:
        for name in _names_of(words, r):
            return Finding(name, *_pattern(name, r))
    return _simple(rest, _NoRedirects, r, values, depth, [])


class _NoRedirects:
    redirects = ()


def _pattern(name: str, r: _Reader) -> tuple[str, str]:
    hit = r.secret(name) or r.aimed(name)
    return (hit.pattern, hit.what) if hit else ("?", "secrets")


def _find(prog: str, args, r: _Reader, values: dict, depth: int) -> Finding | None:
    """`find PATHS TESTS -exec PROG ... {} ;`: PROG reads each file found; the files are secret ones
    when a start path is one, or a name test picks them out."""
    texts = [t for t, _n in args]
    execs, i = [], 0
    while i < len(texts):
        if texts[i] in ("-exec", "-execdir", "-ok", "-okdir", "-x", "-X", "--exec", "--exec-batch"):
            j = i + 1
            while j < len(texts) and texts[j] not in (";", "+", "\\;"):
                j += 1
            execs.append(args[i + 1:j])
            i = j + 1
        else:
            i += 1
    if not execs:
        return None
    hits = [Finding(n, *_pattern(n, r)) for n in _names_of([prog, *texts], r)]
    if prog != "find":  # fd PATTERN: a pattern aimed at secret names
        hits += [h for h in (r.aimed(t) for t in texts if not t.startswith("-")) if h]
    if not hits:
        return None
    for run in execs:
        inner, _s = _unwrap(run)
        name = os.path.basename(inner[0][0]) if inner else None
        if name and name not in METADATA:
            return hits[0]
    return None


def _git(args, r: _Reader) -> Finding | None:
    takes = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
    i = 0
    while i < len(args) and args[i][0].startswith("-"):
        i += 2 if args[i][0] in takes else 1
    if i >= len(args):
        return None
    sub, rest = args[i][0], args[i + 1:]
    if sub == "config":
        files = [rest[k + 1][0] for k, (t, _n) in enumerate(rest[:-1]) if t in ("-f", "--file", "--blob")]
        return next((h for h in (r.secret(f.split(":", 1)[-1]) for f in files) if h), None)
    if sub in GIT_QUIET:
        return None
    if sub == "grep":
        return _grep(rest, r)
    if sub in ("log", "whatchanged", "shortlog", "rev-list") and not any(
            t in ("-p", "-u", "--patch", "--full-diff", "--word-diff", "--cc") or t.startswith(("-L", "--word-diff="))
            for t, _n in rest):
        return None  # commits and names only, no file content
    for text, _n in rest:
        if text.startswith("-L") and ":" in text:  # `-L1,5:.env`: lines of that file
            text = text.rsplit(":", 1)[1]
        elif text.startswith("-") and sub in GIT_READERS:
            continue
        path = text.split(":", 1)[1] if ":" in text else text
        hit = r.secret(path) if path else None
        if hit:
            hit.path = text
            return hit
    return None


def _dd(args, r: _Reader) -> Finding | None:
    ops = dict(t.split("=", 1) for t, _n in args if "=" in t)
    hit = r.secret(ops["if"]) if "if" in ops else None
    if hit and ("of" not in ops or ops["of"] in TERMINAL or not secret_files.secret_pattern(ops["of"], r.extra)):
        if "of" in ops and ops["of"] not in TERMINAL:
            hit.how = f"copy to {ops['of']}"
        return hit
    return None


def _copy(prog: str, args, r: _Reader) -> Finding | None:
    """A secret copied, moved or linked to the terminal or to a name the guard does not know."""
    takes = {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group", "-e",
             "--rsh", "-i", "-P", "-F", "-c", "-l", "-J", "--exclude", "--include", "-f", "--filter"}
    plain, target = [], None
    i = 0
    while i < len(args):
        t = args[i][0]
        if t in ("-t", "--target-directory") and i + 1 < len(args):
            target = args[i + 1][0]
        elif t.startswith("--target-directory="):
            target = t.split("=", 1)[1]
        if t.startswith("-") and len(t) > 1:
            i += 2 if t in takes and not (prog == "cp" and t in ("-i", "-P", "-l", "-f")) else 1
            continue
        plain.append(t)
        i += 1
    if target is None:
        if len(plain) < 2:
            return None
        plain, target = plain[:-1], plain[-1]
    for source in plain:
        hit = r.secret(source)
        if not hit:
            continue
        if target in TERMINAL:
            return hit
        dest = target.split(":", 1)[1] if ":" in target and prog in ("rsync", "scp") else target
        folder = not dest or dest.endswith("/") or (r.cwd is not None and os.path.isdir(os.path.join(r.cwd, dest)))
        name = os.path.join(dest, os.path.basename(source.rstrip("/"))) if folder else dest
        if not secret_files.secret_pattern(name, r.extra):
            hit.how = f"{'move' if prog in ('mv', 'gmv') else 'copy'} to {target}"
            return hit
    return None
