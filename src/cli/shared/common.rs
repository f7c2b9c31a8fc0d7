//! What the commands share: exit statuses, output formats, the flags that choose a library,
//! reading inputs, writing outputs and reporting problems.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use tunespec::settings::Settings;

use crate::cli::output::write_output;
use clap::ValueEnum;
use tunespec::link::{LinkInput, LinkOptions};
use tunespec::mlir::{Mlir, OwnedOp};
use tunespec::problem::Problem;
use tunespec::{apply, registry};

use crate::diagnostics::{self, Source, Style};

/// Exit statuses, the same for every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Success (warnings allowed unless `--deny-warnings`).
    Ok = 0,
    /// Problems found in the inputs (specs, manifest, payload).
    Problems = 1,
    /// Usage or I/O error: bad flags, missing or unreadable files, unknown target.
    Usage = 2,
    /// `explain --exact`: IREE's compile set a config other than tunespec predicts (a tunespec
    /// bug).
    Mismatch = 3,
}

/// Output format of the commands that print a report (`apply`, `explain`, `coverage`,
/// `resolve`, `targets`, `cache stats`). Diagnostics (problems in the inputs, warnings, usage
/// and I/O errors) follow it too; docs/commands.md ("Output formats") says what each prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: tables and text; diagnostics with a snippet of the source
    #[default]
    Human,
    /// One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on
    /// stderr
    Json,
    /// One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)
    Short,
    /// The human report; diagnostics as GitHub Actions workflow commands
    Github,
    /// One SARIF 2.1.0 log of the command's diagnostics (results empty when there are none)
    Sarif,
}

impl From<Format> for DiagnosticFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Human => DiagnosticFormat::Human,
            Format::Json => DiagnosticFormat::Json,
            Format::Short => DiagnosticFormat::Short,
            Format::Github => DiagnosticFormat::Github,
            Format::Sarif => DiagnosticFormat::Sarif,
        }
    }
}

/// How diagnostics (findings in the inputs, and tool errors) are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DiagnosticFormat {
    /// Reports with a snippet of the source
    #[default]
    Human,
    /// One JSON object per diagnostic per line (docs/schema/diagnostic.schema.json)
    Json,
    /// One line per diagnostic: `file:line:col: severity[code]: message`
    Short,
    /// GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=CODE::MESSAGE`)
    Github,
    /// One SARIF 2.1.0 log (GitHub code scanning); rule ids are tunespec's codes
    Sarif,
}

/// The code of a usage error (bad flags, unknown target, a directory without specs): exit 2.
pub const USAGE: &str = "tunespec::usage";

/// The run's diagnostic format, set once at the start of the command.
struct Session {
    format: DiagnosticFormat,
    /// Where the SARIF log goes: stdout for `verify` (its findings are its output), stderr for
    /// commands whose stdout carries an output.
    sarif_to_stdout: bool,
    /// SARIF is one document: problems are collected and written by [`finish`].
    collected: Mutex<Vec<Problem>>,
}

static SESSION: OnceLock<Session> = OnceLock::new();

/// The program's settings ([`tunespec::settings::Settings`]: the IREE session, the cache), built
/// once by `cli::run` from the global flags, which passes them to each command as `&Settings`.
/// Kept here as well only for `--version -v`, which prints the IREE found before any command
/// (and its settings) exists.
static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Builds the run's settings from the command line's `flags` (the first call wins) and returns
/// them, for `cli::run` to pass to the command.
pub fn configure(
    flags: tunespec::settings::Flags,
    env: tunespec::settings::Environment,
) -> &'static Settings {
    let _ = SETTINGS.set(Settings::with_environment(flags, env));
    settings()
}

/// The run's settings (from the environment alone before [`configure`]: `--version -v`).
pub fn settings() -> &'static Settings {
    SETTINGS.get_or_init(|| Settings::new(tunespec::settings::Flags::default()))
}

/// `-q`: no progress bars, no summaries (set once by `cli::run`).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets `-q` for the run.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

/// Whether `-q` was given: print only problems and outputs, no progress and no summaries.
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets the run's diagnostic format (the first call wins).
pub fn start(format: DiagnosticFormat, sarif_to_stdout: bool) {
    let _ = SESSION.set(Session {
        format,
        sarif_to_stdout,
        collected: Mutex::new(Vec::new()),
    });
}

/// The run's diagnostic format (`human` before [`start`]).
pub fn diagnostic_format() -> DiagnosticFormat {
    SESSION
        .get()
        .map_or(DiagnosticFormat::Human, |session| session.format)
}

