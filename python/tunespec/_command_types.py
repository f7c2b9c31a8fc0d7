"""The objects of `coverage`, `import_tuner`, `doctor` and `cache_stats`: one frozen dataclass
per JSON object (docs/schema/coverage, import-tuner, cache-stats; doctor's document), field names
the JSON's; `to_json` gives the object back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from ._literals import CacheMode, ImportOutcome, Layer

Json = Dict[str, Any]


@dataclass(frozen=True)
class OverridingPair:
    """An earlier pair that fired and matches every op a never-fired matcher matches."""

    matcher: str
    location: Optional[str]
    layer: Optional[Layer]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "OverridingPair":
        return cls(obj["matcher"], obj.get("location"), obj.get("layer"))

    def to_json(self) -> Json:
        return {"matcher": self.matcher, "location": self.location, "layer": self.layer}


@dataclass(frozen=True)
class NeverFired:
    """A matcher no op of the corpus matched, and the pair that overrode it (if one did)."""

    matcher: str
    action: str
    location: Optional[str]
    layer: Optional[Layer]
    overridden_by: Optional[OverridingPair]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "NeverFired":
        by = obj.get("overridden_by")
        return cls(
            obj["matcher"],
            obj["action"],
            obj.get("location"),
            obj.get("layer"),
            None if by is None else OverridingPair.from_json(by),
        )

    def to_json(self) -> Json:
        return {
            "matcher": self.matcher,
            "action": self.action,
            "location": self.location,
            "layer": self.layer,
            "overridden_by": None if self.overridden_by is None else self.overridden_by.to_json(),
        }


@dataclass(frozen=True)
class Coverage:
    """`coverage`'s document (docs/schema/coverage.schema.json)."""

    version: int
    payloads: int
    matchers: int
    fired: int
    never_fired: Tuple[NeverFired, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Coverage":
        return cls(
            obj["version"],
            obj["payloads"],
            obj["matchers"],
            obj["fired"],
            tuple(NeverFired.from_json(n) for n in obj["never_fired"]),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "payloads": self.payloads,
            "matchers": self.matchers,
            "fired": self.fired,
            "never_fired": [n.to_json() for n in self.never_fired],
        }


@dataclass(frozen=True)
class ImportedDispatch:
    """One dispatch of a tuner run: what the import did with it (`outcome`), its winner (None
    fields when no candidate beat the baseline) and its times in microseconds."""

    run: str
    dispatch: str
    outcome: ImportOutcome
    candidate: Optional[int]
    spec: Optional[str]
    matcher: Optional[str]
    baseline_us: float
    tuned_us: Optional[float]
    speedup: Optional[float]
    device: Optional[str]
    iree: Optional[str]
    date: Optional[str]
    replaced: Optional[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ImportedDispatch":
        tuned, speedup = obj.get("tuned_us"), obj.get("speedup")
        return cls(
            run=obj["run"],
            dispatch=obj["dispatch"],
            outcome=obj["outcome"],
            candidate=obj.get("candidate"),
            spec=obj.get("spec"),
            matcher=obj.get("matcher"),
            baseline_us=float(obj["baseline_us"]),
            tuned_us=None if tuned is None else float(tuned),
            speedup=None if speedup is None else float(speedup),
            device=obj.get("device"),
            iree=obj.get("iree"),
            date=obj.get("date"),
            replaced=obj.get("replaced"),
        )

    def to_json(self) -> Json:
        return {
            "run": self.run,
            "dispatch": self.dispatch,
            "outcome": self.outcome,
            "candidate": self.candidate,
            "spec": self.spec,
            "matcher": self.matcher,
            "baseline_us": self.baseline_us,
            "tuned_us": self.tuned_us,
            "speedup": self.speedup,
            "device": self.device,
            "iree": self.iree,
            "date": self.date,
            "replaced": self.replaced,
        }


@dataclass(frozen=True)
class ImportReport:
    """`import-tuner`'s document (docs/schema/import-tuner.schema.json): the target, the library
    written, how many entries this import added or replaced (`imported`) and holds (`entries`),
    one row per dispatch of every run, and the notes."""

    version: int
    target: str
    output: str
    imported: int
    entries: int
    dispatches: Tuple[ImportedDispatch, ...]
    notes: Tuple[str, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ImportReport":
        return cls(
            version=obj["version"],
            target=obj["target"],
            output=obj["output"],
            imported=obj["imported"],
            entries=obj["entries"],
            dispatches=tuple(ImportedDispatch.from_json(d) for d in obj["dispatches"]),
            notes=tuple(obj["notes"]),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "target": self.target,
            "output": self.output,
            "imported": self.imported,
            "entries": self.entries,
            "dispatches": [d.to_json() for d in self.dispatches],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class CacheStats:
    """`cache stats`' document (docs/schema/cache-stats.schema.json)."""

    version: int
    dir: str
    mode: CacheMode
    max_bytes: int
    hits: int
    misses: int
    corrupt: int
    entries: int
    bytes: int
    temp_files: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "CacheStats":
        return cls(**{name: obj[name] for name in cls.__dataclass_fields__})

    def to_json(self) -> Json:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Found:
    """A part of IREE `doctor` looked for: `found`, and where (`path`, the IREE compiler's
    `origin`, release, ...) or why not (`error`). `details` holds the whole object."""

    found: bool
    path: Optional[str]
    origin: Optional[str]
    version: Optional[str]
    error: Optional[str]
    details: Mapping[str, Any]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Found":
        path = obj.get("library") or obj.get("compile")
        version = obj.get("revision") or obj.get("version")
        return cls(
            bool(obj.get("found")), path, obj.get("origin"), version, obj.get("error"), dict(obj)
        )

    def to_json(self) -> Json:
        return dict(self.details)


@dataclass(frozen=True)
class Doctor:
    """What `doctor` found: tunespec's version, IREE's compiler (`iree`) and runtime, iree-opt
    and mlir-opt (None: not found), what needs IREE and what works without it."""

    version: int
    tunespec: str
    iree: Found
    runtime: Found
    iree_opt: Optional[str]
    mlir_opt: Optional[str]
    needs_iree: str
    without_iree: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Doctor":
        return cls(
            version=obj["version"],
            tunespec=obj["tunespec"],
            iree=Found.from_json(obj["iree"]),
            runtime=Found.from_json(obj.get("runtime") or {"found": False}),
            iree_opt=obj.get("iree_opt"),
            mlir_opt=obj.get("mlir_opt"),
            needs_iree=obj.get("needs_iree", ""),
            without_iree=obj.get("without_iree", ""),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "tunespec": self.tunespec,
            "iree": self.iree.to_json(),
            "runtime": self.runtime.to_json(),
            "iree_opt": self.iree_opt,
            "mlir_opt": self.mlir_opt,
            "needs_iree": self.needs_iree,
            "without_iree": self.without_iree,
        }
