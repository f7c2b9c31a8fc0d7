"""The objects the API returns: one dataclass per object of tunespec's JSON output.

Field names are the JSON's (docs/schema/*.json), except `for` (a Python keyword), which is
`for_`. Every class has `from_json` (the parsed JSON object) and `to_json` (the same object
back, valid against its schema).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

from ._literals import Layer, ProvenanceKind, Severity, SpecProvenanceKind, View
from ._measurement import Measurement

Json = Dict[str, Any]


@dataclass(frozen=True)
class Related:
    """A location related to a diagnostic (the other matcher of a pair, say)."""

    file: str
    line: int
    column: int
    message: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Related":
        return cls(obj["file"], obj["line"], obj["column"], obj["message"])

    def to_json(self) -> Json:
        return {"file": self.file, "line": self.line, "column": self.column, "message": self.message}


@dataclass(frozen=True)
class Diagnostic:
    """One problem in an input, or a tool error (usage, I/O): docs/schema/diagnostic.schema.json.

    `code` is stable (`tunespec::verify::unknown-symbol`, `tunespec::usage`, `tunespec::io`);
    `file` is `None` for a problem of the run, `<stdin>` for text passed through stdin.
    """

    severity: Severity
    code: str
    message: str
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    help: Optional[str] = None
    related: Tuple[Related, ...] = ()
    version: int = 1

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Diagnostic":
        return cls(
            severity=obj["severity"],
            code=obj["code"],
            message=obj["message"],
            file=obj.get("file"),
            line=obj.get("line"),
            column=obj.get("column"),
            help=obj.get("help"),
            related=tuple(Related.from_json(r) for r in obj.get("related", [])),
            version=obj.get("version", 1),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "help": self.help,
            "related": [r.to_json() for r in self.related],
        }

    @property
    def is_error(self) -> bool:
        """Whether this is an error (not a warning or a note)."""
        return self.severity == "error"

    def __str__(self) -> str:
        where = self.file or "tunespec"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.severity}[{self.code}]: {self.message}"


@dataclass(frozen=True)
class ConfigEntry:
    """One attribute a matcher's action set on an op (`lowering_config`, ...), as MLIR text."""

    name: str
    value: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ConfigEntry":
        return cls(obj["name"], obj["value"])

    def to_json(self) -> Json:
        return {"name": self.name, "value": self.value}