/// Renders one problem in the run's format, with a snippet of `source` in `human`. In `sarif`
/// the problem is kept for [`finish`] and nothing is returned.
pub fn render(problem: &Problem, source: Option<&[u8]>, style: Style) -> String {
    if diagnostic_format() == DiagnosticFormat::Human {
        return diagnostics::render(problem, source, style);
    }
    render_source(problem, None, style)
}

/// [`render`] for many problems of one text, prepared once by [`prepare`].
pub fn render_source(problem: &Problem, source: Option<&Source>, style: Style) -> String {
    match diagnostic_format() {
        DiagnosticFormat::Human => diagnostics::render_source(problem, source, style),
        DiagnosticFormat::Json => format!("{}\n", diagnostics::to_json(problem)),
        DiagnosticFormat::Short => diagnostics::to_short(problem),
        DiagnosticFormat::Github => diagnostics::to_github(problem),
        DiagnosticFormat::Sarif => {
            if let Some(session) = SESSION.get() {
                session
                    .collected
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(problem.clone());
            }
            String::new()
        }
    }
}

/// `bytes` prepared for the snippets of many reports, once (`cell` keeps it): only `human`
/// reports show snippets, so in other formats nothing is read.
pub fn prepare<'a>(cell: &'a std::cell::OnceCell<Source>, bytes: &[u8]) -> Option<&'a Source> {
    (diagnostic_format() == DiagnosticFormat::Human)
        .then(|| cell.get_or_init(|| Source::new(bytes)))
}

/// Ends the run: in `sarif`, writes the one log of every problem reported.
pub fn finish() {
    // Once: a failed write of the log itself ends in `emit`, which finishes the run too.
    static FINISHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if FINISHED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let Some(session) = SESSION.get() else {
        return;
    };
    if session.format != DiagnosticFormat::Sarif {
        return;
    }
    let problems = std::mem::take(
        &mut *session
            .collected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let log = format!("{:#}\n", diagnostics::sarif_log(&problems));
    if session.sarif_to_stdout {
        emit(&log);
    } else {
        emit_stderr(&log);
    }
}

/// Writes command output to stdout. A closed pipe (`tunespec ... | head`) is not an error: the
/// reader has what it wanted, so the rest is dropped silently instead of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        tool_error_with(
            tunespec::problem::codes::IO,
            format!("cannot write output: {error}"),
            None,
        );
        finish();
        std::process::exit(ExitStatus::Usage as i32);
    }
}

/// Writes a report to stderr. A closed stderr (its reader went away) is not worth a panic:
/// the rest of the report is dropped and the command's exit status still tells the outcome.
pub fn emit_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints a tool-level error (not a finding in an input) to stderr: a usage error.
pub fn tool_error(message: impl std::fmt::Display) {
    tool_error_with(USAGE, message.to_string(), None);
}

/// Prints a tool-level error with its code (usage, I/O) in the run's format: a line for people,
/// a diagnostic (without location) otherwise.
pub fn tool_error_with(code: &'static str, message: String, help: Option<&str>) {
    if diagnostic_format() == DiagnosticFormat::Human {
        let help = help.map_or_else(String::new, |help| format!("  help: {help}\n"));
        emit_stderr(&format!("tunespec: error: {message}\n{help}"));
        return;
    }
    let mut problem = Problem::error(code, message, None);
    problem.help = help.map(str::to_string);
    emit_stderr(&render(&problem, None, Style::detect_stderr()));
}

/// Prints a tool-level warning (about the run, not located in an input: an ignored config, a
/// cache that could not be used) in the run's format: `tunespec: warning: ...` for people, a
/// diagnostic otherwise.
pub fn warning(code: &'static str, message: impl std::fmt::Display) {
    if diagnostic_format() == DiagnosticFormat::Human {
        emit_stderr(&format!("tunespec: warning: {message}\n"));
        return;
    }
    let problem = Problem::warning(code, message.to_string(), None);
    emit_stderr(&render(&problem, None, Style::detect_stderr()));
}

