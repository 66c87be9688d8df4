"""Argument parsing and dispatch for `msd_run`.

Each command lives in its own module, `msd_core/run/cmd_<command>.py` (dashes as underscores),
named in COMMANDS. A module provides `configure(parser)` (adds its arguments to an argparse
parser; the flags commands share come from msd_core.run.options) and `run(args)`, which returns
a dict/list (printed as JSON), a str (printed as is), or an int exit code (it printed its own
output). Failures are raised as `msd_core.errors.MsdError`.

One run sequence (`_answer`) serves the CLI (`main`) and the MCP server (`call`): it parses,
settles, runs, and turns every failure into MsdError.to_json()'s payload, which `main` prints
(one line, or the JSON with --json-errors) and `call` hands back.
"""

from __future__ import annotations

import json
import os
import sys

from msd_core.errors import EXIT_CODES_HELP, EXIT_FAILED, EXIT_OK, EXIT_USAGE, MsdError, OperationFailed, UsageError
from msd_core.lean.terminal import clean


def _untranslated(message: str) -> str:
    return message


def _untranslated_n(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def _import_argparse():
    """argparse, with its messages taken as is.

    argparse looks each of its messages up in gettext's catalogues: a `locale` import and a
    search of the locale folders per message. Its messages are read by agents, in English
    (Python ships no catalogue for them), so they are taken as is: 1.1-1.5 ms CPU of every
    msd_run call (`python scripts/bench_startup.py`, variant "argparse untranslated").
    """
    import argparse as module

    module._ = _untranslated
    module.ngettext = _untranslated_n
    return module


def _import_pathlib() -> None:
    """Every command uses pathlib: load it now, without urllib.parse and ipaddress (msd_core.lean.stand_in:
    1.7-2.3 ms CPU of every msd_run call, `python scripts/bench_startup.py`, variant "pathlib stand-in")."""
    from msd_core.lean.stand_in import import_pathlib

    import_pathlib()


argparse = _import_argparse()
_import_pathlib()

# name -> (module, one-line help). Only the chosen module is imported.
COMMANDS: dict[str, tuple[str, str]] = {
    "config": ("msd_core.run.cmd_config", "read and write the project's .planning/config.json"),
    "resolve": ("msd_core.run.cmd_resolve", "list (or --emit) a workflow's verified detail parts"),
    "agent-skills": ("msd_core.run.cmd_agent_skills", "print the skill payload for a subagent"),
    "agent-role": ("msd_core.run.cmd_agent_role", "print an agent's role, for a host agent spawned in its place"),
    "extensions": ("msd_core.run.cmd_extensions", "list the agent extensions a plan needs"),
    "state": ("msd_core.run.cmd_state", "read or patch .planning/STATE.md"),
    "history-digest": ("msd_core.run.cmd_history_digest", "compact digest of the project's SUMMARY files"),
    "template": ("msd_core.run.cmd_template", "choose the summary template for a plan"),
    "compile-plan": ("msd_core.run.cmd_compile_plan", "inline a plan's references into <plan>.compiled.md"),
    "next-step": ("msd_core.run.cmd_next_step", "the next step of a workflow flow"),
    "step-done": ("msd_core.run.cmd_step_done", "record a flow step's result and advance"),
    "step-report": ("msd_core.run.cmd_step_report", "report the result of a step `msd chain` gave you (checked on the spot)"),
    "next": ("msd_core.run.cmd_next", "what the project should do next, and why"),
    "workspace": ("msd_core.run.cmd_workspace", "every .planning/ root in the repository: its position and next command"),
    "memory": ("msd_core.run.cmd_memory", "index and query the project's recorded summaries"),
    "model": ("msd_core.run.cmd_model", "the model to pass when spawning an agent (model_profile x role)"),
    "branch": ("msd_core.run.cmd_branch", "the git branch git.branching_strategy wants; --apply creates/switches"),
    "commit": ("msd_core.run.cmd_commit", "commit exactly the named paths of a plan, and record the commit"),
    "check": ("msd_core.run.cmd_check", "the plan check's mechanical part: findings with a code and a line"),
    "verify": ("msd_core.run.cmd_verify", "verify a phase by code: artifacts, key links, requirements; writes its machine part"),
    "wave": ("msd_core.run.cmd_wave", "a phase's waves: plan and check them, sync an isolated executor, merge its branch"),
    "gate": ("msd_core.run.cmd_gate", "the regression gate: detect the project's test command, run it, record the result"),
    "todo": ("msd_core.run.cmd_todo", "capture a todo in one line (with file, phase, time); list, done, promote"),
    "phase": ("msd_core.run.cmd_phase", "insert, remove, move or reconcile phases (renumbering in one transaction)"),
    "claim": ("msd_core.run.cmd_claim", "claim a phase for yourself (who, branch, since when), release it, list claims"),
    "merge-driver": ("msd_core.run.cmd_merge_driver", "the merge git runs for a planning file (registered by msd install)"),
    # lifecycle (k-lifecycle2)
    "undo": ("msd_core.run.cmd_undo", "revert a plan's or phase's recorded commits (--dry-run first)"),
    "evidence": ("msd_core.run.cmd_evidence", "whether SUMMARYs need their recorded commits: status, or adopt an older project"),
    "recorded": ("msd_core.run.cmd_recorded", "the commits msd recorded for a plan or phase"),
    "debug": ("msd_core.run.cmd_debug", "debug sessions in .planning/debug/: start, list, resume, close"),
    "ship": ("msd_core.run.cmd_ship", "PR plan for a phase or milestone: branch, remote, gh, body file"),
    "validate": ("msd_core.run.cmd_validate", "which tests exercise a phase's requirements and must-haves; the gaps"),
    "autonomous": ("msd_core.run.cmd_autonomous", "the next step of an autonomous run, or why it stops"),
    # reviews, exploration and material brought in (issue 33)
    "security": ("msd_core.run.cmd_security", "a phase's threat-model pass: its files and surfaces, findings recorded as gaps"),
    "ui": ("msd_core.run.cmd_ui", "UI phases: whether a phase has a UI, its design contract checked, the UI review recorded as gaps"),
    "import": ("msd_core.run.cmd_import", "a PRD, spec or docs folder into REQUIREMENTS.md, each requirement citing its source"),
    "drift": ("msd_core.run.cmd_drift", "commits made outside the workflow, stale verifications, files plans name that are gone; accept"),
    "docs": ("msd_core.run.cmd_docs", "the project's docs the milestone left behind (names of changed or missing files)"),
    "spike": ("msd_core.run.cmd_spike", "a throwaway experiment on its own branch: start, finish (finding kept), list"),
    "explore": ("msd_core.run.cmd_explore", "questions answered into .planning/explorations/, no plans: record, list"),
    # the people's reports (issue 33): health, forensics, milestone summary, stats, a second opinion
    "health": ("msd_core.run.cmd_health", "what in .planning/ is inconsistent, one code per finding; --repair fixes what is safe"),
    "stats": ("msd_core.run.cmd_stats", "the project in numbers: phases, plans, recorded commits, tests, tokens per phase"),
    "forensics": ("msd_core.run.cmd_forensics", "after a failed or stuck run: what msd recorded and where it went wrong"),
    "second-opinion": ("msd_core.run.cmd_second_opinion", "another agent CLI (codex, gemini, opencode) reviews a plan or a phase's diff"),
    "milestone-summary": ("msd_core.run.cmd_milestone_summary", "a milestone told to a person: built, decisions, deviations, verification"),
    # the host's side (issue 31): hooks and the status line the install registers
    "hook": ("msd_core.run.cmd_hook", "what msd does when Claude Code runs one of its hooks (stdin: the host's JSON)"),
    "statusline": ("msd_core.run.cmd_statusline", "the one-line status Claude Code shows (stdin: the host's JSON)"),
}

PLACEHOLDER_HELP = "placeholders in content such as <phase> or <stem> stand for a value supplied at run time"


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (or JSON) and exit code 2."""

    json_errors = False

    def _get_formatter(self):
        # argparse's default asks shutil for the width, and importing shutil (bz2, lzma, ...)
        # costs ~2 ms on every msd_run call; the same lookup without it:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
            except (AttributeError, ValueError, OSError):
                columns = 80
        return self.formatter_class(prog=self.prog, width=max(columns - 2, 20))

    def error(self, message: str):  # noqa: D401 - argparse API
        problem = _UsageProblem(self.prog, message)
        _report(problem.prog, problem.error.to_json())
        raise SystemExit(EXIT_USAGE)


def _shorten_values(message: str) -> str:
    """A usage error quotes the bad value: keep the line short whatever was passed."""
    if len(message) <= 300:
        return message
    import re

    return re.sub(r"'([^']{60})[^']+'", lambda m: f"'{m.group(1)}...'", message)[:300]


def _report(prog: str, payload: dict) -> None:
    """An error payload (MsdError.to_json()) on stderr: as is with --json-errors, else one line."""
    if OneLineParser.json_errors:
        sys.stderr.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return
    line = f"{prog}: error: {payload['message']}"
    if payload.get("hint"):
        line += f" ({payload['hint']})"
    sys.stderr.write(" ".join(line.split()) + "\n")


def _load(module_name: str):
    __import__(module_name)  # the importlib package is not needed for an absolute name
    return sys.modules[module_name]


class _UsageProblem(Exception):
    """A usage error the parser found, carried to the run sequence: `prog` is the parser's own
    (`msd_run state get`), `error` the UsageError it is."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog = prog
        self.error = UsageError(_shorten_values(message), hint=f"see `{prog} --help`")


class _RaisingParser(OneLineParser):
    """The run sequence's parser: a usage error is raised, and reported with every other failure."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise _UsageProblem(self.prog, message)


class _QuietParser(_RaisingParser):
    """For `call`: nothing is ever printed (a stray `--help` must not reach the caller's stdout)."""

    def _print_message(self, message, file=None):  # noqa: D401 - argparse API
        pass


def build_command_parser(name: str, prog: str = "msd_run", parser_class=None) -> argparse.ArgumentParser:
    """The parser of one command: its module's `configure(parser)` (msd_core/run/cmd_<name>.py) and
    `--json-errors`."""
    from msd_core.run import options

    module_name, help_text = COMMANDS[name]
    parser = (parser_class or OneLineParser)(prog=f"{prog} {name}", description=help_text, epilog=EXIT_CODES_HELP)
    options.json_errors(parser)
    _load(module_name).configure(parser)
    return parser


def flags_of(parser) -> dict[str, str]:
    """{parameter name: its long flag} over the parser and its sub-commands' parsers: how an
    error about an input (MsdError.about, .remedy) names the flag that gave it."""
    out: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out = {**flags_of(sub), **out}
        else:
            long = [s for s in action.option_strings if s.startswith("--")]
            if long:
                out.setdefault(action.dest, long[0])
    return out


def _top_help() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [
        "usage: msd_run [--json-errors] <command> [options]",
        "",
        "msd-core's runtime for agents: JSON on stdout, one-line errors on stderr, never prompts.",
        "",
        "commands:",
    ]
    for name, (_, help_text) in COMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {help_text}")
    lines += [
        "",
        "options:",
        "  --json-errors   print errors as one JSON object on stderr (before or after <command>)",
        "  --version       print the version and exit",
        "  -h, --help      print this help and exit",
        "",
        "examples:",
        "  msd_run next --raw                 the command to run next",
        "  msd_run config get mode --raw      one setting, as bare text",
        "  msd_run state get                  STATE.md's outline, as JSON",
        "",
        f"`msd_run <command> --help` shows a command's options. {PLACEHOLDER_HELP}.",
        "",
        EXIT_CODES_HELP,
    ]
    return "\n".join(lines) + "\n"


def emit(result) -> int:
    """Print a command's result: dict/list as compact JSON, str as is; ints are exit codes."""
    if result is None:
        return EXIT_OK
    if isinstance(result, bool):
        return EXIT_OK if result else EXIT_FAILED
    if isinstance(result, int):
        return result
    if isinstance(result, str):
        out = result if result.endswith("\n") or result == "" else result + "\n"
        sys.stdout.write(out)
        return EXIT_OK
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    return EXIT_OK


def _settle(args) -> str | None:
    """An interrupted phase change is finished before any command reads the project
    (msd_core.progress.settle; `phase` settles inside its own command; `health` and `forensics`
    report it, and only `health --repair` settles it, so that a check changes nothing). Nothing pending (the
    common case) costs the walk up to `.planning/` and two lstat calls; the module that
    settles is imported only when something is pending."""
    if args.command in ("phase", "health", "forensics"):
        return None
    from msd_core.paths import PLANNING_DIRNAME, PROJECT_STATE_DIRNAME, STATE_DUE_NAME, TXN_DIRNAME, find_project_root

    cwd = getattr(args, "cwd", None)
    base = os.path.expanduser(cwd) if isinstance(cwd, str) and cwd else None
    if base is not None and not os.path.isdir(base):
        return None  # the command itself reports the bad folder
    root = find_project_root(base)
    if root is None:
        return None
    planning = os.path.join(root, PLANNING_DIRNAME)
    if not (os.path.lexists(os.path.join(planning, TXN_DIRNAME))
            or os.path.lexists(os.path.join(planning, PROJECT_STATE_DIRNAME, STATE_DUE_NAME))):
        return None
    from msd_core.progress.settle import settle

    return settle(root)


class _Printed:
    """How `main` hands a command's outcome over: the result printed (emit), a note on stderr,
    argparse's --help already printed (its exit code kept)."""

    parser = _RaisingParser

    @staticmethod
    def note(name: str, text: str) -> None:
        sys.stderr.write(f"msd_run {name}: {text}\n")

    @staticmethod
    def deliver(name: str, result) -> tuple[int, object]:
        return emit(result), None

    @staticmethod
    def exited(exc: SystemExit):
        code = exc.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)


class _Handed:
    """How `call` hands it over: the result returned, nothing printed. A command that prints its
    own output (it returns an int) is refused: its output could not be told apart from another call's."""

    parser = _QuietParser

    @staticmethod
    def note(name: str, text: str) -> None:
        pass

    @staticmethod
    def deliver(name: str, result) -> tuple[int, object]:
        if isinstance(result, int) and not isinstance(result, bool):
            raise OperationFailed(f"`{name}` prints its own output and cannot be called in-process")
        return EXIT_OK, result

    @staticmethod
    def exited(exc: SystemExit):  # --help and the like: no answer to hand back
        error = UsageError("the command printed help instead of an answer")
        if isinstance(exc.code, int) and exc.code != 0:
            error.exit_code = exc.code
        return error


def _answer(argv: list[str], channel) -> tuple[int, object, str | None]:
    """The one run sequence of msd_run, for the CLI (`main`) and the MCP server (`call`): the command
    looked up, its arguments parsed, an interrupted phase change settled, the command run and its
    result handed over through `channel` (_Printed, _Handed). Every failure becomes
    MsdError.to_json()'s payload; a command that fails writes nothing (files.fresh).
    -> (exit code, what the channel delivered or the error payload, the program reporting the
    error, None when there is none)."""
    name = argv[0] if argv else ""
    if name not in COMMANDS:
        return EXIT_USAGE, UsageError(f"unknown command {name!r}", hint=_nearest(name)).to_json(), "msd_run"
    from msd_core.files import fresh

    fresh.start()
    code, value, prog = _attempt(name, argv, channel)
    if code:
        fresh.undo()  # a command that refuses writes nothing (files.fresh)
    return code, value, prog


def _nearest(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(COMMANDS), n=1)
    return f"did you mean `{close[0]}`?" if close else "see `msd_run --help`"


def _attempt(name: str, argv: list[str], channel) -> tuple[int, object, str | None]:
    prog, code, parser = f"msd_run {name}", None, None
    error: MsdError
    try:
        parser = build_command_parser(name, parser_class=channel.parser)
        args = parser.parse_args(argv[1:])
        args.command = name
        note = _settle(args)
        if note:
            channel.note(name, note)
        code, value = channel.deliver(name, _load(COMMANDS[name][0]).run(args))
        return code, value, None
    except _UsageProblem as exc:
        prog, error = exc.prog, exc.error
    except SystemExit as exc:  # argparse's --help and the like
        outcome = channel.exited(exc)
        if isinstance(outcome, int):
            return outcome, None, None
        error = outcome
    except MsdError as exc:
        error = exc.name_flags(flags_of(parser)) if parser is not None else exc
    except KeyboardInterrupt:
        error, code = OperationFailed("interrupted"), 130
    except BrokenPipeError:  # the reader of the output went away
        return EXIT_OK, None, None
    except OSError as exc:  # disk full, permission denied, a folder where a file should be, ...
        from msd_core.errors import from_os_error

        error = from_os_error(exc)
    except Exception as exc:  # never a traceback for the agent; MSD_DEBUG=1 shows it
        if os.environ.get("MSD_DEBUG"):
            raise
        error = OperationFailed(f"internal error: {type(exc).__name__}: {exc}",
                                hint="set MSD_DEBUG=1 for a traceback and report it")
    return (error.exit_code if code is None else code), error.to_json(), prog


def call(argv: list[str]) -> tuple[int, object]:
    """Run one command in-process and hand back what it returns, printing nothing (the MCP server).

    (0, result) on success; (exit code, MsdError.to_json()'s payload) on failure, the same payload
    `msd_run --json-errors` prints. Nothing process-wide is redirected, so concurrent calls (the MCP
    server's threads) each get their own answer.
    """
    code, value, _prog = _answer(list(argv), _Handed)
    return code, value


class _Clean:
    """A text stream whose writes pass msd_core.lean.terminal.clean first (the rest as the stream's)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        return self._stream.write(clean(text))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """The command, with what it writes to stdout and stderr kept free of escape sequences and
    control characters (STATE.md's text, a CLI's output: msd_core.lean.terminal)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (_Clean(out) if out is not None else out), (_Clean(err) if err is not None else err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    OneLineParser.json_errors = "--json-errors" in argv
    while argv and argv[0] == "--json-errors":
        argv.pop(0)
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(_top_help())
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] == "--version":
        from msd_core import __version__

        sys.stdout.write(__version__ + "\n")
        return EXIT_OK
    code, value, prog = _answer(argv, _Printed)
    if prog is not None and isinstance(value, dict):
        _report(prog, value)
    return code
