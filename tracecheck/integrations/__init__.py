"""Adapters that run tracecheck's guards inside agent frameworks.

Each framework has its own module (``tracecheck.integrations.langchain``), imported on
its own: importing this package imports no framework."""
