"""How many tests the gate's run executed, read from the test runner's own summary (issues 30, 45).

`count(output)` reads the end of a run's output and answers {"runner", "ran", "passed", "failed",
"skipped"} for the summary it recognises, or None. One reader per runner (READERS, tried in that
order; the first that recognises its summary answers):

  cargo     every `test result: ok. 3 passed; 0 failed; 1 ignored; ...` line, summed (unit, integration, doc)
  pytest    `== 1 failed, 2 passed, 1 skipped in 0.04s ==` (also `-q`), `no tests ran in 0.01s`
  unittest  `Ran 3 tests in 0.006s` then `OK (skipped=1)` / `FAILED (failures=1, errors=1)` / `NO TESTS RAN`
  jest      `Tests:       1 failed, 1 skipped, 4 passed, 6 total`; `No tests found, exiting with code N`
  vitest    `      Tests  1 failed | 4 passed | 1 skipped (6)`; `No test files found, exiting with code N`
  mocha     `  2 passing (5ms)` with `  1 pending` / `  1 failing` after it; `Error: No test files found`
  jasmine   `3 specs, 1 failure, 1 pending spec`; `No specs found`
  ava       `  2 tests passed` / `  1 test failed` / `  1 test skipped` / `  1 test todo` / `  1 known failure`
            (with a failure the passed ones are not summed up: the `✔ name` lines are counted);
            `No tests found in <file>`, `Couldn't find any files to test`
  tap       node-tap's closing `# { total: 3, pass: 2, fail: 1, skip: 1 }`
  node      `--test`'s closing lines `# tests 5` / `# pass 2` / ... (TAP) or `ℹ tests 5` (spec reporter)
  rspec     `3 examples, 1 failure, 1 pending`
  minitest  `3 runs, 2 assertions, 1 failures, 0 errors, 1 skips`
  phpunit   `OK (3 tests, 3 assertions)`, `Tests: 3, Assertions: 2, Failures: 1, Skipped: 1.`; `No tests executed!`
  dotnet    every `Passed!  - Failed: 0, Passed: 2, Skipped: 1, Total: 3, ...` line, summed (one per test
            assembly); the older `Total tests: 5` / `Passed: 5` block; `No test is available in ...`
  gradle    `3 tests completed, 1 failed, 1 skipped` (Gradle prints counts only when a test failed: a
            passing build says nothing, `ran` is not known and the exit code decides); `No tests found
            for given includes`, `... did not discover any tests to execute` (Gradle 9)
  maven     surefire's `Tests run: 3, Failures: 1, Errors: 0, Skipped: 1` result lines (the per-class lines
            with `Time elapsed` left out), summed over modules; `No tests to run.`
  go        `--- PASS:` / `--- FAIL:` / `--- SKIP:` lines (`go test -v`, subtests counted); without `-v` the
            failed tests and the package lines only: `ran` is None (not known) unless every package says
            `[no test files]` or `[no tests to run]`, which is 0

`ran` counts tests that executed (skipped, pending and todo ones did not). `verdict(exit_code,
counts)` turns a run that exited 0 into a failure when no test ran, and names why;
`no_tests_flag(command)` finds a flag that lets a suite pass without tests (`--passWithNoTests`,
`--pass-with-no-tests`, `--no-tests=pass`, ...): such a command fails the gate without being run.
Output no reader recognises (a project's own script) leaves the exit code to decide: `counts` is
None. The formats were taken from real runs where the runner installs on a development machine and
from the runner's documented output otherwise (tests/execution/fixtures/gate_output/NOTES.md).
Standard library only.
"""

from __future__ import annotations

import re

NO_TESTS_FLAGS = re.compile(r"(?<![\w-])(--passWithNoTests(?:=true)?|--pass-with-no-tests|--no-tests[= ]pass|"
                            r"--allow-no-tests|--suppress-no-test-exit-code)(?![\w-])")

