"""Drive the real Claude Code CLI against the scripted model server (tests/host/model_server.py).

The pinned CLI version lives here and only here (HOST_VERSION). The CLI is installed with
npm once per machine into a cache folder outside the repo and outside any test's HOME:
`$MSD_HOST_CACHE`, else `<real home>/.cache/msd-host` (captured when this module is
imported, before the autouse fixture moves HOME). Installs are serialised by a file lock
and published by an atomic rename, so concurrent test runs share one copy.

    claude = ensure_claude()                   # Path of the binary, or raises HostUnavailable
    host = Host(claude, root=tmp_path)         # scratch HOME (root/home) and project (root/project)
    host.install("global")                     # msd install --global into that HOME
    run = host.run("/msd-progress", script=[{"text": "done"}])
    run.first_request                          # the first main request body the model received
    run.permission_denials                     # from the stream-json result event
    run.tool_results                           # [(tool name, input, result text, is_error)]
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_REPO = str(Path(__file__).resolve().parents[2])  # tests.kit.stand_in_server, shared with the runtime stand-ins
if _REPO not in sys.path:  # scripts/bench_host_tokens.py puts only tests/host on the path
    sys.path.append(_REPO)
from tests.kit import stand_in_server  # noqa: E402

HOST_PACKAGE = "@anthropic-ai/claude-code"
HOST_VERSION = "2.1.332"
PEER_PACKAGE = "get-shit-done-cc"
PEER_VERSION = "1.42.3"
LEAD_PEER_PACKAGE = "@opengsd/gsd-core"  # the leading peer (issue 34): its --profile installs, its own words
LEAD_PEER_VERSION = "1.14.0"
PEERS = ((LEAD_PEER_PACKAGE, LEAD_PEER_VERSION), (PEER_PACKAGE, PEER_VERSION))


def peer_package_dir(package: str, version: str) -> Path:
    """The folder npm installed `package@version` into (fetched once into the cache)."""
    return npm_install(package, version) / "node_modules" / package

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SERVER = HERE / "model_server.py"
REAL_HOME = Path(os.path.expanduser("~")).resolve()
CACHE = Path(os.environ.get("MSD_HOST_CACHE") or REAL_HOME / ".cache" / "msd-host")
VENV_BIN = Path(sys.executable).parent

NPM_TIMEOUT = 600
RUN_TIMEOUT = 120

# Every switch the CLI (2.1.332, read from its bundled code) honours for traffic that is not
# the model call itself: updates, telemetry, error reports, feature flags, surveys.
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_UPDATES": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_GROWTHBOOK": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "CLAUDE_CODE_DISABLE_FEATURE_FLAGS": "1",
    "DISABLE_INSTALLATION_CHECKS": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "CLAUDE_CODE_SKIP_PROMPT_HISTORY": "1",
}

NETWORK_ERRORS = ("ENOTFOUND", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "ENETUNREACH",
                  "network", "proxy", "403 Forbidden", "request to http")


class HostUnavailable(Exception):
    """npm or the registry cannot be reached: host tests skip with this message."""


class VersionMismatch(Exception):
    """The cached CLI reports a version other than HOST_VERSION."""


def bench_measure(measure, *args):
    """(report, None), or (None, exit code) with the one-line reason on stderr when the host cannot run:
    1 no npm or registry, 3 the cached CLI is not the pinned version (the benchmark scripts' rule)."""
    try:
        return measure(*args), None
    except HostUnavailable as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return None, 1
    except VersionMismatch as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return None, 3


def _lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a")
    fcntl.flock(fh, fcntl.LOCK_EX)
    return fh


def npm_install(package: str, version: str, cache: Path = CACHE) -> Path:
    """Install package@version into `<cache>/<name>-<version>` once (locked, atomic); return that prefix."""
    name = package.rsplit("/", 1)[-1]
    prefix = cache / f"{name}-{version}"
    done = prefix / ".msd-installed"
    if done.is_file():
        return prefix
    npm = shutil.which("npm")
    if npm is None:
        raise HostUnavailable(f"npm is not on PATH: cannot install {package}@{version} for the host tests")
    with _lock(cache / f".{name}.lock"):
        if done.is_file():
            return prefix
        for stale in [*cache.glob(f".{name}-{version}.tmp-*"), *cache.glob(f".{name}-{version}.xdg-*")]:  # left by a killed or failed install; we hold the lock
            shutil.rmtree(stale, ignore_errors=True)
        tmp = cache / f".{name}-{version}.tmp-{os.getpid()}"
        tmp.mkdir(parents=True)
        # npm's own settings (npm_config_*) pass through; lifecycle variables of an enclosing `npm run` do not
        env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_") or k.lower().startswith("npm_config_")}
        env["HOME"] = str(REAL_HOME)  # npm's own cache and config, not a test's fake HOME
        scratch = cache / f".{name}-{version}.xdg-{os.getpid()}"  # what a package's postinstall writes (opencode runs itself)
        for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data"),
                         ("XDG_STATE_HOME", "state")):
            env[var] = str(scratch / sub)
        try:
            proc = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(tmp), f"{package}@{version}"],
                cwd=str(tmp), env=env, capture_output=True, text=True, timeout=NPM_TIMEOUT, stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            shutil.rmtree(tmp, ignore_errors=True)
            raise HostUnavailable(f"npm install {package}@{version} did not finish in {NPM_TIMEOUT}s (registry unreachable?)") from None
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            if any(s.lower() in proc.stderr.lower() for s in NETWORK_ERRORS):
                raise HostUnavailable(f"npm cannot reach the registry for {package}@{version}: {tail}")
            raise RuntimeError(f"npm install {package}@{version} failed (exit {proc.returncode}): {tail}")
        shutil.rmtree(scratch, ignore_errors=True)
        (tmp / ".msd-installed").write_text(f"{package}@{version}\n")
        if prefix.exists():
            shutil.rmtree(prefix)
        os.replace(tmp, prefix)
    return prefix


