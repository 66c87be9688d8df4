"""`record`: plain value classes for msd_run's hot path, where `dataclasses` is too dear.

Importing `dataclasses` loads inspect, ast, dis and tokenize: up to 7.9 ms CPU of a call that
touches a model class (`msd_run next`; `python scripts/bench_startup.py`, variant "record classes"). `@record` / `@record(frozen=True)` and `field(default_factory=...)`
cover what the runtime's classes use of dataclasses: fields from the class annotations in
order (positional or keyword), defaults and default factories, `__repr__`, `__eq__`
(same class, equal fields), frozen instances (assignment raises AttributeError; hashable
by their fields), and `__post_init__`. Nothing else (no asdict, replace, slots, ordering).

Standard library only; imports nothing.
"""

from __future__ import annotations

_MISSING = object()


class _Field:
    __slots__ = ("default", "factory")

    def __init__(self, default, factory):
        self.default, self.factory = default, factory


def field(*, default=_MISSING, default_factory=_MISSING):
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("give default or default_factory, not both")
    return _Field(default, default_factory)


def _fields(cls) -> list[tuple[str, object, object]]:
    """(name, default, factory) of every annotated field, base classes' first."""
    out: dict[str, tuple[str, object, object]] = {}
    for base in reversed(cls.__mro__[1:]):
        for spec in getattr(base, "__record_fields__", ()):
            out[spec[0]] = spec
    for name, ann in cls.__dict__.get("__annotations__", {}).items():
        if isinstance(ann, str) and ann.replace("typing.", "").startswith("ClassVar"):
            continue
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, _Field):
            if value.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, value.default)
            out[name] = (name, value.default, value.factory)
        else:
            out[name] = (name, value, _MISSING)
    return list(out.values())


def _build(cls, frozen: bool):
    specs = tuple(_fields(cls))
    names = tuple(s[0] for s in specs)
    setter = object.__setattr__
    qual = cls.__qualname__

    def __init__(self, *args, **kwargs):
        if len(args) > len(specs):
            raise TypeError(f"{qual}() takes {len(specs)} arguments but {len(args)} were given")
        for i, (name, default, factory) in enumerate(specs):
            if i < len(args):
                if name in kwargs:
                    raise TypeError(f"{qual}() got multiple values for argument {name!r}")
                value = args[i]
            elif name in kwargs:
                value = kwargs.pop(name)
            elif factory is not _MISSING:
                value = factory()
            elif default is not _MISSING:
                value = default
            else:
                raise TypeError(f"{qual}() missing required argument {name!r}")
            setter(self, name, value)
        if kwargs:
            raise TypeError(f"{qual}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __repr__(self):
        return f"{qual}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    cls.__init__ = __init__
    cls.__repr__ = __repr__
    cls.__eq__ = __eq__
    cls.__record_fields__ = specs
    if frozen:
        def __setattr__(self, name, value):
            raise AttributeError(f"cannot assign to field {name!r} of frozen {qual}")

        def __delattr__(self, name):
            raise AttributeError(f"cannot delete field {name!r} of frozen {qual}")

        def __hash__(self):
            return hash(tuple(getattr(self, n) for n in names))

        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
        cls.__hash__ = __hash__
    else:
        cls.__hash__ = None  # mutable and compared by value, as a dataclass
    return cls


def record(cls=None, *, frozen: bool = False):
    """Class decorator; see the module docstring."""
    if cls is None:
        return lambda c: _build(c, frozen)
    return _build(cls, frozen)
