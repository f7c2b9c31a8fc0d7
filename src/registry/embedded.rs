//! The default registry as `build.rs` left it: every default spec verified and written as
//! bytecode into `OUT_DIR`, and the index of specs and targets, compiled into the binary.
//!
//! Why embedded: a compiler that links tunespec gets exactly the specs that were verified when it
//! was built, with no files to find at run time and no way for them to be edited afterwards.
//! These are the build's tables; lookups go through [`super::Registry`], whose
//! [`super::Target`]s point back here for the default specs.

use include_dir::{include_dir, Dir};

/// One default spec, verified at build time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSpec {
    /// Source path, relative to the crate root (`specs/gfx942/llama_f16.mlir`).
    pub path: &'static str,
    /// The bytecode file inside the embedded directory.
    pub bytecode_file: &'static str,
    /// The symbol name of the spec's module (empty when it has none).
    pub module_name: &'static str,
    /// BLAKE3 of the source text, hex.
    pub source_hash: &'static str,
    /// BLAKE3 of the embedded bytecode, hex.
    pub bytecode_hash: &'static str,
    /// How many matchers its entry point lists.
    pub matcher_count: usize,
    /// Size of the source.
    pub source_bytes: usize,
    /// Size of the embedded bytecode.
    pub bytecode_bytes: usize,
    /// Whether it is merge-ready.
    pub merge_ready: bool,
    /// How many of its matchers carry a measurement record (`tunespec.measurement`).
    pub measured_matchers: usize,
    /// How many of its matchers say they were derived by a rule (`tunespec.provenance`).
    pub derived_matchers: usize,
    /// The rules its derived matchers name (`R2`), sorted.
    pub derived_rules: &'static [&'static str],
    /// Its measured matchers' records, as `(device, IREE version, speedup)`: the GPU's name
    /// where the record has one; the speedup as written (below 1, which `build.rs` checks).
    pub measured_records: &'static [(&'static str, &'static str, &'static str)],
}

/// One row of the build's target table and the indices of its specs in [`specs`], in priority
/// order. [`super::Target`] is the registry's record of a target; this is where the defaults'
/// records come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedTarget {
    /// The target's name.
    pub name: &'static str,
    /// One line for `tunespec targets`.
    pub description: &'static str,
    /// `sku`, `arch`, `family`, `vendor` or `generic` ([`crate::manifest::KINDS`]).
    pub kind: Option<&'static str>,
    /// SKU and marketing names, lowercase.
    pub aliases: &'static [&'static str],
    /// The next more general target.
    pub fallback: Option<&'static str>,
    /// Feature names this target declares (`xnack`); its fallbacks may declare more.
    pub features: &'static [&'static str],
    /// The IREE backend it names (`rocm`, `cuda`, ...), if any; its fallbacks may name one.
    pub backend: Option<&'static str>,
    /// Indices into [`specs`], in priority order.
    pub specs: &'static [usize],
    /// For each of `specs`: the request features it needs (`xnack+`), empty when none.
    pub spec_features: &'static [&'static [&'static str]],
}

static EMBEDDED: Dir<'static> = include_dir!("$OUT_DIR/embedded");

include!(concat!(env!("OUT_DIR"), "/index.rs"));

impl EmbeddedSpec {
    /// The verified bytecode of this spec.
    pub fn bytecode(&self) -> &'static [u8] {
        EMBEDDED
            .get_file(self.bytecode_file)
            .map(|file| file.contents())
            .unwrap_or_default()
    }
}

impl EmbeddedSpec {
    /// Whether every matcher is derived by a rule and none measured or stated: such a default is
    /// withheld unless derived configs are asked for (see [`super::Registry::with_derived`]).
    pub fn derived_only(&self) -> bool {
        self.derived_matchers > 0
            && self.measured_matchers == 0
            && self.derived_matchers >= self.matcher_count
    }

    /// `measured`, `derived` or `stated` for the spec as a whole (`mixed` when its matchers
    /// differ), and the words `targets` prints.
    pub fn provenance(&self) -> (&'static str, String) {
        let stated = self
            .matcher_count
            .saturating_sub(self.measured_matchers + self.derived_matchers);
        let rules = if self.derived_rules.is_empty() {
            String::new()
        } else {
            format!(" {}", self.derived_rules.join(","))
        };
        match (self.measured_matchers, self.derived_matchers, stated) {
            (0, 0, _) => ("stated", "stated".to_string()),
            (0, _, 0) => ("derived", format!("derived (rule{rules})")),
            (_, 0, 0) => ("measured", "measured".to_string()),
            (measured, derived, stated) => (
                "mixed",
                format!("{measured} measured, {derived} derived (rule{rules}), {stated} stated"),
            ),
        }
    }
}

impl EmbeddedTarget {
    /// The target's own specs (not its fallbacks'), in priority order.
    pub fn specs(&self) -> impl Iterator<Item = &'static EmbeddedSpec> + '_ {
        self.specs.iter().map(|&index| &SPECS[index])
    }

    /// The request features each of [`EmbeddedTarget::specs`] needs, owned.
    pub fn spec_features(&self, position: usize) -> Vec<String> {
        self.spec_features
            .get(position)
            .map(|features| features.iter().map(|f| f.to_string()).collect())
            .unwrap_or_default()
    }
}

/// All embedded specs, sorted by path.
pub fn specs() -> &'static [EmbeddedSpec] {
    SPECS
}

/// The build's target table, sorted by name (look targets up with [`super::Registry`]).
pub fn targets() -> &'static [EmbeddedTarget] {
    TARGETS
}
