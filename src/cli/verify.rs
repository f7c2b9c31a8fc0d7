//! `tunespec verify [PATH...]`: check specs, report every problem, exit 0/1/2.
//!
//! Files are verified in parallel, one MLIR context per worker thread (contexts are not `Send`),
//! and reported in input order so that output is the same for any worker count.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tunespec::settings::Settings;

use tunespec::iree_attrs;
use tunespec::manifest;
use tunespec::mlir::Mlir;
use tunespec::problem::{codes, io_message, Problem, Severity};
use tunespec::registry::{self, EmbeddedSpec};
use tunespec::verify::{self, SpecFacts};

use super::common::{
    emit, emit_stderr, input_name, is_stdio, prepare, quiet, read_input, render, render_source,
    tool_error, DiagnosticFormat, ExitStatus,
};
use crate::diagnostics::Style;

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::VERIFY)]
pub struct Opts {
    /// Spec files (.mlir, .mlirbc) or directories to walk, `-` for stdin; none: the embedded
    /// registry
    pub paths: Vec<PathBuf>,
    /// How findings are printed (on stdout)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiagnosticFormat,
    /// Treat warnings (e.g. payload-rewriting ops) as errors
    #[arg(long)]
    pub deny_warnings: bool,
    /// Worker threads (default: available cores)
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// iree-opt to check IREE attributes with (default: $TUNESPEC_IREE_OPT, then
    /// $TUNESPEC_IREE_VENV/bin/iree-opt, then iree-opt on PATH)
    #[arg(long, value_name = "PATH", conflicts_with = "no_iree_check")]
    pub iree_opt: Option<PathBuf>,
    /// Do not check IREE attributes (#iree_codegen.*, #iree_gpu.*, ...) with iree-opt
    #[arg(long)]
    pub no_iree_check: bool,
    /// The IREE backend the specs are for: it decides which ops reach the matchers (GPU backends
    /// turn named linalg ops into `linalg.generic` before the spec runs; llvm-cpu keeps them).
    /// Default: the GPU rule
    #[arg(long, value_enum, conflicts_with = "target")]
    pub backend: Option<BackendArg>,
    /// The target the specs are for (a target or alias of the registry or of a spec library):
    /// the backend its chain names (`backend` in registry.toml) decides, as --backend does
    #[arg(short = 't', long, value_name = "TARGET")]
    pub target: Option<String>,
}

/// IREE's backends, as `--iree-hal-target-device` / `--iree-hal-local-target-device-backends`
/// name them.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BackendArg {
    Rocm,
    Hip,
    Cuda,
    VulkanSpirv,
    LlvmCpu,
}

impl BackendArg {
    fn backend(self) -> verify::Backend {
        match self {
            BackendArg::LlvmCpu => verify::Backend::LlvmCpu,
            BackendArg::Rocm | BackendArg::Hip | BackendArg::Cuda | BackendArg::VulkanSpirv => {
                verify::Backend::Gpu
            }
        }
    }
}

/// One thing to verify.
#[derive(Clone, Debug)]
pub enum Input {
    File(PathBuf),
    Embedded(&'static EmbeddedSpec),
    /// A registry manifest (`registry.toml`) or config (`tunespec.toml`), checked as TOML.
    Manifest(PathBuf),
}

/// The input size from which one file is verified with MLIR's threading on: below it, starting
/// the thread pool costs more than the verifier's parallel share saves.
const THREADED_MIN_BYTES: u64 = 1 << 20;

impl Input {
    /// The input's size in bytes (0 when it cannot be read now: reading it reports why).
    fn size(&self) -> u64 {
        match self {
            Input::File(path) | Input::Manifest(path) => {
                std::fs::metadata(path).map_or(0, |metadata| metadata.len())
            }
            Input::Embedded(spec) => spec.bytecode().len() as u64,
        }
    }

