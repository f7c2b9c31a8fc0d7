//! Symbol lookup for the rules, with "did you mean" suggestions.

use super::*;

/// Symbols of a module, including nested modules' symbols for `@mod::@name` references.
pub struct SymbolTable<'a> {
    top: BTreeMap<&'a str, &'a Op>,
    root: &'a Op,
}

impl<'a> SymbolTable<'a> {
    /// The symbols of the module `root`.
    pub fn new(root: &'a Op) -> Self {
        let top = root
            .body()
            .iter()
            .filter_map(|op| op.sym_name().map(|name| (name, op)))
            .collect();
        SymbolTable { top, root }
    }

    /// Resolves `@a::@b::@c` from the module: `@a` among the module's symbols, `@b` inside it...
    pub fn resolve(&self, path: &[String]) -> Option<&'a Op> {
        let (first, rest) = path.split_first()?;
        let mut current = *self.top.get(first.as_str())?;
        for name in rest {
            current = current
                .body()
                .iter()
                .find(|op| op.sym_name() == Some(name.as_str()))?;
        }
        Some(current)
    }

    /// The module's own (top-level) symbol names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &&'a str> {
        self.top.keys()
    }

    /// The module.
    pub fn root(&self) -> &'a Op {
        self.root
    }

    /// The closest existing name, for "did you mean" help.
    pub fn nearest(&self, wanted: &str) -> Option<&'a str> {
        self.top
            .keys()
            .map(|name| (edit_distance(wanted, name), *name))
            .filter(|(distance, name)| *distance <= (wanted.len().max(name.len()) / 3).max(2))
            .min()
            .map(|(_, name)| name)
    }
}

/// Levenshtein distance (in chars; strsim); inputs are short symbol names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

pub(super) fn format_ref(path: &[String]) -> String {
    path.iter()
        .map(|name| format!("@{name}"))
        .collect::<Vec<_>>()
        .join("::")
}
