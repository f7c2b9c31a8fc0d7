//! One problem found in an input: a stable code, a severity, a message, a location and help.
//!
//! Why separate from rendering: the verifier runs inside `build.rs` too (through tunespec-core),
//! where there is no terminal and no miette. A `Problem` is plain data; `diagnostics.rs` turns it
//! into a miette report with a source snippet or into the documented JSON form.

use crate::ir::Loc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Stable code, e.g. `tunespec::verify::missing-entrypoint` (documented in ARCHITECTURE.md).
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub loc: Option<Loc>,
    pub help: Option<String>,
    /// Secondary locations with a label ("first defined here").
    pub related: Vec<(Loc, String)>,
}

impl Problem {
    pub fn error(code: &'static str, message: impl Into<String>, loc: Option<Loc>) -> Self {
        Problem {
            code,
            severity: Severity::Error,
            message: message.into(),
            loc,
            help: None,
            related: Vec::new(),
        }
    }
    pub fn warning(code: &'static str, message: impl Into<String>, loc: Option<Loc>) -> Self {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(code, message, loc)
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_related(mut self, loc: Loc, label: impl Into<String>) -> Self {
        self.related.push((loc, label.into()));
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `file:line:col: severity: message [code]`, the one-line form used by build.rs and logs.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(loc) = &self.loc {
            write!(f, "{loc}: ")?;
        }
        write!(
            f,
            "{}: {} [{}]",
            self.severity.as_str(),
            self.message,
            self.code
        )?;
        for (loc, label) in &self.related {
            write!(f, "\n  {loc}: note: {label}")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// The stable diagnostic codes. Adding one is fine; renaming one breaks users' CI filters.
pub mod codes {
    pub const IO: &str = "tunespec::io";
    pub const PARSE: &str = "tunespec::parse";
    pub const MLIR_WARNING: &str = "tunespec::mlir::warning";
    pub const EMPTY: &str = "tunespec::verify::empty";
    pub const INVALID_UTF8: &str = "tunespec::verify::invalid-utf8";
    pub const NUL_BYTE: &str = "tunespec::verify::nul-byte";
    pub const BAD_BYTECODE: &str = "tunespec::verify::bad-bytecode";
    pub const TOO_LARGE: &str = "tunespec::verify::too-large";
    pub const TOO_DEEP: &str = "tunespec::verify::too-deep";
    pub const NOT_A_LIBRARY: &str = "tunespec::verify::not-a-library";
    pub const PAYLOAD_NOT_SPEC: &str = "tunespec::verify::payload-not-spec";
    pub const MISSING_ENTRYPOINT: &str = "tunespec::verify::missing-entrypoint";
    /// The library's entry point sits in a nested module (IREE applies the first such).
    pub const NESTED_ENTRYPOINT: &str = "tunespec::verify::nested-entrypoint";
    pub const ENTRYPOINT_ATTR: &str = "tunespec::verify::entrypoint-attr";
    pub const ENTRYPOINT_SIGNATURE: &str = "tunespec::verify::entrypoint-signature";
    pub const DEFAULT_ENTRYPOINT: &str = "tunespec::verify::default-entrypoint";
    pub const UNKNOWN_SYMBOL: &str = "tunespec::verify::unknown-symbol";
    pub const MATCHER_SIGNATURE: &str = "tunespec::verify::matcher-signature";
    pub const ACTION_SIGNATURE: &str = "tunespec::verify::action-signature";
    pub const MATCHER_ACTION_MISMATCH: &str = "tunespec::verify::matcher-action-mismatch";
    pub const ENTRY_EFFECT: &str = "tunespec::verify::entry-effect";
    pub const UNSAFE_OP: &str = "tunespec::verify::unsafe-op";
    pub const DUPLICATE_MATCHER: &str = "tunespec::verify::duplicate-matcher";
    pub const NO_SPECS: &str = "tunespec::verify::no-specs";
    /// A `transform.match.operation_name` that only lists named ops IREE has generalized.
    pub const NAMED_OP_MATCHER: &str = "tunespec::verify::named-op-matcher";
    /// A `transform.iree.*` op that is not one of IREE's tuning-spec (match) ops.
    pub const IREE_NOT_TUNING_OP: &str = "tunespec::iree::not-a-tuning-op";
    /// An IREE attribute that iree-opt rejects (IREE's message).
    pub const IREE_ATTRIBUTE: &str = "tunespec::iree::attribute";
    /// An IREE config that IREE accepts but that cannot be what the author meant.
    pub const IREE_CONFIG: &str = "tunespec::iree::config";
    /// An alias used inside an IREE attribute (lost when the spec is written without IREE).
    /// IREE attributes were not checked (no iree-opt, or it failed): one note per run.
    pub const IREE_NOT_CHECKED: &str = "tunespec::iree::not-checked";
    pub const MANIFEST: &str = "tunespec::registry::manifest";
    pub const CONFIG: &str = "tunespec::config";
}

/// An I/O error in words that do not depend on the platform's wording for the common cases.
pub fn io_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => error.to_string(),
    }
}
