"""How many tests the gate's run executed, read from the test runner's own summary (issue 30 item 2).

`count(output)` reads the end of a run's output and answers {"runner", "ran", "passed", "failed",
"skipped"} for the summary it recognises, or None:

  pytest   `== 1 failed, 2 passed, 1 skipped in 0.04s ==` (also `-q`), `no tests ran in 0.01s`
  node     `--test`'s closing lines `# tests 5` / `# pass 2` / ... (TAP) or `ℹ tests 5` (spec reporter)
  jest     `Tests:       1 failed, 1 skipped, 4 passed, 6 total`; `No tests found, exiting with code 0`
  vitest   `      Tests  1 failed | 4 passed | 1 skipped (6)`; `No test files found, exiting with code N`
  cargo    every `test result: ok. 3 passed; 0 failed; 1 ignored; ...` line, summed (unit, integration, doc tests)
  go       `--- PASS:` / `--- FAIL:` / `--- SKIP:` lines (`go test -v`, subtests counted); without `-v` only
           package lines: `ran` is None (not known) unless every package says `[no test files]` or
           `[no tests to run]`, which is 0

`ran` counts tests that executed (skipped and todo ones did not). `verdict(command, exit_code,
counts, runner_output)` turns a run that exited 0 into a failure when no test ran, and names
why; `no_tests_flag(command)` finds a flag that lets a suite pass without tests
(`--passWithNoTests`, `--pass-with-no-tests`, `--no-tests=pass`, ...): such a command fails the
gate without being run. Output no parser recognises (a project's own script) leaves the
exit code to decide: `counts` is None. Standard library only.
"""

from __future__ import annotations

import re

NO_TESTS_FLAGS = re.compile(r"(?<![\w-])(--passWithNoTests(?:=true)?|--pass-with-no-tests|--no-tests[= ]pass|"
                            r"--allow-no-tests|--suppress-no-test-exit-code)(?![\w-])")

_PYTEST = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s", re.M)
_PYTEST_NONE = re.compile(r"^=*\s*no tests ran in [\d.]+s", re.M)
_NODE = re.compile(r"^(?:#|ℹ) (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$", re.M)
_JEST = re.compile(r"^Tests:\s+(.*?)(\d+) total\s*$", re.M)
_JEST_NONE = re.compile(r"^No tests found, exiting with code \d+", re.M)
_VITEST = re.compile(r"^\s*Tests\s+((?:\d+ [a-z]+(?: \| )?)+)\s*\((\d+)\)\s*$", re.M)
_VITEST_NONE = re.compile(r"^No test files found, exiting with code \d+", re.M)
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.M)
_GO_TEST = re.compile(r"^\s*--- (PASS|FAIL|SKIP): ", re.M)
_GO_PKG = re.compile(r"^(ok|FAIL|\?)\s+\S+\s+(.*)$", re.M)
_PART = re.compile(r"(\d+) ([a-z]+)")


def _counts(runner: str, passed: int, failed: int, skipped: int, ran: int | None = None) -> dict:
    return {"runner": runner, "ran": passed + failed if ran is None else ran, "passed": passed, "failed": failed,
            "skipped": skipped}


def _parts(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for n, word in _PART.findall(text):
        out[word] = out.get(word, 0) + int(n)
    return out


def count(output: str) -> dict | None:
    """The counts of the last summary the output holds (see the module docstring), or None."""
    text = output or ""
    found = _CARGO.findall(text)
    if found:
        return _counts("cargo", sum(int(p) for p, _f, _i in found), sum(int(f) for _p, f, _i in found),
                       sum(int(i) for _p, _f, i in found))
    m = [*_PYTEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        failed = parts.get("failed", 0) + parts.get("error", 0) + parts.get("errors", 0)
        passed = parts.get("passed", 0) + parts.get("xfailed", 0) + parts.get("xpassed", 0)
        return _counts("pytest", passed, failed, parts.get("skipped", 0))
    if _PYTEST_NONE.search(text):
        return _counts("pytest", 0, 0, 0)
    m = [*_JEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        total, skipped = int(m[-1].group(2)), parts.get("skipped", 0) + parts.get("pending", 0) + parts.get("todo", 0)
        return _counts("jest", parts.get("passed", 0), parts.get("failed", 0), skipped, ran=total - skipped)
    if _JEST_NONE.search(text):
        return _counts("jest", 0, 0, 0)
    m = [*_VITEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        total, skipped = int(m[-1].group(2)), parts.get("skipped", 0) + parts.get("todo", 0)
        return _counts("vitest", parts.get("passed", 0), parts.get("failed", 0), skipped, ran=total - skipped)
    if _VITEST_NONE.search(text):
        return _counts("vitest", 0, 0, 0)
    node = {}
    for key, n in _NODE.findall(text):
        node[key] = int(n)  # the last summary wins
    if "tests" in node:
        skipped = node.get("skipped", 0) + node.get("todo", 0)
        return _counts("node", node.get("pass", 0), node.get("fail", 0) + node.get("cancelled", 0), skipped,
                       ran=node["tests"] - skipped)
    tests = _GO_TEST.findall(text)
    if tests:
        return _counts("go", tests.count("PASS"), tests.count("FAIL"), tests.count("SKIP"))
    packages = _GO_PKG.findall(text)
    if packages:
        empty = all(rest.strip() in ("[no test files]",) or rest.rstrip().endswith("[no tests to run]")
                    for _s, rest in packages)
        failed = sum(1 for s, _r in packages if s == "FAIL")
        return {"runner": "go", "ran": 0 if empty else None, "passed": None, "failed": None, "skipped": None,
                "packages_failed": failed}
    return None


def no_tests_flag(command: str) -> str | None:
    """The flag in `command` that lets its suite pass when no test exists, or None."""
    m = NO_TESTS_FLAGS.search(command or "")
    return m.group(1) if m else None


def verdict(exit_code: int | None, counts: dict | None) -> str | None:
    """Why a run must fail the gate although its exit code may say it passed; None when it need not."""
    if counts is not None and counts["runner"] == "pytest" and exit_code == 5:
        return "no tests ran (pytest exit code 5)"
    if counts is not None and counts["ran"] == 0:
        return f"no test ran ({counts['runner']} reports 0 tests executed)"
    return None
