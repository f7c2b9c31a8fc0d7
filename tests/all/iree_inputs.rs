//! Front ends other than torch, read through the user's IREE: a StableHLO model (as JAX exports
//! one) and a TOSA model. tunespec has no StableHLO or TOSA dialect; IREE's library forms the
//! dispatches, and `explain --exact` checks the prediction against IREE's own configuration
//! phase. The models and the spec are the tests' own (tests/fixtures/models/).

use crate::iree_library::{attach_with, configured_by, exact, exact_with, model, venv};

/// The whitespace-free text, to compare attributes however they were printed.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn a_stablehlo_model_is_explained_exactly_through_iree() {
    let Some(venv) = venv() else { return };
    // stablehlo.dot_general 4096^3 f16 -> f32: the gfx942 defaults' A*B matcher, through IREE's
    // dispatch formation; `exact` asserts exit 0, at least one config checked, 0 differ.
    let summary = exact(&venv, &model("stablehlo_dot_4096_f16.mlir"));
    assert!(
        summary.contains("1 of 1 predicted config(s) checked equal"),
        "{summary}"
    );
}

#[test]
fn a_tosa_model_takes_the_users_spec_as_explained_in_iree_compile() {
    let Some(venv) = venv() else { return };
    let payload = model("tosa_matmul_2048x1280x5120_f32.mlir");
    let spec = model("tosa_matmul_spec.mlir");
    let spec_arg = spec.to_str().unwrap();
    let summary = exact_with(&venv, &payload, &["--spec", spec_arg]);
    assert!(
        summary.contains("1 of 1 predicted config(s) checked equal"),
        "{summary}"
    );
    // Attached, the model is compiled by iree-compile with the spec's tile, which is not the
    // one IREE picks by itself.
    let dir = tempfile::tempdir().unwrap();
    let attached = attach_with(&venv, dir.path(), &["--spec", spec_arg], &payload);
    let written = std::fs::read_to_string(&attached).unwrap();
    assert!(
        written.contains("tosa.matmul"),
        "the model stays a TOSA model"
    );
    let tile = squash("workgroup = [1, 64, 128, 0]");
    assert!(squash(&configured_by(&venv, &attached)).contains(&tile));
    assert!(!squash(&configured_by(&venv, &payload)).contains(&tile));
}
