"""The PyYAML-free frontmatter reader (msd_core.lean.simple_yaml) gives PyYAML's answer
wherever it claims a block, and declines (NOT_SIMPLE) otherwise.

The oracle is PyYAML's safe loader as frontmatter.py configures it (timestamps kept as text),
never the code under test."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from msd_core.lean.simple_yaml import NOT_SIMPLE, Rejected, parse_simple
from msd_core.planning.frontmatter import _loader, locate, split_frontmatter
from tests.conftest import CORPUS


def pyyaml(block: str):
    return yaml.load(block, Loader=_loader())


def same(a, b) -> bool:
    """Equal values AND equal types (True == 1 and 1 == 1.0 in Python, not in YAML)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)


CLAIMED = [
    "phase: 02-auth\nplan: 01\ntype: execute\nwave: 2\nautonomous: true\n",
    "completed: 2026-11-30\nduration: 12min\nversion: 1.2.3\nratio: 0.5\nneg: -3\nhalf: .5\n",
    "octal: 010\neight: 08\nunder: 1_000\nzero: 0\nplus: +7\nfloat_under: 1_0.5\nexp: 1.5e+3\n",
    "a: yes\nb: No\nc: off\nd: ON\ne: ~\nf: null\ng:\nh: y\ni: n\n",
    "provides: [auth service, 'quoted', \"dq\"]\nempty: []\nobj: {}\n",
    "phase: 08\nsigned: -09\nunder: 0_9\n",
    "key-files:\n  created:\n    - src/a.ts\n    - src/b.ts\n  modified: []\ntech-stack:\n  added: [zod]\n",
    "requires:\n  - phase: 01-foundation\n    provides: base layer\n  - phase: 02\n    provides: [x, y]\n",
    "decisions:\n- first decision\n- second: no, a plain scalar\nnext: 1\n",
    "list_at_key_indent:\n- a\n- b\nafter: c\n",
    "c_sharp: C# and F#\nurl: http://x.y/z?q=1\ncomment: value # a comment\n",
    'pattern: "a\\\\.b \\"q\\" \\/ tab\\t"\nsingle: \'a \\\\ b\'\n',
    "# a comment line\nkey: value\n\n  # indented comment\nother: x\n",
    "dup: 1\ndup: 2\n",
    "nested:\n  deeper:\n    deepest: [a]\n  back: 1\ntop: 2\n",
    "trailing: spaces   \nunicode: café ✓ 数据 \U0001f600 \u00a0nbsp\n",
    "k:\n  - [a, b]\n  - c\n",
    "items:\n  - Auth routes: POST /login, GET /me\n  - plain item\n  - http://x.y: link\nKey Files: a\n",
    "choice: -60 to 0 dB\nflag: --force\nneg_list: [-x, -1]\n",
    "patterns: [\n    \"Ed25519 verify (Solana format)\",\n    plain item,\n    'single'\n  ]\nnext: 1\n",
    "p: [\n    \"Speed (Week 1: +20%, Weeks 2-4: +10%)\",\n    \"x\"\n  ]\n",
    "colons: [bun:test, CSS :hover x, http://x.y, a:b:c]\n",
    "quoted_commas: [\"Pattern: a, b (c, d)\", 'x, y', plain]\nesc: [\"a \\\" b, c\", d]\n",
    "items:\n  - key: [a,\n      b]\n  - [c,\n    d]\n", "flow: [a,\n  b]\n", "flow_shallow: [a,\nb]\n", "k:\n  p: [\n    a,\n    b\n  ]\n  r: 2\nq: 1\n",
]

