"""The tomllib-free reader of the flow form (msd_core.lean.simple_toml) gives tomllib's
answer wherever it claims a document and declines (NOT_SIMPLE) otherwise; tomllib is the
oracle, never the code under test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files import tomlread as tomllib  # tomllib, or tomli on Python 3.10
from msd_core.lean.simple_toml import NOT_SIMPLE, parse_simple
from tests.planning.test_simple_yaml import same

REPO = Path(__file__).resolve().parents[2]


def _tomls():
    yield from sorted((REPO / "msd_core" / "content").rglob("*.toml"))
    yield from sorted((REPO / "tests" / "fixtures").rglob("*.toml"))
    yield REPO / "msd_core" / "checks" / "size_tiers.toml"


@pytest.mark.parametrize("path", list(_tomls()), ids=lambda p: str(p.relative_to(REPO)))
def test_shipped_and_fixture_tomls_equal_tomllib(path):
    text = path.read_text(encoding="utf-8")
    got = parse_simple(text)
    try:
        ref = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert got is NOT_SIMPLE  # invalid TOML is never claimed
        return
    if "flows" in path.parts:
        assert got is not NOT_SIMPLE, "a flow file left the form this reader claims"
    if got is not NOT_SIMPLE:
        assert same(got, ref)


CLAIMED = [
    'a = "x"\nb = 1\nc = true\nd = false\ne = -3\nf = 1_000\n',
    '# c\nname = "q \\" \\\\ \\n \\t \\u00e9 \\U0001F600"  # trailing comment\nlit = \'C:\\path\'\n',
    'arr = ["a", "b", 1, [2, 3], { k = "v" }]\nempty = []\nt = {}\n',
    'expects = { fields = { phase = "string", n = "int?" }, files = ["a/b.md"] }\n',
    '[inputs]\nphase = "p"\n\n[[steps]]\nid = "a"\n[[steps.when]]\nif = "x"\ngoto = "b"\n[[steps.when]]\ngoto = "c"\n[[steps]]\nid = "b"\n',
    '[a]\nx = 1\n[a.b]\ny = 2\n[c]\n',
]

DECLINED = [
    'a = """multi\nline"""\n', "a = '''lit'''\n", "a.b = 1\n", '"quoted" = 1\n', "a = 1.5\n", "a = 1979-05-27\n",
    "a = 0x1F\n", "a = inf\n", "a = [\n  1,\n]\n", "a = 1\na = 2\n", "[a]\n[a]\n", "x = { a = 1 }\n[x]\n",
    "[[a]]\n[a]\n", 'a = "\\q"\n', 'a = "tab\x01"\n', "a = 1 b\n", "[a] junk\n", "a = 01\n", "a =\n", "\ufeffa = 1\n",
    "[a.b]\nx = 1\n",  # implicit parent table
]


@pytest.mark.parametrize("text", CLAIMED)
def test_claimed_documents_equal_tomllib(text):
    got = parse_simple(text)
    assert got is not NOT_SIMPLE
    assert same(got, tomllib.loads(text))


@pytest.mark.parametrize("text", DECLINED)
def test_other_forms_are_declined(text):
    assert parse_simple(text) is NOT_SIMPLE


def test_flow_payload_without_tomllib():
    flow = REPO / "msd_core" / "content" / "msd-core" / "flows" / "plan-phase.toml"
    code = ("import sys; from msd_core.flows.schema import parse_flow;"
            f"f, errs = parse_flow(open({str(flow)!r}).read(), 'plan-phase'); assert f and not errs, errs;"
            "print(sorted({'tomllib', 'typing', 'datetime'} & set(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_invalid_toml_still_reports_tomllibs_error():
    from msd_core.flows.schema import parse_flow

    flow, errors = parse_flow('workflow = "x"\nversion = \n', "x")
    assert flow is None and errors and "not valid TOML" in errors[0][1]
