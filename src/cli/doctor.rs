//! `tunespec doctor`: what tunespec found on this machine and what works without it.
//!
//! Why: which IREE a command reads models and writes libraries with decides what it prints and
//! what IREE will accept; a user must be able to see which one, found where, without reading
//! the lookup rules.

use serde_json::json;
use tunespec::iree::runtime::{self, Runtime, Tools};
use tunespec::iree_attrs::migrate;
use tunespec::settings::Settings;

use super::common::{emit, ExitStatus};
use crate::cli::DiagnosticFormat;

/// `doctor --format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DoctorFormat {
    /// Lines for people
    #[default]
    Human,
    /// One JSON document
    Json,
}

impl From<DoctorFormat> for DiagnosticFormat {
    fn from(format: DoctorFormat) -> Self {
        match format {
            DoctorFormat::Human => DiagnosticFormat::Human,
            DoctorFormat::Json => DiagnosticFormat::Json,
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::DOCTOR)]
pub struct Opts {
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: DoctorFormat,
}

/// What works without IREE's compiler library, and what needs it.
const WITHOUT_IREE: &str = "verify, link, attach, apply, explain and coverage of linalg-level payloads (MLIR 22, IREE's dispatch view predicted)";
const NEEDS_IREE: &str = "models in torch, StableHLO, TOSA or IREE's dialects (explain, coverage, attach, apply --as-dispatch), libraries written and checked by the consumer's IREE";

/// How IREE compiles for each architecture of the registry: its flags, and why where the
/// architecture is substituted (`sm_90` as `sm_89` PTX: IREE 3.13 has no sm_90 target). Why
/// here: a user who compiles for an H100 must be able to see that the PTX is sm_89's.
fn compile_targets() -> Vec<tunespec::iree::CompileTarget> {
    tunespec::registry::targets()
        .iter()
        .filter_map(|target| tunespec::iree::compile_target(target.name))
        .collect()
}

/// One line on the IREE found, for `--version -v`.
pub fn iree_line(settings: &Settings) -> String {
    match settings.iree.shared() {
        Ok(iree) => format!(
            "IREE {} (API {}) from {}: {}",
            iree.revision,
            iree.api_version()
                .unwrap_or_else(|failure| failure.summary()),
            iree.found.origin,
            iree.found.library.display()
        ),
        Err(message) => format!("IREE: not found ({message})"),
    }
}

/// IREE's runtime beside the compiler (what `bench` runs), as JSON.
fn runtime_json(
    iree: &Result<tunespec::iree::Iree, String>,
    env: &tunespec::settings::Environment,
) -> serde_json::Value {
    let Ok(iree) = iree else {
        return match Runtime::find_alone(env) {
            Ok(runtime) => json!({
                "found": true,
                "alone": true,
                "benchmark_module": runtime.benchmark,
                "run_module": runtime.run,
                "compile": null,
                "version": runtime.version(),
                "devices": runtime.devices().unwrap_or_default(),
                "can": ["time"],
            }),
            Err(message) => json!({"found": false, "error": message}),
        };
    };
    match Tools::find(&iree.found, env) {
        Ok(tools) => json!({
            "found": true,
            "benchmark_module": tools.benchmark,
            "run_module": tools.run,
            "compile": tools.compile,
            "version": tools.version(),
            "devices": tools.devices().unwrap_or_default(),
        }),
        Err(message) => json!({
            "found": false,
            "error": message,
            "help": runtime::install_hint(&iree.revision),
        }),
    }
}

/// IREE's runtime beside the compiler, for people.
fn runtime_line(
    iree: &Result<tunespec::iree::Iree, String>,
    env: &tunespec::settings::Environment,
) -> String {
    let Ok(iree) = iree else {
        // A time-phase machine: the runtime without the compiler.
        return match Runtime::find_alone(env) {
            Ok(runtime) => format!(
                "IREE runtime (alone, no compiler): {}\n  iree-benchmark-module: {}\n  devices: {}\n  can: time bench plans made elsewhere (tunespec time PLAN --device D); bench, tune and check need IREE's compiler\n",
                runtime.version(),
                runtime.benchmark.display(),
                runtime.devices().unwrap_or_default().join(", ")
            ),
            Err(message) => format!("IREE runtime: not found\n  {message}\n"),
        };
    };
    match Tools::find(&iree.found, env) {
        Ok(tools) => format!(
            "IREE runtime (bench): {}\n  iree-benchmark-module: {}\n  devices: {}\n",
            tools.version(),
            tools.benchmark.display(),
            tools.devices().unwrap_or_default().join(", ")
        ),
        Err(message) => format!(
            "IREE runtime (bench): not found\n  {message}\n  help: {}\n",
            runtime::install_hint(&iree.revision)
        ),
    }
}

/// How the `python3` step of the search answered: whether a Python interpreter was started
/// (the start-up cost every command would otherwise pay), or why none was needed.
fn python_lookup(settings: &Settings) -> String {
    match settings.iree.python_lookup() {
        Some(lookup) => lookup.to_string(),
        None => "not needed (a setting or an earlier step of the search answered)".to_string(),
    }
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        let iree = settings.iree.shared();
        let iree_opt = settings.iree.iree_opt(None);
        let mlir_opt = std::path::Path::new("/usr/lib/llvm-22/bin/mlir-opt");
        match self.format {
            DoctorFormat::Json => {
                let iree_json = match iree {
                    Ok(iree) => json!({
                        "found": true,
                        "library": iree.found.library,
                        "origin": iree.found.origin.to_string(),
                        "revision": iree.revision,
                        "api_version": iree.api_version().unwrap_or_else(|failure| failure.summary()),
                        "release": tunespec::iree::release(&iree.revision),
                        "supported": iree.release().is_some_and(migrate::is_supported),
                    }),
                    Err(message) => json!({"found": false, "error": message}),
                };
                let document = json!({
                    "version": 1,
                    "tunespec": super::VERSION,
                    "iree": iree_json,
                    "supported_iree_releases": migrate::SUPPORTED
                        .iter()
                        .map(|(major, minor)| format!("{major}.{minor}"))
                        .collect::<Vec<_>>(),
                    "python_lookup": python_lookup(settings),
                    "runtime": runtime_json(iree, &settings.env),
                    "iree_opt": iree_opt.as_ref().ok(),
                    "mlir_opt": mlir_opt.is_file().then_some(mlir_opt),
                    "without_iree": WITHOUT_IREE,
                    "needs_iree": NEEDS_IREE,
                    "targets": compile_targets().iter().map(|compile| json!({
                        "target": compile.architecture,
                        "flags": compile.flags,
                        "compiled_as": compile.compiled_as,
                        "substitution": compile.substitution,
                    })).collect::<Vec<_>>(),
                });
                emit(&format!("{document:#}\n"));
            }
            DoctorFormat::Human => {
                let mut text = format!("tunespec {}\n", super::VERSION);
                match iree {
                    Ok(iree) => {
                        text.push_str(&format!(
                            "IREE compiler: {} (API {})\n  library: {}\n  found by: {}\n",
                            iree.revision,
                            iree.api_version()
                                .unwrap_or_else(|failure| failure.summary()),
                            iree.found.library.display(),
                            iree.found.origin
                        ));
                    }
                    Err(message) => {
                        text.push_str(&format!("IREE compiler: not found\n  {message}\n"))
                    }
                }
                text.push_str(&format!(
                    "  {}\n",
                    tunespec::iree::release::support_line(iree.as_ref().ok())
                ));
                text.push_str(&format!("  python3 lookup: {}\n", python_lookup(settings)));
                text.push_str(&runtime_line(iree, &settings.env));
                match &iree_opt {
                    Ok(path) => text.push_str(&format!("iree-opt: {}\n", path.display())),
                    Err(message) => text.push_str(&format!("iree-opt: not found ({message})\n")),
                }
                if mlir_opt.is_file() {
                    text.push_str(&format!("mlir-opt 22: {}\n", mlir_opt.display()));
                } else {
                    text.push_str("mlir-opt 22: not found (tests only)\n");
                }
                text.push_str(&format!("works without IREE: {WITHOUT_IREE}\n"));
                text.push_str(&format!("needs IREE: {NEEDS_IREE}\n"));
                text.push_str("IREE flags per target:\n");
                for compile in compile_targets() {
                    text.push_str(&format!(
                        "  {}: {}",
                        compile.architecture,
                        compile.flags.join(" ")
                    ));
                    if let Some(why) = &compile.substitution {
                        text.push_str(&format!(" ({why})"));
                    }
                    text.push('\n');
                }
                emit(&text);
            }
        }
        // A library that was named but does not load is a broken setup: exit 2.
        if iree.is_err() && settings.iree.explicitly_configured() {
            return ExitStatus::Usage;
        }
        ExitStatus::Ok
    }
}
