"""The objects of `check`: docs/schema/check.schema.json, one frozen dataclass per JSON object
(field names are the JSON's; `to_json` gives the object back, valid against the schema)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from ._literals import CheckStatus

Json = Dict[str, Any]


@dataclass(frozen=True)
class CheckStep:
    """One step of a matcher's check: `status` is `ok`, `failed` or `skipped`."""

    status: CheckStatus
    message: Optional[str] = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "CheckStep":
        return cls(obj["status"], obj.get("message"))

    def to_json(self) -> Json:
        out: Json = {"status": self.status}
        if self.message is not None:
            out["message"] = self.message
        return out


@dataclass(frozen=True)
class CheckFix:
    """A syntax migration `check` found (`applied`: written with `fix=True`)."""

    file: str
    line: int
    col: int
    before: str
    after: str
    applied: bool

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "CheckFix":
        return cls(obj["file"], obj["line"], obj["col"], obj["before"], obj["after"], obj["applied"])

    def to_json(self) -> Json:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "before": self.before,
            "after": self.after,
            "applied": self.applied,
        }


@dataclass(frozen=True)
class CheckResult:
    """One matcher re-checked against the installed IREE: it parses, takes effect on a payload
    of its key, compiles; `warnings` (another IREE release measured it, `match.attention`)."""

    file: str
    matcher: str
    line: int
    col: int
    kind: str
    key: str
    target: Optional[str]
    parse: CheckStep
    effect: CheckStep
    compile: CheckStep
    recorded_iree: Optional[str]
    warnings: Tuple[str, ...]
    ok: bool

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "CheckResult":
        return cls(
            file=obj["file"],
            matcher=obj["matcher"],
            line=obj["line"],
            col=obj["col"],
            kind=obj["kind"],
            key=obj["key"],
            target=obj.get("target"),
            parse=CheckStep.from_json(obj["parse"]),
            effect=CheckStep.from_json(obj["effect"]),
            compile=CheckStep.from_json(obj["compile"]),
            recorded_iree=obj.get("recorded_iree"),
            warnings=tuple(obj["warnings"]),
            ok=obj["ok"],
        )

    def to_json(self) -> Json:
        return {
            "file": self.file,
            "matcher": self.matcher,
            "line": self.line,
            "col": self.col,
            "kind": self.kind,
            "key": self.key,
            "target": self.target,
            "parse": self.parse.to_json(),
            "effect": self.effect.to_json(),
            "compile": self.compile.to_json(),
            "recorded_iree": self.recorded_iree,
            "warnings": list(self.warnings),
            "ok": self.ok,
        }


@dataclass(frozen=True)
class CheckReport:
    """`check`'s document: the IREE used, fixes, unreadable files, files without a matcher of a
    root op, one result per matcher and the summary counts (`files`, `matchers`, `passed`,
    `failed`, `warnings`, `fixes`, `fixed`)."""

    version: int
    iree: str
    fixes: Tuple[CheckFix, ...]
    unreadable: Tuple[Tuple[str, str], ...]
    without_matchers: Tuple[str, ...]
    results: Tuple[CheckResult, ...]
    summary: Mapping[str, int]

    @property
    def ok(self) -> bool:
        """Whether every matcher passed and every file was read."""
        return not self.unreadable and all(result.ok for result in self.results)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "CheckReport":
        return cls(
            version=obj["version"],
            iree=obj["iree"],
            fixes=tuple(CheckFix.from_json(f) for f in obj["fixes"]),
            unreadable=tuple((u["file"], u["message"]) for u in obj["unreadable"]),
            without_matchers=tuple(obj["without_matchers"]),
            results=tuple(CheckResult.from_json(r) for r in obj["results"]),
            summary=dict(obj["summary"]),
        )

    def to_json(self) -> Json:
        return {
            "version": self.version,
            "iree": self.iree,
            "fixes": [f.to_json() for f in self.fixes],
            "unreadable": [{"file": f, "message": m} for f, m in self.unreadable],
            "without_matchers": list(self.without_matchers),
            "results": [r.to_json() for r in self.results],
            "summary": dict(self.summary),
        }
