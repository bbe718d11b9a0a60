"""Writing a report or a converted file: whole or not at all, and never over an input.

A regular file is written to a hidden temporary file beside it and renamed over it at
the end, so a failed run leaves the old file as it was and a directory walk never picks
the half-written file up. Anything else (``-`` for standard output, ``/dev/stdout``, a
pipe, a device) is written to directly.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import BinaryIO

from .diagnostics import TracecheckError
from .sources import Source, describe_error, input_files

STDOUT_NAME = "-"


class OutputError(TracecheckError):
    """The output cannot be written (exit 2, with the reason)."""


def check_not_an_input(output: str, inputs: Sequence[Source]) -> None:
    """Refuse an output that is one of the inputs (named, found in a directory walk, an
    event file of a folder, or a file read beside one: see ``input_files``)."""
    if output == STDOUT_NAME:
        return
    try:
        target = os.stat(output)
    except OSError:
        return  # does not exist yet: it cannot be an input
    if not stat.S_ISREG(target.st_mode):
        return
    for name in (name for source in inputs for name in input_files(source)):
        try:
            same = os.path.samestat(target, os.stat(name))
        except OSError:
            continue
        if same:
            raise OutputError(
                f"the output {output} is also an input; tracecheck never writes over an input "
                "(choose another output file)"
            )


class _CheckedOutput(io.RawIOBase):
    """Writes through to a file; a write error becomes an OutputError naming the output
    (a reader that closed the pipe early is left to the caller)."""

    def __init__(self, handle: BinaryIO, shown: str) -> None:
        self.handle = handle
        self.shown = shown

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        _checked(self.shown, self.handle.write, data)
        return len(data)

    def flush(self) -> None:
        if not self.handle.closed:
            _checked(self.shown, self.handle.flush)


def _checked(shown: str, operation, *args):
    """Run a write operation; an OS error becomes an OutputError naming the output
    (a reader that closed the pipe early is left to the caller)."""
    try:
        return operation(*args)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {describe_error(exc)}") from None


@contextlib.contextmanager
def open_output(output: str, inputs: Sequence[Source] = ()) -> Iterator[BinaryIO]:
    """A binary file to write ``output`` through; ``-`` is standard output. Write errors
    (a full disk, a missing folder) become an ``OutputError`` naming the output."""
    check_not_an_input(output, inputs)
    if output == STDOUT_NAME:
        checked = _CheckedOutput(sys.stdout.buffer, "standard output")
        yield checked
        checked.flush()
        return
    if _is_special(output):
        # Unbuffered: a failed write fails once, here, not again when the file closes.
        with _open(output, "ab", buffering=0) as handle:
            checked = _CheckedOutput(handle, output)
            yield checked
            checked.flush()
        return
    import tempfile  # here: a report on standard output needs none (start-up)

    folder, name = os.path.split(os.path.abspath(output))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tracecheck-tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {describe_error(exc)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            checked = _CheckedOutput(handle, output)
            yield checked
            checked.flush()
        try:
            os.chmod(temporary, _mode_for(output))
            os.replace(temporary, output)
        except OSError as exc:
            raise OutputError(f"cannot write {output}: {describe_error(exc)}") from None
    finally:
        if os.path.exists(temporary):
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _is_special(path: str) -> bool:
    """An existing file that is not a regular one (a device, a pipe): written in place."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _open(path: str, mode: str, buffering: int = -1) -> BinaryIO:
    try:
        return open(path, mode, buffering=buffering)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {describe_error(exc)}") from None


def _mode_for(path: str) -> int:
    """The permissions a new file would get (or the ones the replaced file had)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class CheckedText:
    """A text stream (standard output for the terminal report) whose write errors become
    an ``OutputError``; it still tells Rich whether it is a terminal."""

    def __init__(self, stream, shown: str = "standard output") -> None:
        self.stream = stream
        self.shown = shown

    def write(self, text: str) -> int:
        return _checked(self.shown, self.stream.write, text)

    def flush(self) -> None:
        _checked(self.shown, self.stream.flush)

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", "utf-8")
