"""`tunespec.tune` against the CLI's schemas and the real IREE 3.13 (compiler, runtime and
iree-opt) on the CPU (local-task): a quick search of a model of two matmuls, a GPU target's
candidates generated and compiled without a GPU, and a GPU target refused without its device.
The reference venv `tools/iree-venv.sh` makes; required when CI=true, skipped otherwise without
it. No timed assertions: which candidate wins depends on the machine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, List

import pytest

import tunespec
import tunespec._api
from conftest import FIXTURES, REPO, Schemas

VENV = REPO / "target" / "iree-venv"
MODEL = FIXTURES / "tune" / "two_matmuls_model.mlir"
GPU_MODEL = FIXTURES / "tune" / "llama2_prefill_gpu.mlir"


@pytest.fixture()
def iree(monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (VENV / "bin" / "iree-benchmark-module").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"IREE's compiler and runtime (tools/iree-venv.sh: {VENV}) are required when CI=true")
        pytest.skip("no IREE venv (tools/iree-venv.sh)")
    monkeypatch.delenv("TUNESPEC_NO_IREE", raising=False)
    return VENV


@pytest.fixture()
def stdout(monkeypatch: pytest.MonkeyPatch) -> List[bytes]:
    """The CLI's stdout of each run the API makes, as it printed it."""
    printed: List[bytes] = []
    run = tunespec._api._run

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = run(*args, **kwargs)
        printed.append(result.stdout)
        return result

    monkeypatch.setattr(tunespec._api, "_run", recording)
    return printed


def test_compile_only_generates_and_compiles_a_gpu_targets_candidates(
    schemas: Schemas, iree: Path, tmp_path: Path, stdout: List[bytes]
) -> None:
    out = tmp_path / "candidates"
    report = tunespec.tune(
        GPU_MODEL, "gfx942", out, compile_only=True, solutions=40, max_candidates=3, iree=iree
    )
    assert isinstance(report, tunespec.TuneCompileReport)
    (printed,) = stdout
    assert report.to_json() == json.loads(printed)
    schemas.validate("tune-compile", report.to_json())
    assert tunespec.TuneCompileReport.from_json(report.to_json()) == report
    assert json.loads((out / "compile-report.json").read_text()) == report.to_json()

    assert (report.version, report.target) == (1, "gfx942")
    assert [d.key for d in report.dispatches] == [
        "matmul_transpose_b 4096x11008x4096 f16*f16->f32",
        "batch_matmul 32x4096x4096x128 f16*f16->f32",
    ]
    for dispatch in report.dispatches:
        assert len(dispatch.candidates) == 3, dispatch
        assert dispatch.candidates[0].knobs == "iree"
        for candidate in dispatch.candidates:
            assert candidate.status == "compiled", candidate
            assert candidate.message is None and candidate.seconds > 0
            assert (out / candidate.spec).is_file()
        # Beside IREE's own (and the linked config, when tunespec links one), solutions of
        # IREE's constraints.
        solved = [c.knobs for c in dispatch.candidates[1:] if not c.knobs.startswith("linked: ")]
        assert solved and all(
            k.startswith(("TileAndFuse ", "VectorDistribute ")) for k in solved
        ), solved
        assert (out / "candidates" / dispatch.matcher / "payload.mlir").is_file()
    assert len(report.compiled) == 6
    # The generation records: each pipeline's solutions (at most `solutions`) and what IREE
    # materialized; the batch matmul's space is its batch-free surrogate's.
    keys = {d.key for d in report.dispatches}
    assert {g.dispatch for g in report.generation} == keys
    for generation in report.generation:
        assert generation.pipeline in ("TileAndFuse", "VectorDistribute"), generation
        assert generation.knobs, generation
        assert 0 < generation.solutions <= 40, generation
        assert generation.materialized <= generation.solutions
    for key in keys:
        materialized = sum(g.materialized for g in report.generation if g.dispatch == key)
        assert materialized >= 1, key
    assert any(
        g.dispatch == "batch_matmul 32x4096x4096x128 f16*f16->f32"
        and g.note is not None
        and "batch tile 1" in g.note
        for g in report.generation
    )


def test_a_gpu_target_without_compile_only_on_the_cpu_raises_a_usage_error(
    iree: Path, tmp_path: Path
) -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.tune(MODEL, "gfx942", tmp_path / "out", iree=iree)
    assert caught.value.status == 2
    message = str(caught.value)
    assert "is a GPU target" in message and "--compile-only" in message


def test_compile_only_on_the_cpu_takes_the_order_and_the_dispatches_asked_for(
    schemas: Schemas, iree: Path, tmp_path: Path
) -> None:
    model = FIXTURES / "tune" / "two_matmuls_model.mlir"
    report = tunespec.tune(
        model,
        "host",
        tmp_path / "out",
        compile_only=True,
        max_candidates=3,
        order="random",
        dispatches=["512x512"],
        iree=iree,
    )
    schemas.validate("tune-compile", report.to_json())
    assert report.order == "random"
    assert [d.key for d in report.dispatches] == ["matmul 512x512x512 f32*f32->f32"]
    assert [c.status for c in report.compiled] == ["compiled"] * 3
    # A pattern that selects no dispatch is the CLI's usage error.
    with pytest.raises(tunespec.UsageError, match="selects no dispatch"):
        tunespec.tune(
            model, "host", tmp_path / "none", compile_only=True, dispatches="999x", iree=iree
        )


def test_a_librarys_keys_are_tuned_without_a_model(
    schemas: Schemas, iree: Path, tmp_path: Path
) -> None:
    out = tmp_path / "keys"
    report = tunespec.tune(
        None,
        "host",
        out,
        keys=FIXTURES / "bench" / "cpu_lib",
        compile_only=True,
        max_candidates=2,
        iree=iree,
    )
    schemas.validate("tune-compile", report.to_json())
    assert [d.key for d in report.dispatches] == [
        "matmul 128x128x128 f32*f32->f32",
        "matmul 96x96x96 f32*f32->f32",
    ]
    assert len(report.compiled) == 4
    assert (out / "keys-model.mlir").read_text().count("linalg.generic") == 2
