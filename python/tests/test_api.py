"""Every function of the API: results equal to the CLI's own output, objects that follow
docs/schema/, and an error case each."""

from __future__ import annotations

import csv
import datetime
import json
from pathlib import Path

import pytest

import tunespec
from conftest import FIXTURES, REPO, Schemas, cli

GOOD = FIXTURES / "specs" / "good"
BAD = FIXTURES / "specs" / "bad"
ONE_MATCHER = GOOD / "one_matcher.mlir"  # a named-op matcher: linalg.matmul 2048x4096x4096
IREE_ONE_MATCHER = GOOD / "iree_one_matcher.mlir"
PAYLOAD = REPO / "examples" / "llama2_7b_f16_prefill_4096.mlir"
BYTECODE_MAGIC = b"ML\xefR"

# One linalg.matmul of the shape one_matcher.mlir pins, f16 x f16 -> f32.
MATMUL_2048 = """
func.func @mm(%a: tensor<2048x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<2048x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2048x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2048x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  return %mm : tensor<2048x4096xf32>
}
"""


def json_lines(data: bytes) -> list:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


# --- targets -----------------------------------------------------------------------------------


def test_targets_equal_the_cli_and_follow_the_schema(schemas: Schemas) -> None:
    targets = tunespec.targets()
    assert [t.to_json() for t in targets] == json_lines(cli("targets", "--format", "json").stdout)
    names = {t.target for t in targets}
    assert "gfx942" in names
    for target in targets:
        schemas.validate("targets", target.to_json())
    gfx942 = next(t for t in targets if t.target == "gfx942")
    assert gfx942.specs and all(s.matchers > 0 and len(s.bytecode_hash) == 64 for s in gfx942.specs)
    # IREE 3.13 has no sm_90 target: tunespec compiles sm_90 as sm_89 PTX, and says why.
    sm_90 = next(t for t in targets if t.target == "sm_90")
    assert sm_90.iree is not None and sm_90.iree.compiled_as == "sm_89"
    assert sm_90.iree.substitution is not None and "IREE 3.13 has no sm_90" in sm_90.iree.substitution
    assert next(t for t in targets if t.target == "nvidia").iree is None


def test_targets_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUNESPEC_LOG", "not=a=filter")  # an invalid filter is a usage error
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.targets()
    assert caught.value.status == 2


# --- resolve -----------------------------------------------------------------------------------


def test_resolve_equals_the_cli_and_follows_the_schema(schemas: Schemas) -> None:
    resolution = tunespec.resolve("gfx942", derived=True)
    assert resolution.to_json() == json.loads(
        cli("resolve", "--format", "json", "--derived", "gfx942").stdout
    )
    schemas.validate("resolve", resolution.to_json())
    assert resolution.target == "gfx942"
    assert resolution.chain[0].name == "gfx942"
    assert resolution.specs and all(s.origin == "default" for s in resolution.specs)
    assert [s.position for s in resolution.specs] == list(range(1, len(resolution.specs) + 1))
    assert resolution.derived
    assert all(s.provenance and s.provenance.kind == "derived" for s in resolution.specs)


def test_measured_first_withholds_derived_defaults(schemas: Schemas) -> None:
    # tunespec's defaults are all derived by rule: without derived=True none is linked, each is
    # skipped with the reason, and explain lists the ops one would configure.
    resolution = tunespec.resolve("gfx942")
    schemas.validate("resolve", resolution.to_json())
    assert not resolution.derived and resolution.specs == ()
    assert resolution.skipped
    assert all("derived by rule, not measured" in s.reason for s in resolution.skipped)
    assert "foreach_match" not in tunespec.link(target="gfx942")
    assert "foreach_match" in tunespec.link(target="gfx942", derived=True)
    explanation = tunespec.explain(PAYLOAD, target="gfx942")
    schemas.validate("explain", explanation.to_json())
    assert explanation.matched == 0
    assert explanation.provenance is not None
    withheld = explanation.provenance.derived_withheld
    assert withheld and all(w.provenance.startswith("derived") for w in withheld)
    assert len(withheld) == tunespec.explain(PAYLOAD, target="gfx942", derived=True).matched