def claude_binary(prefix: Path) -> Path:
    """The CLI in an npm prefix: the package's bin, or the platform package's native binary
    when npm skipped the postinstall that copies it over the placeholder."""
    candidates = [prefix / "node_modules" / ".bin" / "claude"]
    candidates += sorted((prefix / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude"))
    for c in candidates:
        if c.exists() and _version_of(c) is not None:
            return c
    raise RuntimeError(f"no runnable claude binary under {prefix} (tried {', '.join(map(str, candidates))})")


def _version_of(binary: Path) -> str | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(CACHE), **QUIET_ENV},
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return out.stdout.split()[0]


def check_version(binary: Path, expected: str = HOST_VERSION) -> str:
    got = _version_of(binary)
    if got != expected:
        raise VersionMismatch(f"{binary} reports Claude Code {got!r}, the host tests pin {expected!r} (tests/host/hostkit.py HOST_VERSION)")
    return got


def ensure_claude() -> Path:
    return claude_binary(npm_install(HOST_PACKAGE, HOST_VERSION))


# --------------------------------------------------------------------------- model server


class ModelServer:
    """The scripted server as a child process (stdlib only); stopped by its pid."""

    def __init__(self, script: list[dict], workdir: Path, lifetime: float = RUN_TIMEOUT + 60):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.script_path = self.workdir / "script.json"
        self.record_path = self.workdir / "requests.jsonl"
        self.port_path = self.workdir / "port"
        self.script_path.write_text(json.dumps(script))
        self.record_path.write_text("")
        self.port_path.unlink(missing_ok=True)
        self.lifetime = lifetime
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    def start(self) -> "ModelServer":
        self.proc, self.port = stand_in_server.start(SERVER, self.record_path, self.port_path, self.lifetime,
                                                     "--script", str(self.script_path))
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict]:
        return stand_in_server.records(self.record_path)

    def stop(self) -> None:
        stand_in_server.stop(self.proc)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def hook_listener(answer: bytes = b""):
    """A local HTTP server on a free port, in a thread of this process, answering every POST with 200
    and `answer` (empty: the host's "no verdict"); `.bodies` holds each request's JSON (raw bytes when
    it is none), `.calls` their number. An `http` hook's endpoint; stop it with `.shutdown()`."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Listener(ThreadingHTTPServer):
        bodies: list

        @property
        def calls(self) -> int:
            return len(self.bodies)

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server hook name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                server.bodies.append(json.loads(body))
            except ValueError:
                server.bodies.append(body)
            self.send_response(200)
            if answer:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *_args):
            pass

    server = Listener(("127.0.0.1", 0), Answer)
    server.bodies = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def planning_project(project: Path, state: str | None = None) -> None:
    """A `.planning/` tree with one phase (01-auth, its CONTEXT.md) on the roadmap; STATE.md when given."""
    pl = project / ".planning"
    (pl / "phases" / "01-auth").mkdir(parents=True)
    (pl / "PROJECT.md").write_text("# Project\n")
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Auth** - log in\n")
    (pl / "phases" / "01-auth" / "01-CONTEXT.md").write_text("# Context\n")
    if state is not None:
        (pl / "STATE.md").write_text(state)


def bash(command: str, when: str | None = None) -> dict:
    """A script turn that runs one Bash command; `when`: only once what came back contains it."""
    turn = {"tool_use": [{"name": "Bash", "input": {"command": command, "description": "msd step"}}]}
    if when is not None:
        turn["when"] = when
    return turn


# --------------------------------------------------------------------------- one CLI run


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if isinstance(b, dict):
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                out.append(text_of(b.get("content")))
    return "\n".join(out)


@dataclass
class HostRun:
    """What one `claude -p` run produced: its stream-json events and the requests the model saw."""

    returncode: int
    events: list[dict]
    stderr: str
    requests: list[dict]          # every recorded HTTP request: {"method", "path", "at", "body"}
    stdout: str = ""
    started_at: float = 0.0       # time.time() when the CLI was started (the requests' "at" is on that clock)
    wall_s: float = 0.0           # the CLI's own run, start to exit (the stand-in model's start and stop left out)
    cpu_s: float = 0.0            # CPU of the CLI and of every process it started and waited for

    def _model_records(self) -> list[dict]:
        """The recorded Messages API calls that carry tools (main conversation and subagents), in order."""
        return [r for r in self.requests
                if r["method"] == "POST" and r["path"].split("?")[0].endswith("/v1/messages")
                and isinstance(r.get("body"), dict) and r["body"].get("tools")]

    def model_times(self) -> list[float]:
        """Seconds from the CLI's start to each Messages API call that carries tools, in order."""
        return [r["at"] - self.started_at for r in self._model_records() if "at" in r]

    @property
    def model_requests(self) -> list[dict]:
        """Bodies of the Messages API calls that carry tools (main conversation and subagents)."""
        return [r["body"] for r in self._model_records()]

    @property
    def first_request(self) -> dict:
        reqs = self.model_requests
        assert reqs, f"the model received no request; stderr: {self.stderr[-2000:]}"
        return reqs[0]

    @property
    def first_user_text(self) -> str:
        """All user-side text of the first request: what the prompt and any skill delivered."""
        return "\n".join(text_of(m.get("content")) for m in self.first_request["messages"] if m.get("role") != "assistant")

    @property
    def result(self) -> dict:
        for e in reversed(self.events):
            if e.get("type") == "result":
                return e
        raise AssertionError(f"no result event (exit {self.returncode}); stderr: {self.stderr[-2000:]}")

    @property
    def permission_denials(self) -> list:
        return self.result.get("permission_denials") or []

    @property
    def tool_results(self) -> list[tuple[str, dict, str, bool]]:
        """(tool name, input, result text, is_error) for every tool call in the stream, in order
        (a subagent's calls are included when the CLI streams them)."""
        calls: dict[str, tuple[str, dict]] = {}
        out = []
        for e in self.events:
            msg = e.get("message")
            if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
                continue
            for b in msg["content"]:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use":
                    calls[b["id"]] = (b["name"], b.get("input") or {})
                elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                    name, inp = calls[b["tool_use_id"]]
                    out.append((name, inp, text_of(b.get("content")), bool(b.get("is_error"))))
        return out

    @property
    def refusals(self) -> list[str]:
        """Texts the host produced itself instead of calling the model (model "<synthetic>"),
        e.g. `Shell command failed for pattern ...` when a skill's shell line is refused."""
        out = []
        for e in self.events:
            msg = e.get("message")
            if e.get("type") == "assistant" and isinstance(msg, dict) and msg.get("model") == "<synthetic>":
                out.append(text_of(msg.get("content")))
        return out

    @property
    def attachments(self) -> dict[str, str]:
        """{file path: text} of every file the host attached to the first request (an `@` line
        in a skill becomes a Read call and its result); line numbers removed."""
        return attachments_of(self.first_user_text)

    def all_text(self) -> str:
        return self.stdout + "\n" + self.stderr


