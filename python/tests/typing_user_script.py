"""A user's script: `mypy --strict` must accept it (test_commands.py runs mypy on it)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import List

import tunespec


def saved(model: Path, library: Path) -> float:
    report = tunespec.explain(model, target="gfx942", specs=[library])
    total = 0.0
    for op in report.ops:
        if op.measurement is not None and op.provenance_kind == "measured":
            m = op.measurement
            total += (m.baseline_us - m.tuned_us) * 2 / m.speedup
            if isinstance(m.date, datetime.date):
                total += 0 * (datetime.date.today() - m.date).days
            if m.candidate is not None:
                total += m.candidate * 0
    return total


def libraries() -> List[str]:
    text: str = tunespec.link("gfx942", derived=True)
    code: bytes = tunespec.link("gfx942", emit="mlirbc", derived=True)
    attached: str = tunespec.attach("model.mlir", "gfx942", emit="mlir")
    extracted: bytes = tunespec.extract(attached, emit="mlirbc")
    report = tunespec.import_tuner([Path("tuning_2026_11_20_10_00")], "gfx942", "lib")
    times = [d.tuned_us for d in report.dispatches if d.outcome == "imported" and d.tuned_us]
    assert sum(times) >= 0 and code and extracted
    view: tunespec.View = "written"
    tunespec.explain("model.mlir", "gfx942", view=view, dispatches="predict", iree="/venv")
    return [text]


def tuned(model: Path) -> List[str]:
    report: tunespec.TuneReport = tunespec.tune(model, "host", "tuned", budget=600, jobs=2)
    ratios = [
        c.confirm.ratio
        for d in report.dispatches
        for c in d.candidates
        if c.confirm is not None and c.confirm.ratio is not None and c.verdict == "winner"
    ]
    compiled: tunespec.TuneCompileReport = tunespec.tune(
        model, "gfx942", Path("candidates"), compile_only=True, solutions=40
    )
    specs = [c.spec for c in compiled.compiled if c.status == "compiled"]
    assert sum(ratios) >= 0 and report.winners.keys() <= {d.key for d in report.dispatches}
    return specs + [skipped.why for skipped in compiled.skipped]
