"""The other commands (apply, coverage, extract, show, export, doctor, cache), the interpreter's
own IREE, inputs and types: results equal to the CLI's own output, objects that follow
docs/schema/."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import tunespec
from conftest import REPO, Schemas, cli
from tunespec._iree import interpreter_iree
from tunespec._runner import is_text

PAYLOAD = REPO / "examples" / "llama2_7b_f16_prefill_4096.mlir"


def test_coverage_equals_the_cli_and_follows_the_schema(schemas: Schemas) -> None:
    report = tunespec.coverage(PAYLOAD, "gfx942", derived=True)
    schemas.validate("coverage", report.to_json())
    reference = cli("coverage", "--format=json", "--derived", "-t", "gfx942", str(PAYLOAD))
    assert report.to_json() == json.loads(reference.stdout)
    assert report.payloads == 1 and 0 < report.fired <= report.matchers
    assert len(report.never_fired) == report.matchers - report.fired
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.coverage([], "gfx942")
    assert "no payloads" in str(caught.value)


def test_apply_attach_extract_round_trip() -> None:
    applied = tunespec.apply(PAYLOAD, "gfx942", derived=True)
    assert isinstance(applied, str) and "lowering_config" in applied
    attached = tunespec.attach(PAYLOAD, "gfx942", derived=True, emit="mlir", keep_all=True)
    library = tunespec.extract(attached)
    linked = tunespec.link("gfx942", derived=True)
    assert library.count("transform.named_sequence") == linked.count("transform.named_sequence")
    # Without keep_all, the library (76 pairs) is cut down to the pairs that fire on PAYLOAD.
    pruned = tunespec.extract(tunespec.attach(PAYLOAD, "gfx942", derived=True, emit="mlir"))
    assert pruned.count("transform.named_sequence") < library.count("transform.named_sequence")
    bytecode = tunespec.extract(attached, emit="mlirbc")
    assert bytecode.startswith(b"ML\xefR")
    with pytest.raises(ValueError):
        tunespec.attach(PAYLOAD, "gfx942", derived=True, emit="mlirbc")


def test_show_and_export() -> None:
    shown = tunespec.show("gfx942")
    assert shown == cli("show", "gfx942").stdout.decode()
    assert "transform.named_sequence" in shown


def test_export_writes_c(tmp_path: Path) -> None:
    files = tunespec.export(tmp_path / "out", ["gfx942"])
    assert {f.suffix for f in files} >= {".h", ".c"}, files


def test_doctor_and_cache(schemas: Schemas) -> None:
    report = tunespec.doctor()
    assert report.tunespec == cli("--version").stdout.decode().split(" ", 1)[1].strip()
    assert report.to_json() == json.loads(cli("doctor", "--format=json").stdout) or report.iree.found
    stats = tunespec.cache_stats()
    schemas.validate("cache-stats", stats.to_json())
    assert stats.dir == os.environ["TUNESPEC_CACHE_DIR"] == str(tunespec.cache_path())
    tunespec.link("gfx942", derived=True)
    assert tunespec.cache_stats().entries >= 1
    assert "removed" in tunespec.cache_clean()
    assert tunespec.cache_stats().entries == 0


def test_the_interpreters_iree_is_used_unactivated(tmp_path: Path) -> None:
    # A script run with this venv's python, not activated, from a directory with no checkout:
    # the IREE it imports is the one tunespec uses (passed as --iree), whatever is on PATH.
    library = interpreter_iree()
    if library is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the test venv has no IREE (tools/test-python installs iree-base-compiler)")
        pytest.skip("this interpreter imports no iree.compiler")
    script = "import tunespec, json; d = tunespec.doctor(); print(json.dumps([d.iree.found, d.iree.path, d.iree.origin]))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUNESPEC_IREE")}
    env.pop("TUNESPEC_NO_IREE", None)
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = "/usr/bin:/bin"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE, check=True
    )
    found, path, origin = json.loads(out.stdout)
    assert found and origin == "--iree"
    assert os.path.samefile(path, library)
    # `python -m tunespec` too (as TUNESPEC_IREE_LIB: a --iree given still wins).
    out = subprocess.run(
        [sys.executable, "-m", "tunespec", "doctor", "--format=json"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, check=True,
    )
    doctor = json.loads(out.stdout)["iree"]
    assert doctor["found"] and os.path.samefile(doctor["library"], library)


def test_a_setting_or_iree_argument_wins_over_the_interpreters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUNESPEC_IREE_LIB", "/nonexistent/libIREECompiler.so")
    assert tunespec.doctor().iree.found is False
    monkeypatch.delenv("TUNESPEC_IREE_LIB")
    report = tunespec.doctor(iree="/nonexistent")
    assert not report.iree.found and report.iree.error and "/nonexistent" in report.iree.error


def test_a_path_with_a_brace_is_a_path(tmp_path: Path) -> None:
    odd = tmp_path / "model {v2}.mlir"
    odd.write_text(PAYLOAD.read_text())
    assert not is_text(str(odd))
    assert is_text("func.func @f( {") and is_text("module {}") and is_text("a\nb")
    assert tunespec.explain(str(odd), "gfx942", derived=True).matched > 0


def test_errors_speak_python() -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.link()
    message = str(caught.value)
    assert "--target" not in message and "--help" not in message and "target" in message


def test_annotations_resolve() -> None:
    # typing.get_type_hints evaluates every annotation (Python 3.9 included: no `X | Y`).
    for name in tunespec.__all__:
        value = getattr(tunespec, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            typing.get_type_hints(value)


def test_mypy_strict_accepts_arithmetic_and_rejects_misuse(tmp_path: Path) -> None:
    mypy = pytest.importorskip("mypy.api")
    good = Path(__file__).with_name("typing_user_script.py")
    out, err, status = mypy.run(["--strict", "--no-incremental", str(good)])
    assert status == 0, out + err
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import tunespec\n"
        "op = tunespec.explain('m.mlir', 'gfx942').ops[0]\n"
        "assert op.measurement is not None\n"
        "x = op.measurement.tuned_us * 'x'\n"
        "y: bytes = tunespec.link('gfx942')\n"
        "z: str = tunespec.link('gfx942', emit='mlirbc')\n"
    )
    out, err, status = mypy.run(["--strict", "--no-incremental", str(bad)])
    assert status == 1 and out.count("error:") == 3, out + err
