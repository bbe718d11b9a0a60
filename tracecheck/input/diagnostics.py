"""Warnings about input: every line is either parsed or reported as ``file:line: reason``."""

from __future__ import annotations

from dataclasses import field

from ..dataclass_lite import frozen_dataclass, mutable_dataclass


@frozen_dataclass(slots=True)
class Diagnostic:
    file: str
    line: int | None
    reason: str
    more: int = 0  # further warnings about this file that were counted, not kept

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"

    def record(self) -> dict:
        """The warning as a JSON report writes it (the report schema's ``file``, ``line``,
        ``reason``; ``more`` is a count kept for ``len()``, already said in the reason)."""
        return {"file": self.file, "line": self.line, "reason": self.reason}


# Warnings kept per file: past it, one line counts the rest (a file read in the wrong
# format would otherwise print one warning per line, thousands of them).
WARNINGS_PER_FILE = 20


@mutable_dataclass
class Diagnostics:
    """Collects input warnings; readers report here and carry on."""

    items: list[Diagnostic] = field(default_factory=list)
    _per_file: dict[str, int] = field(default_factory=dict, repr=False)
    _overflow: dict[str, int] = field(default_factory=dict, repr=False)  # file -> index of its count line
    # Ids of the traces read but left out by ``-k`` (see ``selection``): counted, not warned about.
    deselected: list[str] = field(default_factory=list)

    def warn(self, file: str, line: int | None, reason: str, *, always: bool = False) -> None:
        """``always``: a conclusion about the whole file, shown past the cap too."""
        seen = self._per_file.get(file, 0)
        self._per_file[file] = seen + 1
        if seen < WARNINGS_PER_FILE or always:
            self.items.append(Diagnostic(file, line, reason))
            return
        more = seen + 1 - WARNINGS_PER_FILE
        text = f"{more:,} more warning{'s' if more != 1 else ''} about this file not shown (the first {WARNINGS_PER_FILE} are above)"
        if file in self._overflow:
            self.items[self._overflow[file]] = Diagnostic(file, None, text, more - 1)
        else:
            self._overflow[file] = len(self.items)
            self.items.append(Diagnostic(file, None, text, more - 1))

    def __len__(self) -> int:
        """Every warning, those only counted too."""
        return sum(1 + item.more for item in self.items)

    def __iter__(self):
        return iter(self.items)


@mutable_dataclass
class AllWarnings(Diagnostics):
    """Every warning kept, none counted past a cap, each with its ``always`` flag: what a
    worker reading one part of a file collects, for the parent to pass through its own
    ``Diagnostics`` in file order (``pass_on``), where the cap applies to the whole file."""

    always: list[bool] = field(default_factory=list)

    def warn(self, file: str, line: int | None, reason: str, *, always: bool = False) -> None:
        self.items.append(Diagnostic(file, line, reason))
        self.always.append(always)


def pass_on(warnings: list[Diagnostic], always: list[bool], diagnostics: Diagnostics) -> None:
    """``AllWarnings``' warnings given to ``diagnostics`` as if warned there, in order."""
    for item, each in zip(warnings, always):
        diagnostics.warn(item.file, item.line, item.reason, always=each)


class TracecheckError(Exception):
    """An error meant for the user (bad usage, config or input): exit code 2, no traceback."""


class MissingExtra(TracecheckError, ValueError):
    """An optional dependency is not installed: a user error with the line that installs
    it (the package itself, which works whether tracecheck came from a checkout or the
    index), never a crash. A ValueError too, as the live API reports bad options."""

    def __init__(self, what: str, package: str) -> None:
        super().__init__(f"{what} needs the optional {package} package: pip install {package}")
