"""The closed sets of values of tunespec's JSON and arguments, as `Literal` types."""

from __future__ import annotations

from typing import Literal

Severity = Literal["error", "warning", "note"]
"""A diagnostic's severity."""
View = Literal["dispatch", "written"]
"""How `explain`/`coverage` see a payload: as IREE's dispatches hold it, or as written."""
Dispatches = Literal["auto", "iree", "predict"]
"""Who forms the dispatches: IREE for models, tunespec's prediction for linalg IR (`auto`)."""
Emit = Literal["mlir", "mlirbc"]
"""MLIR text or bytecode."""
Blob = Literal["dense", "resource"]
"""How `attach` stores the library."""
Engine = Literal["auto", "interpreter", "native"]
"""What runs the library's matchers."""
ProvenanceKind = Literal["measured", "derived", "stated"]
"""Where an op's config comes from."""
SpecProvenanceKind = Literal["measured", "derived", "stated", "mixed"]
"""Where a spec's configs come from."""
Layer = Literal["user spec", "spec library", "tunespec default", "IREE default"]
"""The layer of the spec a matcher comes from."""
CheckStatus = Literal["ok", "failed", "skipped"]
"""A step of `check`."""
CacheMode = Literal["on", "off", "readonly", "recache"]
"""The cache of linked libraries' mode."""
ImportOutcome = Literal["imported", "replaced", "superseded", "kept", "not-beaten"]
"""What `import_tuner` did with a dispatch."""
