"""tunespec: the registry and linker for MLIR transform-dialect tuning specs (IREE), from Python.

The wheel carries the `tunespec` binary (MLIR linked statically); these functions run it with
`--format json` and return typed objects (dataclasses whose fields are the JSON's, see
docs/schema/ in the repository):

>>> import tunespec
>>> library = tunespec.link(target="gfx942", derived=True)   # the linked library, MLIR text
>>> report = tunespec.explain("model.mlir", target="gfx942")
>>> [(op.op, op.matcher) for op in report.ops]

Failures raise `tunespec.Error` (`ProblemsError`, `UsageError`, `MismatchError` by exit
status) with the diagnostics as `Diagnostic` objects. `python -m tunespec ARGS` runs the CLI.
"""

from __future__ import annotations

from ._api import (
    Input,
    attach,
    bench,
    check,
    explain,
    link,
    resolve,
    targets,
    tune,
    verify,
    version,
)
from ._command_types import (
    CacheStats,
    Coverage,
    Doctor,
    Found,
    ImportedDispatch,
    ImportReport,
    NeverFired,
    OverridingPair,
)
from ._commands import (
    apply,
    cache_clean,
    cache_path,
    cache_stats,
    coverage,
    doctor,
    export,
    extract,
    import_iree,
    import_tuner,
    show,
)
from ._literals import (
    Blob,
    CacheMode,
    CheckStatus,
    Dispatches,
    Emit,
    Engine,
    ImportOutcome,
    Layer,
    ProvenanceKind,
    Severity,
    SpecProvenanceKind,
    View,
)
from ._measurement import Measurement
from ._bench_types import (
    BenchOp,
    BenchReport,
    BenchRow,
    BenchStatus,
    Mismatch,
    OutputCheck,
    Summary,
    Timing,
    Tolerance,
    WrittenEntry,
)
from ._check_types import CheckFix, CheckReport, CheckResult, CheckStep
from ._tune_types import (
    CompileStatus,
    SkippedOp,
    TuneCandidate,
    TuneCompileCandidate,
    TuneCompileDispatch,
    TuneCompileReport,
    TuneDispatch,
    TuneGeneration,
    TuneModelRow,
    TuneOutcome,
    TunePhases,
    TuneReport,
    TuneVerdict,
)
from ._binary import find_binary
from ._errors import (
    Error,
    MismatchError,
    ProblemsError,
    TunespecNote,
    TunespecWarning,
    UsageError,
)
from ._types import (
    AsWritten,
    ChainLink,
    ConfigEntry,
    Diagnostic,
    ExplainedOp,
    Explanation,
    FiredPair,
    MeasuredEntry,
    OverriddenPair,
    ProvenanceSummary,
    Related,
    Resolution,
    ResolvedSpec,
    SkippedSpec,
    SpecProvenance,
    Target,
    TargetIree,
    TargetSpec,
    TargetSpecProvenance,
    VerifyReport,
    WithheldOp,
)

try:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _dist_version

    try:
        __version__ = _dist_version("tunespec")
    except PackageNotFoundError:  # running from a source checkout
        __version__ = "0+unknown"
except ImportError:  # pragma: no cover
    __version__ = "0+unknown"

__all__ = [
    "AsWritten",
    "BenchOp",
    "BenchReport",
    "BenchRow",
    "BenchStatus",
    "Blob",
    "CacheMode",
    "CacheStats",
    "ChainLink",
    "CheckFix",
    "CheckReport",
    "CheckResult",
    "CheckStatus",
    "CheckStep",
    "CompileStatus",
    "ConfigEntry",
    "Coverage",
    "Diagnostic",
    "Dispatches",
    "Doctor",
    "Emit",
    "Engine",
    "Error",
    "ExplainedOp",
    "Explanation",
    "FiredPair",
    "Found",
    "ImportOutcome",
    "ImportReport",
    "ImportedDispatch",
    "Input",
    "Layer",
    "MeasuredEntry",
    "Measurement",
    "Mismatch",
    "MismatchError",
    "NeverFired",
    "OutputCheck",
    "OverriddenPair",
    "OverridingPair",
    "ProblemsError",
    "ProvenanceKind",
    "ProvenanceSummary",
    "Related",
    "Resolution",
    "ResolvedSpec",
    "Severity",
    "SkippedOp",
    "SkippedSpec",
    "SpecProvenance",
    "SpecProvenanceKind",
    "Summary",
    "Target",
    "TargetIree",
    "TargetSpec",
    "TargetSpecProvenance",
    "Timing",
    "Tolerance",
    "TuneCandidate",
    "TuneCompileCandidate",
    "TuneCompileDispatch",
    "TuneCompileReport",
    "TuneDispatch",
    "TuneGeneration",
    "TuneModelRow",
    "TuneOutcome",
    "TunePhases",
    "TuneReport",
    "TuneVerdict",
    "TunespecNote",
    "TunespecWarning",
    "UsageError",
    "VerifyReport",
    "View",
    "WithheldOp",
    "WrittenEntry",
    "apply",
    "attach",
    "bench",
    "cache_clean",
    "cache_path",
    "cache_stats",
    "check",
    "coverage",
    "doctor",
    "explain",
    "export",
    "extract",
    "find_binary",
    "import_iree",
    "import_tuner",
    "link",
    "resolve",
    "show",
    "targets",
    "tune",
    "verify",
    "version",
    "__version__",
]
