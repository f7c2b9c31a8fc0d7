//! Spec text -> `verify::verify_bytes`: the reader behind `tunespec verify` and `link`.
//!
//! Properties: no panic and no abort; problems carry `tunespec::` codes and render; they are
//! sorted; an input MLIR could not parse has an error; verifying twice gives the same problems
//! (determinism); a spec without errors survives MLIR's bytecode writer and verifies again from
//! its bytecode with the same facts (the round trip `link --emit mlirbc` depends on).
//! Bytecode input is left to tools/fuzz.sh's out-of-process driver (see common.rs).

#![no_main]

use libfuzzer_sys::fuzz_target;
use tunespec::verify;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if common::is_bytecode(data) {
        return;
    }
    let expanded = common::expand(data);
    let data: &[u8] = &expanded;
    common::with_mlir(|mlir| {
        let verified = verify::verify_bytes(mlir, data, "fuzz.mlir");
        common::check_problems(&verified.problems, Some(data));
        let mut sorted = verified.problems.clone();
        verify::sort_problems(&mut sorted);
        assert_eq!(
            sorted, verified.problems,
            "problems are not in sorted order"
        );
        if verified.module.is_none() {
            assert!(verified.has_errors(), "no module, yet no error");
        }
        let again = verify::verify_bytes(mlir, data, "fuzz.mlir");
        assert_eq!(
            again.problems, verified.problems,
            "verify is not deterministic"
        );

        if verified.has_errors() {
            return;
        }
        let module = verified.module.as_ref().expect("no errors: parsed");
        let bytecode = module
            .to_bytecode()
            .expect("a verified spec can be written as bytecode");
        let reread = verify::verify_bytes(mlir, &bytecode, "fuzz.mlirbc");
        assert!(
            !reread.has_errors(),
            "a verified spec fails verification after a bytecode round trip: {:?}",
            reread.problems
        );
        assert_eq!(
            reread.facts.as_ref().map(|facts| facts.matcher_count),
            verified.facts.as_ref().map(|facts| facts.matcher_count),
            "the bytecode round trip changed the matcher count"
        );
    });
});
