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
    check,
    explain,
    import_tuner,
    link,
    resolve,
    targets,
    verify,
    version,
)
from ._check_types import CheckFix, CheckReport, CheckResult, CheckStep
from ._binary import find_binary
from ._errors import Error, MismatchError, ProblemsError, TunespecWarning, UsageError
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
    "ChainLink",
    "CheckFix",
    "CheckReport",
    "CheckResult",
    "CheckStep",
    "ConfigEntry",
    "Diagnostic",
    "Error",
    "ExplainedOp",
    "Explanation",
    "FiredPair",
    "OverriddenPair",
    "Input",
    "MeasuredEntry",
    "MismatchError",
    "ProblemsError",
    "ProvenanceSummary",
    "Related",
    "Resolution",
    "ResolvedSpec",
    "SkippedSpec",
    "SpecProvenance",
    "Target",
    "TargetIree",
    "TargetSpec",
    "TargetSpecProvenance",
    "TunespecWarning",
    "UsageError",
    "VerifyReport",
    "WithheldOp",
    "__version__",
    "attach",
    "check",
    "explain",
    "find_binary",
    "import_tuner",
    "link",
    "resolve",
    "targets",
    "verify",
    "version",
]
