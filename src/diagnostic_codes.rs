//! Every diagnostic code tunespec emits, as data: the one table (`CODES`) from which the code
//! list of `docs/diagnostics.md` and the code enums of `docs/schema/` are generated.
//!
//! Why a table: codes are defined beside what emits them (tunespec-core's `problem::codes`,
//! `link`, `apply`, `cache`, `iree::codes`, the binary's commands), and users' CI filters rely
//! on them. Before, the docs and the schemas were kept in step with the source by hand; now
//! `tests/all/docs.rs` renders both from this table and fails when they differ (or rewrites them
//! with `TUNESPEC_UPDATE_DOCS=1`), and fails when a `"tunespec::..."` string in the source is
//! not in the table, or the reverse. Where the emitter has a public constant the table names it,
//! so a renamed constant cannot leave the table behind; the binary's codes (usage, report
//! commands) are private to it and spelt out here.

use std::fmt::Write as _;

use crate::problem::codes as core;
use crate::problem::Severity::{self, Error, Note, Warning};

use crate::{apply, cache, iree, link, store};

/// One diagnostic code: what it is called, how severe, what it means, where it is documented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The stable code (`code` in JSON, the rule id in SARIF).
    pub code: &'static str,
    /// The usual severity.
    pub severity: Severity,
    /// Other severities or exit statuses it comes with, in words (empty when none).
    pub severity_note: &'static str,
    /// The part of the docs' list it belongs to.
    pub section: Section,
    /// What it means, in one line of markdown.
    pub summary: &'static str,
}

impl CodeInfo {
    /// The anchor of its row in `docs/diagnostics.md` (`tunespec::verify::empty` ->
    /// `tunespec-verify-empty`), which [`CodeInfo::help_link`] points at.
    pub fn anchor(&self) -> String {
        self.code.replace("::", "-")
    }

    /// Where the code is documented, relative to the repository root.
    pub fn help_link(&self) -> String {
        format!("{DOCS_PAGE}#{}", self.anchor())
    }

    /// The severity column of the docs: `error`, or `error (exit 2)`.
    pub fn severity_text(&self) -> String {
        match self.severity_note {
            "" => self.severity.as_str().to_string(),
            note => format!("{} ({note})", self.severity.as_str()),
        }
    }
}

/// The page that lists every code.
pub const DOCS_PAGE: &str = "docs/diagnostics.md";

/// The parts of the docs' list, in the order they are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Reading inputs, parsing, MLIR's own messages, configs and manifests.
    Inputs,
    /// `verify`'s rules.
    Verify,
    /// IREE's side.
    Iree,
    /// `link`.
    Link,
    /// `attach`, `extract`, `apply`.
    Apply,
    /// The cache of linked libraries.
    Cache,
    /// The report commands' findings.
    Reports,
}

impl Section {
    /// Every section, in the docs' order.
    pub const ALL: [Section; 7] = [
        Section::Inputs,
        Section::Verify,
        Section::Iree,
        Section::Link,
        Section::Apply,
        Section::Cache,
        Section::Reports,
    ];

    /// The section's heading in the docs.
    pub fn title(self) -> &'static str {
        match self {
            Section::Inputs => "Inputs, parsing and MLIR",
            Section::Verify => "`verify`: bytes, structure and IREE's rules",
            Section::Iree => "IREE",
            Section::Link => "`link`",
            Section::Apply => "`attach`, `extract`, `apply`",
            Section::Cache => "Cache",
            Section::Reports => "Report commands",
        }
    }
}

use Section::{Apply, Cache, Inputs, Iree, Link, Reports, Verify};

