"""tracecheck: replay recorded LLM-agent transcripts through loop and no-progress guards."""

__version__ = "0.1.0"


def __getattr__(name: str):
    # The live API, imported on first use so that `tracecheck --help` stays fast.
    if name in ("Monitor", "Decision", "Recorder", "closing_messages"):
        from . import live

        return getattr(live, name)
    raise AttributeError(f"module 'tracecheck' has no attribute {name!r}")


__all__ = ["Decision", "Monitor", "Recorder", "closing_messages", "__version__"]
