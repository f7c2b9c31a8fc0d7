//! The diagnostic codes of IREE's side of tunespec (`tunespec::iree::*`), with IREE's module.
//!
//! Why here: a command that needs IREE (the CLI), the library's dispatch reading and the
//! attribute check all speak of the same failures; the codes belong to the one module that
//! knows IREE, not to a command.

/// IREE refused an input (its diagnostics, located where IREE says): a problem in the input.
pub const REJECTED: &str = "tunespec::iree::rejected";
/// A command needs IREE and found none, or a broken one, or not what it needs from the user
/// (a target IREE compiles for).
pub const NEEDED: &str = "tunespec::iree::needed";
/// An entry left out of what tunespec writes for an older IREE, whose release cannot express
/// its config ([`super::release`]).
pub const LEFT_OUT: &str = "tunespec::iree::left-out";