    pub fn name(&self) -> String {
        match self {
            Input::File(path) | Input::Manifest(path) => input_name(path),
            Input::Embedded(spec) => spec.path.to_string(),
        }
    }
}

/// The outcome for one input.
#[derive(Clone, Debug)]
pub struct FileResult {
    /// The bytes read, for source snippets (empty when unreadable).
    pub source: Vec<u8>,
    pub problems: Vec<Problem>,
    pub facts: Option<SpecFacts>,
    /// The IREE attributes of a spec that parsed, for the one iree-opt run.
    pub iree_sites: Vec<iree_attrs::Site>,
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        // With no paths, the config a compile would read (tunespec.toml walking up, the user
        // config, TUNESPEC_SPEC_PATH) is checked too, as `link` and `resolve` read it: a broken
        // config must fail CI's `tunespec verify`, not pass it without a word.
        let mut config_failed = false;
        if self.paths.is_empty() {
            match settings.registry() {
                Ok(_) => {}
                Err(registry::Error::Problems(problems)) => {
                    super::common::report(&problems, None);
                    config_failed = true;
                }
                Err(other) => {
                    tool_error(other.to_string());
                    return ExitStatus::Usage;
                }
            }
        }
        let inputs = if self.paths.is_empty() {
            registry::specs().iter().map(Input::Embedded).collect()
        } else {
            match collect_inputs(&self.paths) {
                Ok(inputs) => inputs,
                Err(message) => {
                    tool_error(message);
                    return ExitStatus::Usage;
                }
            }
        };
        let backend = match (&self.target, self.backend) {
            (_, Some(backend)) => Some(backend.backend()),
            // The backend the target's chain names (a target naming none: the GPU rule, as
            // every target of the default registry is a GPU's).
            (Some(name), None) => {
                match settings
                    .registry()
                    .and_then(|registry| registry.backend(name))
                {
                    Ok(Some(backend)) if backend == "llvm-cpu" => Some(verify::Backend::LlvmCpu),
                    Ok(_) => Some(verify::Backend::Gpu),
                    Err(error) => {
                        tool_error(error.to_string());
                        return ExitStatus::Usage;
                    }
                }
            }
            (None, None) => None,
        };
        let jobs = self
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        // Resolved before verifying: a missing --iree-opt is a usage error, not a finding.
        // Without --iree-opt it is looked up only when some file has IREE attributes: the
        // lookup may ask python3 where IREE's library is, a cost only the check should pay.
        let iree_opt = match (&self.iree_opt, self.no_iree_check) {
            (_, true) => None,
            (Some(path), false) => match settings.iree.iree_opt(Some(path)) {
                Ok(path) => Some(Some(path)),
                Err(message) => {
                    tool_error(message);
                    return ExitStatus::Usage;
                }
            },
            (None, false) => Some(None),
        };
        let mut results = {
            let _phase = tracing::info_span!("verify", files = inputs.len(), jobs).entered();
            verify_inputs(
                &inputs,
                jobs,
                iree_opt.is_some(),
                backend,
                !quiet(),
                settings.env.get("HOME").map(PathBuf::from).as_deref(),
            )
        };
        let not_checked = match iree_opt {
            Some(iree_opt) => check_iree_attributes(settings, &mut results, || match iree_opt {
                Some(path) => Ok(path),
                None => settings.iree.iree_opt(None),
            }),
            None => None,
        };
        let status = self.report(&results, not_checked.as_ref());
        if config_failed && status == ExitStatus::Ok {
            return ExitStatus::Problems;
        }
        status
    }

