//! Input just under the nesting and expansion limits: it must link and apply, through the binary
//! on a small stack and through the library on an 8 MiB thread.

use std::process::Command;

use tunespec::mlir::Mlir;

use super::good_spec;
use crate::reference::repo_root;

#[test]
fn nesting_just_under_the_limits_links_and_applies() {
    // Attributes 240 aliases deep and an affine sum of 200 terms stay under the limits
    // (`MAX_IR_DEPTH` 256, `MAX_OPERATORS` 512): link prints them and apply reads them back, on the
    // stack `MLIR_STACK_BYTES` gives, whatever `ulimit -s` says.
    let spec = good_spec();
    let mut text = String::from("#a0 = [1]\n");
    for index in 1..240 {
        text += &format!("#a{index} = [#a{}]\n", index - 1);
    }
    // Distinct dimensions: MLIR folds `d0 + d0 + ...` into `d0 * 200`.
    let dims: Vec<String> = (0..200).map(|index| format!("d{index}")).collect();
    let (dims, sum) = (dims.join(", "), dims.join(" + "));
    // On the matcher: link copies matchers (it rebuilds the entry point).
    text += &spec.replacen(
        "-> (!transform.any_op, !transform.any_param) {",
        &format!(
            "-> (!transform.any_op, !transform.any_param) attributes {{deep = #a239, sum = affine_map<({dims}) -> ({sum})>}} {{"
        ),
        1,
    );
    assert!(text.contains("deep = #a239"));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deep.mlir");
    let linked = dir.path().join("linked.mlir");
    let applied = dir.path().join("applied.mlir");
    std::fs::write(&input, &text).unwrap();
    // Runs tunespec with a 1 MiB main-thread stack and asserts that it succeeds.
    let run = |args: &[&str]| {
        let output = crate::support::hermetic(&mut Command::new("bash"))
            .arg("-c")
            .arg(r#"ulimit -s 1024; exec "$@""#)
            .arg("bash")
            .arg(env!("CARGO_BIN_EXE_tunespec"))
            .args(args)
            .env("TUNESPEC_CACHE", "off")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(&[
        "link",
        "--no-default",
        "--spec",
        input.to_str().unwrap(),
        "-o",
        linked.to_str().unwrap(),
    ]);
    let library = std::fs::read_to_string(&linked).unwrap();
    assert!(library.contains("d198 + d199"), "the sum is printed");
    run(&[
        "apply",
        "--no-default",
        "--spec",
        linked.to_str().unwrap(),
        repo_root()
            .join("examples/llama2_7b_f16_decode.mlir")
            .to_str()
            .unwrap(),
        "-o",
        applied.to_str().unwrap(),
    ]);
    assert!(applied.exists());
}

#[test]
fn the_library_handles_input_at_the_limits_on_an_8_mib_thread() {
    // The crate docs promise embedders that a main thread's 8 MiB is enough: text nested 1,000
    // brackets deep (parsed, refused after the parse), and IR just under the IR limits (parsed,
    // verified, printed, parsed again, written as bytecode).
    let spec = good_spec();
    let mut deep = String::from("#a0 = [1]\n");
    for index in 1..240 {
        deep += &format!("#a{index} = [#a{}]\n", index - 1);
    }
    let dims: Vec<String> = (0..200).map(|index| format!("d{index}")).collect();
    deep += &spec.replacen(
        "-> (!transform.any_op, !transform.any_param) {",
        &format!(
            "-> (!transform.any_op, !transform.any_param) attributes {{deep = #a239, sum = affine_map<({}) -> ({})>}} {{",
            dims.join(", "),
            dims.join(" + ")
        ),
        1,
    );
    let nested = "module {\n".repeat(1_000) + &"}\n".repeat(1_000);
    let generic = "\"t.op\"() ({\n".repeat(1_000) + &"}) : () -> ()\n".repeat(1_000);
    let outcome = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let mlir = Mlir::new();
            let verified = tunespec::verify::verify_bytes(&mlir, deep.as_bytes(), "deep.mlir");
            assert!(verified.problems.is_empty(), "{:?}", verified.problems);
            let module = verified.module.expect("verified");
            let text = module.print_file();
            assert!(text.contains("d198 + d199"));
            assert!(mlir.parse(text.as_bytes(), "again.mlir").module.is_some());
            assert!(module.to_bytecode().is_ok());
            for (name, text) in [("nested.mlir", nested), ("generic.mlir", generic)] {
                let parsed = mlir.parse(text.as_bytes(), name);
                assert!(parsed.module.is_none(), "{name}: deeper than 256 regions");
                assert!(
                    parsed
                        .problems
                        .iter()
                        .any(|problem| problem.code == "tunespec::verify::too-deep"),
                    "{name}: {:?}",
                    parsed.problems
                );
            }
        })
        .unwrap()
        .join();
    assert!(outcome.is_ok(), "the checks failed on an 8 MiB thread");
}
