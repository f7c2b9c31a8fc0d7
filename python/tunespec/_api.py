"""The API: each function runs the bundled binary once, with `--format json`, and returns objects.

Inputs (payloads, specs, paths to verify) are paths or contents:

- a `pathlib.Path` (any `os.PathLike`) is a path;
- `bytes` are a file's contents (MLIR text or bytecode);
- a `str` is MLIR text when it holds a newline or a `{` (every MLIR module does), else a path.

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
from ._errors import Error, TunespecWarning, error_for
from ._bench_types import BenchReport
from ._check_types import CheckReport
from ._types import Diagnostic, Explanation, Resolution, Target, VerifyReport

Input = Union[str, bytes, "os.PathLike[str]"]
"""A path, or a file's contents (see the module's docstring)."""

_BYTECODE_MAGIC = b"ML\xefR"


def _is_text(value: str) -> bool:
    return "\n" in value or "{" in value


class _Staging:
    """Turns inputs into command-line arguments: paths as they are, contents on stdin or in
    temporary files (removed by `close`)."""

    def __init__(self) -> None:
        self.stdin: Optional[bytes] = None
        self._dir: Optional[tempfile.TemporaryDirectory[str]] = None
        self._count = 0

    def arg(self, value: Input) -> str:
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, str):
            if not _is_text(value):
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
        suffix = ".mlirbc" if data.startswith(_BYTECODE_MAGIC) else ".mlir"
        path = os.path.join(self._dir.name, f"input{self._count}{suffix}")
        with open(path, "wb") as file:
            file.write(data)
        return path

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> "_Staging":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class _Result:
    command: Tuple[str, ...]
    status: int
    stdout: bytes
    diagnostics: Tuple[Diagnostic, ...]
    stderr: str


def _parse_diagnostic_lines(text: str) -> Tuple[List[Diagnostic], List[str]]:
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


def _run(args: Sequence[str], stdin: Optional[bytes] = None) -> _Result:
    command = (find_binary(), *args)
    proc = subprocess.run(
        command,
        input=stdin if stdin is not None else b"",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    diagnostics, other = _parse_diagnostic_lines(stderr)
    return _Result(command, proc.returncode, proc.stdout, tuple(diagnostics), "\n".join(other))


def _raise(result: _Result, extra: Sequence[Diagnostic] = ()) -> None:
    cls = error_for(result.status)
    raise cls(result.status, (*extra, *result.diagnostics), result.command, result.stderr)


def _check(result: _Result) -> _Result:
    """Raises for a nonzero status; warns (`TunespecWarning`) for each warning diagnostic."""
    if result.status != 0:
        _raise(result)
    for diagnostic in result.diagnostics:
        if diagnostic.severity == "warning":
            warnings.warn(str(diagnostic), TunespecWarning, stacklevel=3)
    return result


def _derived_args(derived: Optional[bool]) -> List[str]:
    # None: configs and TUNESPEC_DERIVED decide (measured first when none says).
    if derived is None:
        return []
    return ["--derived"] if derived else ["--no-derived"]


def _library_args(
    staging: _Staging,
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
    return args + _derived_args(derived)


def link(
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    emit: str = "mlir",
    *,
    dedupe: bool = False,
    deny_warnings: bool = False,
    derived: Optional[bool] = None,
) -> Union[str, bytes]:
    """Link the user's `specs` (highest priority first) and the target's default specs into one
    library, as `tunespec link` does.

    `target`: an architecture, SKU or alias (`"gfx942"`, `"mi300x"`); without one only `specs`
    are linked. `default=False` leaves the target's defaults out. Measured first: the target's
    defaults derived by rule (never measured: all of tunespec's today) are linked only with
    `derived=True` (`--derived`); `derived=False` is `--no-derived`, and `None` leaves it to
    `derived` in the configs and `TUNESPEC_DERIVED`. `emit="mlir"` returns the
    library as text (`str`), `emit="mlirbc"` as MLIR bytecode (`bytes`). `dedupe` drops matchers
    that can never fire; `deny_warnings` turns warnings into `ProblemsError`. Warnings of a
    successful link are issued as `TunespecWarning`.
    """
    if emit not in ("mlir", "mlirbc"):
        raise ValueError(f"emit must be 'mlir' or 'mlirbc', not {emit!r}")
    with _Staging() as staging:
        args = ["link", "--format=json", "--output=-", f"--emit={emit}"]
        args += _library_args(staging, target, specs, default, derived)
        if dedupe:
            args.append("--dedupe")
        if deny_warnings:
            args.append("--deny-warnings")
        result = _check(_run(args, staging.stdin))
    if emit == "mlirbc":
        return result.stdout
    return result.stdout.decode("utf-8")


def attach(
    payload: Input,
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    attr: Optional[str] = None,
    blob: str = "dense",
    derived: Optional[bool] = None,
) -> Union[str, bytes]:
    """Link a library (as `link` does) and attach it to `payload` as
    `iree_codegen.tuning_spec_mlirbc` (or `attr`), as `tunespec attach` does.

    Returns the payload with the library: `str` for a text payload, `bytes` when the output is
    bytecode. `blob="resource"` stores the library as a `dense_resource` blob.
    """
    with _Staging() as staging:
        args = ["attach", "--format=json", "--output=-", f"--blob={blob}"]
        args += _library_args(staging, target, specs, default, derived)
        if attr is not None:
            args.append(f"--attr={attr}")
        args += ["--", staging.arg(payload)]
        result = _check(_run(args, staging.stdin))
    if result.stdout.startswith(_BYTECODE_MAGIC):
        return result.stdout
    return result.stdout.decode("utf-8")


def explain(
    payload: Input,
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    view: str = "dispatch",
    exact: bool = False,
    derived: Optional[bool] = None,
) -> Explanation:
    """Every candidate op of `payload`, the config it gets and the matcher (with its spec line)
    that set it, as `tunespec explain --format json` reports it.

    The library is linked for `target` and `specs` (as `link` does), or, with neither, the one
    attached to the payload. `view="written"` matches the ops as written instead of as IREE's
    dispatches hold them. `exact=True` also runs IREE's configuration phase (the user's IREE)
    and raises `MismatchError` when IREE set another config than predicted. `derived` as in
    `link`; without it, `provenance.derived_withheld` lists the ops a derived default would
    configure.
    """
    with _Staging() as staging:
        args = ["explain", "--format=json", f"--view={view}"]
        args += _library_args(staging, target, specs, default, derived)
        if exact:
            args.append("--exact")
        args += ["--", staging.arg(payload)]
        result = _check(_run(args, staging.stdin))
    return Explanation.from_json(json.loads(result.stdout), result.diagnostics)


def verify(
    paths: Union[Input, Iterable[Input]] = (),
    *,
    target: Optional[str] = None,
    backend: Optional[str] = None,
    deny_warnings: bool = False,
    iree_check: bool = True,
) -> VerifyReport:
    """Verify spec files and directories (no paths: the embedded registry), as
    `tunespec verify --format json` does.

    Problems in the specs are the result, not an exception: the report holds every diagnostic
    and the counts (`report.ok` is `errors == 0`). Raises `UsageError` for missing or unreadable
    paths and bad arguments. `target`/`backend` choose the IREE backend the specs are for;
    `iree_check=False` skips the iree-opt attribute check.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    with _Staging() as staging:
        args = ["verify", "--format=json"]
        if target is not None:
            args.append(f"--target={target}")
        if backend is not None:
            args.append(f"--backend={backend}")
        if deny_warnings:
            args.append("--deny-warnings")
        if not iree_check:
            args.append("--no-iree-check")
        inputs = [staging.arg(path) for path in paths]
        if inputs:
            args += ["--", *inputs]
        result = _run(args, staging.stdin)
    if result.status not in (0, 1):
        _raise(result)
    findings: List[Diagnostic] = []
    summary = None
    for line in result.stdout.decode("utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        else:
            findings.append(Diagnostic.from_json(obj))
    if summary is None:
        # A failure before any file was read (a broken project config, say) has no summary.
        if result.status != 0:
            _raise(result, findings)
        summary = {"files": 0, "matchers": 0, "errors": 0, "warnings": 0}
    return VerifyReport(
        diagnostics=tuple(findings),
        files=summary["files"],
        matchers=summary["matchers"],
        errors=summary["errors"],
        warnings=summary["warnings"],
        notes=result.diagnostics,
    )


def resolve(
    target: str, specs: Iterable[Input] = (), *, derived: Optional[bool] = None
) -> Resolution:
    """The target's fallback chain and the ordered specs a compile for it uses (user specs,
    configs, defaults), each with where it comes from, why and its provenance, as `tunespec
    resolve` reports. `derived` as in `link` (withheld defaults are in `skipped`)."""
    if isinstance(specs, (str, bytes, os.PathLike)):
        specs = [specs]
    with _Staging() as staging:
        args = ["resolve", "--format=json"]
        args += [f"--spec={staging.arg(spec)}" for spec in specs]
        args += _derived_args(derived)
        args += ["--", target]
        result = _check(_run(args, staging.stdin))
    return Resolution.from_json(json.loads(result.stdout))


def check(
    paths: Iterable["os.PathLike[str] | str"],
    target: Optional[str] = None,
    *,
    fix: bool = False,
    jobs: Optional[int] = None,
) -> CheckReport:
    """Re-check every matcher of spec files, directories or spec libraries against the
    installed IREE (its compiler library), as `tunespec check --format json` does: it parses, its
    config lands on a payload of its key, the full compile succeeds. `fix=True` migrates known
    syntax changes in place first (atomically; `CheckReport.fixes` lists each edit). Failing
    matchers are in the report (`CheckReport.ok` is False); no IREE or a bad path raises
    `UsageError`."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = ["check", "--format=json"]
    if target is not None:
        args.append(f"--target={target}")
    if fix:
        args.append("--fix")
    if jobs is not None:
        args.append(f"--jobs={jobs}")
    args += ["--", *(os.fspath(path) for path in paths)]
    result = _run(args)
    if result.status not in (0, 1) or not result.stdout.strip():
        _raise(result)
    return CheckReport.from_json(json.loads(result.stdout))


def import_tuner(
    runs: Iterable["os.PathLike[str] | str"],
    target: str,
    output: "os.PathLike[str] | str",
) -> List[str]:
    """Import SHARK tuner run directories into the spec library `output` (created, or merged
    into by matcher key, the faster measurement winning), as `tunespec import-tuner` does. Returns
    its report lines (what was imported, replaced or skipped); a broken run raises
    `ProblemsError` and writes nothing."""
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    args = ["import-tuner", f"--target={target}", f"--output={os.fspath(output)}", "--"]
    args += [os.fspath(run) for run in runs]
    result = _check(_run(args))
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    lines += [line for line in result.stdout.decode("utf-8").splitlines() if line.strip()]
    return lines


def bench(
    payloads: Iterable[Input] = (),
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    *,
    default: bool = True,
    derived: Optional[bool] = None,
    device: str = "local-task",
    rounds: int = 3,
    repetitions: int = 5,
    min_time: float = 0.2,
    jobs: Optional[int] = None,
    dispatches: bool = False,
    write: Optional[Union[str, "os.PathLike[str]"]] = None,
    shard: Optional[Tuple[int, int]] = None,
    iree: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> BenchReport:
    """Time the library's configs against IREE's own on `device` with the installed IREE's
    compiler and runtime, as `tunespec bench --format json` does: each payload (or, with none,
    each matcher of the library on its own payload) compiled both ways, outputs compared, runs
    interleaved; `write` merges the winners into a measured library. Failed or wrong-output rows
    are in the report (the call still returns); no IREE runtime, an unknown device or bad
    options raise `UsageError`. `iree` names IREE's compiler (a venv, or its library), as
    `--iree` does."""
    with _Staging() as staging:
        args: List[str] = []
        if iree is not None:
            args.append(f"--iree={os.fspath(iree)}")
        args += ["bench", "--format=json", f"--device={device}"]
        args += [f"--rounds={rounds}", f"--repetitions={repetitions}", f"--min-time={min_time}"]
        args += _library_args(staging, target, specs, default, derived)
        if jobs is not None:
            args.append(f"--jobs={jobs}")
        if dispatches:
            args.append("--dispatches")
        if write is not None:
            args.append(f"--write={os.fspath(write)}")
        if shard is not None:
            args.append(f"--shard={shard[0]}/{shard[1]}")
        if isinstance(payloads, (str, bytes, os.PathLike)):
            payloads = [payloads]
        names = [staging.arg(payload) for payload in payloads]
        args += ["--", *names]
        result = _run(args, staging.stdin)
    if result.status not in (0, 1) or not result.stdout.strip():
        _raise(result)
    return BenchReport.from_json(json.loads(result.stdout))


def targets() -> List[Target]:
    """The embedded registry: every target with its fallback, aliases and default specs."""
    result = _check(_run(["targets", "--format=json"]))
    return [
        Target.from_json(json.loads(line))
        for line in result.stdout.decode("utf-8").splitlines()
        if line.strip()
    ]


def version() -> str:
    """The binary's `--version` line (`tunespec 0.1.0 (MLIR 22.1.8, bytecode v6)`)."""
    result = _run(["--version"])
    if result.status != 0:
        _raise(result)
    return result.stdout.decode("utf-8").strip()


__all__ = [
    "Error",
    "Input",
    "attach",
    "bench",
    "explain",
    "link",
    "resolve",
    "targets",
    "verify",
    "version",
]
