"""tracecheck: replay recorded LLM-agent transcripts through loop and no-progress guards."""

__version__ = "0.1.0"