_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.M)
_PYTEST = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s", re.M)
_PYTEST_NONE = re.compile(r"^=*\s*no tests ran in [\d.]+s", re.M)
_UNITTEST = re.compile(r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*\n(OK|FAILED|NO TESTS RAN)(?: \(([^)\n]*)\))?", re.M)
_JEST = re.compile(r"^Tests:\s+(.*?)(\d+) total\s*$", re.M)
_JEST_NONE = re.compile(r"^No tests found, exiting with code \d+", re.M)
_VITEST = re.compile(r"^\s*Tests\s+((?:\d+ [a-z]+(?: \| )?)+)\s*\((\d+)\)\s*$", re.M)
_VITEST_NONE = re.compile(r"^No test files found, exiting with code \d+", re.M)
_MOCHA = re.compile(r"^ {2}(\d+) passing \(\w+\)\s*$((?:\n {2}\d+ (?:pending|failing)\s*$)*)", re.M)
_MOCHA_NONE = re.compile(r"^Error: No test files found", re.M)
_JASMINE = re.compile(r"^(\d+) specs?, (\d+) failures?(?:, (\d+) pending specs?)?\s*$", re.M)
_JASMINE_NONE = re.compile(r"^(?:Incomplete: )?No specs found\s*$", re.M)
_AVA = re.compile(r"^ {2}(\d+) (?:tests? (passed|failed|skipped|todo)|(known failure)s?)\s*$", re.M)
_AVA_TICK = re.compile(r"^\s+✔ ", re.M)
_AVA_NONE = re.compile(r"^\s*✘ (?:No tests found in |Couldn't find any files to test)", re.M)
_TAP = re.compile(r"^# \{ (total: \d+(?:, \w+: \d+)*) \}\s*$", re.M)
_NODE = re.compile(r"^(?:#|ℹ) (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$", re.M)
_RSPEC = re.compile(r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) errors? occurred outside)?", re.M)
_MINITEST = re.compile(r"^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips\s*$", re.M)
_PHPUNIT_OK = re.compile(r"^OK \((\d+) tests?, \d+ assertions?\)", re.M)
_PHPUNIT = re.compile(r"^Tests: (\d+), Assertions: \d+((?:, [A-Z][a-z]+: \d+)*)\.\s*$", re.M)
_PHPUNIT_NONE = re.compile(r"^No tests executed!", re.M)
_DOTNET = re.compile(r"^\s*(?:Passed|Failed)!\s+-\s+Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+), Total:\s+(\d+)",
                     re.M)
_DOTNET_LEGACY = re.compile(r"^Total tests: (\d+)\s*$((?:\n\s+(?:Passed|Failed|Skipped): \d+\s*$)*)", re.M)
_DOTNET_NONE = re.compile(r"^No test is available in ", re.M)
_GRADLE = re.compile(r"^(\d+) tests? completed, (\d+) failed(?:, (\d+) skipped)?\s*$", re.M)
_GRADLE_NONE = re.compile(r"No tests found for given includes|did not discover any tests to execute", re.M)
_MAVEN = re.compile(r"^(?:\[\w+\] )?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(.*)$", re.M)
_MAVEN_NONE = re.compile(r"^(?:\[\w+\] )?No tests to run\.", re.M)
_GO_TEST = re.compile(r"^\s*--- (PASS|FAIL|SKIP): ", re.M)
_GO_PKG = re.compile(r"^(ok|FAIL|\?)\s+\S+\s+(.*)$", re.M)
_PART = re.compile(r"(\d+) ([a-z]+)")
_NAMED = re.compile(r"([A-Za-z][\w ]*?)\s*[:=]\s*(\d+)")


def _counts(runner: str, passed: int, failed: int, skipped: int, ran: int | None = None) -> dict:
    return {"runner": runner, "ran": passed + failed if ran is None else ran, "passed": passed, "failed": failed,
            "skipped": skipped}


def _total(runner: str, total: int, failed: int, skipped: int) -> dict:
    """Counts from a runner that prints the total: what neither failed nor was skipped passed."""
    return _counts(runner, max(total - failed - skipped, 0), failed, skipped)


def _none(runner: str) -> dict:
    return _counts(runner, 0, 0, 0)


