"""The guards inside a running agent: ``Monitor`` (one per run), its ``Decision``s, the
closing request for a forced final answer, and the ``Recorder`` that turns a live run
into a regression trace."""

from .closing import closing_messages
from .monitor import Decision, Monitor
from .recorder import Recorder

__all__ = ["Decision", "Monitor", "Recorder", "closing_messages"]
