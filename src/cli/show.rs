//! `tunespec show TARGET`: print a target's embedded specs as MLIR text, from their bytecode.
use super::common::{emit, tool_error, ExitStatus};
use tunespec::mlir::Mlir;
use tunespec::registry::Registry;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::SHOW)]
pub struct Opts {
    /// Target name or alias (case-insensitive)
    pub target: String,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        let registry = Registry::embedded();
        let Some(target) = registry.find(&self.target) else {
            tool_error(registry.unknown(&self.target));
            return ExitStatus::Usage;
        };
        let mlir = Mlir::new();
        for (index, spec) in target.default_specs().enumerate() {
            let parsed = mlir.parse(spec.bytecode(), spec.path);
            let Some(module) = parsed.module else {
                tool_error(format!("embedded bytecode of {} does not parse", spec.path));
                return ExitStatus::Problems;
            };
            // `--split-input-file` splits at a line that is only the marker: the spec's name
            // goes on the next line.
            if index > 0 {
                emit("// -----\n");
            }
            emit(&format!(
                "// {} ({} matchers)\n",
                spec.path, spec.matcher_count
            ));
            let text = module.print();
            let text = if index > 0 {
                unique_aliases(&text, &format!("s{index}_"))
            } else {
                text
            };
            emit(&format!("{}\n", text.trim_end()));
        }
        ExitStatus::Ok
    }
}

/// `text` with every attribute alias it defines (`#map = ...` at a line's start) renamed with
/// `prefix`, uses included: specs printed one after another define `#map`, `#map1`, ... each,
/// which clash when the output is read as one file.
fn unique_aliases(text: &str, prefix: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.';
    let defined: std::collections::HashSet<&str> = text
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix('#')?;
            let name: &str = &rest[..rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())];
            let after = rest[name.len()..].trim_start();
            (after.starts_with('=') && !name.is_empty()).then_some(name)
        })
        .collect();
    if defined.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    let mut in_string = false;
    while let Some(at) = rest.find(['#', '"']) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        if from.starts_with('"') {
            // Skip the string, escapes included.
            let bytes = from.as_bytes();
            let mut end = 1;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(from.len());
            out.push_str(&from[..end]);
            rest = &from[end..];
            in_string = false;
            continue;
        }
        let name_end = from[1..]
            .find(|c: char| !is_ident(c))
            .map_or(from.len(), |i| i + 1);
        let name = &from[1..name_end];
        let previous_is_ident = out.chars().next_back().is_some_and(is_ident);
        if !in_string && !previous_is_ident && defined.contains(name) {
            out.push('#');
            out.push_str(prefix);
            out.push_str(name);
        } else {
            out.push_str(&from[..name_end]);
        }
        rest = &from[name_end..];
    }
    out.push_str(rest);
    out
}
