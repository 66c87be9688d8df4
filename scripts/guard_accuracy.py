"""How often msd's guards decide right: `scripts/bench_guards.py --accuracy` (issue 46 item 8).

Each labelled case of `tests/hooks/guard_corpus/*.json` (a JSON list of `{"class", "tool",
"input", "expect": "allow"|"deny", "note"}`, optionally `"files": {path: text}` laid out in the
project first) and every markdown file of the real `.planning/` corpus (class `real-corpus`, a
Write of the file into `.planning/` that must be allowed) is handed to the guard decision in
this process, the function the hook runs, through both transports a host uses: the command hook
(`msd_run hook pre-tool-use`: msd_core.hooks.events.run) and the guard server's tool
(msd_core.hooks.guard_server.answer). Each case runs in a fresh temporary project (its `cwd`);
paths in a case are relative to it. No host, no network.

Printed per class: cases, wrong allows (a `deny` case let through), wrong denies (an `allow`
case refused), then each wrong case, and the decision time (median, 99th percentile, per call,
in this process). A case the two transports decide differently counts as wrong. Exit 1 when
any case is wrong, 2 on a corpus file that is not in the format.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "hooks" / "guard_corpus"
REAL_CORPUS = Path(os.environ.get("MSD_TEST_CORPUS") or REPO.parent / "shared" / "corpus" / "planning")
TRANSPORTS = ("command", "server")
EXPECT = ("allow", "deny")
REAL_CLASS = "real-corpus"
SHOWN_WRONG = 40  # wrong cases listed one by one at the most


class CorpusError(ValueError):
    """A case file that is not a JSON list of cases in the format above."""


def load_cases(folders) -> list[dict]:
    """Every case of every `*.json` file in `folders`, each with `source` (file name and index)."""
    out = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CorpusError(f"{path}: not readable JSON ({exc})") from None
            if not isinstance(doc, list):
                raise CorpusError(f"{path}: expected a JSON list of cases")
            for i, case in enumerate(doc):
                problem = case_problem(case)
                if problem:
                    raise CorpusError(f"{path.name}[{i}]: {problem}")
                out.append({**case, "source": f"{path.name}[{i}]"})
    return out


def case_problem(case) -> str | None:
    if not isinstance(case, dict):
        return "a case is a JSON object"
    for key, kind in (("class", str), ("tool", str), ("input", dict), ("expect", str)):
        if not isinstance(case.get(key), kind) or (kind is str and not case[key]):
            return f"{key!r} missing or not a {kind.__name__}"
    if case["expect"] not in EXPECT:
        return f"'expect' is {case['expect']!r}, not one of {EXPECT}"
    files = case.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return "'files' maps relative paths to text"
    if not isinstance(case.get("setup", {}), dict):
        return "'setup' is a JSON object"
    return None


def real_cases(corpus: Path) -> list[dict]:
    """Each markdown file of the real corpus as a Write of it into `.planning/` (expected allowed)."""
    out = []
    for folder, dirs, names in os.walk(corpus):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".md"):
                continue
            path = Path(folder) / name
            rel = path.relative_to(corpus).as_posix()
            inside = rel.split("/.planning/", 1)[1] if "/.planning/" in rel else rel
            text = path.read_bytes().decode("utf-8", "replace")
            out.append({"class": REAL_CLASS, "tool": "Write", "expect": "allow", "source": rel,
                        "input": {"file_path": f".planning/{inside}", "content": text}})
    return out


def _put(project: Path, files: dict) -> None:
    for rel, text in files.items():
        target = project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=project, check=True, capture_output=True, timeout=60)


def lay_out(project: Path, case: dict, decider) -> None:
    """The project a case describes, in an existing empty folder: `files` {path: text}; or `setup`
    (tests/hooks/guard_corpus/planning_writes.json's first case): its `files`, then with `commit`
    a git repository committing them, `after_commit` files, `symlinks` {link: target}, and `prior`
    calls (earlier sessions' writes, each allowed by `decider` and then made)."""
    (project / ".planning").mkdir(exist_ok=True)
    setup = case.get("setup", {})
    _put(project, case.get("files", {}))
    _put(project, setup.get("files", {}))
    if setup.get("commit"):
        _git(project, "init", "-q")
        _git(project, "add", "-A")
        _git(project, "commit", "-qm", "setup")
    _put(project, setup.get("after_commit", {}))
    for link, target in setup.get("symlinks", {}).items():
        os.symlink(project / target, project / link)
    for call in setup.get("prior", []):
        payload = _payload({"tool": call["tool"], "input": call["input"]}, project, session=call["session"])
        if verdict(decider(payload))[0] != "allow":
            raise ValueError(f"a prior call of the case was refused: {call}")
        _put(project, {call["input"]["file_path"]: call["input"]["content"]})


def _payload(case: dict, project: Path, session: str = "accuracy") -> dict:
    tool_input = dict(case["input"])
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            tool_input[key] = str(project / value)
    return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(project), "tool_name": case["tool"],
            "tool_input": tool_input}


class _Stdin(io.TextIOWrapper):
    def isatty(self):
        return False


def _by_command(payload: dict) -> str | None:
    from msd_core.hooks.events import run

    out, _code = run("pre-tool-use", None, _Stdin(io.BytesIO(json.dumps(payload).encode())))
    return out or None


def _by_server(payload: dict) -> str | None:
    from msd_core.hooks.guard_server import answer
    from msd_core.install.host_hooks import GUARD_INPUT

    arguments = {k: (json.dumps(payload[k]) if k == "tool_input" else payload[k]) if k in payload else "" for k in GUARD_INPUT}
    reply = answer({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check", "arguments": arguments}}, None)
    content = (reply or {}).get("result", {}).get("content") or []
    return content[0].get("text") if content else None


DECIDERS = {"command": _by_command, "server": _by_server}


def verdict(out: str | None) -> tuple[str, str]:
    """("allow"|"deny", the reason) of one answer: a PreToolUse deny, or nothing."""
    if not out:
        return "allow", ""
    try:
        spec = json.loads(out)["hookSpecificOutput"]
    except (ValueError, KeyError, TypeError):
        return "allow", f"not a decision: {out[:120]}"
    return ("deny", spec.get("permissionDecisionReason", "")) if spec.get("permissionDecision") == "deny" else ("allow", "")


def decide(case: dict, transports=TRANSPORTS) -> tuple[dict, list[float]]:
    """{transport: (verdict, reason)} for one case, each in a fresh project; and the seconds each took."""
    got, took = {}, []
    for transport in transports:
        project = Path(tempfile.mkdtemp(prefix="msd-accuracy-"))
        try:
            lay_out(project, case, DECIDERS[transport])
            payload = _payload(case, project)
            start = time.perf_counter()
            out = DECIDERS[transport](payload)
            took.append(time.perf_counter() - start)
            got[transport] = verdict(out)
        finally:
            shutil.rmtree(project, ignore_errors=True)
    return got, took


def measure(cases: list[dict], transports=TRANSPORTS) -> dict:
    """Per class: cases, wrong allows, wrong denies; the wrong cases; the decision times."""
    os.environ.pop("MSD_GUARDS", None)  # the guards as a session has them on
    classes: dict = {}
    wrong, times = [], []
    for case in cases:
        got, took = decide(case, transports)
        times += took
        row = classes.setdefault(case["class"], {"cases": 0, "wrong_allows": 0, "wrong_denies": 0})
        row["cases"] += 1
        verdicts = {v for v, _r in got.values()}
        if verdicts == {case["expect"]}:
            continue
        key = "wrong_allows" if case["expect"] == "deny" else "wrong_denies"
        row[key] += 1
        reason = next((r for v, r in got.values() if v != case["expect"] and r), "")
        wrong.append({"source": case["source"], "class": case["class"], "expect": case["expect"], "note": case.get("note", ""),
                      "got": {t: v for t, (v, _r) in got.items()}, "reason": reason[:200]})
    times.sort()
    timing = {"decisions": len(times), "median_us": round(statistics.median(times) * 1e6) if times else 0,
              "p99_us": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1e6) if times else 0,
              "max_ms": round(times[-1] * 1e3, 1) if times else 0.0, "total_s": round(sum(times), 2)}
    return {"classes": dict(sorted(classes.items())), "wrong": wrong, "timing": timing, "transports": list(transports)}


def markdown(report: dict) -> str:
    lines = [f"Guard decisions in this process ({' and '.join(report['transports'])} transport), per class:", "",
             "| class | cases | wrong allows | wrong denies |", "|---|---:|---:|---:|"]
    total = {"cases": 0, "wrong_allows": 0, "wrong_denies": 0}
    for name, row in report["classes"].items():
        lines.append(f"| {name} | {row['cases']} | {row['wrong_allows']} | {row['wrong_denies']} |")
        for k in total:
            total[k] += row[k]
    lines.append(f"| all | {total['cases']} | {total['wrong_allows']} | {total['wrong_denies']} |")
    for w in report["wrong"][:SHOWN_WRONG]:
        got = ", ".join(f"{t} {v}" for t, v in w["got"].items())
        lines.append(f"- wrong: {w['source']} ({w['class']}, expected {w['expect']}; {got}) {w['note'][:100]}"
                     + (f" -- {w['reason'][:160]}" if w["reason"] else ""))
    if len(report["wrong"]) > SHOWN_WRONG:
        lines.append(f"- (and {len(report['wrong']) - SHOWN_WRONG} more wrong cases)")
    t = report["timing"]
    lines += ["", f"Decision time: {t['decisions']} calls, median {t['median_us']} us, 99th percentile {t['p99_us']} us, "
                  f"max {t['max_ms']} ms, {t['total_s']} s in all."]
    if report.get("real_corpus"):
        lines.append(f"Real corpus: {report['real_corpus']}")
    return "\n".join(lines) + "\n"


def main(case_dirs: list[str], real: str | None, transports: list[str], as_json: bool) -> int:
    try:
        cases = load_cases([Path(d) for d in case_dirs] or [CASES])
    except CorpusError as exc:
        sys.stderr.write(f"bench_guards --accuracy: {exc}\n")
        return 2
    note = None
    if real != "":
        corpus = Path(real) if real else REAL_CORPUS
        if corpus.is_dir():
            extra = real_cases(corpus)
            cases += extra
            note = f"{len(extra)} markdown files of {corpus}"
        else:
            note = f"not present ({corpus}): only the labelled cases ran"
    report = measure(cases, tuple(transports) or TRANSPORTS)
    report["real_corpus"] = note
    print(json.dumps(report, indent=2) if as_json else markdown(report), end="\n" if as_json else "")
    return 1 if report["wrong"] else 0
