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


def test_import_tuner_reports_and_refuses_broken_runs(tmp_path: Path, schemas: Schemas) -> None:
    library = tmp_path / "team" / "lib"  # missing parents are created
    report = tunespec.import_tuner([RUN, SLOWER], "mi300x", library)
    schemas.validate("import-tuner", report.to_json())
    assert (report.target, report.imported, report.entries) == ("gfx942", 1, 1)
    imported, not_beaten = report.dispatches
    assert imported.outcome == "imported" and imported.candidate == 2
    assert imported.tuned_us == 80.0 and imported.baseline_us == 100.0
    assert imported.speedup is not None and abs(imported.speedup - 0.8) < 1e-9
    assert not_beaten.outcome == "not-beaten" and not_beaten.candidate is None
    assert any("no candidate beat the baseline" in note for note in report.notes), report.notes
    assert (library / "registry.toml").is_file()
    reference = cli("import-tuner", "--format=json", str(RUN), "-t", "gfx942", "-o", str(tmp_path / "ref"))
    assert json.loads(reference.stdout)["dispatches"][0]["candidate"] == 2
    broken = tmp_path / "broken"
    with pytest.raises(tunespec.ProblemsError) as caught:
        tunespec.import_tuner(FIXTURES / "tuner" / "broken" / "missing_columns", "gfx942", broken)
    assert caught.value.status == 1
    (error, *_) = caught.value.errors
    assert error.code == "tunespec::tuner::input" and error.line == 1
    assert error.file is not None and error.file.endswith("_candidate_analysis.csv")
    assert not broken.exists(), "a broken run writes nothing"


def test_import_tuner_usage_errors_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.import_tuner([], "gfx942", tmp_path / "lib")
    assert "no tuner run directories" in str(caught.value)
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.import_tuner(RUN, "gfx94", tmp_path / "lib")
    assert "did you mean" in str(caught.value) and "gfx942" in str(caught.value)
    assert "--help" not in str(caught.value)


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
    # Asked to, it parses what it can without IREE and says what it did not check.
    report = tunespec.check(library, require_iree=False)
    assert report.iree == "" and report.summary["files"] == 1 and not report.results