def test_measured_library_provenance(tmp_path: Path, schemas: Schemas) -> None:
    # A spec library of measured configs (import-tuner on a fixture run in the tuner's format) is
    # linked without derived=True, and its records come back typed.
    run = FIXTURES / "tuner" / "tuning_2026_11_20_10_00"
    library = tmp_path / "measured"
    imported = cli("import-tuner", str(run), "--target", "gfx942", "-o", str(library))
    assert imported.returncode == 0, imported.stderr
    # The expected record, from the run's CSV: the fastest candidate that beat its baseline.
    with next(run.glob("*_candidate_analysis.csv")).open(newline="") as records:
        rows = list(csv.DictReader(records))
    time, baseline, device = min(
        (float(r["benchmark_time_us"]), float(r["baseline_benchmark_time_us"]), r["benchmark_device_id"])
        for r in rows
        if r["candidate_id"] != "0"
        and float(r["benchmark_time_us"]) < float(r["baseline_benchmark_time_us"])
    )
    speedup = time / baseline
    resolution = tunespec.resolve("gfx942", specs=[library])
    schemas.validate("resolve", resolution.to_json())
    (spec,) = resolution.specs
    assert spec.provenance is not None and spec.provenance.kind == "measured"
    (entry,) = spec.provenance.measured
    assert entry.device == device and abs(entry.speedup - speedup) < 5e-4
    explanation = tunespec.explain(FIXTURES / "tuner" / "mmt_payload.mlir", "gfx942", [library])
    schemas.validate("explain", explanation.to_json())
    (op,) = explanation.ops
    assert op.provenance_kind == "measured" and op.measurement is not None
    measurement = op.measurement
    assert measurement.device == device and measurement.iree == entry.iree
    # Numbers as numbers: times, speedup and candidate; the run's date as a date.
    assert measurement.tuned_us == time and measurement.baseline_us == baseline
    assert abs(measurement.speedup - speedup) < 5e-4 and isinstance(measurement.candidate, int)
    assert measurement.saved_us == baseline - time
    assert isinstance(measurement.date, datetime.date) and measurement.date.year == 2026
    assert explanation.provenance is not None and explanation.provenance.measured == 1
    assert explanation.provenance.summary == (
        f"1 config(s) measured on {device} with IREE {entry.iree} (median speedup {speedup:.3f})"
    )


def test_resolve_puts_user_specs_first(schemas: Schemas) -> None:
    resolution = tunespec.resolve("gfx942", specs=[IREE_ONE_MATCHER], derived=True)
    schemas.validate("resolve", resolution.to_json())
    first = resolution.specs[0]
    assert first.position == 1 and first.origin != "default"
    assert first.name.endswith("iree_one_matcher.mlir")
    assert len(resolution.specs) == len(tunespec.resolve("gfx942", derived=True).specs) + 1


def test_resolve_error_unknown_target() -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.resolve("gfx943")
    error = caught.value
    assert error.status == 2
    assert error.diagnostics and all(isinstance(d, tunespec.Diagnostic) for d in error.diagnostics)
    assert "gfx942" in str(error) + "".join(d.help or "" for d in error.diagnostics)


# --- link --------------------------------------------------------------------------------------


def test_link_target_equals_the_cli() -> None:
    library = tunespec.link(target="gfx942", derived=True)
    assert isinstance(library, str)
    assert library == cli("link", "--target", "gfx942", "--derived").stdout.decode()
    assert "transform.with_named_sequence" in library and "@__kernel_config" in library


def test_link_bytecode_equals_the_cli() -> None:
    library = tunespec.link(target="gfx942", emit="mlirbc", derived=True)
    assert isinstance(library, bytes) and library.startswith(BYTECODE_MAGIC)
    assert library == cli("link", "--target", "gfx942", "--derived", "--emit", "mlirbc").stdout


def test_link_user_specs_without_defaults() -> None:
    library = tunespec.link(target="gfx942", specs=[IREE_ONE_MATCHER], default=False)
    expected = cli("link", "--target", "gfx942", "--spec", str(IREE_ONE_MATCHER), "--no-default")
    assert library == expected.stdout.decode()
    assert "@match_mmt_f16_2048x4096x4096" in library
    # Without a target only the specs are linked: the same library.
    assert tunespec.link(specs=[IREE_ONE_MATCHER]) == library
    # With the defaults the library is larger.
    assert len(tunespec.link(target="gfx942", specs=[IREE_ONE_MATCHER], derived=True)) > len(library)


def test_link_spec_as_text_equals_spec_from_stdin() -> None:
    text = IREE_ONE_MATCHER.read_text()
    library = tunespec.link(specs=[text])
    expected = cli("link", "--spec", "-", "--no-default", stdin=text.encode())
    assert library == expected.stdout.decode()
    assert "@match_mmt_f16_2048x4096x4096" in library
    # Two specs as text: the second one goes through a temporary file.
    both = tunespec.link(specs=[text, ONE_MATCHER.read_bytes()])
    # The second spec's clashing matcher is renamed (IREE's rule).
    assert "@match_mmt_f16_2048x4096x4096 " in both and "@match_mmt_f16_2048x4096x4096_0 " in both


