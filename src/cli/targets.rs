//! `tunespec targets`: the embedded registry at a glance.
use serde_json::json;

use super::common::{emit, ExitStatus, Format};
use tunespec::registry;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::TARGETS)]
pub struct Opts {
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

impl Opts {
    pub fn run(self) -> ExitStatus {
        match self.format {
            Format::Json => {
                for target in registry::targets() {
                    let specs: Vec<_> = target
                        .specs()
                        .map(|spec| {
                            json!({
                                "path": spec.path,
                                "matchers": spec.matcher_count,
                                "bytecode_bytes": spec.bytecode_bytes,
                                "source_bytes": spec.source_bytes,
                                "source_hash": spec.source_hash,
                                "bytecode_hash": spec.bytecode_hash,
                            })
                        })
                        .collect();
                    emit(&format!(
                        "{}\n",
                        json!({
                            "version": 1,
                            "target": target.name,
                            "description": target.description,
                            "aliases": target.aliases,
                            "fallback": target.fallback,
                            "kind": target.kind,
                            "features": target.features,
                            "specs": specs,
                        })
                    ));
                }
            }
            Format::Human => {
                emit(&format!(
                    "{:<10} {:<8} {:<30} {:>5} {:>8} {:>9}  {:<12}  description\n",
                    "target", "fallback", "aliases", "specs", "matchers", "bytes", "hash"
                ));
                for target in registry::targets() {
                    let matchers: usize = target.specs().map(|spec| spec.matcher_count).sum();
                    let bytes: usize = target.specs().map(|spec| spec.bytecode_bytes).sum();
                    // One short hash over the target's spec hashes, in priority order.
                    let mut hasher = blake3::Hasher::new();
                    for spec in target.specs() {
                        hasher.update(spec.bytecode_hash.as_bytes());
                    }
                    let hash = hasher.finalize().to_hex();
                    emit(&format!(
                        "{:<10} {:<8} {:<30} {:>5} {:>8} {:>9}  {:<12}  {}\n",
                        target.name,
                        target.fallback.unwrap_or("-"),
                        target.aliases.join(","),
                        target.specs.len(),
                        matchers,
                        bytes,
                        &hash[..12],
                        target.description
                    ));
                }
            }
        }
        ExitStatus::Ok
    }
}
