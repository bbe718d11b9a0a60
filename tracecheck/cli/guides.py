"""``tracecheck guards``, ``guard CODE``, ``formats`` and ``schema``: what tracecheck knows."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..input.diagnostics import TracecheckError
from .app import command


@command
def guards() -> None:
    """List every guard: code, name, whether it is on by default, and its summary."""
    from ..guards import all_guards

    for guard in all_guards():
        state = "off" if guard.is_off(guard.Options()) else "on"
        typer.echo(f"{guard.code}  {guard.name:<28} {state:<4} {guard.summary}")


@command
def guard(key: Annotated[str, typer.Argument(help="A guard code (P001) or name (similar-query-stagnation).")]) -> None:
    """Explain one guard: what it fires on, its options with defaults, and its examples."""
    from ..guards import guard_by_key
    from ..reports.explain import explain_guard

    found = guard_by_key(key)
    if found is None:
        raise TracecheckError(f"unknown guard {key!r} (see 'tracecheck guards')")
    typer.echo(explain_guard(found))


@command
def presets() -> None:
    """List the presets: named bundles of guards and options (use with --preset NAME)."""
    from ..presets import PRESETS

    for preset in PRESETS.values():
        typer.echo(f"{preset.name:<10} {', '.join(preset.guards):<16} {preset.summary}")


@command
def preset(name: Annotated[str, typer.Argument(help="A preset name (see 'tracecheck presets').")]) -> None:
    """Explain one preset: where it comes from, its guards and the options it sets."""
    from ..presets import PRESETS, preset_by_name
    from ..reports.explain import explain_preset

    found = preset_by_name(name)
    if found is None:
        raise TracecheckError(f"unknown preset {name!r}; choose one of: {', '.join(PRESETS)}")
    typer.echo(explain_preset(found))


@command
def schema(
    name: Annotated[str, typer.Argument(help="Which schema: 'native' (input events), 'report' (replay JSON) or 'labels' (a --labels file).")] = "native",
) -> None:
    """Print a JSON Schema: the native input format, the JSON report or a labels file."""
    import orjson

    from ..input.schemas import SCHEMAS

    if name not in SCHEMAS:
        raise TracecheckError(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
    sys.stdout.buffer.write(orjson.dumps(SCHEMAS[name], option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))


@command
def formats() -> None:
    """List the transcript formats tracecheck reads (names for --input-format)."""
    from ..readers import READERS

    for info in READERS:
        typer.echo(f"{info.name:<17} {info.description}")
