//! `tunespec import-iree -o DIR`: IREE's built-in default tuning specs, dumped from the installed
//! compiler and written as a spec library (see `tunespec::iree::import`), so that a user can link
//! IREE's defaults (and their own specs over them) with tunespec.

use std::path::{Path, PathBuf};
use tunespec::settings::Settings;

use tunespec::iree::import::{self as iree_import, Imported};
use tunespec::mlir::Mlir;
use tunespec::registry;
use tunespec::verify;

use super::common::{emit_stderr, tool_error, ExitStatus};
use crate::diagnostics::{self, Style};

const AFTER_HELP: &str = "\
The library's registry.toml puts each imported spec before tunespec's defaults of its target
([extend.ARCH]). Use it with `--spec DIR`, or `spec_dirs = [\"DIR\"]` in tunespec.toml.

Examples:
  tunespec import-iree -o iree-defaults
  tunespec import-iree --target mi300x --iree-opt .venv/bin/iree-opt -o iree-defaults
  tunespec link --target gfx942 --spec my-tuned.mlir --spec iree-defaults -o lib.mlir

Environment:
  TUNESPEC_IREE_OPT, TUNESPEC_IREE_VENV  where iree-opt is (else PATH)
  TUNESPEC_IREE_TIMEOUT_SECS             limit for each iree-opt run (default 120)
  TUNESPEC_LOG                           what -v logs, as a filter (info, debug)

Exit status:
  0  the specs were imported
  1  a dumped spec has problems (printed; nothing written)
  2  usage or I/O error: iree-opt not found or failed, no built-in spec for the targets asked
     for, an output directory tunespec did not write";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Opts {
    /// ROCm target (architecture or SKU, e.g. gfx942, mi300x); repeatable. Default: every gfx
    /// architecture in the registry (those IREE has no built-in spec for are skipped)
    #[arg(long, short)]
    pub target: Vec<String>,
    /// iree-opt of the compiler to take the specs from (default: $TUNESPEC_IREE_OPT, then
    /// $TUNESPEC_IREE_VENV/bin/iree-opt, then iree-opt on PATH)
    #[arg(long, value_name = "PATH")]
    pub iree_opt: Option<PathBuf>,
    /// The spec library directory to write (created, or replaced if an earlier import wrote it)
    #[arg(long, short)]
    pub output: PathBuf,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        let iree_opt = match settings.iree.iree_opt(self.iree_opt.as_deref()) {
            Ok(path) => path,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let archs = match self.archs() {
            Ok(archs) => archs,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        if let Err(message) = check_output(&self.output) {
            tool_error(message);
            return ExitStatus::Usage;
        }
        let timeout = settings.iree.limits().opt_run;
        let compiler = match iree_import::compiler_version(&iree_opt, timeout) {
            Ok(version) => version,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        let mut imported: Vec<Imported> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for arch in &archs {
            match iree_import::dump_default_spec(&iree_opt, arch, timeout) {
                Ok(Some(spec)) => imported.push(spec),
                Ok(None) => missing.push(arch.clone()),
                Err(message) => {
                    tool_error(message);
                    return ExitStatus::Usage;
                }
            }
        }
        if imported.is_empty() {
            tool_error(format!(
                "{compiler} has no built-in tuning spec for {}",
                archs.join(", ")
            ));
            return ExitStatus::Usage;
        }
        // IREE's spec must pass tunespec's rules before tunespec offers to link it.
        let mlir = Mlir::new_threaded();
        let style = Style::detect_stderr();
        let mut matchers = Vec::new();
        let mut failed = false;
        for spec in &imported {
            let verified = verify::verify_bytes(&mlir, spec.text.as_bytes(), &spec.relative_path);
            for problem in &verified.problems {
                emit_stderr(&diagnostics::render(
                    problem,
                    Some(spec.text.as_bytes()),
                    style,
                ));
            }
            failed |= verified.problems.iter().any(|problem| problem.is_error());
            matchers.push(verified.facts.map_or(0, |facts| facts.matcher_count));
        }
        if failed {
            tool_error("IREE's spec does not verify; nothing written");
            return ExitStatus::Problems;
        }
        if let Err(message) = write_library(&self.output, &imported, &compiler) {
            tool_error(message);
            return ExitStatus::Usage;
        }
        for (spec, count) in imported.iter().zip(&matchers) {
            emit_stderr(&format!(
                "imported {} ({count} matchers) -> {}\n",
                spec.arch,
                self.output.join(&spec.relative_path).display()
            ));
        }
        if !missing.is_empty() {
            emit_stderr(&format!(
                "no built-in spec in {compiler} for: {}\n",
                missing.join(", ")
            ));
        }
        ExitStatus::Ok
    }

    /// The architectures asked for (aliases resolved), or every gfx architecture in the registry.
    fn archs(&self) -> Result<Vec<String>, String> {
        if self.target.is_empty() {
            return Ok(registry::targets()
                .iter()
                .filter(|target| target.kind == Some("arch"))
                .map(|target| target.name.to_string())
                .filter(|name| iree_import::is_rocm_arch(name))
                .collect());
        }
        let mut archs: Vec<String> = Vec::new();
        for requested in &self.target {
            let arch = match registry::Registry::embedded().find(requested) {
                Some(target) if iree_import::is_rocm_arch(&target.name) => target.name.clone(),
                Some(target) => {
                    return Err(format!(
                        "{} is not a ROCm architecture: IREE ships default tuning specs only for gfx targets",
                        target.name
                    ))
                }
                None if iree_import::is_rocm_arch(requested) => requested.clone(),
                None => return Err(format!("unknown target '{requested}'")),
            };
            if !archs.contains(&arch) {
                archs.push(arch);
            }
        }
        Ok(archs)
    }
}

/// The output may be new, an empty directory, or an earlier import (its manifest starts with
/// [`iree_import::MANIFEST_MARKER`]); never a directory of someone's own specs.
fn check_output(output: &Path) -> Result<(), String> {
    let Ok(metadata) = std::fs::symlink_metadata(output) else {
        return Ok(());
    };
    if !metadata.is_dir() {
        return Err(format!(
            "{} exists and is not a directory",
            output.display()
        ));
    }
    let manifest = output.join("registry.toml");
    let ours = tunespec::files::read_input_text(&manifest)
        .is_ok_and(|text| tunespec::manifest::written_by(&text) == Some(iree_import::TOOL));
    let empty = std::fs::read_dir(output)
        .map_err(|error| format!("cannot read {}: {error}", output.display()))?
        .next()
        .is_none();
    if ours || empty {
        Ok(())
    } else {
        Err(format!(
            "{} is not empty and was not written by `tunespec import-iree`; choose another directory",
            output.display()
        ))
    }
}

/// Writes the library into a fresh directory next to `output`, then puts it in place with
/// renames: a reader sees the old library or the new one, never half of one.
fn write_library(output: &Path, imported: &[Imported], compiler: &str) -> Result<(), String> {
    let mut files: Vec<(String, String)> = imported
        .iter()
        .map(|spec| (spec.relative_path.clone(), spec.text.clone()))
        .collect();
    files.push((
        "registry.toml".to_string(),
        iree_import::manifest_text(imported, compiler),
    ));
    write_directory(output, &files)
}

pub use tunespec::measured::library::write_directory;
