"""The API: each function runs the bundled binary once, with `--format json`, and returns objects.

Inputs are paths or contents (see `_runner`: a `pathlib.Path` is a path, `bytes` are contents,
a `str` is MLIR text when it looks like MLIR and is no existing path). Every function takes
`iree=` (IREE's compiler: a venv, its `iree` package or `libIREECompiler.so`), as the CLI's
`--iree`; without it the IREE this interpreter imports is used (see `_iree`).
"""

from __future__ import annotations

import decimal
import json
import os
from typing import Iterable, List, Literal, Optional, Tuple, Union, overload

from ._bench_types import BenchReport
from ._check_types import CheckReport
from ._errors import Error
from ._tune_types import TuneCompileReport, TuneReport
from ._literals import Blob, Dispatches, Emit, Engine, View
from ._runner import (
    BYTECODE_MAGIC,
    Input,
    PathArg,
    Staging,
    check as _check,
    derived_args,
    library_args as _library_args,
    paths as _paths,
    raise_for as _raise,
    run as _run,
)
from ._types import Diagnostic, Explanation, Resolution, Target, VerifyReport

_Staging = Staging


@overload
def link(
    target: Optional[str] = ...,
    specs: Iterable[Input] = ...,
    default: bool = ...,
    emit: Literal["mlir"] = ...,
    *,
    dedupe: bool = ...,
    deny_warnings: bool = ...,
    derived: Optional[bool] = ...,
    jobs: Optional[int] = ...,
    iree: Optional[PathArg] = ...,
) -> str: ...


@overload
def link(
    target: Optional[str],
    specs: Iterable[Input],
    default: bool,
    emit: Literal["mlirbc"],
    *,
    dedupe: bool = ...,
    deny_warnings: bool = ...,
    derived: Optional[bool] = ...,
    jobs: Optional[int] = ...,
    iree: Optional[PathArg] = ...,
) -> bytes: ...


@overload
def link(
    target: Optional[str] = ...,
    specs: Iterable[Input] = ...,
    default: bool = ...,
    *,
    emit: Literal["mlirbc"],
    dedupe: bool = ...,
    deny_warnings: bool = ...,
    derived: Optional[bool] = ...,
    jobs: Optional[int] = ...,
    iree: Optional[PathArg] = ...,
) -> bytes: ...


