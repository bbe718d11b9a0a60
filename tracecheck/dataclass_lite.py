"""Dataclasses built with less start-up work: ``frozen_dataclass`` for
``dataclass(frozen=True)``, ``mutable_dataclass`` for ``dataclass()``.

Python 3.11's ``dataclass`` compiles ``__init__``, ``__repr__`` and ``__eq__`` apart for
every class, and ``__hash__``, ``__setattr__`` and ``__delattr__`` too for a frozen one,
about half a millisecond a frozen class: with the hundred and more value classes a replay
imports, that was a quarter of a small replay's start-up. Here ``dataclass`` only collects
the fields (it generates nothing), one ``__init__`` is compiled per class, and the other
methods are functions shared by every class, reading a class's fields through one getter
made when it is decorated.

What the classes promise is unchanged: ``dataclasses.fields``, ``replace`` and ``asdict``
work; equality is same class and equal compared fields; the repr is
``Name(field=value, ...)``; a frozen instance refuses assignment and deletion
(``FrozenInstanceError``), hashes its compared fields, and pickles and copies when
slotted; a mutable one is unhashable. A method the class body defines itself is kept, as
``dataclass`` keeps it.
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from typing import Any, TypeVar

T = TypeVar("T")

_FACTORY = object()  # an __init__ parameter whose default comes from a default_factory


def frozen_dataclass(cls: type[T] | None = None, /, *, slots: bool = False) -> Any:
    """Decorate a class as ``@dataclass(frozen=True, slots=slots)`` would."""

    def wrap(cls: type[T]) -> type[T]:
        return _make(cls, slots=slots, frozen=True)

    return wrap if cls is None else wrap(cls)


def mutable_dataclass(cls: type[T] | None = None, /, *, slots: bool = False, weakref_slot: bool = False) -> Any:
    """Decorate a class as ``@dataclass(slots=slots, weakref_slot=weakref_slot)`` would."""

    def wrap(cls: type[T]) -> type[T]:
        return _make(cls, slots=slots, frozen=False, weakref_slot=weakref_slot)

    return wrap if cls is None else wrap(cls)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving an instance's values of ``names`` as a tuple."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        only = operator.attrgetter(names[0])
        return lambda obj: (only(obj),)
    return operator.attrgetter(*names)


def _make(cls: type[T], *, slots: bool, frozen: bool, weakref_slot: bool = False) -> type[T]:
    own = cls.__dict__
    documented = own.get("__doc__") is not None
    if not documented:  # dataclass would write one from inspect.signature: costly, and before __init__ exists
        cls.__doc__ = cls.__name__
    explicit_eq = "__eq__" in own
    explicit_hash = own.get("__hash__", MISSING) is not MISSING and not (own.get("__hash__") is None and explicit_eq)
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False, slots=slots, weakref_slot=weakref_slot)
    fields = dataclasses.fields(cls)
    own = cls.__dict__
    if "__init__" not in own:
        cls.__init__ = _init(cls, fields, frozen)
    if not documented:
        cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in fields if f.init)})"
    if "__repr__" not in own:
        cls.__repr__ = _repr
    if not explicit_eq:
        cls.__eq__ = _eq
    if not explicit_hash:
        cls.__hash__ = _hash if frozen else None  # as dataclass: equal by value, so a mutable one is unhashable
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        cls.__setattr__ = _setattr
        cls.__delattr__ = _delattr
        if slots:  # pickle and copy restore slots with setattr, which a frozen instance refuses
            cls.__getstate__ = _getstate
            cls.__setstate__ = _setstate
    cls._lite_compared = staticmethod(_getter([f.name for f in fields if f.compare]))
    cls._lite_hashed = staticmethod(_getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)]))
    cls._lite_shown = tuple(f.name for f in fields if f.repr)
    cls._lite_all = staticmethod(_getter([f.name for f in fields]))
    return cls


def _init(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool) -> Callable[..., None]:
    """The class's ``__init__``, compiled once: each field set (through
    ``object.__setattr__`` when frozen: the instance refuses ``self.x = ...``),
    ``__post_init__`` called last when the class has one."""
    defaults: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _FACTORY}
    assign = "  _set(self, {name!r}, {value})" if frozen else "  self.{name} = {value}"
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in fields:
        default_name = f"_default_{f.name}"
        if f.default_factory is not MISSING:
            defaults[default_name] = f.default_factory
            value = f"{default_name}() if {f.name} is _FACTORY else {f.name}" if f.init else f"{default_name}()"
            parameter = f"{f.name}=_FACTORY"
        elif f.default is not MISSING:
            defaults[default_name] = f.default
            value = f.name if f.init else default_name
            parameter = f"{f.name}={default_name}"
        else:
            value, parameter = f.name, f.name
        if f.init:
            (keyword if f.kw_only else positional).append(parameter)
            body.append(assign.format(name=f.name, value=value))
        elif f.default is not MISSING or f.default_factory is not MISSING:
            body.append(assign.format(name=f.name, value=value))
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    parameters = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({parameters}):\n" + ("\n".join(body) or "  pass")
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)  # noqa: S102 - source made above from field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    cls = type(self)
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in cls._lite_shown)
    return f"{cls.__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self._lite_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._lite_hashed(self))


def _setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> tuple[Any, ...]:
    return self._lite_all(self)


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for f, value in zip(dataclasses.fields(self), state):
        object.__setattr__(self, f.name, value)
