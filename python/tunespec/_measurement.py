"""A measured config's record (`tunespec.measurement` on its matcher), typed."""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Union

_KNOWN = (
    "device",
    "iree",
    "speedup",
    "baseline_us",
    "tuned_us",
    "candidate",
    "date",
    "dispatch",
    "matcher",
    "device_name",
    "gpu",
    "driver",
    "threads",
    "runtime",
    "flags",
)


def _str(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _float(value: Any) -> float:
    if isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return math.nan


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return None


def _date(value: Any) -> Union[datetime.date, str, None]:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(str(value))
    except ValueError:
        return str(value)  # `unknown`, or a date the record wrote otherwise


@dataclass(frozen=True)
class Measurement:
    """How a measured config was measured (`explain`'s `ExplainedOp.measurement`).

    Times in microseconds, `speedup` is tuned over baseline time (below 1 is faster); a time the
    record lacks (or that is not a number) is NaN. `candidate` is the tuner's candidate number,
    `date` the run's date (`datetime.date`; the string as written when it is not one, such as
    `unknown`; None when absent). `dispatch` is the dispatch measured (the tuner's, or a model's
    dispatch `bench` timed alone), `matcher` the matcher `bench` measured on a payload of its own.
    `device_name` says what the device is (a GPU's or CPU's model name; older records wrote
    `gpu`), with its `driver`, the CPU `threads` and the `runtime`; `identity` joins them as
    `--measured-on` matches them. `extra` holds the record's other fields (`source`, ...)."""

    device: str
    iree: str
    speedup: float
    baseline_us: float = math.nan
    tuned_us: float = math.nan
    candidate: Optional[int] = None
    date: Union[datetime.date, str, None] = None
    dispatch: Optional[str] = None
    matcher: Optional[str] = None
    device_name: Optional[str] = None
    driver: Optional[str] = None
    threads: Optional[int] = None
    runtime: Optional[str] = None
    flags: Optional[str] = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)
    # The JSON object as read, for `to_json`.
    _json: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False, repr=False)

    @property
    def saved_us(self) -> float:
        """Baseline minus tuned time, microseconds (NaN when either is unknown)."""
        return self.baseline_us - self.tuned_us

    @property
    def identity(self) -> str:
        """Who measured it, as tunespec words it (device kind, name, driver, threads, runtime,
        IREE version): entries of two identities are kept side by side in a measured library."""
        parts = [self.device.split("://")[0]]
        if self.device_name is not None:
            parts.append(self.device_name)
        if self.driver is not None:
            parts.append(f"driver {self.driver}")
        if self.threads is not None:
            parts.append(f"{self.threads} threads")
        if self.runtime is not None:
            parts.append(self.runtime)
        parts.append(f"IREE {self.iree}")
        return ", ".join(parts)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Measurement":
        return cls(
            device=str(obj["device"]),
            iree=str(obj["iree"]),
            speedup=_float(obj["speedup"]),
            baseline_us=_float(obj.get("baseline_us", math.nan)),
            tuned_us=_float(obj.get("tuned_us", math.nan)),
            candidate=_int(obj.get("candidate")),
            date=_date(obj.get("date")),
            dispatch=_str(obj.get("dispatch")),
            matcher=_str(obj.get("matcher")),
            device_name=_str(obj.get("device_name", obj.get("gpu"))),
            driver=_str(obj.get("driver")),
            threads=_int(obj.get("threads")),
            runtime=_str(obj.get("runtime")),
            flags=_str(obj.get("flags")),
            extra={k: v for k, v in obj.items() if k not in _KNOWN},
            _json=dict(obj),
        )

    def to_json(self) -> Dict[str, Any]:
        """The record as `explain --format json` prints it."""
        if self._json:
            return dict(self._json)
        out: Dict[str, Any] = {"device": self.device, "iree": self.iree, "speedup": self.speedup}
        if not math.isnan(self.baseline_us):
            out["baseline_us"] = self.baseline_us
        if not math.isnan(self.tuned_us):
            out["tuned_us"] = self.tuned_us
        if self.candidate is not None:
            out["candidate"] = self.candidate
        if self.date is not None:
            out["date"] = str(self.date)
        optional = {
            "dispatch": self.dispatch,
            "matcher": self.matcher,
            "device_name": self.device_name,
            "driver": self.driver,
            "threads": self.threads,
            "runtime": self.runtime,
            "flags": self.flags,
        }
        out.update({key: value for key, value in optional.items() if value is not None})
        out.update(self.extra)
        return out