/// Which specs make the library: a target's resolution (user specs first, then its defaults),
/// or only the user's specs. Shared by `link` and by `attach`/`apply`/`explain`/`coverage`,
/// which link the same way.
#[derive(Debug, Clone, clap::Args)]
pub struct LibraryArgs {
    /// Target (architecture, SKU or alias) whose default specs are linked after the user's
    #[arg(long, short)]
    pub target: Option<String>,
    /// User spec file or directory, `-` for stdin (repeatable; highest priority first)
    #[arg(long = "spec", short = 's')]
    pub specs: Vec<PathBuf>,
    /// Link only the user specs
    #[arg(long)]
    pub no_default: bool,
    #[command(flatten)]
    pub derived: DerivedArgs,
    /// Where a library holds measurements of one op on several devices, take the one measured
    /// on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first
    /// listed)
    #[arg(long, value_name = "DEVICE")]
    pub measured_on: Option<String>,
    /// A shared store whose best entries for the target are linked below the user's own specs
    /// (`--store` of `link`, `attach`, `explain`; not a flag of its own here, since `bench` and
    /// `tune` take `--store` for where they push)
    #[arg(skip)]
    pub store: Option<String>,
}

/// `--derived` / `--no-derived`: whether tunespec's derived default specs (configs derived by
/// rule, never measured) are linked. Off unless asked: a derived config slower than IREE's own
/// heuristic would slow a model down without a word. Shared by every command that links and by
/// `resolve`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct DerivedArgs {
    /// Also link tunespec's derived default specs (derived by rule, never measured; default:
    /// off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)
    #[arg(long, overrides_with = "no_derived")]
    pub derived: bool,
    /// Link only measured entries and the user's own specs, whatever configs and
    /// TUNESPEC_DERIVED say
    #[arg(long, overrides_with = "derived")]
    pub no_derived: bool,
}

impl DerivedArgs {
    /// The command line's choice, if it made one (the last of the two flags wins).
    pub fn choice(self) -> Option<bool> {
        if self.derived {
            Some(true)
        } else if self.no_derived {
            Some(false)
        } else {
            None
        }
    }

    /// The discovered registry (configs, `TUNESPEC_SPEC_PATH`, `TUNESPEC_DERIVED`) with the
    /// command line's choice applied.
    pub fn registry(self, settings: &Settings) -> Result<registry::Registry, registry::Error> {
        let registry = settings.registry()?;
        Ok(match self.choice() {
            Some(derived) => registry.with_derived(derived),
            None => registry,
        })
    }
}

impl LibraryArgs {
    /// How every command that links these specs links them.
    pub fn link_options(&self) -> LinkOptions {
        LinkOptions {
            measured_on: self.measured_on.clone(),
            ..LinkOptions::default()
        }
    }

    /// Whether any of the flags was given (`attach` and `apply` otherwise use an attached
    /// library).
    pub fn given(&self) -> bool {
        self.target.is_some() || !self.specs.is_empty() || self.no_default
    }

    /// The specs to link, highest priority first (user specs: command line, project config,
    /// user config, `TUNESPEC_SPEC_PATH`; then the target's default specs and those of its
    /// fallback chain, see [`registry::Registry::resolve`]; `--no-default` drops the defaults),
    /// and the target part of the cache key, both from
    /// one resolution: the registry is loaded and the target resolved once per call, so the
    /// key names exactly the chain the inputs were chosen from.
    pub fn resolve(&self, settings: &Settings) -> Result<Resolved, registry::Error> {
        let Some(target) = &self.target else {
            if !self.no_default {
                return Err(registry::Error::BadTarget(
                    "--target is required unless --no-default is given".into(),
                ));
            }
            let specs = registry::Registry::command_line_specs(&self.specs)?;
            return Ok(Resolved {
                inputs: specs
                    .iter()
                    .map(registry::ResolvedSpec::link_input)
                    .collect(),
                cache_target: String::new(),
                resolution: None,
                no_default: self.no_default,
            });
        };
        let resolution = self.resolution(settings, target)?;
        // A spec library given for other targets only configures nothing here: said, once
        // per library and run (commands resolve more than once), never silent.
        static TOLD: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        for skipped in &resolution.skipped {
            let Some(library) = &skipped.other_target_library else {
                continue;
            };
            let mut told = TOLD
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !told.contains(library) {
                told.push(library.clone());
                warning(
                    tunespec::problem::codes::CONFIG,
                    format!(
                        "the spec library {library} has no spec for {target} (its specs are for {}): nothing of it is linked",
                        skipped.target.as_deref().unwrap_or("other targets")
                    ),
                );
            }
        }
        Ok(Resolved {
            inputs: resolution
                .specs
                .iter()
                .filter(|spec| !(self.no_default && spec.origin == registry::Origin::Default))
                .map(registry::ResolvedSpec::link_input)
                .collect(),
            cache_target: cache_target(&resolution),
            resolution: Some(resolution),
            no_default: self.no_default,
        })
    }

