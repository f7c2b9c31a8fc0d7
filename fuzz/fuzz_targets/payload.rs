//! Payload text -> `apply::parse_payload`, then `attach` and `extract`: the readers behind
//! `tunespec attach`, `extract` and `apply`.
//!
//! Properties: no panic and no abort; refusals carry `tunespec::` codes; a library already
//! attached to the input (as text: bytecode is the driver's, see common.rs) is extracted or
//! refused with a diagnostic; attaching a known library (both blob forms) and extracting it
//! gives back the same bytes, before and after printing the payload and parsing it again.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tunespec::apply::{self, ATTR_NAME};
use tunespec::mlir::{BlobForm, Mlir};

#[path = "common.rs"]
mod common;

/// A small real library, as bytecode (the form `attach` carries).
fn library() -> &'static [u8] {
    static LIBRARY: OnceLock<Vec<u8>> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let text = include_str!("../../tests/fixtures/specs/good/one_matcher.mlir");
        let mlir = Mlir::new();
        let parsed = mlir.parse(text.as_bytes(), "one_matcher.mlir");
        let bytes = parsed.module.expect("fixture parses").to_bytecode();
        bytes.expect("fixture writes bytecode")
    })
}

fuzz_target!(|data: &[u8]| {
    if common::is_bytecode(data) {
        return;
    }
    let expanded = common::expand(data);
    let data: &[u8] = &expanded;
    let library = library();
    common::with_mlir(|mlir| {
        let payload = match apply::parse_payload(mlir, data, "payload.mlir") {
            Ok(payload) => payload,
            Err(problems) => {
                assert!(!problems.is_empty(), "payload refused without a problem");
                common::check_problems(&problems, Some(data));
                return;
            }
        };

        // Whatever the input already carries.
        match apply::attached_bytes(&payload, ATTR_NAME, "payload.mlir") {
            Err(problems) => common::check_problems(&problems, None),
            Ok(bytes) if common::is_bytecode(&bytes) => {}
            Ok(_) => match apply::extract(mlir, &payload, ATTR_NAME, "payload.mlir") {
                Ok(_) => {}
                Err(problems) => {
                    assert!(!problems.is_empty(), "extract refused without a problem");
                    common::check_problems(&problems, None);
                }
            },
        }

        // Attach a known library and get it back.
        let form = if data.len() % 2 == 0 {
            BlobForm::Dense
        } else {
            BlobForm::Resource
        };
        apply::attach(&payload, library, ATTR_NAME, form).expect("attach to a parsed payload");
        let extracted = apply::extract(mlir, &payload, ATTR_NAME, "payload.mlir")
            .unwrap_or_else(|problems| panic!("extract after attach ({form:?}): {problems:?}"));
        assert_eq!(
            extracted, library,
            "extract changed the attached bytes ({form:?})"
        );

        // Printed and parsed again, as `attach -o FILE` then `extract FILE` do.
        let printed = payload.print_file();
        let reparsed = apply::parse_payload(mlir, printed.as_bytes(), "attached.mlir")
            .unwrap_or_else(|problems| {
                panic!("an attached payload does not parse again ({form:?}): {problems:?}")
            });
        let extracted = apply::extract(mlir, &reparsed, ATTR_NAME, "attached.mlir")
            .unwrap_or_else(|problems| panic!("extract after a print ({form:?}): {problems:?}"));
        assert_eq!(
            extracted, library,
            "the print round trip changed the library ({form:?})"
        );
    });
});
