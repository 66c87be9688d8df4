"""msd_core.lean.lazy_pattern: a pattern compiled on first use answers as the compiled one does."""

from __future__ import annotations

import re

from msd_core.lean.lazy_pattern import lazy


def test_lazy_pattern_answers_like_re_compile():
    text = "Alpha: 1\nbeta: 2\n  gamma: 3\n"
    for pattern, flags in ((r"^(\w+):\s*(\d+)", re.M), (r"[a-z]+", re.I), (r"(?P<k>\w+): (?P<v>\d)", 0)):
        rx, lz = re.compile(pattern, flags), lazy(pattern, flags)
        assert [m.groups() for m in lz.finditer(text)] == [m.groups() for m in rx.finditer(text)]
        assert lz.findall(text) == rx.findall(text)
        assert lz.sub("x", text) == rx.sub("x", text)
        assert lz.split(text) == rx.split(text)
        assert bool(lz.match(text)) == bool(rx.match(text)) and bool(lz.search(text)) == bool(rx.search(text))
        assert lz.groupindex == rx.groupindex and lz.groups == rx.groups
        assert lz.pattern == pattern and lz.flags == flags


def test_lazy_pattern_compiles_once_and_only_when_used(monkeypatch):
    calls = []
    real = re.compile

    def counting(pattern, flags=0):
        calls.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    lz = lazy(r"n(\d)")
    assert calls == []  # defining it compiles nothing
    assert lz.match("n1").group(1) == "1"
    assert lz.search("xn2").group(1) == "2" and lz.fullmatch("n3")
    assert calls == [r"n(\d)"]
    assert lz.compiled() is lz.compiled()


def test_a_bad_pattern_fails_where_it_is_used():
    lz = lazy(r"(unclosed")
    try:
        lz.match("x")
    except re.error:
        pass
    else:  # pragma: no cover
        raise AssertionError("a bad pattern must raise re.error at first use")