    /// The resolution of `target` with these flags' specs and derived choice.
    pub fn resolution(
        &self,
        settings: &Settings,
        target: &str,
    ) -> Result<registry::Resolution, registry::Error> {
        let registry = self.derived.registry(settings)?;
        let registry = match &self.store {
            Some(url) => crate::cli::store::layer(
                settings,
                registry,
                (url, &self.specs),
                target,
                self.measured_on.as_deref(),
            ),
            None => registry,
        };
        registry.resolve(target, &self.specs)
    }

    /// Links the library for use in this process (`apply`, `explain`, `coverage`, `bench`,
    /// `tune`) as bytecode, its locations naming the user's files as given, link warnings
    /// printed; with the resolution the library was linked from: what `explain` says of
    /// each pair (its layer, the derived defaults withheld) comes from the same resolution, not
    /// from a second one.
    pub fn link_resolved(
        &self,
        settings: &Settings,
        mlir: &Mlir,
    ) -> Result<(Vec<u8>, Resolved), ExitStatus> {
        self.link_located(settings, mlir, false)
    }

    /// Links the library to be written out (`attach`): its locations are relative to each
    /// spec's root, so the same specs give the same bytes in any checkout.
    pub fn link_portable(&self, settings: &Settings, mlir: &Mlir) -> Result<Vec<u8>, ExitStatus> {
        self.link_located(settings, mlir, true)
            .map(|(library, _)| library)
    }

    /// The inputs to link, their locations naming the user's files as given (or, `portable`,
    /// relative to each spec's root), with the target part of their cache key, and the cache
    /// of linked libraries to link them through (like `link`: a compile after the first only
    /// pays for copying the bytes).
    pub fn inputs_and_cache(
        &self,
        settings: &Settings,
        portable: bool,
    ) -> Result<(Resolved, tunespec::cache::Cache), ExitStatus> {
        // A config with located errors is a problem in the inputs (exit 1), as in `resolve`.
        let mut resolved = self
            .resolve(settings)
            .map_err(|error| crate::cli::resolve::report_error(&error))?;
        if !portable {
            for input in &mut resolved.inputs {
                input.location.clone_from(&input.name);
            }
        }
        let cache = crate::cli::cache::open(settings).ok_or(ExitStatus::Usage)?;
        Ok((resolved, cache))
    }

    fn link_located(
        &self,
        settings: &Settings,
        mlir: &Mlir,
        portable: bool,
    ) -> Result<(Vec<u8>, Resolved), ExitStatus> {
        let (resolved, cache) = self.inputs_and_cache(settings, portable)?;
        let inputs = &resolved.inputs;
        let _phase = tracing::info_span!("link", inputs = inputs.len()).entered();
        let result = cache.link(mlir, &resolved.cache_target, inputs, self.link_options());
        report(&cache.take_warnings(), None);
        match result {
            Ok(library) => {
                report(&library.problems, None);
                Ok((library.bytecode, resolved))
            }
            Err(problems) => {
                report(&problems, None);
                Err(ExitStatus::Problems)
            }
        }
    }
}

/// What [`LibraryArgs::resolve`] resolved: the specs to link and the target they were chosen
/// for, as the cache key names it. Shared by `link` and `attach`/`apply`, which link through the
/// same cache.
pub struct Resolved {
    /// The specs to link, highest priority first.
    pub inputs: Vec<LinkInput>,
    /// The target part of the cache key (see [`cache_target`]); empty without a target.
    pub cache_target: String,
    /// The target's resolution the inputs were chosen from; `None` without a target.
    pub resolution: Option<registry::Resolution>,
    /// `--no-default`: the resolution's defaults were left out of the inputs.
    pub no_default: bool,
}

/// The target as resolved, for the cache key: the fallback chain (`gfx942>gfx9`) in the
/// registry the inputs were resolved from (defaults, configs, spec libraries given with
/// `--spec`), plus the requested features, canonical (`:sramecc+:xnack-`, as in
/// [`registry::Resolution::target_id`]). The inputs themselves (names, locations, roles,
/// bytes) are in the key already; the chain and features name what they were chosen for,
/// so two spellings of one request (an alias, features in another order) share an entry.
fn cache_target(resolution: &registry::Resolution) -> String {
    let chain = resolution.chain_names().join(">");
    let id = resolution.target_id();
    // `target_id` is the head of the chain followed by the features: keep the features.
    let features = id.strip_prefix(resolution.target.as_str()).unwrap_or("");
    format!("{chain}{features}")
}

