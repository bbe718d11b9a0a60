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

Importing this package imports only what the requests name: a command's readers,
guards and writers load when it runs.
"""

from .check import BaselineRequest, CheckRequest, baseline_prune, baseline_write, check
from .convert import ConvertRequest, convert
from .label import LabelRequest, label
from .replay import ReplayRequest, replay
from .scan import ScanRequest, scan
from .show import ShowRequest, show
from .sweep import SweepRequest, sweep

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