def request_text(body: dict) -> str:
    """Everything a Messages request puts in the model's context, as plain text: system
    blocks, each tool's name, description and schema, and every message block (text,
    tool calls with their input, tool results). What the proxy tokenizer counts."""
    out = [text_of(body.get("system")) if not isinstance(body.get("system"), str) else body["system"]]
    for tool in body.get("tools") or []:
        out.append(f"{tool.get('name', '')}\n{tool.get('description', '')}\n{json.dumps(tool.get('input_schema', {}), sort_keys=True)}")
    for msg in body.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for b in content or []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                out.append(f"{b.get('name', '')} {json.dumps(b.get('input', {}), sort_keys=True)}")
            else:
                out.append(text_of([b]))
    return "\n".join(out)


READ_CALL = re.compile(r"Called the Read tool with the following input: (\{.*?\})\n</system-reminder>")
READ_RESULT = re.compile(r"Result of calling the Read tool:\n(.*?)\n</system-reminder>", re.DOTALL)
NUMBERED = re.compile(r"^\s*\d+\t", re.MULTILINE)


def attachments_of(text: str) -> dict[str, str]:
    out = {}
    pos = 0
    while True:
        call = READ_CALL.search(text, pos)
        if not call:
            return out
        result = READ_RESULT.search(text, call.end())
        path = json.loads(call.group(1)).get("file_path", "")
        nxt = READ_CALL.search(text, call.end())
        if result and (nxt is None or result.start() < nxt.start()):
            out[path] = NUMBERED.sub("", result.group(1))
            pos = result.end()
        else:
            out[path] = ""
            pos = call.end()