DECLINED = [
    "hex: 0x1F\n", "bin: 0b101\n", "sexa: 1:30\n", "inf: .inf\n", "nan: .NaN\n",  # other YAML numbers
    "anchor: &a x\nref: *a\n", "tag: !!str 5\n", "block: |\n  text\n", "folded: >\n  text\n",
    "multi: one\n  two\n", "map: {a: 1}\n",
    "tab:\tx\n", "yes: key is a bool\n", "'quoted key': 1\n",
    "esc: \"\\u00e9\"\n", "sq: 'it''s'\n", "dash:\n  -\n", "flow_colon_end: [a:, b]\n", "flow_colon_start: [:a]\n", "flow_pair: [a: b]\n",
    "item_then_more:\n  - a\n    b\n", "  indented_first: 1\n", "- a\n- b\n", "merge:\n  <<: x\n",
    "ctrl: a\x07b\n", "nel: a\x85b: c\n", "ls: a\u2028b\n", "c1: a\x9fb\n", "surrogate_free: \ufffe\n", "bool_key:\n  - true: x\n", "num_key: {1: a}\n",
    "dash_alone: -\n", "flow_blank: [a,\n\n  b]\n", "flow_comment_line: [a,\n# c\n  b]\n",
    "flow_split_item: [a\n  b]\n", "flow_split_quote: ['a\n  b']\n", "flow_open: [a,\n", "dash_space: - x\n", "sq_doubled: ['it''s', b]\n", "after_quote: ['a' b, c]\n", "open_quote: ['a, b]\n", "bom: \ufeffx\n", "flow_comment: [a] # c\n", "empty_item: [a, , b]\n",
]


@pytest.mark.parametrize("block", CLAIMED)
def test_claimed_blocks_equal_pyyaml(block):
    got = parse_simple(block)
    assert got is not NOT_SIMPLE, block
    assert same(got, pyyaml(block)), (got, pyyaml(block))


@pytest.mark.parametrize("block", DECLINED)
def test_other_forms_are_declined(block):
    assert parse_simple(block) is NOT_SIMPLE


REJECTED = ["tick: `code`\n", "at: @thing\n", "two: a: b\n", "items:\n  - k: uses { x: 1 } here\n", "list:\n  - ok\n  - `cmd` runs\n", "flow: [a, @b]\n", "`key`: 1\n"]


@pytest.mark.parametrize("block", REJECTED)
def test_certain_errors_are_rejected_and_pyyaml_agrees(block):
    got = parse_simple(block)
    assert isinstance(got, Rejected) and ("reserves" in got.reason or "same line" in got.reason)
    with pytest.raises(yaml.YAMLError):
        pyyaml(block)