@dataclass(frozen=True)
class FiredPair:
    """A matcher whose action ran on an op (several when specs chain through includes)."""

    matcher: str
    matcher_location: Optional[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "FiredPair":
        return cls(obj["matcher"], obj.get("matcher_location"))

    def to_json(self) -> Json:
        return {"matcher": self.matcher, "matcher_location": self.matcher_location}


@dataclass(frozen=True)
class AsWritten:
    """What matching the op as written (not in IREE's dispatch view) would give, where it differs."""

    matcher: Optional[str]
    matcher_location: Optional[str]
    config: Tuple[ConfigEntry, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "AsWritten":
        return cls(
            obj.get("matcher"),
            obj.get("matcher_location"),
            tuple(ConfigEntry.from_json(c) for c in obj["config"]),
        )

    def to_json(self) -> Json:
        return {
            "matcher": self.matcher,
            "matcher_location": self.matcher_location,
            "config": [c.to_json() for c in self.config],
        }


@dataclass(frozen=True)
class OverriddenPair:
    """A later pair that also matches an op and that the op's winner overrode (by matcher key)."""

    matcher: str
    matcher_location: Optional[str]
    layer: Optional[Layer]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "OverriddenPair":
        return cls(obj["matcher"], obj.get("matcher_location"), obj.get("layer"))

    def to_json(self) -> Json:
        return {"matcher": self.matcher, "matcher_location": self.matcher_location, "layer": self.layer}


@dataclass(frozen=True)
class ExplainedOp:
    """One candidate op of `explain`: what it is, the config it gets and who set it.

    `matcher` is `None` (and `config` empty) when no matcher configures the op.
    """

    op: str
    dispatch_op: Optional[str]
    location: Optional[str]
    loops: Optional[Tuple[int, ...]]
    element_types: Tuple[str, ...]
    matcher: Optional[str]
    action: Optional[str]
    matcher_location: Optional[str]
    provenance: Optional[str]
    config: Tuple[ConfigEntry, ...]
    fired: Tuple[FiredPair, ...]
    as_written: Optional[AsWritten]
    # measured, derived, stated (None: unmatched), and the measured matcher's record (device,
    # iree, times and speedup as floats, candidate, date).
    provenance_kind: Optional[ProvenanceKind] = None
    measurement: Optional[Measurement] = field(default=None, hash=False)
    layer: Optional[Layer] = None
    overrides: Tuple[OverriddenPair, ...] = ()

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ExplainedOp":
        loops = obj.get("loops")
        as_written = obj.get("as_written")
        return cls(
            op=obj["op"],
            dispatch_op=obj.get("dispatch_op"),
            location=obj.get("location"),
            loops=None if loops is None else tuple(loops),
            element_types=tuple(obj["element_types"]),
            matcher=obj.get("matcher"),
            action=obj.get("action"),
            matcher_location=obj.get("matcher_location"),
            provenance=obj.get("provenance"),
            config=tuple(ConfigEntry.from_json(c) for c in obj["config"]),
            fired=tuple(FiredPair.from_json(f) for f in obj["fired"]),
            as_written=None if as_written is None else AsWritten.from_json(as_written),
            provenance_kind=obj.get("provenance_kind"),
            measurement=(
                None if obj.get("measurement") is None
                else Measurement.from_json(obj["measurement"])
            ),
            layer=obj.get("layer"),
            overrides=tuple(OverriddenPair.from_json(o) for o in obj.get("overrides", [])),
        )

    def to_json(self) -> Json:
        return {
            "provenance_kind": self.provenance_kind,
            "measurement": None if self.measurement is None else self.measurement.to_json(),
            "op": self.op,
            "dispatch_op": self.dispatch_op,
            "location": self.location,
            "loops": None if self.loops is None else list(self.loops),
            "element_types": list(self.element_types),
            "matcher": self.matcher,
            "action": self.action,
            "matcher_location": self.matcher_location,
            "provenance": self.provenance,
            "config": [c.to_json() for c in self.config],
            "fired": [f.to_json() for f in self.fired],
            "as_written": None if self.as_written is None else self.as_written.to_json(),
            "layer": self.layer,
            "overrides": [o.to_json() for o in self.overrides],
        }

    @property
    def matched(self) -> bool:
        """Whether a matcher configures this op."""
        return self.matcher is not None

    def config_dict(self) -> Dict[str, str]:
        """The config as a `{name: value}` dict."""
        return {c.name: c.value for c in self.config}


@dataclass(frozen=True)
class WithheldOp:
    """An op nothing configured where a derived default, withheld by measured first, would."""

    op: str
    location: Optional[str]
    matcher: str
    matcher_location: Optional[str]
    provenance: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "WithheldOp":
        return cls(
            obj["op"],
            obj.get("location"),
            obj["matcher"],
            obj.get("matcher_location"),
            obj["provenance"],
        )

    def to_json(self) -> Json:
        return {
            "op": self.op,
            "location": self.location,
            "matcher": self.matcher,
            "matcher_location": self.matcher_location,
            "provenance": self.provenance,
        }


@dataclass(frozen=True)
class ProvenanceSummary:
    """Where `explain`'s configs come from (one per configured op): measured (on which devices,
    with which IREE versions, their median speedup, tuned over baseline time), derived by rule,
    stated; `summary` is the line the text report prints; `derived_withheld` the ops a derived
    default would configure with `derived=True`."""

    measured: int
    derived: int
    stated: int
    devices: Tuple[str, ...]
    iree_versions: Tuple[str, ...]
    median_speedup: Optional[float]
    summary: Optional[str]
    derived_withheld: Tuple[WithheldOp, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ProvenanceSummary":
        return cls(
            measured=obj["measured"],
            derived=obj["derived"],
            stated=obj["stated"],
            devices=tuple(obj["devices"]),
            iree_versions=tuple(obj["iree_versions"]),
            median_speedup=obj.get("median_speedup"),
            summary=obj.get("summary"),
            derived_withheld=tuple(WithheldOp.from_json(w) for w in obj["derived_withheld"]),
        )

    def to_json(self) -> Json:
        return {
            "measured": self.measured,
            "derived": self.derived,
            "stated": self.stated,
            "devices": list(self.devices),
            "iree_versions": list(self.iree_versions),
            "median_speedup": self.median_speedup,
            "summary": self.summary,
            "derived_withheld": [w.to_json() for w in self.derived_withheld],
        }


@dataclass(frozen=True)
class Explanation:
    """`explain`'s document (docs/schema/explain.schema.json), plus the run's warnings."""

    version: int
    view: View
    ops: Tuple[ExplainedOp, ...]
    differs_as_written: int
    matched: int
    unmatched: int
    pairs: int
    provenance: Optional[ProvenanceSummary] = None
    diagnostics: Tuple[Diagnostic, ...] = field(default=(), compare=False)

    @classmethod
    def from_json(
        cls, obj: Mapping[str, Any], diagnostics: Tuple[Diagnostic, ...] = ()
    ) -> "Explanation":
        return cls(
            version=obj["version"],
            view=obj["view"],
            ops=tuple(ExplainedOp.from_json(o) for o in obj["ops"]),
            differs_as_written=obj["differs_as_written"],
            matched=obj["matched"],
            unmatched=obj["unmatched"],
            pairs=obj["pairs"],
            provenance=(
                None if obj.get("provenance") is None
                else ProvenanceSummary.from_json(obj["provenance"])
            ),
            diagnostics=diagnostics,
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "view": self.view,
            "ops": [o.to_json() for o in self.ops],
            "differs_as_written": self.differs_as_written,
            "matched": self.matched,
            "unmatched": self.unmatched,
            "pairs": self.pairs,
            "provenance": None if self.provenance is None else self.provenance.to_json(),
        }


@dataclass(frozen=True)
class VerifyReport:
    """What `verify` found: every finding (stdout's diagnostics) and the summary's counts.

    `notes` are the run's own remarks on stderr (e.g. `tunespec::iree::not-checked` when no
    iree-opt checked IREE attributes); they depend on the machine, the findings do not.
    """

    diagnostics: Tuple[Diagnostic, ...]
    files: int
    matchers: int
    errors: int
    warnings: int
    notes: Tuple[Diagnostic, ...] = field(default=(), compare=False)

    @property
    def ok(self) -> bool:
        """Whether no errors were found (warnings allowed)."""
        return self.errors == 0

    def summary_json(self) -> Json:
        """The summary line of `verify --format json` (docs/schema/verify.schema.json)."""
        return {
            "version": 1,
            "summary": {
                "files": self.files,
                "matchers": self.matchers,
                "errors": self.errors,
                "warnings": self.warnings,
            },
        }


@dataclass(frozen=True)
class ChainLink:
    """One target of a resolution's fallback chain (the target itself first)."""

    name: str
    kind: Optional[str]
    description: Optional[str]
    defined_by: Optional[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ChainLink":
        return cls(obj["name"], obj.get("kind"), obj.get("description"), obj.get("defined_by"))

    def to_json(self) -> Json:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "defined_by": self.defined_by,
        }


@dataclass(frozen=True)
class MeasuredEntry:
    """A measured config's record as `resolve` shows it: device, IREE version, speedup (tuned
    over baseline time: below 1 is faster)."""

    device: str
    iree: str
    speedup: float

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "MeasuredEntry":
        return cls(obj["device"], obj["iree"], obj["speedup"])

    def to_json(self) -> Json:
        return {"device": self.device, "iree": self.iree, "speedup": self.speedup}


@dataclass(frozen=True)
class SpecProvenance:
    """Where a resolved spec's configs come from: `kind` (measured, derived, stated, mixed),
    its measured records, how many matchers are derived and by which rules, how many are stated
    (None: unknown, a user's file is scanned, not parsed)."""

    kind: SpecProvenanceKind
    measured: Tuple[MeasuredEntry, ...]
    derived: int
    rules: Tuple[str, ...]
    stated: Optional[int]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "SpecProvenance":
        return cls(
            kind=obj["kind"],
            measured=tuple(MeasuredEntry.from_json(m) for m in obj["measured"]),
            derived=obj["derived"],
            rules=tuple(obj["rules"]),
            stated=obj.get("stated"),
        )

    def to_json(self) -> Json:
        return {
            "kind": self.kind,
            "measured": [m.to_json() for m in self.measured],
            "derived": self.derived,
            "rules": list(self.rules),
            "stated": self.stated,
        }


@dataclass(frozen=True)
class ResolvedSpec:
    """A spec a compile for the target uses, at `position` (1 = highest priority)."""

    position: int
    name: str
    origin: str
    config: Optional[str]
    for_: Optional[str]
    features: Tuple[str, ...]
    reason: str
    bytes: int
    hash: str
    matchers: Optional[int]
    provenance: Optional[SpecProvenance] = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ResolvedSpec":
        return cls(
            position=obj["position"],
            name=obj["name"],
            origin=obj["origin"],
            config=obj.get("config"),
            for_=obj.get("for"),
            features=tuple(obj["features"]),
            reason=obj["reason"],
            bytes=obj["bytes"],
            hash=obj["hash"],
            matchers=obj.get("matchers"),
            provenance=(
                None if obj.get("provenance") is None
                else SpecProvenance.from_json(obj["provenance"])
            ),
        )

    def to_json(self) -> Json:
        return {
            "position": self.position,
            "name": self.name,
            "origin": self.origin,
            "config": self.config,
            "for": self.for_,
            "features": list(self.features),
            "reason": self.reason,
            "bytes": self.bytes,
            "hash": self.hash,
            "matchers": self.matchers,
            "provenance": None if self.provenance is None else self.provenance.to_json(),
        }


@dataclass(frozen=True)
class SkippedSpec:
    """A spec that does not apply to the target, and why."""

    name: str
    origin: str
    config: Optional[str]
    for_: Optional[str]
    reason: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "SkippedSpec":
        return cls(obj["name"], obj["origin"], obj.get("config"), obj.get("for"), obj["reason"])

    def to_json(self) -> Json:
        return {
            "name": self.name,
            "origin": self.origin,
            "config": self.config,
            "for": self.for_,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Resolution:
    """`resolve`'s document (docs/schema/resolve.schema.json): chain and ordered specs."""

    version: int
    requested: str
    target: str
    alias: Optional[str]
    features: Tuple[str, ...]
    target_id: str
    chain: Tuple[ChainLink, ...]
    specs: Tuple[ResolvedSpec, ...]
    skipped: Tuple[SkippedSpec, ...]
    fingerprint: str
    # Whether derived defaults were asked for; without, they are in `skipped`.
    derived: bool = False

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Resolution":
        return cls(
            version=obj["version"],
            requested=obj["requested"],
            target=obj["target"],
            alias=obj.get("alias"),
            features=tuple(obj["features"]),
            target_id=obj["target_id"],
            chain=tuple(ChainLink.from_json(c) for c in obj["chain"]),
            specs=tuple(ResolvedSpec.from_json(s) for s in obj["specs"]),
            skipped=tuple(SkippedSpec.from_json(s) for s in obj["skipped"]),
            fingerprint=obj["fingerprint"],
            derived=obj.get("derived", False),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "requested": self.requested,
            "target": self.target,
            "alias": self.alias,
            "features": list(self.features),
            "target_id": self.target_id,
            "derived": self.derived,
            "chain": [c.to_json() for c in self.chain],
            "specs": [s.to_json() for s in self.specs],
            "skipped": [s.to_json() for s in self.skipped],
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True)
class TargetSpecProvenance:
    """How many of an embedded spec's matchers are measured, derived (by which rules), stated."""

    kind: SpecProvenanceKind
    measured: int
    derived: int
    stated: int
    rules: Tuple[str, ...]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TargetSpecProvenance":
        return cls(obj["kind"], obj["measured"], obj["derived"], obj["stated"], tuple(obj["rules"]))

    def to_json(self) -> Json:
        return {
            "kind": self.kind,
            "measured": self.measured,
            "derived": self.derived,
            "stated": self.stated,
            "rules": list(self.rules),
        }


@dataclass(frozen=True)
class TargetSpec:
    """One embedded default spec of a target."""

    path: str
    matchers: int
    bytecode_bytes: int
    source_bytes: int
    source_hash: str
    bytecode_hash: str
    provenance: Optional[TargetSpecProvenance] = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TargetSpec":
        return cls(
            obj["path"],
            obj["matchers"],
            obj["bytecode_bytes"],
            obj["source_bytes"],
            obj["source_hash"],
            obj["bytecode_hash"],
            None
            if obj.get("provenance") is None
            else TargetSpecProvenance.from_json(obj["provenance"]),
        )

    def to_json(self) -> Json:
        return {
            "path": self.path,
            "matchers": self.matchers,
            "bytecode_bytes": self.bytecode_bytes,
            "source_bytes": self.source_bytes,
            "source_hash": self.source_hash,
            "bytecode_hash": self.bytecode_hash,
            "provenance": None if self.provenance is None else self.provenance.to_json(),
        }


@dataclass(frozen=True)
class TargetIree:
    """How IREE compiles for a target: its flags, the architecture it compiles for, and why when
    that is not the target's own (IREE 3.13 has no sm_90: sm_90 is compiled as sm_89 PTX)."""

    flags: Tuple[str, ...]
    compiled_as: str
    substitution: Optional[str] = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TargetIree":
        return cls(tuple(obj["flags"]), obj["compiled_as"], obj.get("substitution"))

    def to_json(self) -> Json:
        return {
            "flags": list(self.flags),
            "compiled_as": self.compiled_as,
            "substitution": self.substitution,
        }


@dataclass(frozen=True)
class Target:
    """One target of the embedded registry (docs/schema/targets.schema.json)."""

    version: int
    target: str
    description: str
    aliases: Tuple[str, ...]
    fallback: Optional[str]
    kind: str
    features: Tuple[str, ...]
    specs: Tuple[TargetSpec, ...]
    # None for a family, vendor or SKU (IREE compiles for an architecture).
    iree: Optional[TargetIree] = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Target":
        return cls(
            version=obj["version"],
            target=obj["target"],
            description=obj["description"],
            aliases=tuple(obj["aliases"]),
            fallback=obj.get("fallback"),
            kind=obj["kind"],
            features=tuple(obj["features"]),
            specs=tuple(TargetSpec.from_json(s) for s in obj["specs"]),
            iree=None if obj.get("iree") is None else TargetIree.from_json(obj["iree"]),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "target": self.target,
            "description": self.description,
            "aliases": list(self.aliases),
            "fallback": self.fallback,
            "kind": self.kind,
            "features": list(self.features),
            "iree": None if self.iree is None else self.iree.to_json(),
            "specs": [s.to_json() for s in self.specs],
        }
