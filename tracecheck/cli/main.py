"""The command line: one thin module per command, each parsing options and calling a
plain function that does the work. ``app`` here has every command registered, in the
order ``--help`` lists them (each module registers its own when imported).

``run``, the console script, registers only the command it is asked for when the
command line names one (``tracecheck replay ...``): a small replay does not pay for
importing the other eight modules and what they import. Anything else (no command,
``--help``, ``--version``, a misspelt command, shell completion) registers them all.

The command modules do without ``from __future__ import annotations``: Typer reads a
command's parameters from its annotations on every start, and an annotation kept as a
string costs a ``compile`` and an ``eval`` each (a few milliseconds a command).
"""

from __future__ import annotations

import gc
import importlib
import sys

from . import app as _app

# The modules that register commands, in the order ``--help`` lists them.
MODULES = ("replay", "scan", "show", "sweep", "check", "label", "convert", "guides", "init")

# Each command name (a sub-app's too) -> the module that registers it; tests/test_help_and_width.py
# checks it against what the modules register.
COMMAND_MODULES = {
    "replay": "replay",
    "scan": "scan",
    "show": "show",
    "sweep": "sweep",
    "check": "check",
    "baseline": "check",
    "label": "label",
    "convert": "convert",
    "guards": "guides",
    "guard": "guides",
    "presets": "guides",
    "preset": "guides",
    "schema": "guides",
    "formats": "guides",
    "init": "init",
}


def register(modules=MODULES) -> None:
    """Import the command modules named (each registers its commands once); with more
    than one registered, they stay in ``MODULES`` order whatever order they came in."""
    for name in modules:
        importlib.import_module(f"{__package__}.{name}")
    order = {f"{__package__}.{name}": k for k, name in enumerate(MODULES)}
    _app.app.registered_commands.sort(key=lambda info: order[info.callback.__module__])


def modules_for(args: list[str]) -> tuple[str, ...]:
    """The command modules a command line needs: the named command's alone, else all."""
    named = COMMAND_MODULES.get(args[0]) if args else None
    return (named,) if named is not None else MODULES


def run() -> None:
    """Console-script entry point (see ``app.run``), registering only what is asked for."""
    # Python collects its youngest objects after every 700 new containers: importing ~60
    # modules and building ~130 classes ran ~50 collections (a twentieth of a small
    # replay) over objects that live as long as the process. The command line collects
    # after 50,000: garbage here is freed by reference counts, and what cycles there are
    # wait a little longer.
    gc.set_threshold(50_000, *gc.get_threshold()[1:])
    register(modules_for(sys.argv[1:]))
    _app.run()


def __getattr__(name: str):
    if name == "app":
        register()
        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "run"]
