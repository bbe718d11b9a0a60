"""``frozen_dataclass`` behaves as ``dataclass(frozen=True)`` and ``mutable_dataclass`` as
``dataclass()``: each class shape below is built both ways (same name, same body) and the
two compared on what callers see."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from tracecheck.dataclass_lite import frozen_dataclass, mutable_dataclass


def build(decorate, prefix):
    """The same class bodies under ``decorate(slots)``; returned by name, each also a
    global of this module named ``prefix + name`` (pickle finds a class by its name)."""
    classes = {}

    @decorate(False)
    class Plain:
        """Plain."""

        a: int
        b: str = "x"
        c: list = field(default_factory=list)

    @decorate(True)
    class Slotted:
        """Slotted."""

        a: int
        b: tuple = ()
        hidden: str = field(default="h", repr=False)
        uncompared: int = field(default=0, compare=False)
        meta: float = field(default=1.5, metadata={"optional": True})

    @decorate(True)
    class Child(Slotted):
        """Child."""

        d: dict = field(default_factory=dict, hash=False)

    @decorate(False)
    class Computed:
        """Computed."""

        a: int
        later: list = field(default_factory=lambda: [1], init=False)
        kw: int = field(default=3, kw_only=True)

        def __post_init__(self) -> None:
            object.__setattr__(self, "later", [self.a, self.kw])

    @decorate(True)
    class OwnMethods:
        """OwnMethods."""

        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, OwnMethods) and abs(self.a - other.a) < 2

    @decorate(True)
    class Empty:
        """Empty."""

    for cls in (Plain, Slotted, Child, Computed, OwnMethods, Empty):
        classes[cls.__name__] = cls
        cls.__qualname__ = prefix + cls.__name__
        globals()[cls.__qualname__] = cls
    return classes


def parameters(cls):
    """An __init__'s parameters as a caller sees them: names, kinds, which have defaults."""
    return [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in inspect.signature(cls).parameters.values()]


MINE = build(lambda slots: frozen_dataclass(slots=slots), "Mine")
STDLIB = build(lambda slots: dataclass(frozen=True, slots=slots), "Stdlib")
MINE_MUTABLE = build(lambda slots: mutable_dataclass(slots=slots), "MineMutable")
STDLIB_MUTABLE = build(lambda slots: dataclass(slots=slots), "StdlibMutable")

CASES = [
    ("Plain", (1,), {}),
    ("Plain", (2, "y", [3]), {}),
    ("Slotted", (1, (2,), "h2", 5, 2.5), {}),
    ("Child", (1,), {"d": {"k": 1}}),
    ("Computed", (4,), {"kw": 7}),
    ("OwnMethods", (5,), {}),
    ("Empty", (), {}),
]


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_same_as_a_dataclass(name, args, kwargs, frozen):
    made, stdlib, prefix, theirs_prefix = (MINE, STDLIB, "Mine", "Stdlib") if frozen else (MINE_MUTABLE, STDLIB_MUTABLE, "MineMutable", "StdlibMutable")
    mine, theirs = made[name](*args, **kwargs), stdlib[name](*args, **kwargs)
    assert [(f.name, f.init, f.repr, f.compare, dict(f.metadata)) for f in dataclasses.fields(mine)] == [
        (f.name, f.init, f.repr, f.compare, dict(f.metadata)) for f in dataclasses.fields(theirs)
    ]
    assert repr(mine).replace(prefix, "") == repr(theirs).replace(theirs_prefix, "")
    assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
    assert parameters(type(mine)) == parameters(type(theirs))
    twin = made[name](*args, **kwargs)
    assert mine == twin and not (mine != twin)
    assert (mine == theirs) is False  # another class: never equal, as dataclasses
    assert (type(mine).__hash__ is None) == (type(theirs).__hash__ is None)
    if type(theirs).__hash__ is not None:
        hashable = all(not isinstance(v, (list, dict)) for v in dataclasses.astuple(theirs))
        if hashable:
            assert hash(mine) == hash(twin)
    for again in (pickle.loads(pickle.dumps(mine)), copy.copy(mine), copy.deepcopy(mine)):
        assert type(again) is type(mine)
        assert dataclasses.astuple(again) == dataclasses.astuple(mine)
    for f in dataclasses.fields(mine):
        if frozen:
            with pytest.raises(FrozenInstanceError):
                setattr(mine, f.name, 1)
            with pytest.raises(FrozenInstanceError):
                delattr(mine, f.name)
        elif name != "OwnMethods":  # (its own __eq__ does arithmetic on the field)
            marker = object()
            setattr(mine, f.name, marker)
            assert getattr(mine, f.name) is marker
            assert (mine != twin) is f.compare
            setattr(mine, f.name, getattr(twin, f.name))


def test_unequal_values_and_compare_false():
    Slotted = MINE["Slotted"]
    assert Slotted(1) != Slotted(2)
    assert Slotted(1, uncompared=1) == Slotted(1, uncompared=2)
    assert hash(Slotted(1, uncompared=1)) == hash(Slotted(1, uncompared=2))
    assert MINE["OwnMethods"](1) == MINE["OwnMethods"](2)  # the body's own __eq__ kept
    assert repr(MINE["OwnMethods"](1)) == "own"


def test_replace_and_defaults_are_fresh():
    Plain, Computed = MINE["Plain"], MINE["Computed"]
    first, second = Plain(1), Plain(1)
    assert first.c is not second.c
    assert dataclasses.replace(first, b="z") == Plain(1, "z")
    assert Computed(2).later == [2, 3]
    with pytest.raises(TypeError):
        Computed(2, later=[0])
    with pytest.raises(TypeError):
        Computed(2, 5)  # kw is keyword-only


def test_refuses_what_dataclass_refuses():
    with pytest.raises(ValueError):

        @frozen_dataclass
        class Bad:
            items: list = []  # noqa: RUF012 - the mutable default dataclass refuses

    with pytest.raises(TypeError):

        @frozen_dataclass
        class OwnSetattr:
            a: int

            def __setattr__(self, name, value):
                pass
