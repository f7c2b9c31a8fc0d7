//! The target registry: the default specs (verified by `build.rs`, embedded as bytecode), user
//! spec libraries, and resolution of a target to the ordered list of specs for a compile.
//!
//! One model, one file per concern: the build's tables ([`EmbeddedSpec`], [`EmbeddedTarget`]),
//! the one target record ([`Target`]), the registry and its one lookup API ([`Registry::find`],
//! [`Registry::chain`], [`Registry::nearest`]), the layers of user specs (configs, spec
//! libraries, the command line), resolution ([`Resolution`]) and the TOML checks of `verify`
//! ([`check_toml`]).
//!
//! A target string is a name or alias, case-insensitive, with optional LLVM target-ID features
//! (`MI300X:sramecc+:xnack-`). It resolves to a chain, most specific first (a SKU, its
//! architecture, its family or vendor), and to specs in this order (first match wins):
//!
//! 1. user specs: `--spec` (command line), the project's `tunespec.toml`, the user config,
//!    `TUNESPEC_SPEC_PATH` (see [`crate::config`]);
//! 2. the default specs of the target, then of each target on its fallback chain; those whose
//!    matchers are all derived by rule (never measured, which is all of tunespec's today) only
//!    when derived configs are asked for ([`Registry::with_derived`]).
//!
//! ```
//! use tunespec::Registry;
//!
//! // Measured first: the default specs are all derived by rule, so a plain resolution withholds
//! // them (and says so in `skipped`); `with_derived(true)` is `--derived`.
//! let measured_only = Registry::embedded().resolve("MI300X", &[]).unwrap();
//! assert!(measured_only.specs.is_empty());
//! assert_eq!(measured_only.withheld.len(), measured_only.skipped.len());
//!
//! // The default specs only; `Registry::discover(&env)` adds the user's configs, TUNESPEC_SPEC_PATH
//! // and TUNESPEC_DERIVED.
//! let registry = Registry::embedded().with_derived(true);
//! let resolution = registry.resolve("MI300X:sramecc+:xnack-", &[]).unwrap();
//! assert_eq!(resolution.target, "gfx942");
//! assert_eq!(resolution.alias.as_deref(), Some("mi300x"));
//! assert_eq!(resolution.target_id(), "gfx942:sramecc+:xnack-");
//! assert_eq!(resolution.chain_names(), ["gfx942", "gfx9"]);
//! // Most specific first: the architecture's own specs lead, the family's (CDNA) come last.
//! assert!(resolution.specs[0].name.starts_with("specs/gfx942/"));
//! assert!(resolution.specs.last().unwrap().name.starts_with("specs/gfx9/"));
//!
//! // Link them into one library, as `tunespec link --target mi300x` does.
//! let mlir = tunespec::mlir::Mlir::new();
//! let linked = tunespec::link::link(&mlir, &resolution.link_inputs(), Default::default()).unwrap();
//! let matchers: usize = resolution.specs.iter().filter_map(|spec| spec.matchers()).sum();
//! assert_eq!(linked.pairs.len(), matchers);
//!
//! // An unknown name is an error naming the nearest known ones, never an empty result.
//! let error = registry.resolve("gfx943", &[]).unwrap_err();
//! assert_eq!(error.to_string(), "unknown target 'gfx943' (did you mean gfx942?)");
//! ```

mod check;
mod embedded;
mod model;
mod resolve;
mod sources;
mod target;

pub use check::check_toml;
pub use embedded::{specs, targets, EmbeddedSpec, EmbeddedTarget};
pub use model::Registry;
pub use resolve::{Resolution, ResolvedSpec, SkippedSpec};
pub use sources::Origin;
pub use target::{Target, TargetId};

use crate::problem::Problem;

/// Why a registry could not be built or a target not resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No target or alias has this name (a usage error).
    UnknownTarget {
        /// The name as given.
        name: String,
        /// Known names close to it.
        suggestions: Vec<String>,
    },
    /// A malformed target string or an undeclared feature (a usage error).
    BadTarget(String),
    /// A file or directory named on the command line or in the environment cannot be read.
    Io(String),
    /// Located problems in configs or spec-library manifests.
    Problems(Vec<Problem>),
}

impl Error {
    /// Usage and I/O errors (exit 2); otherwise problems in inputs (exit 1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, Error::Problems(_))
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnknownTarget { name, suggestions } if suggestions.is_empty() => {
                write!(f, "unknown target '{name}'")
            }
            Error::UnknownTarget { name, suggestions } => write!(
                f,
                "unknown target '{name}' (did you mean {}?)",
                suggestions.join(", ")
            ),
            Error::BadTarget(message) | Error::Io(message) => f.write_str(message),
            Error::Problems(problems) => {
                let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\n"))
            }
        }
    }
}

impl std::error::Error for Error {}
