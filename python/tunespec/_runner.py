"""Running the binary: inputs staged as arguments, the run, its diagnostics, errors.

Inputs (payloads, specs, paths to verify) are paths or contents:

- a `pathlib.Path` (any `os.PathLike`) is a path;
- `bytes` are a file's contents (MLIR text or bytecode);
- a `str` is MLIR text when it is not an existing path and holds a newline or starts as MLIR
  does (`module`, `func.`, `#`, `//`, `!`, `%`, `"`, `builtin.`, `transform.`, `util.`), else
  a path (a path may contain `{`).

Contents reach the binary through stdin (`-`, named `<stdin>` in diagnostics) for the first one,
and through files in a temporary directory for the others.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from ._binary import find_binary
from ._errors import TunespecNote, TunespecWarning, error_for
from ._iree import child_env, iree_args
from ._types import Diagnostic

Input = Union[str, bytes, "os.PathLike[str]"]
"""A path, or a file's contents (see the module's docstring)."""

PathArg = Union[str, "os.PathLike[str]"]
"""A path."""

BYTECODE_MAGIC = b"ML\xefR"
_TEXT_STARTS = (
    "module", "func.", "#", "//", "!", "%", '"', "builtin.", "transform.", "util.",
)


def is_text(value: str) -> bool:
    """Whether a `str` input is MLIR text rather than a path."""
    if "\n" in value:
        return True
    if not value.lstrip().startswith(_TEXT_STARTS):
        return False
    try:
        return not os.path.exists(value)
    except (OSError, ValueError):
        return True


class Staging:
    """Turns inputs into command-line arguments: paths as they are, contents on stdin or in
    temporary files (removed by `close`)."""

    def __init__(self) -> None:
        self.stdin: Optional[bytes] = None
        self._dir: Optional["tempfile.TemporaryDirectory[str]"] = None
        self._count = 0

    def arg(self, value: Input) -> str:
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, str):
            if not is_text(value):
                return value
            data = value.encode("utf-8")
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
        else:
            raise TypeError(f"expected a path, str or bytes, not {type(value).__name__}")
        if self.stdin is None:
            self.stdin = data
            return "-"
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="tunespec-")
        self._count += 1
        suffix = ".mlirbc" if data.startswith(BYTECODE_MAGIC) else ".mlir"
        path = os.path.join(self._dir.name, f"input{self._count}{suffix}")
        with open(path, "wb") as file:
            file.write(data)
        return path

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Result:
    command: Tuple[str, ...]
    status: int
    stdout: bytes
    diagnostics: Tuple[Diagnostic, ...]
    stderr: str


def parse_diagnostic_lines(text: str) -> Tuple[List[Diagnostic], List[str]]:
    """JSON diagnostics, one per line; other lines (log records aside) are returned as text."""
    diagnostics: List[Diagnostic] = []
    other: List[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("{"):
            try:
                obj = json.loads(stripped)
            except ValueError:
                other.append(line)
                continue
            if isinstance(obj, dict) and "severity" in obj and "code" in obj:
                diagnostics.append(Diagnostic.from_json(obj))
                continue
            if isinstance(obj, dict) and "kind" in obj:  # a log record (TUNESPEC_LOG)
                continue
        other.append(line)
    return diagnostics, other


def run(
    args: Sequence[str], stdin: Optional[bytes] = None, iree: Optional[PathArg] = None
) -> Result:
    """Runs the binary with `args` (after the global `--iree`, see `_iree`)."""
    command = (find_binary(), *iree_args(iree), *args)
    proc = subprocess.run(
        command,
        input=stdin if stdin is not None else b"",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(iree),
        check=False,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    diagnostics, other = parse_diagnostic_lines(stderr)
    return Result(command, proc.returncode, proc.stdout, tuple(diagnostics), "\n".join(other))


def raise_for(result: Result, extra: Sequence[Diagnostic] = ()) -> None:
    cls = error_for(result.status)
    raise cls(result.status, (*extra, *result.diagnostics), result.command, result.stderr)


def usage_error(message: str, help: Optional[str] = None) -> None:
    """Raises `UsageError` for a bad argument the API itself caught (before any run)."""
    diagnostic = Diagnostic("error", "tunespec::usage", message, help=help)
    raise error_for(2)(2, (diagnostic,))


def check(result: Result) -> Result:
    """Raises for a nonzero status; warns (`TunespecWarning`) for each warning diagnostic and
    (`TunespecNote`) for each note: nothing the command said is dropped."""
    if result.status != 0:
        raise_for(result)
    for diagnostic in result.diagnostics:
        if diagnostic.severity == "warning":
            warnings.warn(str(diagnostic), TunespecWarning, stacklevel=3)
        elif diagnostic.severity == "note":
            warnings.warn(str(diagnostic), TunespecNote, stacklevel=3)
    return result


def derived_args(derived: Optional[bool]) -> List[str]:
    # None: configs and TUNESPEC_DERIVED decide (measured first when none says).
    if derived is None:
        return []
    return ["--derived"] if derived else ["--no-derived"]


def library_args(
    staging: Staging,
    target: Optional[str],
    specs: Iterable[Input],
    default: bool,
    derived: Optional[bool] = None,
) -> List[str]:
    if isinstance(specs, (str, bytes, os.PathLike)):
        specs = [specs]  # one spec given bare
    args: List[str] = []
    if target is not None:
        args.append(f"--target={target}")
    spec_args = [f"--spec={staging.arg(spec)}" for spec in specs]
    args += spec_args
    # Without a target there are no defaults to link: only the given specs.
    if not default or (target is None and spec_args):
        args.append("--no-default")
    return args + derived_args(derived)


def paths(values: Union[PathArg, Iterable[PathArg]]) -> List[str]:
    """One path or several, as arguments."""
    if isinstance(values, (str, os.PathLike)):
        return [os.fspath(values)]
    return [os.fspath(value) for value in values]
