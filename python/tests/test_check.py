"""`tunespec.import_tuner` and `tunespec.check` against the CLI's own output and the schema. The
checks compile with IREE 3.13 (the reference venv `tools/iree-venv.sh` makes); required when
CI=true, skipped otherwise without it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import tunespec
from conftest import FIXTURES, REPO, Schemas, cli

RUN = FIXTURES / "tuner" / "tuning_2026_11_20_10_00"
SLOWER = FIXTURES / "tuner" / "tuning_2026_11_22_08_00"
VENV = REPO / "target" / "iree-venv"


@pytest.fixture()
def iree(monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (VENV / "bin" / "iree-compile").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"IREE (tools/iree-venv.sh: {VENV}) is required when CI=true")
        pytest.skip("no IREE venv (tools/iree-venv.sh)")
    monkeypatch.setenv("TUNESPEC_IREE_VENV", str(VENV))
    monkeypatch.delenv("TUNESPEC_NO_IREE", raising=False)
    return VENV


def test_import_tuner_reports_and_refuses_broken_runs(tmp_path: Path) -> None:
    library = tmp_path / "team" / "lib"  # missing parents are created
    lines = tunespec.import_tuner([RUN, SLOWER], "gfx942", library)
    assert any("imported 1 measured config(s) for gfx942" in line for line in lines), lines
    assert any("no candidate beat the baseline" in line for line in lines), lines
    assert (library / "registry.toml").is_file()
    broken = tmp_path / "broken"
    with pytest.raises(tunespec.ProblemsError) as caught:
        tunespec.import_tuner(FIXTURES / "tuner" / "broken" / "missing_columns", "gfx942", broken)
    assert caught.value.status == 1
    assert not broken.exists(), "a broken run writes nothing"


def test_check_of_an_imported_library_equals_the_cli(
    tmp_path: Path, schemas: Schemas, iree: Path
) -> None:
    library = tmp_path / "lib"
    tunespec.import_tuner(RUN, "gfx942", library)
    report = tunespec.check(library, jobs=1)
    schemas.validate("check", report.to_json())
    assert report.ok and report.summary["passed"] == 1 and report.summary["failed"] == 0
    (result,) = report.results
    assert result.kind == "contraction" and result.target == "gfx942"
    assert (result.parse.status, result.effect.status, result.compile.status) == ("ok",) * 3
    reference = cli("check", "--format=json", "--jobs=1", str(library))
    assert reference.returncode == 0, reference.stderr
    assert report.to_json() == json.loads(reference.stdout)


def test_check_fix_migrates_a_3_10_pipeline(tmp_path: Path, iree: Path) -> None:
    library = tmp_path / "lib"
    tunespec.import_tuner(RUN, "gfx942", library)
    (spec,) = (library / "gfx942").glob("*.mlir")
    text = spec.read_text()
    assert "#iree_gpu.pipeline<TileAndFuse>" in text
    spec.write_text(text.replace("#iree_gpu.pipeline<TileAndFuse>", "LLVMGPUTileAndFuse"))
    found = tunespec.check(library, jobs=1)
    assert not found.ok
    (fix,) = found.fixes
    assert (fix.before, fix.applied) == ("LLVMGPUTileAndFuse", False)
    assert "LLVMGPUTileAndFuse" in spec.read_text(), "without fix=True nothing is written"
    fixed = tunespec.check(library, fix=True, jobs=1)
    assert fixed.ok and fixed.fixes[0].applied
    assert spec.read_text() == text


def test_check_without_iree_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TUNESPEC_IREE_LIB", "/nonexistent/libIREECompiler.so")
    library = tmp_path / "lib"
    tunespec.import_tuner(RUN, "gfx942", library)
    with pytest.raises(tunespec.UsageError):
        tunespec.check(library)
