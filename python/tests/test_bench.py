"""`tunespec.bench` against the CLI's schema and the real IREE 3.13 runtime on the CPU
(local-task): the reference venv `tools/iree-venv.sh` makes; required when CI=true, skipped
otherwise without it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import tunespec
from conftest import FIXTURES, REPO, Schemas

VENV = REPO / "target" / "iree-venv"
CPU_LIB = FIXTURES / "bench" / "cpu_lib"
QUICK = {"repetitions": 2, "min_time": 0.02, "max_rounds": 80}


@pytest.fixture()
def iree(monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (VENV / "bin" / "iree-benchmark-module").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"IREE's compiler and runtime (tools/iree-venv.sh: {VENV}) are required when CI=true")
        pytest.skip("no IREE venv (tools/iree-venv.sh)")
    monkeypatch.delenv("TUNESPEC_NO_IREE", raising=False)
    return VENV


def test_bench_times_matchers_with_typed_results(schemas: Schemas, iree: Path) -> None:
    report = tunespec.bench(target="bench_cpu", specs=[CPU_LIB], iree=iree, **QUICK)
    schemas.validate("bench", report.to_json())
    assert report.device == "local-task"
    assert report.runtime.startswith("3.13")
    tiny = next(row for row in report.rows if row.matcher == "match_mm_128_tiny_tiles")
    assert tiny.status == "slower"
    assert tiny.timing is not None and tiny.ratio is not None
    assert tiny.timing.rounds in (10, 20, 40, 80) and tiny.timing.settled
    assert tiny.timing.ci_low is not None and tiny.timing.ci_low > 1.0
    # Numbers are numbers: arithmetic on them is arithmetic.
    assert tiny.timing.tuned.median_us > 2 * tiny.timing.baseline.median_us
    assert tiny.outputs is not None and tiny.outputs.ok
    assert tiny not in report.winners
    # The row names the op it measured and where its matcher is written.
    assert tiny.ops and tiny.ops[0].loops == (128, 128, 128)
    assert tiny.ops[0].matcher_location is not None
    assert tiny.ops[0].matcher_location.endswith("cpu_lib/specs/two_matmuls.mlir:5:3")


def test_a_wrong_output_is_reported_not_raised(iree: Path, tmp_path: Path) -> None:
    # The spec changes what the matmul computes: refused unless its action opts in.
    header = "%one: !transform.any_param {transform.readonly}) {"
    text = (FIXTURES / "bench" / "wrong_init.mlir").read_text()
    assert header in text
    opted = tmp_path / "wrong_init.mlir"
    opted.write_text(
        text.replace(
            header,
            header[:-1] + 'attributes {tunespec.rewrites = "bench must catch wrong outputs"} {',
        )
    )
    report = tunespec.bench(
        FIXTURES / "models" / "linalg_matmul_256_f32.mlir",
        specs=[opted],
        default=False,
        iree=iree,
        **QUICK,
    )
    (row,) = report.rows
    assert row.status == "wrong-output"
    assert row.outputs is not None and row.outputs.first_mismatch is not None
    assert abs(row.outputs.first_mismatch.library - row.outputs.first_mismatch.iree - 1.0) < 1e-3


def test_an_unknown_device_raises_a_usage_error(iree: Path) -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.bench(target="bench_cpu", specs=[CPU_LIB], device="nosuch", iree=iree)
    assert "local-task" in str(caught.value)


def test_the_written_librarys_entries_are_typed_per_device(iree: Path, tmp_path: Path) -> None:
    # A library bench wrote, with one matcher measured on two devices; this run wins nothing
    # (tiles of 1 are slower), so the library stays as it was and its entries are reported.
    library = tmp_path / "measured"
    shutil.copytree(FIXTURES / "bench" / "two_devices", library)
    report = tunespec.bench(target="bench_cpu", specs=[CPU_LIB], write=library, iree=iree, **QUICK)
    assert report.written is not None and any("no matcher won" in line for line in report.written)
    assert report.entries is not None and len(report.entries) == 2
    by_device = {entry.measurement.device: entry for entry in report.entries}
    assert set(by_device) == {"local-task", "local-sync"}
    task = by_device["local-task"]
    assert task.target == "bench_cpu"
    assert task.measurement.matcher == "match_mm_128_tiny_tiles"
    assert task.measurement.device_name == "CPU loop test"
    assert task.measurement.threads == 2 and by_device["local-sync"].measurement.threads == 1
    assert task.measurement.speedup == 0.5
    assert task.identity == task.measurement.identity
    assert task.identity.startswith("local-task, CPU loop test, 2 threads")
    assert tunespec.WrittenEntry.from_json(task.to_json()) == task
