"""Warnings about input: every line is either parsed or reported as ``file:line: reason``."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True, frozen=True)
class Diagnostic:
    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


@dataclass
class Diagnostics:
    """Collects input warnings; readers report here and carry on."""

    items: list[Diagnostic] = field(default_factory=list)

    def warn(self, file: str, line: int | None, reason: str) -> None:
        self.items.append(Diagnostic(file, line, reason))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


class TracecheckError(Exception):
    """An error meant for the user (bad usage, config or input): exit code 2, no traceback."""
