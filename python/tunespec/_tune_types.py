"""The objects of `tune`: docs/schema/tune.schema.json (a search, timed) and
docs/schema/tune-compile.schema.json (`compile_only=True`: generated and compiled, not timed), one
frozen dataclass per JSON object (field names are the JSON's; `to_json` gives the object back,
valid against the schema). Ratios are tuned / IREE's own (below 1 is faster); statuses and
verdicts are `Literal`s, so a type checker sees every case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, NamedTuple, Optional, Tuple, cast

from ._bench_types import BenchStatus

Json = Dict[str, Any]

TuneVerdict = Literal[
    "winner",
    "faster",
    "slower",
    "no difference",
    "screened out",
    "wrong output",
    "failed to compile",
    "failed",
    "unchanged",
    "not tried",
]
"""A candidate's verdict in a tune."""
CompileStatus = Literal["compiled", "not-applied", "failed"]
"""A candidate of `compile_only`: built with its own config, with another one, or refused."""


def _optional_float(value: Any) -> Optional[float]:
    return None if value is None else float(value)


class SkippedOp(NamedTuple):
    """A configured op that was not tuned: its function, the op, and why."""

    function: str
    op: str
    why: str

    @staticmethod
    def of(item: Any) -> "SkippedOp":
        function, op, why = item
        return SkippedOp(str(function), str(op), str(why))


@dataclass(frozen=True)
class TuneOutcome:
    """One stage of a candidate (the screen or the confirmation), or the model with the winners:
    bench's `status`, why (`message`: failures, wrong outputs, unchanged), the `ratio` tuned /
    IREE's own (the median of the rounds' ratios) and its `interval` at `confidence` (None:
    unbounded), the `rounds` judged, the largest absolute difference of the outputs from IREE's
    own config's (`max_abs_diff`; None: not compared), and whether it was read from the journal
    of an earlier run (`journaled`)."""

    status: BenchStatus
    message: Optional[str]
    ratio: Optional[float]
    interval: Optional[Tuple[float, float]]
    confidence: Optional[float]
    rounds: Optional[int]
    max_abs_diff: Optional[float]
    journaled: bool

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneOutcome":
        interval = obj["interval"]
        rounds = obj["rounds"]
        return cls(
            cast(BenchStatus, obj["status"]),
            obj["message"],
            _optional_float(obj["ratio"]),
            None if interval is None else (float(interval[0]), float(interval[1])),
            _optional_float(obj["confidence"]),
            None if rounds is None else int(rounds),
            _optional_float(obj["max_abs_diff"]),
            bool(obj["journaled"]),
        )

    def to_json(self) -> Json:
        return {
            "status": self.status,
            "message": self.message,
            "ratio": self.ratio,
            "interval": None if self.interval is None else list(self.interval),
            "confidence": self.confidence,
            "rounds": self.rounds,
            "max_abs_diff": self.max_abs_diff,
            "journaled": self.journaled,
        }


def _outcome(value: Any) -> Optional[TuneOutcome]:
    return None if value is None else TuneOutcome.from_json(value)


def _outcome_json(value: Optional[TuneOutcome]) -> Optional[Json]:
    return None if value is None else value.to_json()


