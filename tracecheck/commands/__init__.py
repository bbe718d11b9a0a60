"""One plain function per command, the library API: each takes a small frozen request
and owns reading the traces, replaying them and choosing the writer; ``tracecheck.cli``
only turns options into a request and calls it.

    replay(ReplayRequest, out)              the replay report
    show(ShowRequest, out)                  traces round by round
    sweep(SweepRequest)                     guard settings against a grid
    check(CheckRequest)                     the CI gate; baseline_write, baseline_prune
    label(LabelRequest, out)                a labels file to fill in
    convert(ConvertRequest, out)            any format into native JSONL
    scan(ScanRequest, out)                  the coding agents' sessions in a home folder

Importing this package imports none of them: each command's module loads on first use,
and a command's readers, guards and writers when it runs.
"""

import importlib
import sys
import types

# Each public name -> the module that defines it. A module is named after its command's
# function (``replay.py`` holds ``replay``), so the package's ``replay`` is the function,
# also once ``tracecheck.commands.replay`` has been imported as a module.
_HOMES = {
    "BaselineRequest": "check",
    "CheckRequest": "check",
    "ConvertRequest": "convert",
    "LabelRequest": "label",
    "ReplayRequest": "replay",
    "ScanRequest": "scan",
    "ShowRequest": "show",
    "SweepRequest": "sweep",
    "baseline_prune": "check",
    "baseline_write": "check",
    "check": "check",
    "convert": "convert",
    "label": "label",
    "replay": "replay",
    "scan": "scan",
    "show": "show",
    "sweep": "sweep",
}


class _Commands(types.ModuleType):
    """This package, whose attribute named after a command module is that command's
    function: the import system sets the attribute to the submodule when it loads one,
    and this puts the function there instead."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _HOMES.get(name) == name and value.__name__ == f"{__name__}.{name}":
            value = getattr(value, name)
        super().__setattr__(name, value)


def __getattr__(name: str):
    # Loaded on first use: importing one command does not import the others.
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


sys.modules[__name__].__class__ = _Commands

__all__ = [
    "BaselineRequest",
    "CheckRequest",
    "ConvertRequest",
    "LabelRequest",
    "ReplayRequest",
    "ScanRequest",
    "ShowRequest",
    "SweepRequest",
    "baseline_prune",
    "baseline_write",
    "check",
    "convert",
    "label",
    "replay",
    "scan",
    "show",
    "sweep",
]