/// Reports problems to stderr (stdout may carry an output), with a snippet of `source` (the
/// payload) where they point into it.
pub fn report(problems: &[Problem], source: Option<&[u8]>) {
    let style = Style::detect_stderr();
    let prepared = std::cell::OnceCell::new();
    for problem in problems {
        // A problem in the library attached to a payload is located in `PAYLOAD[ATTR]`, bytes
        // that are not the payload's text: no snippet of the payload for it.
        let in_attached = problem
            .loc
            .as_ref()
            .is_some_and(|loc| loc.file.ends_with(']'));
        let source = source
            .filter(|_| !in_attached)
            .and_then(|bytes| prepare(&prepared, bytes));
        emit_stderr(&render_source(problem, source, style));
    }
}

/// Reports problems of a link to stderr, with a snippet of the input each points into.
pub fn report_linked(problems: &[Problem], inputs: &[LinkInput], style: Style) {
    // Each input's text prepared once, when a problem first points into it.
    let prepared: Vec<std::cell::OnceCell<Source>> =
        inputs.iter().map(|_| Default::default()).collect();
    for problem in problems {
        let source = problem.loc.as_ref().and_then(|loc| {
            let index = inputs.iter().position(|input| input.name == loc.file)?;
            prepare(&prepared[index], &inputs[index].bytes)
        });
        emit_stderr(&render_source(problem, source, style));
    }
}

/// Whether a path argument means stdin (or stdout for `-o`).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name diagnostics give an input: `<stdin>` for `-`, the path otherwise.
pub fn input_name(path: &Path) -> String {
    if is_stdio(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// How diagnostics name input read from stdin.
pub const STDIN_NAME: &str = tunespec::files::STDIN_NAME;

/// Reads an input file (`-`: stdin), as an I/O error (exit 2) when it cannot be read.
pub fn read(path: &Path) -> Result<Vec<u8>, ExitStatus> {
    let _phase = tracing::info_span!("read", file = %input_name(path)).entered();
    read_input(path).map_err(|message| {
        tool_error_with(tunespec::problem::codes::IO, message, None);
        ExitStatus::Usage
    })
}

/// Reads an input file (through [`tunespec::files::read_input`]), or all of stdin for `-` (at
/// most [`tunespec::files::MAX_INPUT_BYTES`]); the error names the input.
pub fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    if is_stdio(path) {
        // Once per process, shared with `--spec -` (which may not read it too).
        return tunespec::files::read_stdin("the input `-`")
            .map(|bytes| bytes.to_vec())
            .map_err(|error| format!("cannot read {STDIN_NAME}: {error}"));
    }
    tunespec::files::read_input(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))
}

/// Writes an output; an I/O failure is a usage error (exit 2).
pub fn write(path: &Path, bytes: &[u8]) -> ExitStatus {
    let _phase =
        tracing::info_span!("write", file = %input_name(path), bytes = bytes.len()).entered();
    match write_output(path, bytes) {
        Ok(()) => ExitStatus::Ok,
        Err(message) => {
            tool_error(message);
            ExitStatus::Usage
        }
    }
}

/// Reads and parses a payload file: its bytes (for snippets), display name and module.
pub fn load_payload<'c>(
    mlir: &'c Mlir,
    path: &Path,
    bytes: Option<Vec<u8>>,
) -> Result<(Vec<u8>, String, OwnedOp<'c>), ExitStatus> {
    let bytes = match bytes {
        Some(bytes) => bytes,
        None => read(path)?,
    };
    let name = input_name(path);
    let _phase = tracing::info_span!("parse", file = %name).entered();
    match apply::parse_payload(mlir, &bytes, &name) {
        Ok(payload) => Ok((bytes, name, payload)),
        Err(problems) => Err(fail(problems, &bytes)),
    }
}

/// Problems in inputs: exit 1.
pub fn fail(problems: Vec<Problem>, source: &[u8]) -> ExitStatus {
    report(&problems, Some(source));
    ExitStatus::Problems
}

/// The library to apply: the one attached to the payload, or one linked from `args` when given
/// (or when none is attached), with the resolution it was linked from (`None`: attached).
pub fn library_for(
    settings: &Settings,
    mlir: &Mlir,
    args: &LibraryArgs,
    payload_bytes: &[u8],
    name: &str,
    attr: &str,
) -> Result<(Vec<u8>, Option<Resolved>), ExitStatus> {
    if args.given() {
        return args
            .link_resolved(settings, mlir)
            .map(|(library, resolved)| (library, Some(resolved)));
    }
    let payload = apply::parse_payload(mlir, payload_bytes, name)
        .map_err(|problems| fail(problems, payload_bytes))?;
    apply::extract(mlir, &payload, attr, name, Some(&settings.iree))
        .map(|library| (library, None))
        .map_err(|problems| fail(problems, payload_bytes))
}