def test_link_warnings_are_python_warnings() -> None:
    text = IREE_ONE_MATCHER.read_text()
    with pytest.warns(tunespec.TunespecWarning, match="duplicate-input"):
        library = tunespec.link(specs=[IREE_ONE_MATCHER, text])  # the same content twice
    assert library == tunespec.link(specs=[IREE_ONE_MATCHER])
    with pytest.raises(tunespec.ProblemsError) as caught:
        tunespec.link(specs=[IREE_ONE_MATCHER, text], deny_warnings=True)
    assert [d.code for d in caught.value.diagnostics] == ["tunespec::link::duplicate-input"]


def test_link_error_bad_spec() -> None:
    with pytest.raises(tunespec.ProblemsError) as caught:
        tunespec.link(target="gfx942", specs=[BAD / "several_problems.mlir"])
    error = caught.value
    assert error.status == 1
    codes = {d.code for d in error.errors}
    assert "tunespec::verify::unknown-symbol" in codes
    located = [d for d in error.errors if d.line is not None]
    assert located and all(d.file and d.file.endswith("several_problems.mlir") for d in located)


def test_link_error_no_target_no_specs() -> None:
    with pytest.raises(tunespec.UsageError):
        tunespec.link()
    with pytest.raises(ValueError):
        tunespec.link(target="gfx942", emit="llvm")


# --- attach ------------------------------------------------------------------------------------


def test_attach_equals_the_cli() -> None:
    attached = tunespec.attach(PAYLOAD, target="gfx942", derived=True)
    assert isinstance(attached, str)
    assert attached == cli("attach", "--target", "gfx942", "--derived", str(PAYLOAD)).stdout.decode()
    assert "iree_codegen.tuning_spec_mlirbc" in attached
    assert "func.func @decoder_layer" in attached


def test_attach_payload_and_spec_as_text(tmp_path: Path) -> None:
    spec = IREE_ONE_MATCHER.read_text()
    attached = tunespec.attach(MATMUL_2048, specs=[spec])
    # The spec went through stdin (its name is in the attached library), the payload through a
    # temporary file.
    payload = tmp_path / "mm.mlir"
    payload.write_text(MATMUL_2048)
    expected = cli("attach", "--spec", "-", "--no-default", str(payload), stdin=spec.encode())
    assert attached == expected.stdout.decode()
    assert "iree_codegen.tuning_spec_mlirbc" in attached and "func.func @mm" in attached
    # A payload as bytes, the spec as a path: the payload goes through stdin.
    assert tunespec.attach(MATMUL_2048.encode(), target="gfx942") == cli(
        "attach", "--target", "gfx942", "-", stdin=MATMUL_2048.encode()
    ).stdout.decode()


def test_attach_error_missing_payload(tmp_path: Path) -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.attach(tmp_path / "missing.mlir", target="gfx942")
    assert any(d.code == "tunespec::io" for d in caught.value.diagnostics)


# --- explain -----------------------------------------------------------------------------------


def test_explain_equals_the_cli_and_follows_the_schema(schemas: Schemas) -> None:
    explanation = tunespec.explain(PAYLOAD, target="gfx942", derived=True)
    expected = json.loads(
        cli("explain", "--format", "json", "--target", "gfx942", "--derived", str(PAYLOAD)).stdout
    )
    assert explanation.to_json() == expected
    schemas.validate("explain", explanation.to_json())
    assert explanation.view == "dispatch"
    assert explanation.ops and explanation.matched > 0
    assert explanation.matched + explanation.unmatched == len(explanation.ops)
    matched = [op for op in explanation.ops if op.matched]
    assert len(matched) == explanation.matched
    for op in matched:
        assert op.matcher and op.action
        assert op.matcher_location and ":" in op.matcher_location
        assert op.config and op.config_dict()
        assert op.element_types and op.loops
        assert op.fired and op.fired[-1].matcher == op.matcher
        assert op.provenance_kind == "derived" and op.measurement is None
    assert explanation.provenance is not None
    assert explanation.provenance.derived == explanation.matched
    assert all(op.location and "llama2_7b_f16_prefill_4096.mlir" in op.location for op in explanation.ops)


def test_explain_views_with_a_named_op_matcher_as_text() -> None:
    # As written, the named linalg.matmul matcher fires; in IREE's dispatches (generalized) not.
    written = tunespec.explain(MATMUL_2048, specs=[ONE_MATCHER], view="written")
    assert written.view == "written"
    (op,) = [o for o in written.ops if o.op == "linalg.matmul"]
    assert op.matcher == "match_mmt_f16_2048x4096x4096"
    assert op.loops == (2048, 4096, 4096)
    assert op.element_types[:2] == ("f16", "f16")
    assert op.location and op.location.startswith("<stdin>")
    assert "compilation_info" in op.config_dict()
    assert op.matcher_location and "one_matcher.mlir" in op.matcher_location
    dispatch = tunespec.explain(MATMUL_2048, specs=[ONE_MATCHER])
    assert dispatch.matched == 0 and written.matched == 1