@dataclass
class Host:
    """A scratch HOME and project for one test, and the CLI that runs in them."""

    claude: Path
    root: Path
    extra_path: list[Path] = field(default_factory=lambda: [VENV_BIN])
    runs: int = 0

    def __post_init__(self):
        self.root = Path(self.root)
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)

    @property
    def config_dir(self) -> Path:
        return self.home / ".claude"

    def env(self, path: list[Path] | None = None, transcripts: bool = False) -> dict:
        """The CLI's environment. `transcripts`: let it write its session transcripts
        (QUIET_ENV's CLAUDE_CODE_SKIP_PROMPT_HISTORY turns them off)."""
        dirs = [str(p) for p in (self.extra_path if path is None else path)] + ["/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "PATH": os.pathsep.join(dirs),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local/state"),
            "MSD_USER_CONFIG_DIR": str(self.home / ".config" / "msd"),
            "LANG": "C.UTF-8",
            "SHELL": "/bin/bash",
            "TERM": "dumb",
            "USER": os.environ.get("USER", "tester"),
            "TMPDIR": str(self.root / "tmp"),
            **QUIET_ENV,
        }
        if transcripts:
            del env["CLAUDE_CODE_SKIP_PROMPT_HISTORY"]
        (self.root / "tmp").mkdir(exist_ok=True)
        if "MSD_COMPACT_DEFAULT" in os.environ:
            env["MSD_COMPACT_DEFAULT"] = os.environ["MSD_COMPACT_DEFAULT"]
        return env

    def msd(self, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "msd_core", *args], cwd=str(cwd or self.project), env=self.env(),
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise AssertionError(f"msd {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
        return proc

    def msd_run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "msd_core.run", *args], cwd=str(self.project), env=self.env(),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise AssertionError(f"msd_run {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
        return proc

    def drop_hooks(self) -> None:
        """Remove the hooks `msd install` adds (msd_core/install/host_hooks.py) from the global and
        the local settings, so a run with `path=[]` really has no msd_run (and a run measures the
        host without msd's hooks)."""
        for f in (self.config_dir / "settings.json", self.project / ".claude" / "settings.local.json"):
            if f.is_file():
                obj = json.loads(f.read_text())
                obj.pop("hooks", None)
                f.write_text(json.dumps(obj, indent=2) + "\n")

    def install(self, scope: str = "global") -> Path:
        """`msd install --global|--local` in the scratch HOME/project; returns the config folder."""
        assert scope in ("global", "local")
        self.msd("install", f"--{scope}")
        return self.config_dir if scope == "global" else self.project / ".claude"

    def run(self, prompt: str, script: list[dict] | None = None, *, timeout: float = RUN_TIMEOUT,
            path: list[Path] | None = None, args: list[str] = (), env: dict | None = None,
            transcripts: bool = False) -> HostRun:
        """`claude -p PROMPT --output-format stream-json --verbose` against a fresh scripted server."""
        self.runs += 1
        workdir = self.root / f"server-{self.runs}"
        with ModelServer(script or [{"text": "done"}], workdir, lifetime=timeout + 30) as server:
            full_env = self.env(path, transcripts)
            full_env.update({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-msd-host-test-dummy"})
            if env:
                full_env.update(env)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)  # the stand-in runs on: not counted until it is reaped
            started_at, t0 = time.time(), time.perf_counter()
            try:
                proc = subprocess.run(
                    [str(self.claude), "-p", prompt, "--output-format", "stream-json", "--verbose", *args],
                    cwd=str(self.project), env=full_env, capture_output=True, text=True, timeout=timeout,
                    stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired as exc:
                raise AssertionError(f"claude -p {prompt!r} did not finish in {timeout}s; requests: {len(server.requests())}") from exc
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            requests = server.requests()
        events = []
        for line in proc.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
        (workdir / "stdout.jsonl").write_text(proc.stdout)
        (workdir / "stderr.txt").write_text(proc.stderr)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return HostRun(proc.returncode, events, proc.stderr, requests, proc.stdout, started_at, wall, cpu)

    def live(self, prompts: list[str], script: list[dict], *, timeout: float = RUN_TIMEOUT, args: list[str] = (),
             env: dict | None = None, transcripts: bool = False) -> HostRun:
        """One live `claude -p --input-format stream-json` session: each prompt is sent after the
        previous one's `result` event (prompts sent together would be merged into one), so a
        `/compact` between two prompts compacts a conversation that then goes on."""
        import threading
        import time

        self.runs += 1
        workdir = self.root / f"server-{self.runs}"
        with ModelServer(script, workdir, lifetime=timeout + 30) as server:
            full_env = self.env(None, transcripts)
            full_env.update({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-msd-host-test-dummy"})
            full_env.update(env or {})
            proc = subprocess.Popen([str(self.claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
                                     "--verbose", *args], cwd=str(self.project), env=full_env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            err: list[str] = []
            reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
            reader.start()

            def send(text: str) -> None:
                proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n")
                proc.stdin.flush()

            lines, pending, deadline = [], list(prompts), time.monotonic() + timeout
            send(pending.pop(0))
            try:
                while time.monotonic() < deadline:
                    line = proc.stdout.readline()
                    if not line:
                        break
                    lines.append(line)
                    if line.startswith("{") and '"type":"result"' in line.replace(" ", ""):
                        if pending:
                            send(pending.pop(0))
                        else:
                            proc.stdin.close()
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            reader.join(timeout=10)
            requests = server.requests()
        stdout = "".join(lines)
        events = [json.loads(x) for x in lines if x.startswith("{") and _is_json(x)]
        (workdir / "stdout.jsonl").write_text(stdout)
        (workdir / "stderr.txt").write_text("".join(err))
        return HostRun(proc.returncode, events, "".join(err), requests, stdout)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def git(cwd, *args) -> str:
    """A git command in `cwd` (stdout; a failure raises)."""
    return subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, check=True, timeout=60).stdout


def new_repo(path) -> None:
    """A git repository on branch main with a test identity, in the project folder `path`."""
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "host@example.com")
    git(path, "config", "user.name", "host test")
