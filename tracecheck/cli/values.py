"""Command-line values without Pydantic, where the answer is plain.

Typer (0.27 and later) turns every parameter's value into its type through a Pydantic
``TypeAdapter``, built on first use: importing Pydantic and building the adapters costs a
small replay more than all of its own work. The values tracecheck's commands take are
plain (a string, a list of strings, a path, a whole number, one of an enum's values), and
for those the adapter's answer is known: this module gives it directly. Anything else, and
any value that is not plainly valid (a bad number, an unknown choice), goes to Typer's own
adapter, so what it accepts and every error message stay Typer's.

``quicken(command, ctx)`` installs it on a command's parameters; with a Typer that has no such
adapters (or other internals), it does nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

_UNSURE = object()  # not plain: Typer's adapter decides
_WHOLE = re.compile(r"-?(0|[1-9][0-9]{0,17})")


def _plain(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    """``value`` as Typer's adapter would give it for ``annotation``, or ``_UNSURE``."""
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        if not isinstance(value, (list, tuple)):
            return _UNSURE
        items = [_plain(item, info, v, param, ctx) for v in value]
        return _UNSURE if any(i is _UNSURE for i in items) else items
    if annotation is str:
        return value if type(value) is str else _UNSURE
    if annotation is bool:
        return value if type(value) is bool else _UNSURE
    if annotation is int:
        if type(value) is str and _WHOLE.fullmatch(value):
            value = int(value)
        if type(value) is not int or getattr(info, "clamp", False):
            return _UNSURE
        low, high = getattr(info, "min", None), getattr(info, "max", None)
        return value if (low is None or value >= low) and (high is None or value <= high) else _UNSURE
    if annotation is Path:
        if type(value) is not str or not value or "\0" in value or info.parser is not None or info.path_type is not None:
            return _UNSURE
        if info.exists or info.resolve_path or info.allow_dash or not info.file_okay or not info.dir_okay or info.writable:
            return _UNSURE
        from typer._param_types import coerce_cli_path

        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    if isinstance(annotation, type) and _is_enum(annotation):
        from typer._param_types import coerce_cli_choice

        return coerce_cli_choice(value, choices=tuple(annotation), case_sensitive=info.case_sensitive, ctx=ctx)
    return _UNSURE


def _is_enum(annotation: type) -> bool:
    from enum import Enum

    return issubclass(annotation, Enum)


def _quick_param_class():
    """A Typer runtime parameter that answers plain values itself and hands the rest to
    the one Typer would build; None when this Typer has no such classes."""
    try:
        from dataclasses import dataclass

        from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    except ImportError:
        return None

    @dataclass(frozen=True)
    class QuickParam(RuntimeParam):
        descriptor: TypeDescriptor

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            if getattr(info, "parser", None) is None and self.descriptor.file_annotation is None:
                try:
                    answer = _plain(self.annotation, info, value, param, ctx)
                except Exception:  # noqa: BLE001 - not plainly valid: Typer's adapter says why
                    answer = _UNSURE
                if answer is not _UNSURE:
                    return answer
            full = build_runtime_param(self.descriptor)
            param._runtime_param = full  # built once, as Typer would
            return full._coerce_value(value, param, ctx)

    return QuickParam


_QUICK: list = []


def quicken(command: Any, ctx: Any) -> None:
    """Give each of ``command``'s Typer parameters (``--help`` too) the quick runtime parameter (once)."""
    if not _QUICK:
        _QUICK.append(_quick_param_class())
    quick = _QUICK[0]
    if quick is None:
        return
    for param in command.get_params(ctx):
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", 0) is not None:
            continue
        param._runtime_param = quick(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation, descriptor=descriptor)
