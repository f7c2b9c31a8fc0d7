//! What the parent and the `__iree-worker` child say to each other.
//!
//! One request per child. On stdin: one line of JSON ([`Request`]), then the source bytes and
//! the extra bytes, of the lengths the request gives. On stdout: one line of JSON
//! ([`Response`]), then the output bytes. Bytes travel raw (a model can be hundreds of MiB:
//! no base64, no JSON array of numbers).

use serde::{Deserialize, Serialize};

/// What the child is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Op {
    /// Only the library's revision and API version.
    Info,
    /// Compile the source with the session flags to `phase`, and print every `hal.executable`
    /// (the dispatches) in generic form with locations, wrapped in one module: IR that MLIR 22
    /// parses with unregistered dialects allowed.
    Executables {
        /// The phase (`--compile-to`) to stop after.
        phase: String,
        /// The phase the source is already at (`--compile-from`), e.g. `executable-sources`
        /// for the dispatches a previous request printed.
        from: Option<String>,
        /// When set, the extra bytes (a library, IREE's bytecode) are attached to the source's
        /// module under this attribute before the compile: how a library reaches IREE on every
        /// backend (CUDA ignores `--iree-codegen-tuning-spec-path`).
        attach: Option<String>,
        /// When set, answer with the IR IREE prints before this pass (a pass argument such as
        /// `iree-codegen-materialize-user-configs`), every dump wrapped in one module, instead
        /// of the executables after `phase`: the exact IR the pass sees.
        dump_before: Option<String>,
    },
    /// Parse (IREE verifies what it parses) and write it back: text, or bytecode.
    Reprint {
        /// Bytecode (IREE's current version) instead of text.
        bytecode: bool,
    },
    /// Parse (IREE verifies what it parses) and answer only whether it did: `link`'s check of
    /// the text it writes, without the cost of IREE printing 25 MB back.
    Check,
    /// Parse (IREE verifies what it parses) and write it back in generic form with locations
    /// (the source's own name and positions): IR that MLIR 22 parses whatever IREE's custom
    /// syntax of its ops is.
    Generic,
    /// No source module: the source is attribute texts separated by NUL bytes, each parsed by
    /// IREE and printed back (one canonical form, no aliases); the output is the printed texts
    /// separated by NUL bytes, an empty text for one IREE cannot parse.
    Attributes,
    /// Parse the source, set `attr` on its top-level module to IREE's bytecode of the extra
    /// bytes (a library's text) as `dense<...> : vector<Nxi8>`, and write it: text, or bytecode.
    Attach {
        /// The attribute's name.
        attr: String,
        /// Bytecode instead of text.
        bytecode: bool,
    },
}

/// A request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Request {
    /// The operation.
    pub op: Op,
    /// The source's name in IREE's locations and messages.
    pub name: String,
    /// Session flags (`--iree-hal-target-device=hip`, ...).
    pub flags: Vec<String>,
    /// Bytes of source after the header line.
    pub source_len: u64,
    /// Bytes of extra input after the source (the library, for `Attach`).
    pub extra_len: u64,
}

/// A diagnostic IREE emitted.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Diagnostic {
    /// `note`, `warning`, `error` or `remark`.
    pub severity: String,
    /// IREE's message, with its location as IREE prints it.
    pub message: String,
}

/// The child's answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Response {
    /// Whether the operation succeeded; when not, `diagnostics` (or `failure`) say why.
    pub ok: bool,
    /// `ireeCompilerGetRevision()`.
    pub revision: String,
    /// `ireeCompilerGetAPIVersion()` as `major.minor`.
    pub api_version: String,
    /// Every diagnostic IREE emitted, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// A failure that is not a diagnostic (the library's own error, a bad request).
    pub failure: Option<String>,
    /// Bytes of output after the header line.
    pub output_len: u64,
}
