"""tracecheck: replay recorded LLM-agent transcripts through loop and no-progress guards.

The library API: the live guards (``Monitor``, ``Decision``, ``Recorder``,
``closing_messages``) and one plain function per command with its request
(``replay`` and ``ReplayRequest``, ``show``, ``sweep``, ``check``, ``baseline_write``,
``baseline_prune``, ``label``, ``convert``, ``scan``: see ``tracecheck.commands``)."""

__version__ = "0.1.0"

_LIVE = ("Monitor", "Decision", "Recorder", "closing_messages")
_COMMANDS = (
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
)


def __getattr__(name: str):
    # Imported on first use so that `tracecheck --help` stays fast.
    if name in _LIVE:
        from . import live

        return getattr(live, name)
    if name in _COMMANDS:
        from . import commands

        return getattr(commands, name)
    raise AttributeError(f"module 'tracecheck' has no attribute {name!r}")


__all__ = [*sorted(_LIVE), *_COMMANDS, "__version__"]
