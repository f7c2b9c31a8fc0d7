"""The objects of `bench`: docs/schema/bench.schema.json, one frozen dataclass per JSON object
(field names are the JSON's; `to_json` gives the object back, valid against the schema). Times are
floats in microseconds; statuses and kinds are `Literal`s, so a type checker sees every case."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, cast

from ._measurement import Measurement

Json = Dict[str, Any]

BenchStatus = Literal["faster", "slower", "no-difference", "unchanged", "wrong-output", "failed"]
Verdict = Literal["faster", "slower", "no-difference"]
RowKind = Literal["function", "dispatch"]


def _number(value: Any) -> float:
    """A JSON number; `null` (an infinite difference: outputs of different sizes) is infinity."""
    return math.inf if value is None else float(value)


def _json_number(value: float) -> Optional[float]:
    return None if math.isinf(value) else value


@dataclass(frozen=True)
class Summary:
    """Median, quartiles and extremes of one variant's samples (microseconds)."""

    samples: int
    median_us: float
    q1_us: float
    q3_us: float
    min_us: float
    max_us: float

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Summary":
        return cls(
            obj["samples"],
            float(obj["median_us"]),
            float(obj["q1_us"]),
            float(obj["q3_us"]),
            float(obj["min_us"]),
            float(obj["max_us"]),
        )

    def to_json(self) -> Json:
        return {
            "samples": self.samples,
            "median_us": self.median_us,
            "q1_us": self.q1_us,
            "q3_us": self.q3_us,
            "min_us": self.min_us,
            "max_us": self.max_us,
        }


