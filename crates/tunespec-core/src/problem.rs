//! One problem found in an input: a stable code, a severity, a message, a location and help.
//!
//! Why separate from rendering: the verifier runs inside `build.rs` too (through tunespec-core),
//! where there is no terminal and no miette. A `Problem` is plain data; `diagnostics.rs` turns it
//! into a miette report with a source snippet or into the documented JSON form.

use crate::ir::Loc;

/// How bad a problem is. Ordered: errors first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input cannot be used (exit 1).
    Error,
    /// Usable, but probably not what was meant (an error with `--deny-warnings`).
    Warning,
    /// Information (a check that could not run).
    Note,
}

impl Severity {
    /// `error`, `warning`, `note`: the word reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One problem found in an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Stable code, e.g. `tunespec::verify::missing-entrypoint` (documented in ARCHITECTURE.md).
    pub code: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where, when it has a place in a file.
    pub loc: Option<Loc>,
    /// How to fix it, when tunespec knows.
    pub help: Option<String>,
    /// Secondary locations with a label ("first defined here").
    pub related: Vec<(Loc, String)>,
}

impl Problem {
    /// An error.
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
    /// A warning.
    pub fn warning(code: &'static str, message: impl Into<String>, loc: Option<Loc>) -> Self {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(code, message, loc)
        }
    }
    /// A note.
    pub fn note(code: &'static str, message: impl Into<String>, loc: Option<Loc>) -> Self {
        Problem {
            severity: Severity::Note,
            ..Problem::error(code, message, loc)
        }
    }
    /// With help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// With a secondary location and its label.
    pub fn with_related(mut self, loc: Loc, label: impl Into<String>) -> Self {
        self.related.push((loc, label.into()));
        self
    }
    /// Whether it is an error.
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
    /// A file or stream could not be read or written.
    pub const IO: &str = "tunespec::io";
    /// MLIR could not parse the input (or MLIR's verifier rejected it).
    pub const PARSE: &str = "tunespec::parse";
    /// A warning MLIR emitted.
    pub const MLIR_WARNING: &str = "tunespec::mlir::warning";
    /// The input holds nothing (or only comments).
    pub const EMPTY: &str = "tunespec::verify::empty";
    /// Text that is not UTF-8.
    pub const INVALID_UTF8: &str = "tunespec::verify::invalid-utf8";
    /// A NUL byte in text: a binary file.
    pub const NUL_BYTE: &str = "tunespec::verify::nul-byte";
    /// Bytecode MLIR's reader cannot read (corrupt, or of an incompatible MLIR).
    pub const BAD_BYTECODE: &str = "tunespec::verify::bad-bytecode";
    /// An input over the size limit.
    pub const TOO_LARGE: &str = "tunespec::verify::too-large";
    /// IR nested deeper (or expanding larger) than the limits.
    pub const TOO_DEEP: &str = "tunespec::verify::too-deep";
    /// A module that is not a transform library (no `transform.with_named_sequence`).
    pub const NOT_A_LIBRARY: &str = "tunespec::verify::not-a-library";
    /// A payload given where a spec is expected.
    pub const PAYLOAD_NOT_SPEC: &str = "tunespec::verify::payload-not-spec";
    /// No entry point (`@__kernel_config` or `iree_codegen.tuning_spec_entrypoint`).
    pub const MISSING_ENTRYPOINT: &str = "tunespec::verify::missing-entrypoint";
    /// The library's entry point sits in a nested module (IREE applies the first such).
    pub const NESTED_ENTRYPOINT: &str = "tunespec::verify::nested-entrypoint";
    /// The entry point lacks (or misuses) IREE's entry point attribute.
    pub const ENTRYPOINT_ATTR: &str = "tunespec::verify::entrypoint-attr";
    /// The entry point does not take and return one `!transform.any_op`.
    pub const ENTRYPOINT_SIGNATURE: &str = "tunespec::verify::entrypoint-signature";
    /// A merge-ready module's entry point breaks IREE's rules for one.
    pub const DEFAULT_ENTRYPOINT: &str = "tunespec::verify::default-entrypoint";
    /// A symbol reference that resolves to nothing.
    pub const UNKNOWN_SYMBOL: &str = "tunespec::verify::unknown-symbol";
    /// A matcher whose signature `foreach_match` cannot use.
    pub const MATCHER_SIGNATURE: &str = "tunespec::verify::matcher-signature";
    /// An action whose signature `foreach_match` cannot use.
    pub const ACTION_SIGNATURE: &str = "tunespec::verify::action-signature";
    /// A matcher's results do not fit its action's arguments.
    pub const MATCHER_ACTION_MISMATCH: &str = "tunespec::verify::matcher-action-mismatch";
    /// An argument's `readonly`/`consumed` marking disagrees with what the body does.
    pub const ENTRY_EFFECT: &str = "tunespec::verify::entry-effect";
    /// An op a tuning spec must not run (it changes the payload beyond configs).
    pub const UNSAFE_OP: &str = "tunespec::verify::unsafe-op";
    /// A reachable action, matcher or entry point that changes what the program computes:
    /// an attribute other than a config, a write on another op than the matched one, or an op
    /// that rewrites the payload (`verify::semantics`).
    pub const CHANGES_SEMANTICS: &str = "tunespec::verify::changes-semantics";
    /// A matcher listed twice in one `foreach_match`.
    pub const DUPLICATE_MATCHER: &str = "tunespec::verify::duplicate-matcher";
    /// A directory or list that holds no specs.
    pub const NO_SPECS: &str = "tunespec::verify::no-specs";
    /// A `transform.match.operation_name` that only lists named ops IREE has generalized.
    pub const NAMED_OP_MATCHER: &str = "tunespec::verify::named-op-matcher";
    /// A `transform.iree.*` op that is not one of IREE's tuning-spec (match) ops.
    pub const IREE_NOT_TUNING_OP: &str = "tunespec::iree::not-a-tuning-op";
    /// An IREE attribute that iree-opt rejects (IREE's message).
    pub const IREE_ATTRIBUTE: &str = "tunespec::iree::attribute";
    /// Op syntax that MLIR 22 and IREE 3.13 (MLIR 24) spell differently (`transform.print`'s
    /// name): the form one of them refuses, with the form both read.
    pub const IREE_SYNTAX: &str = "tunespec::iree::syntax";
    /// An IREE config that IREE accepts but that cannot be what the author meant.
    pub const IREE_CONFIG: &str = "tunespec::iree::config";
    /// IREE attributes were not checked (no iree-opt, or it failed): one note per run.
    pub const IREE_NOT_CHECKED: &str = "tunespec::iree::not-checked";
    /// A problem in a registry manifest (`registry.toml`).
    pub const MANIFEST: &str = "tunespec::registry::manifest";
    /// A problem in a config (`tunespec.toml`, the user config).
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