def _parts(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for n, word in _PART.findall(text):
        out[word] = out.get(word, 0) + int(n)
    return out


def _named(text: str) -> dict[str, int]:
    """`failures=1, skipped=2` or `Failures: 1, Skipped: 2` as {"failures": 1, "skipped": 2}."""
    return {k.strip().lower(): int(n) for k, n in _NAMED.findall(text or "")}


def _cargo(text: str) -> dict | None:
    found = _CARGO.findall(text)
    if not found:
        return None
    return _counts("cargo", sum(int(p) for p, _f, _i in found), sum(int(f) for _p, f, _i in found),
                   sum(int(i) for _p, _f, i in found))


def _pytest(text: str) -> dict | None:
    m = [*_PYTEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        failed = parts.get("failed", 0) + parts.get("error", 0) + parts.get("errors", 0)
        passed = parts.get("passed", 0) + parts.get("xfailed", 0) + parts.get("xpassed", 0)
        return _counts("pytest", passed, failed, parts.get("skipped", 0))
    return _none("pytest") if _PYTEST_NONE.search(text) else None


def _unittest(text: str) -> dict | None:
    m = [*_UNITTEST.finditer(text)]
    if not m:
        return None
    total, parts = int(m[-1].group(1)), _named(m[-1].group(3))
    skipped = parts.get("skipped", 0)
    return _total("unittest", total, parts.get("failures", 0) + parts.get("errors", 0) +
                  parts.get("unexpected successes", 0), skipped)


def _jest(text: str) -> dict | None:
    m = [*_JEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        total, skipped = int(m[-1].group(2)), parts.get("skipped", 0) + parts.get("pending", 0) + parts.get("todo", 0)
        return _counts("jest", parts.get("passed", 0), parts.get("failed", 0), skipped, ran=total - skipped)
    return _none("jest") if _JEST_NONE.search(text) else None


def _vitest(text: str) -> dict | None:
    m = [*_VITEST.finditer(text)]
    if m:
        parts = _parts(m[-1].group(1))
        total, skipped = int(m[-1].group(2)), parts.get("skipped", 0) + parts.get("todo", 0)
        return _counts("vitest", parts.get("passed", 0), parts.get("failed", 0), skipped, ran=total - skipped)
    return _none("vitest") if _VITEST_NONE.search(text) else None


def _mocha(text: str) -> dict | None:
    m = [*_MOCHA.finditer(text)]
    if m:
        rest = _parts(m[-1].group(2))
        return _counts("mocha", int(m[-1].group(1)), rest.get("failing", 0), rest.get("pending", 0))
    return _none("mocha") if _MOCHA_NONE.search(text) else None


def _jasmine(text: str) -> dict | None:
    m = [*_JASMINE.finditer(text)]
    if m:
        total, failed, pending = (int(x or 0) for x in m[-1].groups())
        return _total("jasmine", total, failed, pending)
    return _none("jasmine") if _JASMINE_NONE.search(text) else None


def _ava(text: str) -> dict | None:
    found = _AVA.findall(text)
    if found:
        parts: dict[str, int] = {}
        for n, word, known in found:
            key = word or known
            parts[key] = parts.get(key, 0) + int(n)
        # with a failure ava's summary leaves the passed ones out: its list ticks them (`✔ name`)
        passed = parts["passed"] if "passed" in parts else len(_AVA_TICK.findall(text))
        passed += parts.get("known failure", 0)
        return _counts("ava", passed, parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))
    return _none("ava") if _AVA_NONE.search(text) else None


def _tap(text: str) -> dict | None:
    m = [*_TAP.finditer(text)]
    if not m:
        return None
    parts = _named(m[-1].group(1))
    skipped = parts.get("skip", 0) + parts.get("todo", 0)
    return _total("tap", parts.get("total", 0), parts.get("fail", 0), skipped)


def _node(text: str) -> dict | None:
    node = {}
    for key, n in _NODE.findall(text):
        node[key] = int(n)  # the last summary wins
    if "tests" not in node:
        return None
    skipped = node.get("skipped", 0) + node.get("todo", 0)
    return _counts("node", node.get("pass", 0), node.get("fail", 0) + node.get("cancelled", 0), skipped,
                   ran=node["tests"] - skipped)


def _rspec(text: str) -> dict | None:
    m = [*_RSPEC.finditer(text)]
    if not m:
        return None
    total, failed, pending, outside = (int(x or 0) for x in m[-1].groups())
    out = _total("rspec", total, failed, pending)
    out["failed"] += outside  # errors outside examples (a spec file that does not load) fail the run
    return out


def _minitest(text: str) -> dict | None:
    m = [*_MINITEST.finditer(text)]
    if not m:
        return None
    runs, failures, errors, skips = (int(x) for x in m[-1].groups())
    return _total("minitest", runs, failures + errors, skips)


def _phpunit(text: str) -> dict | None:
    ok, full = [*_PHPUNIT_OK.finditer(text)], [*_PHPUNIT.finditer(text)]
    if full and (not ok or full[-1].start() > ok[-1].start()):
        parts = _named(full[-1].group(2))
        skipped = parts.get("skipped", 0) + parts.get("incomplete", 0)
        return _total("phpunit", int(full[-1].group(1)), parts.get("failures", 0) + parts.get("errors", 0), skipped)
    if ok:
        return _total("phpunit", int(ok[-1].group(1)), 0, 0)
    return _none("phpunit") if _PHPUNIT_NONE.search(text) else None


def _dotnet(text: str) -> dict | None:
    found = _DOTNET.findall(text)
    if found:
        return _counts("dotnet", sum(int(p) for _f, p, _s, _t in found), sum(int(f) for f, _p, _s, _t in found),
                       sum(int(s) for _f, _p, s, _t in found))
    m = [*_DOTNET_LEGACY.finditer(text)]
    if m:
        parts = _named(m[-1].group(2))
        return _total("dotnet", int(m[-1].group(1)), parts.get("failed", 0), parts.get("skipped", 0))
    return _none("dotnet") if _DOTNET_NONE.search(text) else None


def _gradle(text: str) -> dict | None:
    found = _GRADLE.findall(text)
    if found:  # one line per failing test task: summed
        return _total("gradle", sum(int(t) for t, _f, _s in found), sum(int(f) for _t, f, _s in found),
                      sum(int(s or 0) for _t, _f, s in found))
    return _none("gradle") if _GRADLE_NONE.search(text) else None


def _maven(text: str) -> dict | None:
    found = _MAVEN.findall(text)
    totals = [f for f in found if "Time elapsed" not in f[4]] or found  # the Results lines, else the per-class ones
    if totals:
        return _total("maven", sum(int(t[0]) for t in totals), sum(int(t[1]) + int(t[2]) for t in totals),
                      sum(int(t[3]) for t in totals))
    return _none("maven") if _MAVEN_NONE.search(text) else None


def _go(text: str) -> dict | None:
    tests = _GO_TEST.findall(text)
    if tests and "=== RUN" in text:
        return _counts("go", tests.count("PASS"), tests.count("FAIL"), tests.count("SKIP"))
    if tests:  # without -v go names only the failed tests
        return {"runner": "go", "ran": None, "passed": None, "failed": tests.count("FAIL"), "skipped": None}
    packages = _GO_PKG.findall(text)
    if not packages:
        return None
    empty = all(rest.strip() in ("[no test files]",) or rest.rstrip().endswith("[no tests to run]")
                for _s, rest in packages)
    failed = sum(1 for s, _r in packages if s == "FAIL")
    return {"runner": "go", "ran": 0 if empty else None, "passed": None, "failed": None, "skipped": None,
            "packages_failed": failed}


# the order matters where two formats could meet: the most specific summaries first, go's loose
# package lines (`ok  <pkg>  0.1s`, which a TAP `ok 1 - name` line resembles) last
READERS = (_cargo, _pytest, _unittest, _jest, _vitest, _mocha, _jasmine, _ava, _tap, _node, _rspec, _minitest,
           _phpunit, _dotnet, _gradle, _maven, _go)


def count(output: str) -> dict | None:
    """The counts of the last summary the output holds (see the module docstring), or None."""
    text = output or ""
    for reader in READERS:
        found = reader(text)
        if found is not None:
            return found
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
