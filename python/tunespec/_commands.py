"""The API's other commands: apply, coverage, extract, show, export, doctor, import_iree,
import_tuner and the cache. Each runs the binary once (see `_api`); `iree=` as everywhere."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, List, Literal, Optional, Union, overload

from ._command_types import CacheStats, Coverage, Doctor, ImportReport
from ._literals import Dispatches, Emit, Engine, View
from ._runner import (
    BYTECODE_MAGIC,
    Input,
    PathArg,
    Staging,
    check,
    library_args,
    paths,
    run,
    usage_error,
)


def _text_or_bytes(data: bytes) -> Union[str, bytes]:
    return data if data.startswith(BYTECODE_MAGIC) else data.decode("utf-8")


def apply(
    payload: Input,
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    derived: Optional[bool] = None,
    keep_attr: bool = False,
    attr: Optional[str] = None,
    engine: Optional[Engine] = None,
    as_dispatch: bool = False,
    dispatches: Optional[Dispatches] = None,
    iree: Optional[PathArg] = None,
) -> Union[str, bytes]:
    """Materialize configs, as `tunespec apply` does: run the library's `@__kernel_config` on
    each function of `payload` and return the payload with `lowering_config`s set (`str` for
    a text payload, `bytes` for bytecode). The library is linked for `target` and `specs` (as
    `link` does), or is the one attached to the payload (`attr`; dropped unless `keep_attr`).
    `as_dispatch` applies to IREE's dispatch view of the payload (`dispatches` says who forms
    it)."""
    with Staging() as staging:
        args = ["apply", "--format=json", "--output=-"]
        args += library_args(staging, target, specs, default, derived)
        if keep_attr:
            args.append("--keep-attr")
        if attr is not None:
            args.append(f"--attr={attr}")
        if engine is not None:
            args.append(f"--engine={engine}")
        if as_dispatch:
            args.append("--as-dispatch")
        if dispatches is not None:
            args.append(f"--dispatches={dispatches}")
        args += ["--", staging.arg(payload)]
        result = check(run(args, staging.stdin, iree))
    return _text_or_bytes(result.stdout)


def coverage(
    payloads: Union[Input, Iterable[Input]],
    target: Optional[str] = None,
    specs: Iterable[Input] = (),
    default: bool = True,
    *,
    derived: Optional[bool] = None,
    view: View = "dispatch",
    dispatches: Optional[Dispatches] = None,
    iree: Optional[PathArg] = None,
) -> Coverage:
    """The library's matchers that never fire across a corpus of payloads (and what overrode
    each), as `tunespec coverage --format json` reports them."""
    if isinstance(payloads, (str, bytes, os.PathLike)):
        payloads = [payloads]
    with Staging() as staging:
        args = ["coverage", "--format=json", f"--view={view}"]
        args += library_args(staging, target, specs, default, derived)
        if dispatches is not None:
            args.append(f"--dispatches={dispatches}")
        names = [staging.arg(payload) for payload in payloads]
        if not names:
            usage_error("no payloads given", "pass one payload or several")
        args += ["--", *names]
        result = check(run(args, staging.stdin, iree))
    return Coverage.from_json(json.loads(result.stdout))


@overload
def extract(
    payload: Input,
    *,
    emit: Literal["mlir"] = ...,
    attr: Optional[str] = ...,
    iree: Optional[PathArg] = ...,
) -> str: ...


@overload
def extract(
    payload: Input,
    *,
    emit: Literal["mlirbc"],
    attr: Optional[str] = ...,
    iree: Optional[PathArg] = ...,
) -> bytes: ...


def extract(
    payload: Input,
    *,
    emit: Emit = "mlir",
    attr: Optional[str] = None,
    iree: Optional[PathArg] = None,
) -> Union[str, bytes]:
    """The library attached to `payload` (`iree_codegen.tuning_spec_mlirbc`, or `attr`), as
    MLIR text (`emit="mlir"`, a `str`) or bytecode (`"mlirbc"`, `bytes`)."""
    if emit not in ("mlir", "mlirbc"):
        raise ValueError(f"emit must be 'mlir' or 'mlirbc', not {emit!r}")
    with Staging() as staging:
        args = ["extract", "--output=-", f"--emit={emit}"]
        if attr is not None:
            args.append(f"--attr={attr}")
        args += ["--", staging.arg(payload)]
        result = check(run(args, staging.stdin, iree))
    return result.stdout if emit == "mlirbc" else result.stdout.decode("utf-8")


def show(target: str, *, iree: Optional[PathArg] = None) -> str:
    """A target's embedded default specs as MLIR text, as `tunespec show` prints them."""
    return check(run(["show", "--", target], None, iree)).stdout.decode("utf-8")