def link(
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    emit: Emit = "mlir",
    *,
    dedupe: bool = False,
    deny_warnings: bool = False,
    derived: Optional[bool] = None,
    jobs: Optional[int] = None,
    iree: Optional[PathArg] = None,
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
    successful link are issued as `TunespecWarning`. `jobs` caps the threads.
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
        if jobs is not None:
            args.append(f"--jobs={jobs}")
        result = _check(_run(args, staging.stdin, iree))
    if emit == "mlirbc":
        return result.stdout
    return result.stdout.decode("utf-8")


@overload
def attach(
    payload: Input,
    target: Optional[str] = ...,
    specs: Iterable[Input] = ...,
    default: bool = ...,
    *,
    attr: Optional[str] = ...,
    blob: Blob = ...,
    derived: Optional[bool] = ...,
    emit: Literal["mlir"],
    keep_all: bool = ...,
    iree: Optional[PathArg] = ...,
) -> str: ...


@overload
def attach(
    payload: Input,
    target: Optional[str] = ...,
    specs: Iterable[Input] = ...,
    default: bool = ...,
    *,
    attr: Optional[str] = ...,
    blob: Blob = ...,
    derived: Optional[bool] = ...,
    emit: Literal["mlirbc"],
    keep_all: bool = ...,
    iree: Optional[PathArg] = ...,
) -> bytes: ...


@overload
def attach(
    payload: Input,
    target: Optional[str] = ...,
    specs: Iterable[Input] = ...,
    default: bool = ...,
    *,
    attr: Optional[str] = ...,
    blob: Blob = ...,
    derived: Optional[bool] = ...,
    emit: None = ...,
    keep_all: bool = ...,
    iree: Optional[PathArg] = ...,
) -> Union[str, bytes]: ...


def attach(
    payload: Input,
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    attr: Optional[str] = None,
    blob: Blob = "dense",
    derived: Optional[bool] = None,
    emit: Optional[Emit] = None,
    keep_all: bool = False,
    iree: Optional[PathArg] = None,
) -> Union[str, bytes]:
    """Link a library (as `link` does) and attach it to `payload` as
    `iree_codegen.tuning_spec_mlirbc` (or `attr`), as `tunespec attach` does.

    Returns the payload with the library in the payload's own form: `str` for a text payload,
    `bytes` for bytecode. `emit="mlir"` or `"mlirbc"` states which the caller expects (and types
    the result): another form raises `ValueError`. `blob="resource"` stores the library as a
    `dense_resource` blob. A library of 64 pairs or more is cut down to the pairs that fire on
    the payload (iree-compile pays for every matcher on every op); `keep_all=True` attaches it
    whole.
    """
    with Staging() as staging:
        args = ["attach", "--format=json", "--output=-", f"--blob={blob}"]
        args += _library_args(staging, target, specs, default, derived)
        if attr is not None:
            args.append(f"--attr={attr}")
        if keep_all:
            args.append("--keep-all")
        args += ["--", staging.arg(payload)]
        result = _check(_run(args, staging.stdin, iree))
    is_bytecode = result.stdout.startswith(BYTECODE_MAGIC)
    if emit is not None and (emit == "mlirbc") != is_bytecode:
        found = "bytecode" if is_bytecode else "text"
        raise ValueError(f"attach wrote {found} (the payload's form), not emit={emit!r}")
    if is_bytecode:
        return result.stdout
    return result.stdout.decode("utf-8")


def explain(
    payload: Input,
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    view: View = "dispatch",
    exact: bool = False,
    derived: Optional[bool] = None,
    dispatches: Optional[Dispatches] = None,
    attr: Optional[str] = None,
    engine: Optional[Engine] = None,
    iree: Optional[PathArg] = None,
) -> Explanation:
    """Every candidate op of `payload`, the config it gets and the matcher (with its spec line)
    that set it, as `tunespec explain --format json` reports it.

    The library is linked for `target` and `specs` (as `link` does), or, with neither, the one
    attached to the payload. `view="written"` matches the ops as written instead of as IREE's
    dispatches hold them. `exact=True` also runs IREE's configuration phase (the user's IREE)
    and raises `MismatchError` when IREE set another config than predicted. `derived` as in
    `link`; without it, `provenance.derived_withheld` lists the ops a derived default would
    configure. `dispatches` chooses who forms the dispatches (`"iree"`: IREE's own front end,
    `"predict"`: tunespec's prediction, `"auto"`/None: IREE for models); `attr` names the
    attribute an attached library is read from; `engine` what runs the matchers.
    """
    with _Staging() as staging:
        args = ["explain", "--format=json", f"--view={view}"]
        args += _library_args(staging, target, specs, default, derived)
        if exact:
            args.append("--exact")
        if dispatches is not None:
            args.append(f"--dispatches={dispatches}")
        if attr is not None:
            args.append(f"--attr={attr}")
        if engine is not None:
            args.append(f"--engine={engine}")
        args += ["--", staging.arg(payload)]
        result = _check(_run(args, staging.stdin, iree))
    return Explanation.from_json(json.loads(result.stdout), result.diagnostics)


def verify(
    paths: Union[Input, Iterable[Input]] = (),
    *,
    target: Optional[str] = None,
    backend: Optional[str] = None,
    deny_warnings: bool = False,
    iree_check: bool = True,
    iree: Optional[PathArg] = None,
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
        result = _run(args, staging.stdin, iree)
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
    target: str,
    specs: Iterable[Input] = (),
    *,
    derived: Optional[bool] = None,
    iree: Optional[PathArg] = None,
) -> Resolution:
    """The target's fallback chain and the ordered specs a compile for it uses (user specs,
    configs, defaults), each with where it comes from, why and its provenance, as `tunespec
    resolve` reports. `derived` as in `link` (withheld defaults are in `skipped`)."""
    if isinstance(specs, (str, bytes, os.PathLike)):
        specs = [specs]
    with _Staging() as staging:
        args = ["resolve", "--format=json"]
        args += [f"--spec={staging.arg(spec)}" for spec in specs]
        args += derived_args(derived)
        args += ["--", target]
        result = _check(_run(args, staging.stdin, iree))
    return Resolution.from_json(json.loads(result.stdout))


def check(
    paths: Union[PathArg, Iterable[PathArg]],
    target: Optional[str] = None,
    *,
    fix: bool = False,
    jobs: Optional[int] = None,
    iree: Optional[PathArg] = None,
    require_iree: bool = True,
) -> CheckReport:
    """Re-check every matcher of spec files, directories or spec libraries against the
    installed IREE (its compiler library), as `tunespec check --format json` does: it parses, its
    config lands on a payload of its key, the full compile succeeds. `fix=True` migrates known
    syntax changes in place first (atomically; `CheckReport.fixes` lists each edit). Failing
    matchers are in the report (`CheckReport.ok` is False); no IREE or a bad path raises
    `UsageError`. `require_iree=False` accepts a machine without IREE: the files are then only
    parsed with tunespec's own MLIR (the CLI's default; a program asking for a check is asking
    IREE, so the API's default is to require it)."""
    args = ["check", "--format=json"]
    if require_iree:
        args.append("--require-iree")
    if target is not None:
        args.append(f"--target={target}")
    if fix:
        args.append("--fix")
    if jobs is not None:
        args.append(f"--jobs={jobs}")
    args += ["--", *_paths(paths)]
    result = _run(args, None, iree)
    if result.status not in (0, 1) or not result.stdout.strip():
        _raise(result)
    return CheckReport.from_json(json.loads(result.stdout))


def bench(
    payloads: Iterable[Input] = (),
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    *,
    default: bool = True,
    derived: Optional[bool] = None,
    device: str = "local-task",
    rounds: int = 10,
    max_rounds: int = 40,
    budget: Optional[float] = None,
    repetitions: int = 3,
    min_time: float = 0.2,
    jobs: Optional[int] = None,
    dispatches: bool = False,
    write: Optional[PathArg] = None,
    shard: Optional[Tuple[int, int]] = None,
    iree: Optional[PathArg] = None,
) -> BenchReport:
    """Time the library's configs against IREE's own on `device` with the installed IREE's
    compiler and runtime, as `tunespec bench --format json` does: each payload (or, with none,
    each matcher of the library on its own payload) compiled both ways, outputs compared, runs
    interleaved in paired rounds (`rounds` before the first look, up to `max_rounds` or `budget`
    seconds while unsettled); `write` merges the winners into a measured library. Failed or wrong-output rows
    are in the report (the call still returns); no IREE runtime, an unknown device or bad
    options raise `UsageError`. `iree` names IREE's compiler (a venv, or its library), as
    `--iree` does."""
    with _Staging() as staging:
        args: List[str] = ["bench", "--format=json", f"--device={device}"]
        args += [f"--rounds={rounds}", f"--max-rounds={max_rounds}"]
        args += [f"--repetitions={repetitions}", f"--min-time={min_time}"]
        if budget is not None:
            args.append(f"--budget={budget}")
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
        result = _run(args, staging.stdin, iree)
    if result.status not in (0, 1) or not result.stdout.strip():
        _raise(result)
    return BenchReport.from_json(json.loads(result.stdout))


@overload
def tune(
    payload: Optional[Input],
    target: str,
    output: PathArg,
    *,
    specs: Iterable[Input] = ...,
    budget: Optional[float] = ...,
    max_candidates: int = ...,
    screen_rounds: int = ...,
    device: str = ...,
    rounds: int = ...,
    max_rounds: int = ...,
    repetitions: int = ...,
    min_time: float = ...,
    alpha: float = ...,
    min_effect: float = ...,
    shard: Optional[Tuple[int, int]] = ...,
    jobs: Optional[int] = ...,
    solutions: Optional[int] = ...,
    order: Optional[str] = ...,
    dispatches: Iterable[str] = ...,
    keys: Iterable[PathArg] = ...,
    iree_flags: Iterable[str] = ...,
    compile_only: Literal[False] = ...,
    iree: Optional[PathArg] = ...,
) -> TuneReport: ...


@overload
def tune(
    payload: Optional[Input],
    target: str,
    output: PathArg,
    *,
    specs: Iterable[Input] = ...,
    budget: Optional[float] = ...,
    max_candidates: int = ...,
    screen_rounds: int = ...,
    device: str = ...,
    rounds: int = ...,
    max_rounds: int = ...,
    repetitions: int = ...,
    min_time: float = ...,
    alpha: float = ...,
    min_effect: float = ...,
    shard: Optional[Tuple[int, int]] = ...,
    jobs: Optional[int] = ...,
    solutions: Optional[int] = ...,
    order: Optional[str] = ...,
    dispatches: Iterable[str] = ...,
    keys: Iterable[PathArg] = ...,
    iree_flags: Iterable[str] = ...,
    compile_only: Literal[True],
    iree: Optional[PathArg] = ...,
) -> TuneCompileReport: ...


def tune(
    payload: Optional[Input],
    target: str,
    output: PathArg,
    *,
    specs: Iterable[Input] = (),
    budget: Optional[float] = None,
    max_candidates: int = 32,
    screen_rounds: int = 3,
    device: str = "local-task",
    rounds: int = 10,
    max_rounds: int = 40,
    repetitions: int = 3,
    min_time: float = 0.2,
    alpha: float = 0.01,
    min_effect: float = 0.01,
    shard: Optional[Tuple[int, int]] = None,
    jobs: Optional[int] = None,
    solutions: Optional[int] = None,
    order: Optional[str] = None,
    dispatches: Iterable[str] = (),
    keys: Iterable[PathArg] = (),
    iree_flags: Iterable[str] = (),
    compile_only: bool = False,
    iree: Optional[PathArg] = None,
) -> Union[TuneReport, TuneCompileReport]:
    """Search configs faster than IREE's own for the contraction dispatches of `payload` on
    `device`, as `tunespec tune --format json` does, and return its report (`TuneReport`): for
    each dispatch, IREE's own config (candidate 0), the linked library's (from `specs`, when
    another) and up to `max_candidates` from IREE's space, each compiled, its outputs checked,
    screened with `screen_rounds` paired rounds; the screen's best confirmed with `rounds` up
    to `max_rounds` and bench's rule (`alpha`, `min_effect`). The winners are written to
    `output`/library (with the journal, `report.json` and `report.svg`; the same call after an
    interruption resumes from the journal). `budget` is this run's seconds, `shard` (K, N)
    searches the dispatches of share K of N, `jobs` caps the compiles at once, `iree_flags` are
    extra iree-compile flags, `solutions` the most solutions of a GPU pipeline's constraints,
    `order` the order candidates are taken in (`model`, the default; `nearest`, llvm-cpu only;
    `random`), `dispatches` patterns selecting the dispatches to search (their key or
    function name contains one; all by default). With `payload=None`, `keys` (spec files,
    directories, libraries) are tuned instead of a model (`--keys`: each root matcher an op of
    its shape, the ops together the model, written to `output`/keys-model.mlir).

    `compile_only=True` (`--compile-only`, a GPU target on a machine without its GPU) generates
    and compiles every candidate, times none, and returns a `TuneCompileReport`.

    A report where nothing could be tuned (exit 1: no contraction dispatch, no candidate
    compiled, the budget spent first) is still returned; IREE or its runtime missing, a GPU
    target without its device or `compile_only`, another tune's journal in `output` or bad
    options raise `UsageError`."""
    with _Staging() as staging:
        args: List[str] = ["tune", "--format=json", f"--target={target}"]
        args += [f"--output={os.fspath(output)}", f"--device={device}"]
        if isinstance(specs, (str, bytes, os.PathLike)):
            specs = [specs]
        args += [f"--spec={staging.arg(spec)}" for spec in specs]
        if budget is not None:
            # Seconds in positional notation: the CLI's durations have no exponent.
            args.append(f"--budget={decimal.Decimal(repr(float(budget))):f}")
        args += [f"--max-candidates={max_candidates}", f"--screen-rounds={screen_rounds}"]
        args += [f"--rounds={rounds}", f"--max-rounds={max_rounds}"]
        args += [f"--repetitions={repetitions}", f"--min-time={min_time}"]
        args += [f"--alpha={alpha}", f"--min-effect={min_effect}"]
        if shard is not None:
            args.append(f"--shard={shard[0]}/{shard[1]}")
        if jobs is not None:
            args.append(f"--jobs={jobs}")
        if solutions is not None:
            args.append(f"--solutions={solutions}")
        if order is not None:
            args.append(f"--order={order}")
        if isinstance(dispatches, str):
            dispatches = [dispatches]
        args += [f"--dispatch={pattern}" for pattern in dispatches]
        if isinstance(iree_flags, str):
            iree_flags = [iree_flags]
        args += [f"--iree-flag={flag}" for flag in iree_flags]
        if compile_only:
            args.append("--compile-only")
        if isinstance(keys, (str, os.PathLike)):
            keys = [keys]
        args += [f"--keys={os.fspath(library)}" for library in keys]
        if payload is not None:
            args += ["--", staging.arg(payload)]
        result = _run(args, staging.stdin, iree)
    if result.status not in (0, 1) or not result.stdout.strip():
        _raise(result)
    document = json.loads(result.stdout)
    if compile_only:
        return TuneCompileReport.from_json(document)
    return TuneReport.from_json(document)


def targets() -> List[Target]:
    """The embedded registry: every target with its fallback, aliases and default specs."""
    result = _check(_run(["targets", "--format=json"], iree=None))
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
    "Diagnostic",
    "Error",
    "Input",
    "attach",
    "bench",
    "check",
    "explain",
    "link",
    "resolve",
    "targets",
    "tune",
    "verify",
    "version",
]
