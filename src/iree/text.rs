//! Text that only the user's IREE reads, read through it.
//!
//! Why: IREE 3.13 is built on MLIR 24, whose custom syntax of some ops differs from MLIR 22's
//! (`transform.print %op name = "x"`, for one); the user's IREE is the judge of its own
//! syntax. When MLIR 22 cannot parse a text input and IREE is at hand (found cheaply, see
//! [`crate::iree::Session::optional`]), IREE parses it and prints it back in generic form with the
//! input's own locations, which MLIR 22 reads; every command that verifies an input does so
//! through [`tunespec_core::verify::set_foreign_reader`], so this holds for every op and every
//! command, in one place. Without IREE (or when IREE refuses the text too) MLIR 22's errors
//! stand, with their help (`verify/syntax.rs`).

use crate::iree::{Failure, Session, StoreKey};

/// IREE's generic form of `bytes` (a text input MLIR 22 could not parse), located as
/// `source_name`; `None` without IREE, when IREE refuses it, or when the contained parser
/// would not load it (see [`crate::contain`]). Kept in the process's IREE store: a pure
/// function of the bytes, the name and IREE's revision.
pub fn read(session: &Session, bytes: &[u8], source_name: &str) -> Option<Vec<u8>> {
    let Some(Ok(iree)) = session.optional() else {
        return None;
    };
    let _phase = tracing::info_span!("iree.generic").entered();
    let key = StoreKey {
        input: bytes,
        name: source_name,
        revision: &iree.revision,
        flags: &[],
        phase: "generic",
    };
    let generic = iree
        .store()
        .get_or_make(&key, &mut || iree.generic(bytes, source_name))
        .map_err(|failure| match failure {
            Failure::Rejected(_) => tracing::debug!(source_name, "IREE refuses it too"),
            Failure::Tool(message) => tracing::debug!(source_name, %message, "IREE failed"),
        })
        .ok()?;
    crate::contain::check(&generic, source_name).ok()?;
    tracing::debug!(
        source_name,
        "read through IREE (MLIR 22 cannot parse its syntax)"
    );
    Some(generic)
}

/// Makes [`read`] with `session` the reader of this process's verifier (the CLI does, with its
/// session, before any command; the first call wins, see
/// [`tunespec_core::verify::set_foreign_reader`]).
pub fn install(session: std::sync::Arc<Session>) {
    tunespec_core::verify::set_foreign_reader(Box::new(move |bytes, source_name| {
        read(&session, bytes, source_name)
    }));
}
