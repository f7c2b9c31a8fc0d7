"""Exceptions: one per exit status of the binary (docs/commands.md, "Exit status")."""

from __future__ import annotations

import re
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
            first = for_python(str(errors[0]))
            help = for_python(errors[0].help or "")
            if help:
                first += f" (help: {help})"
            more = len(errors) - 1
            return first + (f" (and {more} more)" if more else "")
        # No diagnostic (an argument the command line refused): its `error:` line, without
        # the command line's "try '--help'".
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        lines = [line for line in lines if "--help" not in line and not line.startswith("Usage:")]
        detail = next((line for line in lines if "error:" in line), lines[0] if lines else "")
        detail = for_python(detail.replace("tunespec: ", "", 1).replace("error: ", "", 1))
        return f"tunespec exited with status {self.status}" + (f": {detail}" if detail else "")

    @property
    def errors(self) -> Tuple[Diagnostic, ...]:
        """The diagnostics of severity `error`."""
        return tuple(d for d in self.diagnostics if d.severity == "error")


# The command line's flags in messages, as the API's keyword arguments name them.
_FLAGS = {
    "--target": "target",
    "--spec": "specs",
    "--iree": "iree",
    "--no-derived": "derived=False",
    "--derived": "derived=True",
    "--no-default": "default=False",
    "--dispatches": "dispatches",
    "--attr": "attr",
    "--jobs": "jobs",
}
_FLAG = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in _FLAGS) + r")(?![\w-])")


def for_python(text: str) -> str:
    """A message of the binary for Python: its flags named as the API's keyword arguments, the
    command line's usage lines ("Usage: ...", "try '--help'") left out."""
    lines = [
        line for line in text.splitlines()
        if "'--help'" not in line and not line.strip().startswith("Usage:")
    ]
    return _FLAG.sub(lambda m: _FLAGS[m.group(1)], "\n".join(lines)).strip()


class ProblemsError(Error):
    """Exit 1: problems found in the inputs (specs, payloads, a registry or config)."""


class UsageError(Error):
    """Exit 2: usage or I/O error (bad arguments, missing files, an unknown target)."""


class MismatchError(Error):
    """Exit 3: `explain(..., exact=True)` found a config IREE set other than predicted."""


class TunespecWarning(UserWarning):
    """A warning diagnostic of a command that succeeded (issued with `warnings.warn`)."""


class TunespecNote(TunespecWarning):
    """A note of a command that succeeded (a user matcher overriding a default, a measured
    matcher moved before a derived one): issued with `warnings.warn` like the warnings, in a
    category of its own so that it can be filtered apart."""


_BY_STATUS: Dict[int, Type[Error]] = {1: ProblemsError, 2: UsageError, 3: MismatchError}


def error_for(status: int) -> Type[Error]:
    """The exception class for an exit status."""
    return _BY_STATUS.get(status, Error)
