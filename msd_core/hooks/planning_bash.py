"""Whether a Bash command would write, replace or delete a `.planning/` file the write guard keeps
(the Bash half of the planning guard: every client's shell reaches msd as `Bash`).

The command is read as secret_bash.py reads it (shell_words.py; wrappers taken off by its
`_unwrap`, parameters it remembers, `bash -c` strings, here-documents fed to a shell, command
substitutions, `eval`), and each simple command reports the files it would change (`touches`):
a `>`/`>|`/`&>`/`>&` target (replaced), a `>>` target (appended), tee's files, the files of
`sed -i`/`perl -i`, truncate's, cp/mv/install/rsync/ln/scp's destination and `dd of=`,
rm/unlink/shred's operands and `find -delete`'s start paths (`rsync --delete`'s destination),
`git rm`/`git mv`, and a quoted path in an interpreter's one-line code
that also writes (`open(..., 'w')`, `unlink`, `writeFileSync`, ...). Refused (decide()):

- any change to `.planning/config.json` (a person changes guards with `msd config set`; other
  settings go through `msd_run config set`), to `.planning/state.json` or under `.planning/.msd/`,
  also appends and moves: msd_run writes them; whatever `guards.planning_write` says (as the write
  guard, planning_guard.findings);
- with `guards.planning_write` on, an existing `*.md` document replaced, truncated, edited in place
  or deleted (an append loses nothing and goes ahead), and a folder inside `.planning/` (or
  `.planning` itself) deleted. A move or copy whose sources and destination are all inside the
  same `.planning/` goes ahead when it replaces no document (complete-milestone's `git mv`);
  deleting a handoff (`.continue-here.md`), a PLAN with no SUMMARY yet (a replan), or a draft
  (`.planning/drafts/`) goes ahead: the workflows do that.

`msd guard allow <path>` lets one refused change through, as for a Write. A command with no
`.planning` spelling, run from outside every `.planning/` folder, costs one substring test.
Not seen: a path built at run time (`.plan${X}ning`), a symlink made earlier to the folder, and
programs that change files they are not given by name (`xargs rm`, `git checkout`, `git reset --hard`).
"""

from __future__ import annotations

import os
import time

from msd_core.hooks.shell_words import TooSlow, parse
from msd_core.hooks.shell_words import text as word_text

MAX_SCAN = 256 << 10  # characters: a longer command that names `.planning` is refused, not read
MAX_DEPTH = 4
TIME_LIMIT = 1.0
MAX_GLOB = 200
MOVERS = frozenset(("cp", "mv", "install", "rsync", "ln", "scp", "gcp", "gmv"))
DELETERS = frozenset(("rm", "unlink", "shred", "srm", "trash", "trash-put"))  # rmdir: an empty folder loses nothing
COPY_TAKES = frozenset(("-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group", "-e", "--rsh", "-F",
                        "-c", "-J", "--exclude", "--include", "-f", "--filter", "-P", "-i", "-l"))
# in an interpreter's code, words that say it writes (a quoted `.planning` path there is then changed)
WRITES = ("write", "unlink", "os.remove", "rename", "os.replace", "truncate", "rmsync", "rmdir", "rmtree", "dump(",
          "shutil.", "copyfile", "sysopen", "file_put_contents", "fs.rm", "fs.cp")
MODES = frozenset(("w", "wb", "wt", "w+", "wb+", "a", "ab", "at", "a+", "x", "xb", "r+", "rb+", "r+b"))  # open()'s write modes
# the flags a cluster (`-ni`, `-pi`) may hold before sed's or perl's `-i`: their switches that take no value
SED_SWITCHES = frozenset("nrEsuzi")
PERL_SWITCHES = frozenset("aclnpsTtuUvwWXi0")
DELETABLE = (".continue-here.md",)


class Touch:
    """A file the command changes: `path` as spelled, `how` (replace, append, edit, delete, move) and,
    for a move, where it goes (`to`)."""

    __slots__ = ("path", "how", "to", "cwd")

    def __init__(self, path: str, how: str, cwd: str | None, to: str | None = None):
        self.path, self.how, self.cwd, self.to = path, how, cwd, to


