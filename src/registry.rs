//! The embedded registry: the default specs verified by `build.rs`, as bytecode, with an index.
//!
//! Why embedded: a compiler that links tunespec gets exactly the specs that were verified when it
//! was built, with no files to find at run time and no way for them to be edited afterwards.

use include_dir::{include_dir, Dir};

/// One default spec, verified at build time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSpec {
    /// Source path, relative to the crate root (`specs/gfx942/llama_f16.mlir`).
    pub path: &'static str,
    /// The bytecode file inside the embedded directory.
    pub bytecode_file: &'static str,
    pub module_name: &'static str,
    /// BLAKE3 of the source text, hex.
    pub source_hash: &'static str,
    /// BLAKE3 of the embedded bytecode, hex.
    pub bytecode_hash: &'static str,
    pub matcher_count: usize,
    pub source_bytes: usize,
    pub bytecode_bytes: usize,
    pub merge_ready: bool,
}

/// One registry target and the indices of its specs in [`SPECS`], in priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedTarget {
    pub name: &'static str,
    pub description: &'static str,
    pub aliases: &'static [&'static str],
    pub fallback: Option<&'static str>,
    pub specs: &'static [usize],
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

impl EmbeddedTarget {
    pub fn specs(&self) -> impl Iterator<Item = &'static EmbeddedSpec> + '_ {
        self.specs.iter().map(|&index| &SPECS[index])
    }
}

/// All embedded specs, sorted by path.
pub fn specs() -> &'static [EmbeddedSpec] {
    SPECS
}

/// All registry targets, sorted by name.
pub fn targets() -> &'static [EmbeddedTarget] {
    TARGETS
}

/// The manifest text the registry was built from.
pub fn manifest_text() -> &'static str {
    MANIFEST
}

/// Looks a target up by name or alias, case-insensitively.
pub fn find_target(name: &str) -> Option<&'static EmbeddedTarget> {
    let wanted = name.trim().to_ascii_lowercase();
    TARGETS.iter().find(|target| {
        target.name == wanted
            || target
                .aliases
                .iter()
                .any(|alias| alias.eq_ignore_ascii_case(&wanted))
    })
}

/// The known names (targets and aliases) closest to `name`, for "did you mean".
pub fn nearest_targets(name: &str) -> Vec<&'static str> {
    let wanted = name.trim().to_ascii_lowercase();
    let mut scored: Vec<(usize, &'static str)> = TARGETS
        .iter()
        .flat_map(|target| std::iter::once(target.name).chain(target.aliases.iter().copied()))
        .map(|known| (crate::verify::edit_distance(&wanted, known), known))
        .filter(|(distance, _)| *distance <= 3)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, known)| known).collect()
}

/// A target and its fallback chain, most specific first. Unknown names are an error that names
/// the nearest known ones.
pub fn resolve_chain(name: &str) -> Result<Vec<&'static EmbeddedTarget>, String> {
    let Some(mut target) = find_target(name) else {
        let nearest = nearest_targets(name);
        return Err(if nearest.is_empty() {
            format!("unknown target '{name}'")
        } else {
            format!(
                "unknown target '{name}' (did you mean {}?)",
                nearest.join(", ")
            )
        });
    };
    let mut chain = vec![target];
    while let Some(next) = target.fallback.and_then(find_target) {
        if chain.iter().any(|seen| seen.name == next.name) {
            break;
        }
        chain.push(next);
        target = next;
    }
    Ok(chain)
}