@dataclass(frozen=True)
class TuneCandidate:
    """One candidate of a dispatch: its number (`index`, 0: IREE's own config), its knobs in
    words (`iree` for IREE's own, `linked: ...` for the linked library's), its
    `lowering_config`, whether it compiled (None: not tried, the budget ran out first), the
    screen's and the confirmation's outcomes (None: not run) and its `verdict`."""

    index: int
    knobs: str
    lowering_config: str
    compiled: Optional[bool]
    screen: Optional[TuneOutcome]
    confirm: Optional[TuneOutcome]
    verdict: TuneVerdict

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneCandidate":
        compiled = obj["compiled"]
        return cls(
            int(obj["index"]),
            obj["knobs"],
            obj["lowering_config"],
            None if compiled is None else bool(compiled),
            _outcome(obj["screen"]),
            _outcome(obj["confirm"]),
            cast(TuneVerdict, obj["verdict"]),
        )

    def to_json(self) -> Json:
        return {
            "index": self.index,
            "knobs": self.knobs,
            "lowering_config": self.lowering_config,
            "compiled": self.compiled,
            "screen": _outcome_json(self.screen),
            "confirm": _outcome_json(self.confirm),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class TuneDispatch:
    """One dispatch's search: its `key` (`matmul 512x512x512 f32*f32->f32`), the dispatch
    functions IREE formed with it, the matcher of its specs, every candidate, the `winner`'s
    number (None: none beat IREE's own), how many candidates `compiled`, and its `share` of the
    model's dispatch time under IREE's own configs (None: not measured)."""

    key: str
    functions: Tuple[str, ...]
    matcher: str
    candidates: Tuple[TuneCandidate, ...]
    winner: Optional[int]
    compiled: int
    share: Optional[float] = None

    @property
    def winning(self) -> Optional[TuneCandidate]:
        """The winning candidate, when one beat IREE's own."""
        if self.winner is None:
            return None
        return next((c for c in self.candidates if c.index == self.winner), None)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneDispatch":
        winner = obj["winner"]
        return cls(
            obj["key"],
            tuple(obj["functions"]),
            obj["matcher"],
            tuple(TuneCandidate.from_json(c) for c in obj["candidates"]),
            None if winner is None else int(winner),
            int(obj["compiled"]),
            _optional_float(obj.get("share")),
        )

    def to_json(self) -> Json:
        return {
            "key": self.key,
            "functions": list(self.functions),
            "matcher": self.matcher,
            "candidates": [c.to_json() for c in self.candidates],
            "winner": self.winner,
            "compiled": self.compiled,
            "share": self.share,
        }


@dataclass(frozen=True)
class TuneModelRow:
    """The model benched with all the winners against IREE's own configs: one exported
    function's outcome."""

    function: str
    outcome: TuneOutcome

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneModelRow":
        return cls(obj["function"], TuneOutcome.from_json(obj["outcome"]))

    def to_json(self) -> Json:
        return {"function": self.function, "outcome": self.outcome.to_json()}


@dataclass(frozen=True)
class TunePhases:
    """Seconds this run spent per phase (not the journal's)."""

    generate_s: float
    compile_s: float
    screen_s: float
    confirm_s: float
    model_s: float
    write_s: float

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TunePhases":
        return cls(
            float(obj["generate_s"]),
            float(obj["compile_s"]),
            float(obj["screen_s"]),
            float(obj["confirm_s"]),
            float(obj["model_s"]),
            float(obj["write_s"]),
        )

    def to_json(self) -> Json:
        return {
            "generate_s": self.generate_s,
            "compile_s": self.compile_s,
            "screen_s": self.screen_s,
            "confirm_s": self.confirm_s,
            "model_s": self.model_s,
            "write_s": self.write_s,
        }


@dataclass(frozen=True)
class TuneReport:
    """`tunespec tune --format json` (and `DIR/report.json`): what was tuned (payload, target,
    device, iree-compile's flags), every dispatch searched, the configured ops not tuned
    (`skipped`), how many outcomes came from the journal (`resumed`), whether the budget ran
    out, the model benched with the winners (`model`, or why not: `model_note`), why the
    dispatches' shares were not measured (`shares_note`), the time per phase, the notes of the
    library's writing (`written`), where the library is (`library`; None: nothing won) and how
    many dispatches were not searched because the store (`--store`) already holds them
    (`held_in_store`), and the order candidates were taken in (`order`: `model`, `nearest` or
    `random`)."""

    version: int
    payload: str
    target: str
    device: str
    flags: Tuple[str, ...]
    dispatches: Tuple[TuneDispatch, ...]
    skipped: Tuple[SkippedOp, ...]
    resumed: int
    budget_exhausted: bool
    model: Tuple[TuneModelRow, ...]
    model_note: Optional[str]
    phases: TunePhases
    written: Tuple[str, ...]
    library: Optional[str]
    shares_note: Optional[str] = None
    held_in_store: int = 0
    order: str = ""

    @property
    def winners(self) -> Dict[str, TuneCandidate]:
        """Each dispatch's winner, by the dispatch's key (dispatches none won left out)."""
        found: Dict[str, TuneCandidate] = {}
        for dispatch in self.dispatches:
            winning = dispatch.winning
            if winning is not None:
                found[dispatch.key] = winning
        return found

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneReport":
        return cls(
            int(obj["version"]),
            obj["payload"],
            obj["target"],
            obj["device"],
            tuple(obj["flags"]),
            tuple(TuneDispatch.from_json(d) for d in obj["dispatches"]),
            tuple(SkippedOp.of(item) for item in obj["skipped"]),
            int(obj["resumed"]),
            bool(obj["budget_exhausted"]),
            tuple(TuneModelRow.from_json(row) for row in obj["model"]),
            obj["model_note"],
            TunePhases.from_json(obj["phases"]),
            tuple(obj["written"]),
            obj["library"],
            obj.get("shares_note"),
            int(obj.get("held_in_store", 0)),
            obj.get("order", ""),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "payload": self.payload,
            "target": self.target,
            "device": self.device,
            "flags": list(self.flags),
            "dispatches": [d.to_json() for d in self.dispatches],
            "skipped": [list(item) for item in self.skipped],
            "resumed": self.resumed,
            "budget_exhausted": self.budget_exhausted,
            "model": [row.to_json() for row in self.model],
            "model_note": self.model_note,
            "shares_note": self.shares_note,
            "phases": self.phases.to_json(),
            "written": list(self.written),
            "library": self.library,
            "held_in_store": self.held_in_store,
            "order": self.order,
        }


@dataclass(frozen=True)
class TuneCompileCandidate:
    """One candidate of `compile_only`: its number (0: IREE's own), its knobs (`iree`,
    `linked: ...`, or the pipeline and IREE's knob values), its spec (relative to the output
    directory), whether IREE built the dispatch with its config (`status`), iree-compile's
    error or what it built instead (`message`), and the compile's seconds."""

    index: int
    knobs: str
    spec: str
    status: CompileStatus
    message: Optional[str]
    seconds: float

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneCompileCandidate":
        return cls(
            int(obj["index"]),
            obj["knobs"],
            obj["spec"],
            cast(CompileStatus, obj["status"]),
            obj["message"],
            float(obj["seconds"]),
        )

    def to_json(self) -> Json:
        return {
            "index": self.index,
            "knobs": self.knobs,
            "spec": self.spec,
            "status": self.status,
            "message": self.message,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class TuneCompileDispatch:
    """One dispatch of `compile_only`: its key, matcher, the dispatch functions IREE formed with
    it and every candidate compiled."""

    key: str
    matcher: str
    functions: Tuple[str, ...]
    candidates: Tuple[TuneCompileCandidate, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneCompileDispatch":
        return cls(
            obj["key"],
            obj["matcher"],
            tuple(obj["functions"]),
            tuple(TuneCompileCandidate.from_json(c) for c in obj["candidates"]),
        )

    def to_json(self) -> Json:
        return {
            "key": self.key,
            "matcher": self.matcher,
            "functions": list(self.functions),
            "candidates": [c.to_json() for c in self.candidates],
        }


@dataclass(frozen=True)
class TuneGeneration:
    """How one pipeline's candidates of a dispatch were generated from IREE's constraints: the
    knobs, how many `solutions` z3 enumerated (`complete`: all of the space's) in `solve_s`, how
    many the model chose and IREE `materialized` (and those it did not) in `materialize_s`, and
    where the space came from when not from the dispatch itself (`note`)."""

    dispatch: str
    pipeline: str
    knobs: Tuple[str, ...]
    solutions: int
    complete: bool
    solve_s: float
    materialized: int
    not_materialized: Tuple[str, ...]
    materialize_s: float
    note: Optional[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneGeneration":
        return cls(
            obj["dispatch"],
            obj["pipeline"],
            tuple(obj["knobs"]),
            int(obj["solutions"]),
            bool(obj["complete"]),
            float(obj["solve_s"]),
            int(obj["materialized"]),
            tuple(obj["not_materialized"]),
            float(obj["materialize_s"]),
            obj["note"],
        )

    def to_json(self) -> Json:
        return {
            "dispatch": self.dispatch,
            "pipeline": self.pipeline,
            "knobs": list(self.knobs),
            "solutions": self.solutions,
            "complete": self.complete,
            "solve_s": self.solve_s,
            "materialized": self.materialized,
            "not_materialized": list(self.not_materialized),
            "materialize_s": self.materialize_s,
            "note": self.note,
        }


@dataclass(frozen=True)
class TuneCompileReport:
    """`tunespec tune --compile-only --format json` (and `DIR/compile-report.json`): every
    candidate of every dispatch compiled for the target and checked to carry its own config,
    nothing timed; the configured ops not tuned (`skipped`), how each pipeline's candidates were
    generated (`generation`, GPU targets), the seconds of generating and compiling, and the
    order candidates were taken in (`order`)."""

    version: int
    payload: str
    target: str
    flags: Tuple[str, ...]
    order: str
    dispatches: Tuple[TuneCompileDispatch, ...]
    skipped: Tuple[SkippedOp, ...]
    generation: Tuple[TuneGeneration, ...]
    generate_s: float
    compile_s: float

    @property
    def compiled(self) -> List[TuneCompileCandidate]:
        """The candidates built with their own config."""
        return [
            candidate
            for dispatch in self.dispatches
            for candidate in dispatch.candidates
            if candidate.status == "compiled"
        ]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TuneCompileReport":
        return cls(
            int(obj["version"]),
            obj["payload"],
            obj["target"],
            tuple(obj["flags"]),
            obj["order"],
            tuple(TuneCompileDispatch.from_json(d) for d in obj["dispatches"]),
            tuple(SkippedOp.of(item) for item in obj["skipped"]),
            tuple(TuneGeneration.from_json(g) for g in obj["generation"]),
            float(obj["generate_s"]),
            float(obj["compile_s"]),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "payload": self.payload,
            "target": self.target,
            "flags": list(self.flags),
            "order": self.order,
            "dispatches": [d.to_json() for d in self.dispatches],
            "skipped": [list(item) for item in self.skipped],
            "generation": [g.to_json() for g in self.generation],
            "generate_s": self.generate_s,
            "compile_s": self.compile_s,
        }