def export(
    output: PathArg, targets: Iterable[str] = (), *, iree: Optional[PathArg] = None
) -> List[Path]:
    """Write the embedded specs (of `targets`, or all) as a C header and source into the
    directory `output` (created), as `tunespec export` does. Returns the files written."""
    if isinstance(targets, str):
        targets = [targets]
    out = Path(os.fspath(output))
    before = set(out.iterdir()) if out.is_dir() else set()
    args = ["export", f"--output={out}", *(f"--target={t}" for t in targets)]
    check(run(args, None, iree))
    return sorted(p for p in out.iterdir() if p.is_file() and (p not in before or p.suffix in (".h", ".c")))


def doctor(*, iree: Optional[PathArg] = None) -> Doctor:
    """What tunespec finds on this machine (IREE's compiler and runtime, iree-opt, mlir-opt),
    as `tunespec doctor --format json` reports it: `doctor().iree.path` is the IREE library
    the other functions use."""
    result = run(["doctor", "--format=json"], None, iree)
    if not result.stdout.strip():
        check(result)
    return Doctor.from_json(json.loads(result.stdout))


def import_iree(
    target: str,
    output: PathArg,
    *,
    iree_opt: Optional[PathArg] = None,
    iree: Optional[PathArg] = None,
) -> Path:
    """Write IREE's built-in default tuning specs for `target` (from the installed compiler) as
    a spec library `output`, as `tunespec import-iree` does. Returns the library's path."""
    args = ["import-iree", f"--target={target}", f"--output={os.fspath(output)}"]
    if iree_opt is not None:
        args.append(f"--iree-opt={os.fspath(iree_opt)}")
    check(run(args, None, iree))
    return Path(os.fspath(output))


def import_tuner(
    runs: Union[PathArg, Iterable[PathArg]],
    target: str,
    output: PathArg,
    *,
    iree: Optional[PathArg] = None,
) -> ImportReport:
    """Import SHARK tuner run directories into the spec library `output` (created, or merged
    into by matcher key, the faster measurement winning), as `tunespec import-tuner --format
    json` does. Returns per dispatch what was imported, replaced, kept or not beaten, with the
    winner's candidate and times. A broken run raises `ProblemsError` (with the CSV's file and
    line) and writes nothing; no runs or an unknown target raise `UsageError`."""
    names = paths(runs)
    if not names:
        usage_error("no tuner run directories given", "pass one run directory (tuning_<date>/) or several")
    args = ["import-tuner", "--format=json", f"--target={target}", f"--output={os.fspath(output)}"]
    result = check(run([*args, "--", *names], None, iree))
    return ImportReport.from_json(json.loads(result.stdout))


def cache_stats() -> CacheStats:
    """The cache of linked libraries: where, its mode, entries, bytes, hits and misses."""
    result = check(run(["cache", "stats", "--format=json"]))
    return CacheStats.from_json(json.loads(result.stdout))


def cache_clean(*, counters: bool = False) -> str:
    """Empty the cache of linked libraries (`counters`: reset the hit counters too). Returns
    what the command reports (`removed N entries from DIR`)."""
    result = check(run(["cache", "clean", *(["--counters"] if counters else [])]))
    return (result.stdout.decode("utf-8") or result.stderr).strip()


def cache_path() -> Path:
    """The cache's directory."""
    return Path(check(run(["cache", "path"])).stdout.decode("utf-8").strip())