    fn report(&self, results: &[FileResult], not_checked: Option<&Problem>) -> ExitStatus {
        let style = Style::detect();
        let mut errors = 0usize;
        let mut warnings = 0usize;
        let mut io_failure = false;
        let mut out = String::new();
        for result in results {
            // Read once for every problem of this input (see `diagnostics::Source`).
            let source = std::cell::OnceCell::new();
            for problem in &result.problems {
                let mut problem = problem.clone();
                if self.deny_warnings && problem.severity == Severity::Warning {
                    problem.severity = Severity::Error;
                }
                match problem.severity {
                    Severity::Error => errors += 1,
                    Severity::Warning => warnings += 1,
                    Severity::Note => {}
                }
                io_failure |= problem.code == codes::IO;
                let source = prepare(&source, &result.source);
                out.push_str(&render_source(&problem, source, style));
            }
        }
        // On stderr, in every format but SARIF (one log, on stdout): the note is about this
        // run, not about an input, and the findings on stdout stay the same whether or not the
        // machine has iree-opt.
        if let Some(note) = not_checked {
            match self.format {
                DiagnosticFormat::Human if quiet() => {}
                DiagnosticFormat::Human => {
                    emit_stderr(&format!("tunespec: note: {}\n", note.message));
                }
                _ => emit_stderr(&render(note, None, Style::detect_stderr())),
            }
        }
        emit(&out);
        let matchers: usize = results
            .iter()
            .filter_map(|result| result.facts.as_ref())
            .map(|facts| facts.matcher_count)
            .sum();
        if !quiet() {
            match self.format {
                DiagnosticFormat::Human | DiagnosticFormat::Short | DiagnosticFormat::Github => {
                    emit(&format!(
                        "verified {} file(s), {} matcher(s): {} error(s), {} warning(s)\n",
                        results.len(),
                        matchers,
                        errors,
                        warnings
                    ));
                }
                DiagnosticFormat::Json => emit(&format!(
                    "{}\n",
                    serde_json::json!({
                        "version": 1,
                        "summary": {
                            "files": results.len(),
                            "matchers": matchers,
                            "errors": errors,
                            "warnings": warnings,
                        },
                    })
                )),
                DiagnosticFormat::Sarif => {}
            }
        }
        if io_failure {
            ExitStatus::Usage
        } else if errors > 0 {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        }
    }
}

/// Expands paths into spec inputs: files as given, directories walked (spec files only, sorted).
pub fn collect_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    for path in paths {
        if is_stdio(path) {
            inputs.push(Input::File(path.clone()));
            continue;
        }
        let metadata = std::fs::metadata(path)
            .map_err(|error| format!("cannot read {}: {}", path.display(), io_message(&error)))?;
        if metadata.is_dir() {
            let files = manifest::list_spec_entries(path)?;
            if files.is_empty() {
                return Err(format!(
                    "{} holds no spec files (.mlir, .mlirbc)",
                    path.display()
                ));
            }
            // A directory with a registry.toml (the default specs, a spec library): check it too.
            if path.join("registry.toml").is_file() {
                inputs.push(Input::Manifest(path.join("registry.toml")));
            }
            inputs.extend(files.into_iter().map(|(_, file)| Input::File(file)));
        } else if path
            .extension()
            .is_some_and(|extension| extension == "toml")
        {
            inputs.push(Input::Manifest(path.clone()));
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(inputs)
}

/// Verifies `inputs` on `jobs` threads; results come back in input order.
/// `check_iree`: collect each spec's IREE attributes for the run's one iree-opt check.
/// `backend`: the IREE backend the specs are for (`None`: the GPU rule, said so).
/// `progress`: a progress bar on a terminal (for many inputs).
/// `home`: where a config's `~/` paths lead (the settings' `HOME`).
pub fn verify_inputs(
    inputs: &[Input],
    jobs: usize,
    check_iree: bool,
    backend: Option<verify::Backend>,
    progress: bool,
    home: Option<&Path>,
) -> Vec<FileResult> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<FileResult>>> = Mutex::new(vec![None; inputs.len()]);
    let progress = progress.then(|| progress_bar(inputs.len())).flatten();
    // Fewer files than workers, and enough text to share: let MLIR use the spare cores inside
    // each file (its verifier checks named sequences concurrently); otherwise one
    // single-threaded context per worker. A small spec would only pay for the thread pool's
    // start, a twentieth of its whole verify.
    let threaded =
        inputs.len() < jobs && inputs.iter().map(Input::size).sum::<u64>() >= THREADED_MIN_BYTES;
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(inputs.len()).max(1) {
            // MLIR recurses over nested IR (see `MLIR_STACK_BYTES`).
            let builder = std::thread::Builder::new().stack_size(tunespec::mlir::MLIR_STACK_BYTES);
            let spawned = builder.spawn_scoped(scope, || {
                let mut mlir: Option<Mlir> = None;
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(input) = inputs.get(index) else {
                        break;
                    };
                    let context = mlir.get_or_insert_with(|| {
                        if threaded {
                            Mlir::new_threaded()
                        } else {
                            Mlir::new()
                        }
                    });
                    let result = verify_one(context, input, check_iree, backend, home);
                    if let Some(bar) = &progress {
                        bar.inc(1);
                    }
                    results.lock().expect("no panics while locked")[index] = Some(result);
                }
            });
            // A worker that cannot be started is not fatal: the others, or this thread
            // afterwards, verify its share.
            drop(spawned);
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let mut fallback: Option<Mlir> = None;
    results
        .into_inner()
        .expect("no panics while locked")
        .into_iter()
        .zip(inputs)
        .map(|(result, input)| {
            result.unwrap_or_else(|| {
                verify_one(
                    fallback.get_or_insert_with(Mlir::new),
                    input,
                    check_iree,
                    backend,
                    home,
                )
            })
        })
        .collect()
}