/// Every code tunespec emits, in the docs' order (by section, then as listed).
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: core::IO,
        severity: Error,
        severity_note: "exit 2",
        section: Inputs,
        summary: "a file or stream could not be read or written (missing, unreadable, unwritable output, full disk)",
    },
    CodeInfo {
        code: "tunespec::usage",
        severity: Error,
        severity_note: "exit 2",
        section: Inputs,
        summary: "bad flags, an unknown target or feature (\"did you mean\"), an invalid `TUNESPEC_LOG`, a directory with no specs",
    },
    CodeInfo {
        code: core::PARSE,
        severity: Error,
        severity_note: "",
        section: Inputs,
        summary: "MLIR could not parse the input, or MLIR's verifier rejected it",
    },
    CodeInfo {
        code: core::MLIR_WARNING,
        severity: Warning,
        severity_note: "",
        section: Inputs,
        summary: "a warning MLIR emitted",
    },
    CodeInfo {
        code: core::CONFIG,
        severity: Error,
        severity_note: "warning: a project config owned by another user, ignored",
        section: Inputs,
        summary: "a problem in a config (`tunespec.toml`, the user config)",
    },
    CodeInfo {
        code: core::MANIFEST,
        severity: Error,
        severity_note: "warning: a spec file no target lists",
        section: Inputs,
        summary: "a problem in a registry manifest (`registry.toml`), located by its toml span",
    },
    CodeInfo {
        code: core::EMPTY,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "the input holds nothing, or only comments",
    },
    CodeInfo {
        code: core::INVALID_UTF8,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "text that is not UTF-8",
    },
    CodeInfo {
        code: core::NUL_BYTE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a NUL byte in text: a binary file that is not MLIR bytecode",
    },
    CodeInfo {
        code: core::BAD_BYTECODE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "bytecode MLIR's reader cannot read (truncated, corrupt, of a newer MLIR, or one that aborts or crashes the reader in the probe)",
    },
    CodeInfo {
        code: core::TOO_LARGE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "an input over the size limit (1 GiB)",
    },
    CodeInfo {
        code: core::TOO_DEEP,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "IR nested deeper, or expanding larger, than the limits ([reliability.md](reliability.md))",
    },
    CodeInfo {
        code: core::NOT_A_LIBRARY,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a module without `transform.with_named_sequence`: not a transform library (IREE's loader message)",
    },
    CodeInfo {
        code: core::PAYLOAD_NOT_SPEC,
        severity: Error,
        severity_note: "warning: a `func.func` inside a spec, which IREE ignores",
        section: Verify,
        summary: "a payload given where a spec is expected",
    },
    CodeInfo {
        code: core::MISSING_ENTRYPOINT,
        severity: Error,
        severity_note: "warning: an unmarked `@__kernel_config` IREE does not run",
        section: Verify,
        summary: "no entry point (`@__kernel_config` or `iree_codegen.tuning_spec_entrypoint`)",
    },
    CodeInfo {
        code: core::NESTED_ENTRYPOINT,
        severity: Warning,
        severity_note: "",
        section: Verify,
        summary: "the entry point sits in a nested module; IREE applies the first such only",
    },
    CodeInfo {
        code: core::ENTRYPOINT_ATTR,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "the entry point lacks or misuses IREE's entry-point attribute",
    },
    CodeInfo {
        code: core::ENTRYPOINT_SIGNATURE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "the entry point does not take and return one `!transform.any_op`",
    },
    CodeInfo {
        code: core::DEFAULT_ENTRYPOINT,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a merge-ready module (`iree_codegen.tuning_spec_with_default_entrypoint`) whose entry point breaks IREE's rules for one",
    },
    CodeInfo {
        code: core::UNKNOWN_SYMBOL,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a symbol reference (matcher, action, include target) that resolves to nothing (\"did you mean\")",
    },
    CodeInfo {
        code: core::MATCHER_SIGNATURE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a matcher whose signature `foreach_match` cannot use (its argument must be readonly)",
    },
    CodeInfo {
        code: core::ACTION_SIGNATURE,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "an action whose signature `foreach_match` cannot use",
    },
    CodeInfo {
        code: core::MATCHER_ACTION_MISMATCH,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a matcher's results do not fit its action's arguments",
    },
    CodeInfo {
        code: core::ENTRY_EFFECT,
        severity: Error,
        severity_note: "warning: an unmarked argument, or one marked consumed that nothing consumes (IREE applies both)",
        section: Verify,
        summary: "an argument's `readonly`/`consumed` marking disagrees with what the body does",
    },
    CodeInfo {
        code: core::UNSAFE_OP,
        severity: Warning,
        severity_note: "error with `--deny-warnings`",
        section: Verify,
        summary: "an op that rewrites the payload, in a sequence no entry point reaches (where one reaches it, it is `changes-semantics`)",
    },
    CodeInfo {
        code: core::CHANGES_SEMANTICS,
        severity: Error,
        severity_note: "note where the sequence opts in with `tunespec.rewrites = \"why\"`",
        section: Verify,
        summary: "what the entry points reach changes what the program computes: an attribute other than IREE's configs, a write on another op than the matched one, or a payload-rewriting op",
    },
    CodeInfo {
        code: core::DUPLICATE_MATCHER,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a matcher listed twice in one `foreach_match` (mlir-opt 22 crashes on it)",
    },
    CodeInfo {
        code: core::NO_SPECS,
        severity: Error,
        severity_note: "",
        section: Verify,
        summary: "a directory or list that holds no specs (defined in `problem.rs`; no command emits it today)",
    },
    CodeInfo {
        code: core::NAMED_OP_MATCHER,
        severity: Warning,
        severity_note: "",
        section: Verify,
        summary: "a `transform.match.operation_name` that only accepts named linalg ops IREE generalizes before it applies specs (GPU backends): the matcher never fires in iree-compile",
    },
    CodeInfo {
        code: core::IREE_ATTRIBUTE,
        severity: Error,
        severity_note: "warning: an upstream dialect IREE 3.13 lacks, such as `#dlti.*`",
        section: Iree,
        summary: "an IREE attribute iree-opt rejects (IREE's message, at the attribute), or one of a dialect IREE does not register",
    },
    CodeInfo {
        code: core::IREE_NOT_CHECKED,
        severity: Note,
        severity_note: "",
        section: Iree,
        summary: "IREE attributes were not checked (no iree-opt, or it timed out or failed): once per run, on stderr",
    },
    CodeInfo {
        code: core::IREE_SYNTAX,
        severity: Error,
        severity_note: "",
        section: Iree,
        summary: "op syntax MLIR 22 and IREE 3.13 (MLIR 24) spell differently (`transform.print`'s name)",
    },
    CodeInfo {
        code: core::IREE_NOT_TUNING_OP,
        severity: Error,
        severity_note: "",
        section: Iree,
        summary: "a `transform.iree.*` op that is not one of IREE's tuning-spec match ops (a codegen op, a misspelt match op)",
    },
    CodeInfo {
        code: core::IREE_CONFIG,
        severity: Warning,
        severity_note: "",
        section: Iree,
        summary: "an IREE config IREE accepts but that cannot be what the author meant (tile lists longer than the matched op's loops, a workgroup size not a multiple of the subgroup size)",
    },
    CodeInfo {
        code: iree::codes::REJECTED,
        severity: Error,
        severity_note: "exit 1",
        section: Iree,
        summary: "IREE refused an input (its diagnostics, located where IREE says)",
    },
    CodeInfo {
        code: iree::codes::NEEDED,
        severity: Error,
        severity_note: "exit 2",
        section: Iree,
        summary: "a command needs IREE and found none or a broken one, or a target IREE does not compile for",
    },
    CodeInfo {
        code: iree::codes::LEFT_OUT,
        severity: Warning,
        severity_note: "",
        section: Iree,
        summary: "an entry of the library left out for an older IREE (3.10, 3.11) whose syntax cannot express its config",
    },
    CodeInfo {
        code: "tunespec::bench::rounds",
        severity: Warning,
        severity_note: "",
        section: Reports,
        summary: "`bench`: the rounds can never call a difference at `--alpha`, the machine is loaded, or a comparison's rounds spread widely",
    },
    CodeInfo {
        code: "tunespec::tune::keys",
        severity: Warning,
        severity_note: "",
        section: Reports,
        summary: "`tune --keys`: a matcher of the library left out of the model built from its keys (attention, no fixed sizes, a key an earlier matcher has)",
    },
    CodeInfo {
        code: "tunespec::iree::runtime",
        severity: Error,
        severity_note: "some cases a warning",
        section: Iree,
        summary: "`bench`: IREE's runtime is missing or cannot run the device",
    },
    CodeInfo {
        code: link::codes::DUPLICATE_INPUT,
        severity: Warning,
        severity_note: "",
        section: Link,
        summary: "an input with the same bytes as an earlier one (linked once)",
    },
    CodeInfo {
        code: link::codes::SHADOWED,
        severity: Warning,
        severity_note: "`--dedupe` drops the matcher",
        section: Link,
        summary: "a matcher that can never fire: an earlier one, by key or structurally identical, matches every op it matches",
    },
    CodeInfo {
        code: link::codes::INCLUDE_SEMANTICS,
        severity: Warning,
        severity_note: "",
        section: Link,
        summary: "specs linked by `transform.include` run even where an earlier spec matched",
    },
    CodeInfo {
        code: link::codes::ENTRY_SIGNATURE,
        severity: Error,
        severity_note: "",
        section: Link,
        summary: "a spec linked by include whose entry point has the wrong signature",
    },
    CodeInfo {
        code: link::codes::INTERNAL,
        severity: Error,
        severity_note: "",
        section: Link,
        summary: "the linked library does not verify: a tunespec bug",
    },
    CodeInfo {
        code: link::codes::OVERRIDES_DEFAULT,
        severity: Note,
        severity_note: "",
        section: Link,
        summary: "a user or library matcher overrides a default's (tunespec's or IREE's)",
    },
    CodeInfo {
        code: link::codes::MEASURED_FIRST,
        severity: Note,
        severity_note: "",
        section: Link,
        summary: "a measured matcher placed before a derived one that matches the same ops",
    },
    CodeInfo {
        code: link::codes::OTHER_DEVICE,
        severity: Note,
        severity_note: "",
        section: Link,
        summary: "a measurement of an op on another device, left behind the one the link takes",
    },
    CodeInfo {
        code: apply::codes::PAYLOAD,
        severity: Error,
        severity_note: "",
        section: Apply,
        summary: "the payload cannot be used as given (it does not read, or cannot be edited as asked)",
    },
    CodeInfo {
        code: apply::codes::NOT_A_PAYLOAD,
        severity: Error,
        severity_note: "",
        section: Apply,
        summary: "the input is a spec or library, not a payload of functions",
    },
    CodeInfo {
        code: apply::codes::NO_LIBRARY,
        severity: Error,
        severity_note: "",
        section: Apply,
        summary: "the payload carries no library under the attribute, and no `--spec` gave one",
    },
    CodeInfo {
        code: apply::codes::CORRUPT_LIBRARY,
        severity: Error,
        severity_note: "",
        section: Apply,
        summary: "the library the payload carries does not read or verify",
    },
    CodeInfo {
        code: apply::codes::INTERPRETER,
        severity: Error,
        severity_note: "",
        section: Apply,
        summary: "the transform interpreter (or the native matcher) failed on the payload",
    },
    CodeInfo {
        code: cache::codes::UNAVAILABLE,
        severity: Warning,
        severity_note: "",
        section: Cache,
        summary: "the cache directory cannot be used (or is not trusted); the link goes on uncached",
    },
    CodeInfo {
        code: cache::codes::SETTING,
        severity: Warning,
        severity_note: "",
        section: Cache,
        summary: "a cache variable in the environment is invalid; the default is used",
    },
    CodeInfo {
        code: store::codes::URL,
        severity: Error,
        severity_note: "exit 2",
        section: Cache,
        summary: "`--store`'s URL is malformed, or names an engine not supported (`webdav://`: docs/store.md says why)",
    },
    CodeInfo {
        code: store::codes::UNAVAILABLE,
        severity: Error,
        severity_note: "exit 2 for `store`; a warning for `bench --write` and `tune`, which keep their local result",
        section: Cache,
        summary: "the shared store cannot be reached or failed (or an entry in it is corrupt: a warning, the entry skipped)",
    },
    CodeInfo {
        code: store::codes::REFUSED,
        severity: Error,
        severity_note: "exit 2",
        section: Cache,
        summary: "the shared store refused the credentials (`REDISCLI_AUTH`)",
    },
    CodeInfo {
        code: store::codes::READ_ONLY,
        severity: Error,
        severity_note: "exit 2",
        section: Cache,
        summary: "a write (`push`, `purge`) to a store opened read-only (`--read-only`, `TUNESPEC_STORE_READ_ONLY`)",
    },
    CodeInfo {
        code: "tunespec::coverage::never-fired",
        severity: Warning,
        severity_note: "`short`, `github`, `sarif`",
        section: Reports,
        summary: "`coverage`: a matcher that fired on none of the payloads, at its spec line",
    },
    CodeInfo {
        code: "tunespec::explain::unmatched",
        severity: Note,
        severity_note: "`github`, `sarif` only",
        section: Reports,
        summary: "`explain`, `apply --explain`: a candidate op no matcher configures",
    },
    CodeInfo {
        code: "tunespec::explain::exact-mismatch",
        severity: Error,
        severity_note: "exit 3",
        section: Reports,
        summary: "`explain --exact`: IREE set another config than tunespec predicted (a tunespec bug)",
    },
    CodeInfo {
        code: "tunespec::tuner::input",
        severity: Error,
        severity_note: "",
        section: Reports,
        summary: "`import-tuner`: a CSV without the tuner's columns or with a bad row, a candidate spec missing or without a keyable matcher",
    },
    CodeInfo {
        code: "tunespec::check::failed",
        severity: Error,
        severity_note: "",
        section: Reports,
        summary: "`check`: a matcher failed a step (parse, effect, compile)",
    },
    CodeInfo {
        code: "tunespec::check::warning",
        severity: Warning,
        severity_note: "",
        section: Reports,
        summary: "`check`: a measurement of another IREE release, a `match.attention` matcher",
    },
    CodeInfo {
        code: "tunespec::check::fixable",
        severity: Warning,
        severity_note: "",
        section: Reports,
        summary: "`check`: old syntax that `--fix` migrates",
    },];

/// The entry of `code`, if tunespec has such a code.
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|info| info.code == code)
}