class _Walk:
    def __init__(self, cwd: str | None):
        self.cwd = cwd
        self.deadline = time.monotonic() + TIME_LIMIT
        self.out: list[Touch] = []

    def add(self, path: str, how: str, to: str | None = None) -> None:
        if path and path not in ("-", "/dev/null") and not path.startswith(("/dev/", "/proc/")):
            self.out.append(Touch(path, how, self.cwd, to))


def touches(command: str, cwd: str | None) -> list[Touch]:
    """The files `command` changes, as it names them (TooSlow when it cannot be read in time)."""
    walk = _Walk(cwd)
    _commands(command, walk, {}, 0)
    return walk.out


def _commands(text: str, w: _Walk, values: dict, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise TooSlow
    commands, subs = parse(text, w.deadline)
    for inner in subs:
        _commands(inner, w, values, depth + 1)
    from msd_core.hooks.secret_bash import _remember

    values = dict(values)
    for cmd in commands:
        words: list[tuple[str, list]] = [(word_text(x, values), []) for x in cmd.words]
        _simple(words, cmd, w, values, depth)
        _remember(words, values)


def _simple(words, cmd, w: _Walk, values: dict, depth: int) -> None:
    from msd_core.hooks.secret_bash import SHELLS, _language, _unwrap

    for op, target in cmd.redirects:
        name = word_text(target, values) if op not in ("<<", "<<<") else ""
        if op in (">", ">|") or (op == ">&" and not name.isdigit() and name != "-"):
            w.add(name, "replace")
        elif op == ">>":
            w.add(name, "append")
    words, shell_string = _unwrap(words)
    if shell_string is not None:
        return _commands(shell_string, w, values, depth + 1)
    if not words:
        return None
    prog = os.path.basename(words[0][0])
    args = [t for t, _n in words[1:]]
    if prog in SHELLS:
        for op, target in cmd.redirects:  # `bash <<'EOF'`: the here-document is its script
            if op in ("<<", "<<<") and not any(a.startswith("-") and "c" in a[1:] for a in args):
                _commands(word_text(target, values), w, values, depth + 1)
        code = _shell_string(args)
        return _commands(code, w, values, depth + 1) if code is not None else None
    if prog == "eval":
        return _commands(" ".join(args), w, values, depth + 1)
    if prog == "cd" and args and w.cwd:
        w.cwd = os.path.join(w.cwd, os.path.expanduser(args[0]))
        return None
    language = _language(prog)
    if prog == "tee":
        how = "append" if any(a in ("-a", "--append") or (a[:1] == "-" and a[1:2] != "-" and "a" in a) for a in args) else "replace"
        for a in _plain(args):
            w.add(a, how)
    elif prog in ("sed", "gsed") and any(a.startswith("--in-place") or _switch(a, "i", SED_SWITCHES) for a in args):
        given = any(a in ("-e", "-f", "--expression", "--file") for a in args)
        for a in _plain(args, ("-e", "-f", "--expression", "--file", "-l", "--line-length"))[0 if given else 1:]:
            w.add(a, "edit")
    elif prog == "perl" and any(_switch(a, "i", PERL_SWITCHES) for a in args):
        flags_e = tuple(a for a in args if _switch(a, "e", PERL_SWITCHES | {"e"}) or _switch(a, "E", PERL_SWITCHES | {"E"}))
        for a in _plain(args, flags_e)[0 if flags_e else 1:]:
            w.add(a, "edit")
    elif prog == "truncate":
        for a in _plain(args, ("-s", "--size", "-r", "--reference")):
            w.add(a, "replace")
    elif prog == "dd":
        for a in args:
            if a.startswith("of="):
                w.add(a[3:], "replace")
    elif prog in DELETERS:
        for a in _plain(args):
            w.add(a, "delete")
    elif prog in MOVERS:
        _move(prog, args, w)
    elif prog in ("find", "fd", "fdfind") and any(a == "-delete" or a in ("-exec", "-execdir", "-x", "--exec") and k + 1 < len(args)
                                                 and os.path.basename(args[k + 1]) in DELETERS for k, a in enumerate(args)):
        for a in args:  # `find PATHS ... -delete`: what it finds under its start paths is deleted
            if a[:1] in ("-", "(", "!"):
                break
            w.add(a, "delete")
    elif prog == "git":
        _git(args, w)
    elif language:
        from msd_core.hooks.secret_bash import INTERPRETERS

        flags = INTERPRETERS[language]
        for k, a in enumerate(args[:-1]):
            if a in flags or (a[:1] == "-" and a[1:2] != "-" and len(a) > 2 and "-" + a[-1] in flags):
                _code(args[k + 1], w)
        for op, target in cmd.redirects:
            if op in ("<<", "<<<"):
                _code(word_text(target, values), w)
    return None


def _plain(args: list[str], takes: tuple = ()) -> list[str]:
    """The operands: words that are no option (nor an option's value); all after `--`."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return out + args[i + 1:]
        if a.startswith("-") and len(a) > 1:
            i += 2 if a in takes else 1
            continue
        out.append(a)
        i += 1
    return out


def _switch(arg: str, letter: str, switches: frozenset) -> bool:
    """Whether `arg` is a cluster of single-letter switches (`-ni`, `-pi.bak`) that holds `letter`."""
    if arg[:1] != "-" or arg[1:2] in ("-", ""):
        return False
    for c in arg[1:]:
        if c == letter:
            return True
        if c not in switches:
            return False
    return False


def _shell_string(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i][:1] in ("-", "+") and args[i] not in ("-", "--"):
        if not args[i].startswith("--") and "c" in args[i][1:]:
            rest = args[i + 1:]
            return rest[0] if rest else None
        i += 2 if args[i] in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
    return None


def _move(prog: str, args: list[str], w: _Walk) -> None:
    target = None
    for k, a in enumerate(args):
        if a in ("-t", "--target-directory") and k + 1 < len(args):
            target = args[k + 1]
        elif a.startswith("--target-directory="):
            target = a.split("=", 1)[1]
    plain = _plain([a for a in args if a != target], tuple(COPY_TAKES - ({"-i", "-P", "-l", "-f"} if prog == "cp" else set())))
    if target is None:
        if len(plain) < 2:
            return
        plain, target = plain[:-1], plain[-1]
    if ":" in target and prog in ("rsync", "scp"):
        return  # to another machine
    if prog == "rsync" and any(a.startswith("--delete") for a in args):
        w.add(target, "delete")  # what the destination has and the source lacks is deleted
    for source in plain:
        full = target if os.path.isabs(target) or not w.cwd else os.path.join(w.cwd, target)
        dest = os.path.join(target, os.path.basename(source.rstrip("/"))) if target.endswith("/") or os.path.isdir(full) else target
        w.add(dest, "replace")
        if prog in ("mv", "gmv"):
            w.add(source, "move", dest)


def _git(args: list[str], w: _Walk) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    if i >= len(args):
        return
    sub, rest = args[i], args[i + 1:]
    if sub == "rm" and "--cached" not in rest:
        for a in _plain(rest):
            w.add(a, "delete")
    elif sub == "mv":
        _move("mv", rest, w)


def _code(code: str, w: _Walk) -> None:
    """Quoted paths naming `.planning` in an interpreter's code that also writes: opened with a write mode
    (`open('.planning/X', 'w')`, `mode='a'`, `{flag: 'w'}`), perl's `">path"`, or a call that writes, moves
    or removes a file."""
    if ".planning" not in code:
        return
    from msd_core.hooks.secret_bash import code_literals

    literals = code_literals(code)  # (the text since the last literal, the literal)
    writes = any(k in code.lower() for k in WRITES)
    for k, (before, x) in enumerate(literals):
        gap = before.replace(" ", "")
        if x.startswith((">", "+<")) or x in MODES and (
                (gap == "," and k and ".planning" in literals[k - 1][1]) or gap.endswith(("mode=", "flag:", "flags:"))):
            writes = True
    for _before, literal in literals if writes else ():
        path = literal.lstrip("+<> ")
        if ".planning" in path and len(path) < 512:
            w.add(path, "replace")


def _where(path: str, cwd: str | None) -> tuple[str, str] | None:
    """(the `.planning/` folder, the path inside it; "" for the folder itself), or None outside one."""
    from msd_core.hooks.planning_guard import planning_dir_of

    full = os.path.expanduser(path)
    full = full if os.path.isabs(full) or not cwd else os.path.join(cwd, full)
    real = os.path.realpath(full)
    if os.path.basename(real) == ".planning" and os.path.isdir(real):
        return real, ""
    return planning_dir_of(full)


def _expand(t: Touch) -> list[str]:
    if not any(c in t.path for c in "*?[") or not t.cwd and not os.path.isabs(t.path):
        return [t.path]
    import glob

    base = t.path if os.path.isabs(t.path) else os.path.join(t.cwd or "", t.path)
    return glob.glob(os.path.expanduser(base))[:MAX_GLOB] or [t.path]


def _why(t: Touch, path: str, planning: str, rel: str, on: bool) -> str | None:
    """Why this change of `.planning/<rel>` is refused (the way forward in it), or None."""
    doing = {"replace": "overwrite", "append": "append to", "edit": "edit in place", "delete": "delete",
             "move": "move"}[t.how]
    if rel == "config.json":
        return (f"it would {doing} .planning/config.json, which a command does not change: the user changes the "
                "`guards` settings (`msd config set guards.<key> ...` in their terminal); any other setting goes "
                "through `msd_run config set <key> <value>`")
    if rel == "state.json" or rel == ".msd" or rel.startswith(".msd/"):
        return (f"it would {doing} .planning/{rel}, which msd_run keeps (the flow state and msd's own records); "
                "an agent never changes it: `msd_run next-step` / `msd_run step-done` move the flow on")
    if not on:
        return None
    if t.how == "move" and t.to is not None:
        there = _where(t.to, t.cwd)
        if there is not None and there[0] == planning:
            return None  # moved within the same `.planning/` (complete-milestone's archive)
    full = path if os.path.isabs(path) or not t.cwd else os.path.join(t.cwd, path)
    if rel == "" or os.path.isdir(full):
        if t.how not in ("delete", "move") or rel == "drafts" or rel.startswith("drafts/"):
            return None
        return (f"it would {doing} the folder .planning/{rel}".rstrip("/") + " and the documents in it "
                "(remove a phase with `msd_run phase remove <n>`; archive a milestone with `git mv` inside `.planning/`)")
    if not rel.endswith(".md") or t.how == "append" or not os.path.isfile(full):
        return None
    if t.how in ("delete", "move") and _deletable(rel, full):
        return None
    instead = ("change it with the Write or Edit tool, which the guard judges"
               + ("; STATE.md's fields with `msd_run state patch`" if rel == "STATE.md" else "")
               + ("; remove a phase with `msd_run phase remove <n>`" if rel == "ROADMAP.md" else ""))
    return f"it would {doing} the document .planning/{rel}, and the guard cannot see what that loses ({instead})"


def _deletable(rel: str, full: str) -> bool:
    """A document the workflows delete: a handoff, a draft, a PLAN with no SUMMARY yet (a replan)."""
    name = rel.rsplit("/", 1)[-1]
    if name in DELETABLE or rel.startswith("drafts/"):
        return True
    if name.endswith("PLAN.md"):
        return not os.path.exists(full[: -len("PLAN.md")] + "SUMMARY.md")
    return False


def refusal(command, cwd: str | None) -> str | None:
    """Why `command` is refused (one sentence with the way forward), or None: it goes ahead."""
    if not isinstance(command, str) or ".planning" not in command and ".planning" not in (cwd or ""):
        return None
    if len(command) > MAX_SCAN:
        return (f"this command is {len(command) >> 10} KiB long, more than the guard reads ({MAX_SCAN >> 10} KiB), and "
                "it names `.planning`: run it as shorter commands, or put long data in a file and pass the file's name")
    try:
        found = touches(command, cwd)
    except TooSlow:
        return ("this command is too complex for the guard to check in time, and it names `.planning`: run it as "
                "shorter commands")
    from msd_core.hooks import guard_settings

    settings: dict[str, dict] = {}
    for t in found:
        for path in _expand(t):
            where = _where(path, t.cwd)
            if where is None:
                continue
            planning, rel = where
            if planning not in settings:
                settings[planning] = guard_settings.load(os.path.dirname(planning))
            why = _why(t, path, planning, rel, settings[planning]["guards.planning_write"])
            if why is None:
                continue
            from msd_core.hooks import guard_memory

            if rel and guard_memory.take(planning, rel):
                continue  # a person allowed this one change (`msd guard allow`)
            return f"this command is refused: {why}." + (
                f" If the user wants exactly this change, they can allow it once with `msd guard allow .planning/{rel}` "
                "in their terminal; then try again." if rel else "")
    return None
