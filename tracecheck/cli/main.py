"""The command line: one thin module per command, each parsing options and calling a
plain function that does the work. Importing this module registers them all, in the
order ``--help`` lists them."""

from __future__ import annotations

from . import replay, scan, show, sweep, check, label, convert, guides, init  # noqa: F401 - each module registers its commands
from .app import app, run

__all__ = ["app", "run"]