/// The code list of `docs/diagnostics.md`: one `## section` and table per [`Section`], each row
/// with an anchor ([`CodeInfo::anchor`]). The docs hold it between [`DOCS_BEGIN`] and
/// [`DOCS_END`].
pub fn docs_markdown() -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let _ = write!(
            out,
            "\n## {}\n\n| code | severity | meaning |\n| --- | --- | --- |\n",
            section.title()
        );
        for info in CODES.iter().filter(|info| info.section == section) {
            let _ = writeln!(
                out,
                "| <a id=\"{}\"></a>`{}` | {} | {} |",
                info.anchor(),
                info.code,
                info.severity_text(),
                info.summary
            );
        }
    }
    out
}

/// The line after which `docs/diagnostics.md` holds [`docs_markdown`].
pub const DOCS_BEGIN: &str =
    "<!-- codes: generated from src/diagnostic_codes.rs (TUNESPEC_UPDATE_DOCS=1 cargo test --test all docs) -->";
/// The line before which it ends.
pub const DOCS_END: &str = "<!-- end of generated codes -->";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for info in CODES {
            assert!(seen.insert(info.code), "{} listed twice", info.code);
            assert!(info.code.starts_with("tunespec::"), "{}", info.code);
            assert!(
                !info.summary.is_empty() && !info.summary.contains('\n'),
                "{}",
                info.code
            );
        }
        assert_eq!(lookup("tunespec::usage").map(|i| i.severity), Some(Error));
        assert_eq!(lookup("tunespec::nonesuch"), None);
    }

    #[test]
    fn every_section_has_codes_and_rows_carry_anchors() {
        let markdown = docs_markdown();
        for section in Section::ALL {
            assert!(
                CODES.iter().any(|info| info.section == section),
                "{section:?}"
            );
        }
        assert!(markdown.contains(
            "| <a id=\"tunespec-io\"></a>`tunespec::io` | error (exit 2) | a file or stream"
        ));
        assert_eq!(
            lookup(core::EMPTY).map(CodeInfo::help_link).as_deref(),
            Some("docs/diagnostics.md#tunespec-verify-empty")
        );
    }
}