@dataclass(frozen=True)
class Timing:
    """IREE's config (`baseline`) against the library's (`tuned`) over paired rounds: `ratio`
    is the median of the rounds' tuned / baseline medians (below 1 is faster), `ci_low` and
    `ci_high` its interval at `confidence` (None: unbounded, too few rounds), `p_value` the
    sign test's, `rounds` how many were judged, `settled` whether more rounds could change the
    verdict, `spread` the rounds' ratios' quartile ratio, `verdict` the rule's."""

    baseline: Summary
    tuned: Summary
    ratio: float
    ci_low: Optional[float]
    ci_high: Optional[float]
    confidence: float
    p_value: float
    rounds: int
    settled: bool
    spread: float
    verdict: Verdict

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Timing":
        def bound(value: Any) -> Optional[float]:
            return None if value is None else float(value)

        return cls(
            Summary.from_json(obj["baseline"]),
            Summary.from_json(obj["tuned"]),
            float(obj["ratio"]),
            bound(obj["ci_low"]),
            bound(obj["ci_high"]),
            float(obj["confidence"]),
            float(obj["p_value"]),
            int(obj["rounds"]),
            bool(obj["settled"]),
            float(obj["spread"]),
            cast(Verdict, obj["verdict"]),
        )

    def to_json(self) -> Json:
        return {
            "baseline": self.baseline.to_json(),
            "tuned": self.tuned.to_json(),
            "ratio": self.ratio,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "p_value": self.p_value,
            "rounds": self.rounds,
            "settled": self.settled,
            "spread": self.spread,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Tolerance:
    """|library - IREE| <= atol + rtol * |IREE| per element."""

    atol: float
    rtol: float

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Tolerance":
        return cls(float(obj["atol"]), float(obj["rtol"]))

    def to_json(self) -> Json:
        return {"atol": self.atol, "rtol": self.rtol}


@dataclass(frozen=True)
class Mismatch:
    """The first element out of tolerance: which output, which element, the two values."""

    output: int
    index: int
    iree: float
    library: float


@dataclass(frozen=True)
class OutputCheck:
    """The outputs of the two variants compared on the same inputs."""

    ok: bool
    max_abs_diff: float
    first_mismatch: Optional[Mismatch]
    tolerances: Tuple[Tolerance, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "OutputCheck":
        first = obj["first_mismatch"]
        mismatch = (
            None
            if first is None
            else Mismatch(int(first[0]), int(first[1]), _number(first[2]), _number(first[3]))
        )
        return cls(
            bool(obj["ok"]),
            _number(obj["max_abs_diff"]),
            mismatch,
            tuple(Tolerance.from_json(t) for t in obj["tolerances"]),
        )

    def to_json(self) -> Json:
        first = self.first_mismatch
        return {
            "ok": self.ok,
            "max_abs_diff": _json_number(self.max_abs_diff),
            "first_mismatch": None
            if first is None
            else [first.output, first.index, _json_number(first.iree), _json_number(first.library)],
            "tolerances": [t.to_json() for t in self.tolerances],
        }


@dataclass(frozen=True)
class BenchOp:
    """One op a row measured, as `explain` finds it in IREE's dispatches: the op, its loop ranges
    (None: not a linalg op; -1: dynamic), its operands' element types, where it is in the payload
    (None for a payload bench built), and the matcher that configured it with the spec file:line
    it is written at (None: none matched)."""

    op: str
    loops: Optional[Tuple[int, ...]]
    element_types: Tuple[str, ...]
    location: Optional[str]
    matcher: Optional[str]
    matcher_location: Optional[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "BenchOp":
        loops = obj["loops"]
        return cls(
            obj["op"],
            None if loops is None else tuple(int(v) for v in loops),
            tuple(obj["element_types"]),
            obj["location"],
            obj["matcher"],
            obj["matcher_location"],
        )

    def to_json(self) -> Json:
        return {
            "op": self.op,
            "loops": None if self.loops is None else list(self.loops),
            "element_types": list(self.element_types),
            "location": self.location,
            "matcher": self.matcher,
            "matcher_location": self.matcher_location,
        }


@dataclass(frozen=True)
class BenchRow:
    """One payload function or dispatch timed with IREE's config and with the library's."""

    case: str
    kind: RowKind
    name: str
    matcher: Optional[str]
    status: BenchStatus
    message: Optional[str]
    timing: Optional[Timing]
    outputs: Optional[OutputCheck]
    samples_us: Optional[Tuple[Tuple[float, ...], Tuple[float, ...]]]
    ops: Tuple[BenchOp, ...] = ()
    """What the row measured: the ops the library configured in it (a dispatch row: its
    dispatch's; a function row: its function's dispatches')."""

    @property
    def ratio(self) -> Optional[float]:
        """tuned / baseline medians, when timed."""
        return None if self.timing is None else self.timing.ratio

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "BenchRow":
        samples = obj["samples_us"]
        return cls(
            obj["case"],
            cast(RowKind, obj["kind"]),
            obj["name"],
            obj["matcher"],
            cast(BenchStatus, obj["status"]),
            obj["message"],
            None if obj["timing"] is None else Timing.from_json(obj["timing"]),
            None if obj["outputs"] is None else OutputCheck.from_json(obj["outputs"]),
            None
            if samples is None
            else (tuple(float(v) for v in samples[0]), tuple(float(v) for v in samples[1])),
            tuple(BenchOp.from_json(op) for op in obj["ops"]),
        )

    def to_json(self) -> Json:
        return {
            "case": self.case,
            "kind": self.kind,
            "name": self.name,
            "matcher": self.matcher,
            "status": self.status,
            "message": self.message,
            "timing": None if self.timing is None else self.timing.to_json(),
            "outputs": None if self.outputs is None else self.outputs.to_json(),
            "samples_us": None
            if self.samples_us is None
            else [list(self.samples_us[0]), list(self.samples_us[1])],
            "ops": [op.to_json() for op in self.ops],
        }


@dataclass(frozen=True)
class WrittenEntry:
    """One entry of the library `bench --write` wrote, as it now is: the target, its spec file
    (relative to the library), who measured it (`identity`, what `--measured-on` matches; a key
    may have one entry per device) and its record."""

    target: str
    file: Optional[str]
    identity: str
    measurement: Measurement

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "WrittenEntry":
        return cls(
            str(obj["target"]),
            None if obj["file"] is None else str(obj["file"]),
            str(obj["identity"]),
            Measurement.from_json(obj["measurement"]),
        )

    def to_json(self) -> Json:
        return {
            "target": self.target,
            "file": self.file,
            "identity": self.identity,
            "measurement": self.measurement.to_json(),
        }


@dataclass(frozen=True)
class BenchReport:
    """`tunespec bench --format json`: how it ran, one row per function or dispatch, and with
    `write` the lines on what was written (losers left out, merges) and the library's entries
    (`entries`, one per target, key and device)."""

    version: int
    device: str
    iree: str
    runtime: str
    flags: Tuple[str, ...]
    alpha: float
    min_effect: float
    rounds: int
    max_rounds: int
    repetitions: int
    rows: Tuple[BenchRow, ...]
    written: Optional[Tuple[str, ...]]
    #: With `write`, once the library exists: its entries as they now are, per device.
    entries: Optional[Tuple[WrittenEntry, ...]] = None

    @property
    def winners(self) -> List[BenchRow]:
        """The rows faster than IREE's own config with equal outputs."""
        return [row for row in self.rows if row.status == "faster"]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "BenchReport":
        written = obj["written"]
        entries = obj.get("entries")
        return cls(
            obj["version"],
            obj["device"],
            obj["iree"],
            obj["runtime"],
            tuple(obj["flags"]),
            float(obj["rule"]["alpha"]),
            float(obj["rule"]["min_effect"]),
            obj["rounds"],
            obj["max_rounds"],
            obj["repetitions"],
            tuple(BenchRow.from_json(row) for row in obj["rows"]),
            None if written is None else tuple(written),
            None if entries is None else tuple(WrittenEntry.from_json(e) for e in entries),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "device": self.device,
            "iree": self.iree,
            "runtime": self.runtime,
            "flags": list(self.flags),
            "rule": {"alpha": self.alpha, "min_effect": self.min_effect},
            "rounds": self.rounds,
            "max_rounds": self.max_rounds,
            "repetitions": self.repetitions,
            "rows": [row.to_json() for row in self.rows],
            "written": None if self.written is None else list(self.written),
            "entries": None if self.entries is None else [e.to_json() for e in self.entries],
        }