fn progress_bar(len: usize) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if len < 16 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("verifying {bar:40} {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}

fn verify_one(
    mlir: &Mlir,
    input: &Input,
    check_iree: bool,
    backend: Option<verify::Backend>,
    home: Option<&Path>,
) -> FileResult {
    let name = input.name();
    let _phase = tracing::debug_span!("verify.file", file = %name).entered();
    if let Input::Manifest(path) = input {
        return FileResult {
            source: tunespec::files::read_input(path).unwrap_or_default(),
            problems: registry::check_toml(path, home),
            facts: None,
            iree_sites: Vec::new(),
        };
    }
    let bytes: Vec<u8> = match input {
        Input::Manifest(_) => Vec::new(),
        Input::Embedded(spec) => spec.bytecode().to_vec(),
        Input::File(path) => match read_file(path) {
            Ok(bytes) => bytes,
            Err(message) => {
                return FileResult {
                    source: Vec::new(),
                    problems: vec![Problem::error(codes::IO, message, None)],
                    facts: None,
                    iree_sites: Vec::new(),
                }
            }
        },
    };
    if let Err(problem) = tunespec::contain::check(&bytes, &name) {
        return FileResult {
            // Text the parse probe refused is shown with MLIR's error in it.
            source: if bytes.starts_with(verify::BYTECODE_MAGIC) {
                Vec::new()
            } else {
                bytes
            },
            problems: vec![*problem],
            facts: None,
            iree_sites: Vec::new(),
        };
    }
    let verified = {
        let _phase = tracing::debug_span!("verify.parse-and-check", bytes = bytes.len()).entered();
        verify::verify_bytes(mlir, &bytes, &name)
    };
    let mut problems = verified.problems;
    let mut iree_sites = Vec::new();
    if let (Some(module), Some(structure)) = (&verified.module, &verified.snapshot) {
        // The rules' snapshot leaves attribute values unprinted (printing every config would
        // cost a large spec a good part of its verify time): text is read where it is; bytecode
        // has none, so it gets a fully printed snapshot.
        let text = std::str::from_utf8(&bytes)
            .ok()
            .filter(|_| !bytes.starts_with(verify::BYTECODE_MAGIC));
        let printed;
        let (snapshot, texts) = match text {
            Some(text) => (structure, iree_attrs::AttrTexts::from_text(text, structure)),
            None => {
                printed = module.snapshot();
                (&printed, iree_attrs::AttrTexts::printed())
            }
        };
        problems.extend(
            verify::check_iree_pipeline(snapshot, &texts, &name, backend)
                .into_iter()
                // IREE read the text: its spelling is IREE's by definition.
                .filter(|problem| !verified.read_by_iree || problem.code != codes::IREE_SYNTAX),
        );
        verify::sort_problems(&mut problems);
        if check_iree {
            iree_sites = iree_attrs::collect(&bytes, &name, Some(snapshot));
        }
    }
    FileResult {
        problems,
        facts: verified.facts,
        iree_sites,
        source: if bytes.starts_with(verify::BYTECODE_MAGIC) {
            Vec::new()
        } else {
            bytes
        },
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    if is_stdio(path) {
        return read_input(path);
    }
    tunespec::files::read_input(path)
        .map_err(|error| format!("cannot read {}: {}", path.display(), io_message(&error)))
}

/// Checks the IREE attributes of every result with one iree-opt run and adds what it rejects to
/// the results. Returns the run's one note when attributes went unchecked (no iree-opt, or it
/// failed); nothing when the run has no IREE attributes.
/// The cache key of iree-opt's acceptance of every site's text: the texts, and iree-opt's
/// identity (path, size, modification time: a reinstall changes them).
fn accepted_key(iree_opt: &Path, sites: &[iree_attrs::Site]) -> tunespec::cache::Key {
    let mut texts = Vec::new();
    for site in sites {
        site.checked_text(&mut texts);
    }
    let identity = std::fs::metadata(iree_opt).map_or_else(
        |_| String::new(),
        |meta| {
            let modified = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            format!("{} {} {modified}", iree_opt.display(), meta.len())
        },
    );
    tunespec::cache::answer_key(
        &texts,
        "iree-attributes",
        &identity,
        &[],
        "iree-opt-accepts",
    )
}

fn check_iree_attributes(
    settings: &Settings,
    results: &mut [FileResult],
    iree_opt: impl FnOnce() -> Result<PathBuf, String>,
) -> Option<Problem> {
    let mut sites = Vec::new();
    let mut owners = Vec::new();
    for (index, result) in results.iter().enumerate() {
        sites.extend(result.iree_sites.iter().cloned());
        owners.extend(std::iter::repeat_n(index, result.iree_sites.len()));
    }
    if sites.is_empty() {
        return None;
    }
    let files = owners
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let unchecked = |reason: String| {
        Some(
            Problem {
                severity: Severity::Note,
                ..Problem::error(
                    codes::IREE_NOT_CHECKED,
                    format!(
                        "IREE attributes were not checked ({} in {files} file(s)): {reason}",
                        sites.len()
                    ),
                    None,
                )
            }
            .with_help(
                "install IREE's compiler (tools/iree-venv.sh, or pip install iree-base-compiler) and pass --iree-opt PATH or set TUNESPEC_IREE_OPT; --no-iree-check turns the check off",
            ),
        )
    };
    let iree_opt = match iree_opt() {
        Ok(path) => path,
        Err(reason) => return unchecked(reason),
    };
    // IREE's acceptance of these very attribute texts by this very iree-opt is kept in the
    // cache: verifying an unchanged spec again starts no iree-opt (IREE's 320 MiB start-up is
    // ten times tunespec's whole verify of a small spec). Only a clean verdict is kept.
    let accepted_key = accepted_key(&iree_opt, &sites);
    let cache = settings.cache.get();
    let mut found_problems = None;
    let checked = cache.get_or_insert_with(&accepted_key, || {
        let _phase = tracing::info_span!("verify.iree-opt", attributes = sites.len()).entered();
        match iree_attrs::check(&iree_opt, &sites, settings.iree.limits().opt_run) {
            Ok(found) if found.is_empty() => Ok(tunespec::cache::Artifact {
                bytecode: b"accepted".to_vec(),
                problems: Vec::new(),
            }),
            found => {
                found_problems = Some(found);
                Err(Vec::new())
            }
        }
    });
    let result = match (checked, found_problems) {
        (Ok(_), _) => Ok(Vec::new()),
        (Err(_), Some(found)) => found,
        (Err(problems), None) => Err(problems
            .first()
            .map_or_else(|| "the cache failed".to_string(), |p| p.message.clone())),
    };
    match result {
        Ok(found) => {
            for (site, problem) in found {
                let problems = &mut results[owners[site]].problems;
                // tunespec's own check already reports an unknown dialect at each use.
                let known = problem.message.starts_with("IREE has no attribute dialect")
                    && problems.iter().any(|seen| {
                        seen.code == problem.code && seen.message.starts_with(&problem.message)
                    });
                if !known {
                    problems.push(problem);
                }
            }
            for result in results.iter_mut() {
                verify::sort_problems(&mut result.problems);
            }
            None
        }
        Err(reason) => unchecked(reason),
    }
}