def test_rejected_block_is_read_leniently_without_pyyaml():
    code = ("import sys; from msd_core.planning.frontmatter import split_frontmatter as s;"
            "d, _, e = s('---\\nphase: 02\\nprovides:\\n  - `Svc` boundary\\n---\\nx');"
            "assert d == {'phase': '02', 'provides': ['`Svc` boundary']}, d;"
            "assert e.startswith('yaml rejected') and 'line-based fallback' in e, e;"
            "print('yaml' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_declined_blocks_still_read_through_pyyaml():
    data, _, err = split_frontmatter("---\nhex: 0x1F\nblock: |\n  two\n  lines\n---\nbody\n")
    assert err is None and data == {"hex": 31, "block": "two\nlines\n"}


def test_common_frontmatter_does_not_import_pyyaml(tmp_path):
    code = ("import sys; from msd_core.planning.frontmatter import split_frontmatter as s;"
            "d, _, e = s('---\\nphase: 02-auth\\nprovides: [a, b]\\nrequires:\\n  - phase: 01\\n---\\nx');"
            "assert d == {'phase': '02-auth', 'provides': ['a', 'b'], 'requires': [{'phase': 1}]} and e is None, d;"
            "print('yaml' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def _blocks():
    for f in sorted(CORPUS.rglob("*.md")):
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        loc = locate(text)
        if loc and loc[1] >= 0:
            block = text[loc[0]:loc[1]].replace("\r\n", "\n")
            if block.strip():
                yield f, block


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/planning absent")
def test_whole_corpus_claimed_blocks_equal_pyyaml():
    claimed = declined = rejected = 0
    wrong = []
    for f, block in _blocks():
        got = parse_simple(block)
        if got is NOT_SIMPLE:
            declined += 1
            continue
        if isinstance(got, Rejected):
            rejected += 1
            try:
                pyyaml(block)
                wrong.append((str(f), "rejected a block PyYAML reads"))
            except yaml.YAMLError:
                pass
            continue
        claimed += 1
        try:
            ref = pyyaml(block)
        except yaml.YAMLError as exc:
            wrong.append((str(f), f"claimed a block PyYAML rejects: {exc}"))
            continue
        if not same(got, ref):
            wrong.append((str(f), "differs from PyYAML"))
    assert wrong == []
    # the point of the fast reader: most planning frontmatter is the common form
    assert claimed > 10 * declined and rejected, (claimed, declined, rejected)


def _select_reference(block: str, keys: frozenset[str]) -> str:
    """The documented rule, line by line: a `key:` line in column 0 starts an entry (kept
    when its normalised key is wanted); any other column-0 line but `-`/`#` ends it."""
    import re

    out, keep = [], False
    for line in block.split("\n"):
        m = re.match(r"^([A-Za-z_][\w-]*)[ \t]*:", line)
        if m:
            keep = m.group(1).lower().replace("_", "-") in keys
        elif line[:1] not in (" ", "\t", "-", "#", ""):
            keep = False
        if keep:
            out.append(line)
    return "\n".join(out)


SELECT_CASES = ["a: 1\n\n\nb: 2\n", "a: |+\n  x\n\n\nb: 2\n", "a: 1", "", "\n\na: 1\n", "a: 1\n  \n- x\n#c\nb: 1\n",
                "A_b: 1\nother\n  c: 2\na-b: [x]\n"]


@pytest.mark.parametrize("block", SELECT_CASES)
def test_select_top_keys_follows_the_rule(block):
    from msd_core.planning.frontmatter import select_top_keys

    for keys in (frozenset({"a"}), frozenset({"b"}), frozenset({"a-b"}), frozenset()):
        assert select_top_keys(block, keys) == _select_reference(block, keys)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/planning absent")
def test_select_top_keys_over_the_corpus():
    from msd_core.planning.frontmatter import select_top_keys
    from msd_core.planning.summary import DIGEST_KEYS

    for f, block in _blocks():
        assert select_top_keys(block, DIGEST_KEYS) == _select_reference(block, DIGEST_KEYS), f


def test_digit_only_scalars_equal_pyyaml_without_the_number_patterns():
    """Plain digits (`plan: 01`, `wave: 1`, `08`) take a fast path that compiles no pattern;
    every digit string up to 4 digits (and some longer) reads as PyYAML reads it."""
    import itertools

    values = ["".join(t) for n in range(1, 5) for t in itertools.product("0123456789", repeat=n)]
    values += ["0777777", "0777778", "00000000009", "123456789012345678901234567890", "0" * 30]
    for s in values:
        got = parse_simple(f"k: {s}\n")
        assert same(got, pyyaml(f"k: {s}\n")), s


def test_the_number_gate_never_hides_a_number():
    """_scalar tries the number pattern only for scalars whose first character and every
    character could belong to a number: every string the pattern matches passes that gate."""
    import random
    import re

    from msd_core.lean import simple_yaml as y

    rx = re.compile(y._NUMERIC.pattern)
    alphabet = "+-.0123456789_:bxabcdefABCDEFinfINFnaNAeEoOz "
    rng = random.Random(17)
    samples = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(50_000)]
    samples += [".inf", "-.Inf", ".NAN", "0x1F", "0b101", "1:20:30", "+1e+5", "1.5e-3", "1_000"]
    matched = [s for s in samples if rx.fullmatch(s)]
    assert len(matched) > 1000  # the sample does exercise the pattern
    assert [s for s in matched if not (s[0] in y._NUMBER_START and y._NUMBER_CHARS.issuperset(s))] == []
    assert parse_simple("phase: 01-foundation\nn: 0x1F\nf: .inf\n") == pyyaml("phase: 01-foundation\nn: 0x1F\nf: .inf\n") \
        or parse_simple("phase: 01-foundation\nn: 0x1F\nf: .inf\n") is NOT_SIMPLE