def test_explain_error() -> None:
    with pytest.raises(tunespec.ProblemsError) as caught:
        tunespec.explain("func.func @f( {", target="gfx942")
    assert caught.value.errors and caught.value.errors[0].file == "<stdin>"
    with pytest.raises(tunespec.UsageError):
        tunespec.explain(PAYLOAD, target="gfx942", view="sideways")


def test_explain_exact_needs_iree(monkeypatch: pytest.MonkeyPatch) -> None:
    # A setting that names no IREE library is an error, not a fall-through: exit 2.
    monkeypatch.setenv("TUNESPEC_IREE_LIB", "/nonexistent/libIREECompiler.so")
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.explain(PAYLOAD, target="gfx942", exact=True)
    (error,) = caught.value.errors
    assert error.code == "tunespec::iree::needed" and "TUNESPEC_IREE_LIB" in error.message


# --- verify ------------------------------------------------------------------------------------


def test_verify_good_spec(schemas: Schemas) -> None:
    report = tunespec.verify([IREE_ONE_MATCHER], iree_check=False)
    assert report.ok and report.errors == 0
    assert report.files == 1 and report.matchers == 1
    lines = json_lines(cli("verify", "--format", "json", "--no-iree-check", str(IREE_ONE_MATCHER)).stdout)
    assert [d.to_json() for d in report.diagnostics] + [report.summary_json()] == lines
    schemas.validate("verify", report.summary_json())


def test_verify_bad_spec_equals_the_cli(schemas: Schemas) -> None:
    path = BAD / "several_problems.mlir"
    report = tunespec.verify(path, iree_check=False)
    assert not report.ok
    assert report.errors >= 2
    assert report.errors == sum(d.severity == "error" for d in report.diagnostics)
    assert report.warnings == sum(d.severity == "warning" for d in report.diagnostics)
    lines = json_lines(cli("verify", "--format", "json", "--no-iree-check", str(path)).stdout)
    assert [d.to_json() for d in report.diagnostics] + [report.summary_json()] == lines
    for diagnostic in report.diagnostics:
        schemas.validate("diagnostic", diagnostic.to_json())
        schemas.validate("verify", diagnostic.to_json())
        assert diagnostic.file == str(path) and diagnostic.line
    assert "tunespec::verify::unknown-symbol" in {d.code for d in report.diagnostics}


def test_verify_text_and_the_registry() -> None:
    report = tunespec.verify(BAD / "several_problems.mlir").errors
    text = tunespec.verify((BAD / "several_problems.mlir").read_text())
    assert text.errors == report
    assert {d.file for d in text.diagnostics} == {"<stdin>"}
    registry = tunespec.verify()
    assert registry.ok and registry.files > 0 and registry.matchers > 0


def test_verify_deny_warnings_and_error(tmp_path: Path) -> None:
    with pytest.raises(tunespec.UsageError) as caught:
        tunespec.verify([tmp_path / "missing.mlir"])
    assert caught.value.status == 2
    (error,) = caught.value.errors
    assert error.code == "tunespec::usage" and "missing.mlir" in error.message
    # --deny-warnings: warnings count as errors (exit 1), still a report, not an exception.
    named_op = tunespec.verify(ONE_MATCHER, iree_check=False)
    assert named_op.ok and named_op.warnings == 1
    assert named_op.diagnostics[0].code == "tunespec::verify::named-op-matcher"
    denied = tunespec.verify(ONE_MATCHER, iree_check=False, deny_warnings=True)
    assert not denied.ok and denied.errors == 1 and denied.warnings == 0
    assert [d.severity for d in denied.diagnostics] == ["error"]


OVERRIDE = """module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @match_mine(%op: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [4096] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{workgroup = [128, 128, 0], reduction = [0, 0, 64]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>> -> !transform.any_param
    transform.yield %op, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @apply_op_config(%op: !transform.any_op {transform.readonly}, %config: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @__kernel_config(%root: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %root @match_mine -> @apply_op_config : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
"""


def test_link_issues_its_notes_as_tunespec_notes() -> None:
    # A user matcher over a gfx942 default: the link's overrides-default note is not dropped.
    with pytest.warns(tunespec.TunespecNote, match="tunespec::link::overrides-default"):
        library = tunespec.link("gfx942", [OVERRIDE], derived=True)
    assert "@match_mine" in library
