"""Exceptions: one per exit status of the binary (README, "Exit status")."""

from __future__ import annotations

from typing import Dict, Sequence, Tuple, Type

from ._types import Diagnostic


class Error(Exception):
    """The binary failed. `status` is its exit status, `diagnostics` what it reported.

    Subclasses by exit status: `ProblemsError` (1), `UsageError` (2), `MismatchError` (3).
    `stderr` holds the lines of stderr that were not JSON diagnostics.
    """

    status: int
    diagnostics: Tuple[Diagnostic, ...]
    command: Tuple[str, ...]
    stderr: str

    def __init__(
        self,
        status: int,
        diagnostics: Sequence[Diagnostic] = (),
        command: Sequence[str] = (),
        stderr: str = "",
    ) -> None:
        self.status = status
        self.diagnostics = tuple(diagnostics)
        self.command = tuple(command)
        self.stderr = stderr
        super().__init__(self._message())

    def _message(self) -> str:
        errors = [d for d in self.diagnostics if d.severity == "error"] or list(self.diagnostics)
        if errors:
            first = str(errors[0])
            more = len(errors) - 1
            return first + (f" (and {more} more)" if more else "")
        detail = self.stderr.strip().splitlines()
        return f"tunespec exited with status {self.status}" + (f": {detail[-1]}" if detail else "")

    @property
    def errors(self) -> Tuple[Diagnostic, ...]:
        """The diagnostics of severity `error`."""
        return tuple(d for d in self.diagnostics if d.severity == "error")


class ProblemsError(Error):
    """Exit 1: problems found in the inputs (specs, payloads, a registry or config)."""


class UsageError(Error):
    """Exit 2: usage or I/O error (bad arguments, missing files, an unknown target)."""


class MismatchError(Error):
    """Exit 3: `explain(..., exact=True)` found a config IREE set other than predicted."""


class TunespecWarning(UserWarning):
    """A warning diagnostic of a command that succeeded (issued with `warnings.warn`)."""


_BY_STATUS: Dict[int, Type[Error]] = {1: ProblemsError, 2: UsageError, 3: MismatchError}


def error_for(status: int) -> Type[Error]:
    """The exception class for an exit status."""
    return _BY_STATUS.get(status, Error)
