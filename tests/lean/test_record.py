"""msd_core.lean.record behaves as the dataclasses it replaces on the hot path, for the features
those classes use; the oracle is the standard library's dataclasses on the same class body."""

from __future__ import annotations

import dataclasses

import pytest

from msd_core.lean.record import field, record


def _pair(frozen: bool):
    def body(make_field):
        class Point:
            x: int
            y: int = 0
            tags: list = make_field(default_factory=list)
            note: str | None = None

            def total(self) -> int:
                return self.x + self.y
        return Point

    ours = record(body(field), frozen=frozen)
    ref = dataclasses.dataclass(body(dataclasses.field), frozen=frozen)
    return ours, ref


@pytest.mark.parametrize("frozen", [False, True])
def test_construction_defaults_eq_repr_like_dataclasses(frozen):
    ours, ref = _pair(frozen)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((), {"x": 3, "note": "n"}), ((1,), {"tags": ["a"]})]:
        a, b = ours(*args, **kwargs), ref(*args, **kwargs)
        assert (a.x, a.y, a.tags, a.note) == (b.x, b.y, b.tags, b.note)
        assert repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
        assert a == ours(*args, **kwargs) and a.total() == b.total()
    assert ours(1) != ours(2) and ours(1).tags is not ours(1).tags  # a fresh list per instance
    for bad in [((), {}), ((1, 2, [], None, 5), {}), ((1,), {"x": 2}), ((1,), {"zz": 1})]:
        with pytest.raises(TypeError):
            ours(*bad[0], **bad[1])
        with pytest.raises(TypeError):
            ref(*bad[0], **bad[1])


def test_frozen_refuses_assignment_and_hashes_by_value():
    ours, ref = _pair(True)
    a = ours(1, 2, ("t",))
    with pytest.raises(AttributeError):
        a.x = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        ref(1).x = 5
    assert hash(a) == hash(ours(1, 2, ("t",))) and len({a, ours(1, 2, ("t",))}) == 1


def test_mutable_is_unhashable_like_dataclasses():
    ours, ref = _pair(False)
    with pytest.raises(TypeError):
        hash(ours(1))
    with pytest.raises(TypeError):
        hash(ref(1))


def test_post_init_runs():
    @record
    class C:
        a: int

        def __post_init__(self):
            self.b = self.a * 2

    assert C(2).b == 4
