//! `tunespec bench`: the library's configs timed against IREE's own on the user's device (see
//! `tunespec::bench`), `--write` of the winners as measured entries.

use std::path::PathBuf;

use tunespec::bench::{self, stats::Rule, Case, MatcherCase, Options, Row};
use tunespec::device::Device;
use tunespec::iree::runtime::{self, Tools};
use tunespec::mlir::Mlir;
use tunespec::settings::Settings;
use tunespec::spec_check::payload;

use super::bench_report::{exit_status, progress_line, render, Report};
use super::common::{tool_error, tool_error_with, ExitStatus, Format, LibraryArgs};

/// The runtime is missing or cannot run the device.
pub const RUNTIME: &str = "tunespec::iree::runtime";
/// Warnings about the timing itself: rounds that cannot reach the level, a loaded machine,
/// widely spread rounds.
pub const BENCH_ROUNDS: &str = "tunespec::bench::rounds";

#[derive(Debug, clap::Args)]
#[command(after_help = super::help::BENCH)]
pub struct Opts {
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Payloads (models) to bench: each is compiled with IREE's own configs and with the
    /// library; without any, each matcher of the library is benched on the payload built from
    /// its key
    #[arg(value_name = "PAYLOAD")]
    pub payloads: Vec<PathBuf>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Compiles at once (default: the number of CPUs); timing runs one at a time
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Absolute output tolerance (default: by element type; f32 1e-2)
    #[arg(long, requires = "rtol")]
    pub atol: Option<f64>,
    /// Relative output tolerance (default: by element type; f32 1e-3)
    #[arg(long, requires = "atol")]
    pub rtol: Option<f64>,
    /// Also time each dispatch whose config changed, alone (models with several dispatches)
    #[arg(long)]
    pub dispatches: bool,
    /// Time payloads whose configs the library leaves unchanged too: IREE's config against
    /// itself, to see how often the rule calls a difference where there is none (A/A)
    #[arg(long, conflicts_with = "write")]
    pub time_unchanged: bool,
    /// The function to time (default: every exported function, a row each)
    #[arg(long)]
    pub function: Option<String>,
    /// Take the deterministic share K of N of the cases (1-based), e.g. 2/8; auto (or auto/N):
    /// K and N from the scheduler (a Slurm array, a Kubernetes Indexed Job, RANK/WORLD_SIZE)
    #[arg(long, value_name = "K/N", value_parser = tunespec::farm::shard::Spec::parse)]
    pub shard: Option<tunespec::farm::shard::Spec>,
    /// Write the matchers that won (faster, outputs equal) as measured entries into this
    /// library (created, or merged into by matcher key and device: faster wins); with a PAYLOAD
    /// and --dispatches, the matcher of each dispatch that measured faster alone
    #[arg(long, value_name = "LIBRARY")]
    pub write: Option<PathBuf>,
    /// After --write's library is written, push its entries to this shared store
    /// (redis://, file://, s3://, gs://, azblob://; docs/store.md). A store that fails is a
    /// warning: the local library is kept and the exit status is unchanged
    #[arg(long, value_name = "URL", requires = "write")]
    pub store: Option<String>,
    /// Keep the artifacts (payloads, vmfbs, inputs, outputs, dispatch dumps) in this directory:
    /// a plan with its results, which `tunespec decide DIR` decides again
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Only compile: write the plan (modules, hashes, what to time) into this new directory, for
    /// `tunespec time DIR` on the device's machine (IREE's runtime alone) and `tunespec decide
    /// DIR` anywhere
    #[arg(long, value_name = "DIR", conflicts_with_all = ["write", "keep", "shard"])]
    pub plan: Option<PathBuf>,
    /// An extra iree-compile flag (repeatable), e.g. --iree-flag=--iree-llvmcpu-target-cpu=znver4
    #[arg(long = "iree-flag", value_name = "FLAG", allow_hyphen_values = true)]
    pub iree_flags: Vec<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// How to time (shared by `bench` and `check --bench`).
#[derive(Debug, Clone, clap::Args)]
pub struct TimingArgs {
    /// The runtime's device: local-task, local-sync, cuda, hip, vulkan (or a URI, cuda://1);
    /// repeated (cuda://0 --device cuda://1): devices of one driver timing at once, one worker
    /// each, every case on one of them
    #[arg(long = "device", short = 'd', default_value = "local-task", value_parser = Device::parse)]
    pub devices: Vec<Device>,
    /// Rounds before the first look: in each, IREE's config and the library's are timed by one
    /// runtime process each, order reversed every round; the rounds are what is judged
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..1000))]
    pub rounds: u32,
    /// The most rounds: an unsettled comparison doubles its rounds up to this, each look at
    /// --alpha over the number of looks
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..10000))]
    pub max_rounds: u32,
    /// The most seconds one comparison spends adding rounds (none: until --max-rounds)
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,
    /// Repetitions per run (their median is the run's time)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..1000))]
    pub repetitions: u32,
    /// Seconds of warm-up before, and the least time of each repetition
    #[arg(long, default_value_t = 0.2, value_name = "SECONDS")]
    pub min_time: f64,
    /// The chance of calling a config faster or slower when it is not, over all looks
    #[arg(long, default_value_t = 0.01)]
    pub alpha: f64,
    /// The smallest relative difference of medians called faster or slower
    #[arg(long, default_value_t = 0.01)]
    pub min_effect: f64,
}

/// `--shard`'s share (K, N): as written, or the scheduler's index from the settings'
/// environment (`auto`, `auto/N`: `tunespec::farm::shard`); `Err`: a usage error, said.
pub fn resolve_shard(
    shard: Option<tunespec::farm::shard::Spec>,
    settings: &Settings,
) -> Result<Option<(u32, u32)>, ExitStatus> {
    shard
        .map(|spec| spec.resolve(&settings.env))
        .transpose()
        .map_err(|message| usage(format!("--shard: {message}")))
}

fn usage(message: impl std::fmt::Display) -> ExitStatus {
    tool_error(message);
    ExitStatus::Usage
}

impl Opts {
    pub fn run(self, settings: &Settings) -> ExitStatus {
        if let Err(status) = self.timing.validate() {
            return status;
        }
        if self.write.is_some() && self.library.target.is_none() {
            return usage("--write needs --target: the measured entries are for a target");
        }
        if self.write.is_some() && !self.payloads.is_empty() && !self.dispatches {
            return usage("--write with a PAYLOAD needs --dispatches: the entries written are the matchers of the dispatches that measured faster alone");
        }
        let iree = match super::model::iree_in(settings, "bench compiles with IREE") {
            Ok(iree) => iree,
            Err(status) => return status,
        };
        let mlir = Mlir::new_threaded();
        // A plan needs no runtime: its device is another machine's.
        if let Some(dir) = &self.plan {
            return match self.compile_flags(settings) {
                Ok(flags) => self.plan_only((settings, &mlir), iree, flags, dir),
                Err(status) => status,
            };
        }
        let tools = match self.timing.tools(iree, settings) {
            Ok(tools) => tools,
            Err(status) => return status,
        };
        let flags = match self.compile_flags(settings) {
            Ok(flags) => flags,
            Err(status) => return status,
        };
        // The destination is checked before any work: a directory `--write` cannot merge into
        // is refused now, not after the timing.
        if let Some(output) = &self.write {
            if let Err(message) = tunespec::measured::library::existing_entries(&mlir, output) {
                return usage(message);
            }
        }
        let cases = match self.cases(settings, &mlir) {
            Ok(cases) => cases,
            Err(status) => return status,
        };
        let cases = match resolve_shard(self.shard, settings) {
            Ok(Some((k, n))) => bench::shard(cases, k, n),
            Ok(None) => cases,
            Err(status) => return status,
        };
        let options = self.options(flags, settings);
        let write_context = match self.write_context(settings, &mlir) {
            Ok(context) => context,
            Err(status) => return status,
        };
        clean_up_on_interrupt();
        let progress = progress_line("bench");
        let (plan, decided) =
            match bench::run_phases((iree, &tools), &cases, &options, write_context, &progress) {
                Ok(done) => done,
                Err(message) => return usage(message),
            };
        let rows = &decided.rows;
        spread_warnings(rows);
        let written = match &self.write {
            Some(output) => {
                let date = super::bench_report::today();
                match bench::decide::write(&mlir, (&plan, &decided), output, &date) {
                    Ok(notes) => Some(notes),
                    Err(message) => return usage(message),
                }
            }
            None => None,
        };
        let report = Report {
            options: &options,
            iree: &iree.revision,
            runtime: &tools.version(),
        };
        render(
            &mlir,
            self.format,
            rows,
            &report,
            (written.as_deref(), self.write.as_deref()),
        );
        if let (Some(url), Some(output)) = (&self.store, &self.write) {
            super::store::push_written((url, &settings.env), &mlir, output);
        }
        exit_status(rows)
    }

    fn options(&self, flags: Vec<String>, settings: &Settings) -> Options {
        let jobs = self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        );
        let mut options = self.timing.options(flags, jobs, settings);
        options.tolerance = self
            .atol
            .zip(self.rtol)
            .map(|(atol, rtol)| bench::data::Tolerance { atol, rtol });
        options.dispatches = self.dispatches;
        options.time_unchanged = self.time_unchanged;
        options.keep.clone_from(&self.keep);
        options
    }

    /// iree-compile's flags: the target's (as `explain --exact` uses), else IREE's CPU backend
    /// for the local devices; see [`TimingArgs::device_flags`].
    fn compile_flags(&self, settings: &Settings) -> Result<Vec<String>, ExitStatus> {
        let flags = match &self.library.target {
            Some(_) => super::model::flags_in(settings, &self.library, "bench")?,
            None => Vec::new(),
        };
        let mut flags = self
            .timing
            .device_flags(flags, self.library.target.as_deref())?;
        flags.extend(self.iree_flags.iter().cloned());
        Ok(flags)
    }
}

/// On Ctrl-C or SIGTERM, the work directories of this run are removed before the process ends
/// (exit 130): an interrupted `bench` leaves nothing in the temporary directory (and nothing
/// half-written: `--write` stages its directory and renames it whole). Once per process.
pub fn clean_up_on_interrupt() {
    let pid = std::process::id();
    let _ = ctrlc::set_handler(move || {
        bench::remove_work_dirs_of(&std::env::temp_dir(), pid);
        // SAFETY: `_exit` ends the process at once without running exit-time destructors,
        // which is sound from any thread; LLVM's and MLIR's static destructors must not run
        // while other threads still use them (the same exit as `main`'s).
        unsafe { libc::_exit(130) };
    });
}

/// A warning when the machine is already loaded before timing starts: a 1-minute load average
/// at or above the number of CPUs (`/proc/loadavg`) means other work competes with every
/// round, which widens the intervals (the paired rounds keep the verdicts honest, not tight).
fn load_warning() {
    let Ok(text) = tunespec::files::read_input_text("/proc/loadavg") else {
        return;
    };
    let Some(load) = text
        .split_whitespace()
        .next()
        .and_then(|first| first.parse::<f64>().ok())
    else {
        return;
    };
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if load >= cpus as f64 {
        super::common::warning(
            BENCH_ROUNDS,
            format!(
                "the machine is loaded (1-minute load average {load:.2} on {cpus} CPU(s)): timings will be noisy and intervals wide"
            ),
        );
    }
}

/// The most the rounds' ratios of one comparison may spread (third over first quartile)
/// before a row is warned about: beyond it the rounds disagree by more than a quarter, a sign
/// of a disturbed machine (the interval already accounts for it).
const WIDE_SPREAD: f64 = 1.25;

/// A warning for each timed row whose rounds spread widely.
pub fn spread_warnings(rows: &[Row]) {
    for row in rows {
        let Some(timing) = &row.timing else { continue };
        if timing.spread > WIDE_SPREAD {
            super::common::warning(
                BENCH_ROUNDS,
                format!(
                    "{} ({}): the rounds' ratios spread widely (their quartiles {:.2}x apart): the machine may be busy; the interval accounts for it, more rounds or a quieter machine narrow it",
                    row.case, row.name, timing.spread
                ),
            );
        }
    }
}

impl TimingArgs {
    /// The first `--device` (the one the code is compiled for; the others share its driver).
    pub fn device(&self) -> &Device {
        self.devices
            .first()
            .expect("--device has a default, so one is always given")
    }

    /// The device results are reported for: the one `--device`, or the driver of several
    /// (`cuda` for `cuda://0` and `cuda://1`: one model's devices, the index naming a slot).
    pub fn reported_device(&self) -> Device {
        if self.devices.len() > 1 {
            self.device().driver()
        } else {
            self.device().clone()
        }
    }

    /// Usage errors in the timing options.
    pub fn validate(&self) -> Result<(), ExitStatus> {
        check_devices(&self.devices)?;
        if !(self.min_time > 0.0 && self.min_time < 3600.0) {
            return Err(usage("--min-time must be a positive number of seconds"));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0 && (0.0..1.0).contains(&self.min_effect)) {
            return Err(usage(
                "--alpha must be in (0, 1) and --min-effect in [0, 1)",
            ));
        }
        if self
            .budget
            .is_some_and(|budget| !(budget > 0.0 && budget < 1e7))
        {
            return Err(usage("--budget must be a positive number of seconds"));
        }
        load_warning();
        // Rounds that can never reach the level: said, not a silent "no difference".
        let plan = tunespec::bench::stats::looks(self.rounds, self.max_rounds);
        let alpha_look = self.alpha / plan.len() as f64;
        let needed = tunespec::bench::stats::min_rounds(alpha_look);
        let most = *plan.last().unwrap_or(&self.rounds) as usize;
        if most < needed {
            super::common::warning(
                BENCH_ROUNDS,
                format!(
                    "{most} round(s) can never call a difference at --alpha {}: with {} look(s), at least {needed} rounds are needed; every row will say \"no difference\"",
                    self.alpha,
                    plan.len()
                ),
            );
        }
        Ok(())
    }

    /// The runtime beside `iree`'s compiler, with `--device` among its devices; exit 2 with
    /// the install hint or the device list otherwise.
    pub fn tools(
        &self,
        iree: &tunespec::iree::Iree,
        settings: &Settings,
    ) -> Result<Tools, ExitStatus> {
        let tools = Tools::find(&iree.found, &settings.env).map_err(|message| {
            tool_error_with(
                RUNTIME,
                message,
                Some(&runtime::install_hint(&iree.revision)),
            );
            ExitStatus::Usage
        })?;
        for device in &self.devices {
            check_device(&tools, device)?;
        }
        let version = tools.version();
        if version != "unknown"
            && tunespec::iree::release(&version) != tunespec::iree::release(&iree.revision)
        {
            super::common::warning(
                RUNTIME,
                format!(
                    "IREE's runtime {version} is not the compiler's release ({}): its modules may not load",
                    iree.revision
                ),
            );
        }
        Ok(tools)
    }

    /// How to bench with these options, `flags` and `jobs` compiles at once (defaults for the
    /// rest).
    pub fn options(&self, flags: Vec<String>, jobs: usize, settings: &Settings) -> Options {
        Options {
            device: self.device().clone(),
            also: self.devices[1..].to_vec(),
            flags,
            jobs,
            rounds: self.rounds,
            max_rounds: self.max_rounds.max(self.rounds),
            budget: self.budget.map(std::time::Duration::from_secs_f64),
            repetitions: self.repetitions,
            min_time: self.min_time,
            rule: Rule {
                alpha: self.alpha,
                min_effect: self.min_effect,
            },
            tolerance: None,
            dispatches: false,
            time_unchanged: false,
            keep: None,
            compile_timeout: settings.iree.limits().request,
            run_timeout: settings.iree.limits().request,
        }
    }

    /// `target_flags` (a target's, or empty for none) checked against `--device`: code for
    /// IREE's local devices is compiled for the host CPU (`--iree-llvmcpu-target-cpu=host`);
    /// a GPU device needs a target of its kind. Exit 2 when the two do not fit.
    pub fn device_flags(
        &self,
        mut flags: Vec<String>,
        target: Option<&str>,
    ) -> Result<Vec<String>, ExitStatus> {
        let local = self.device().is_local();
        if flags.is_empty() {
            if !local {
                return Err(usage(format!(
                    "--device {} needs --target: the architecture to compile for (e.g. sm_90, gfx942)",
                    self.device()
                )));
            }
            flags = vec![
                "--iree-hal-target-device=local".to_string(),
                "--iree-hal-local-target-device-backends=llvm-cpu".to_string(),
            ];
        }
        let device_flag = flags
            .iter()
            .find_map(|f| f.strip_prefix("--iree-hal-target-device="))
            .unwrap_or("");
        let fits = if local {
            device_flag == "local"
        } else {
            device_flag == self.device().kind()
        };
        if !fits {
            return Err(usage(format!(
                "--device {} cannot run code compiled for {device_flag} (target {}): give the target's device or a target for this device",
                self.device(),
                target.unwrap_or("none")
            )));
        }
        // Code timed on this machine's CPU is compiled for it (the `host` target says so
        // already: once is enough).
        let cpu_named = flags
            .iter()
            .any(|flag| flag.starts_with("--iree-llvmcpu-target-cpu="));
        if local && !cpu_named {
            flags.push("--iree-llvmcpu-target-cpu=host".to_string());
        }
        Ok(flags)
    }
}

/// Exit 2 with the runtime's devices when `device` is not one of them.
/// `--device` repeated ([`tunespec::device::check_several`]): a usage error, said, otherwise.
pub fn check_devices(devices: &[Device]) -> Result<(), ExitStatus> {
    tunespec::device::check_several(devices).map_err(usage)
}

pub fn check_device(tools: &runtime::Runtime, device: &Device) -> Result<(), ExitStatus> {
    let devices = tools.devices().map_err(|message| {
        tool_error_with(RUNTIME, message, None);
        ExitStatus::Usage
    })?;
    if devices.iter().any(|listed| device.is_listed_as(listed)) {
        return Ok(());
    }
    tool_error_with(
        RUNTIME,
        format!(
            "device '{device}' is not one the runtime has; it lists: {}",
            if devices.is_empty() { "nothing".to_string() } else { devices.join(", ") }
        ),
        Some("pick one of those with --device (a GPU device needs its driver: libcuda for cuda, ROCm for hip)"),
    );
    Err(ExitStatus::Usage)
}

impl Opts {
    /// `--plan DIR`: the compile phase alone (IREE's compiler, no runtime, no device), its plan
    /// written into `dir`, which must be new or empty.
    fn plan_only(
        &self,
        (settings, mlir): (&Settings, &Mlir),
        iree: &tunespec::iree::Iree,
        flags: Vec<String>,
        dir: &std::path::Path,
    ) -> ExitStatus {
        let compiler = match runtime::compiler(&iree.found, None) {
            Ok(compiler) => compiler,
            Err(message) => return usage(message),
        };
        let empty = std::fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_none());
        if !empty {
            return usage(format!(
                "--plan {}: the directory is not empty; a plan goes into a new directory",
                dir.display()
            ));
        }
        if let Err(error) = std::fs::create_dir_all(dir) {
            return usage(format!("cannot create {}: {error}", dir.display()));
        }
        let cases = match self.cases(settings, mlir) {
            Ok(cases) => cases,
            Err(status) => return status,
        };
        let write = match self.write_context(settings, mlir) {
            Ok(write) => write,
            Err(status) => return status,
        };
        let options = self.options(flags, settings);
        let progress = progress_line("bench");
        let mut plan = bench::plan::make(iree, &compiler, &cases, &options, dir, &progress);
        progress("");
        plan.write = write;
        if let Err(message) = plan.save(dir) {
            return usage(message);
        }
        let (mut timed, mut failed) = (0, 0);
        for case in &plan.cases {
            match case.outcome {
                bench::plan::Outcome::Time(_) => timed += 1,
                bench::plan::Outcome::Failed { .. } => failed += 1,
                bench::plan::Outcome::Unchanged { .. } => {}
            }
        }
        super::common::emit(&format!(
            "planned {} case(s) in {}: {timed} to time, {} unchanged, {failed} failed to compile\nnext: tunespec time {} --device {} (IREE's runtime {} alone), then tunespec decide {}\n",
            plan.cases.len(),
            dir.display(),
            plan.cases.len() - timed - failed,
            dir.display(),
            plan.device_hint(self.timing.device()),
            tunespec::iree::release(&iree.revision),
            dir.display(),
        ));
        ExitStatus::Ok
    }

    /// What `--write` (now or at `decide`) needs, recorded in the plan: with a target, its
    /// definitions and (for payloads) the library's specs; `None` without a target.
    fn write_context(
        &self,
        settings: &Settings,
        mlir: &Mlir,
    ) -> Result<Option<bench::plan::WriteContext>, ExitStatus> {
        let Some(target) = self.library.target.clone() else {
            return Ok(None);
        };
        let specs = if self.payloads.is_empty() {
            Vec::new()
        } else {
            super::bench_report::library_specs(settings, &self.library, mlir)?
                .into_iter()
                .map(|(name, text, _)| (name, text))
                .collect()
        };
        // A target a user's library defines goes into the written library too (with its
        // user-defined fallbacks): the library then works alone, and beside the one it came from.
        let definitions = settings
            .registry()
            .and_then(|registry| registry.with_command_line(&self.library.specs))
            .map(|registry| registry.library_definitions(&target))
            .unwrap_or_default();
        Ok(Some(bench::plan::WriteContext {
            target,
            specs,
            definitions,
        }))
    }

    /// The cases: each payload with the whole library, or each keyed matcher of the library's
    /// specs with its own payload and itself alone.
    fn cases(&self, settings: &Settings, mlir: &Mlir) -> Result<Vec<Case>, ExitStatus> {
        if self.payloads.is_empty() {
            return self.matcher_cases(settings, mlir);
        }
        // Linked with locations naming the user's files: its text (printed without locations)
        // is what is attached, its bytecode what names each row's matcher by file and line.
        let (located, _) = self.library.link_resolved(settings, mlir)?;
        let library = super::attach::library_text_for_iree(settings, mlir, &located)?;
        let mut cases = Vec::new();
        for path in &self.payloads {
            let payload = super::common::read(path)?;
            let name = super::common::input_name(path);
            cases.push(Case {
                id: name.clone(),
                name,
                payload,
                library: library.clone(),
                function: self.function.clone(),
                matcher: None,
                located_library: Some(located.clone()),
            });
        }
        Ok(cases)
    }

    fn matcher_cases(&self, settings: &Settings, mlir: &Mlir) -> Result<Vec<Case>, ExitStatus> {
        let specs = super::bench_report::library_specs(settings, &self.library, mlir)?;
        let target = self.library.target.clone().unwrap_or_default();
        // Each matcher's spec in the found IREE's spelling, as `link` writes the library.
        let release = settings
            .iree
            .optional()
            .and_then(|found| found.as_ref().ok())
            .and_then(|iree| iree.release());
        let mut cases = Vec::new();
        for (file, text, module) in &specs {
            for keyed in tunespec::spec_check::matcher_keys(module) {
                let name = format!("{file}: @{}", keyed.name);
                let Some(info) = payload::matcher_info(module, text, &keyed.name) else {
                    continue;
                };
                let function = payload::function_name(&keyed.name);
                let (Ok(source), Ok(spec)) = (
                    payload::payload(&info, &function),
                    bench::standalone::standalone(text, module, &keyed.name),
                ) else {
                    continue;
                };
                cases.push(Case {
                    id: format!(
                        "{}|{}",
                        keyed.key.clone().for_target(target.clone()),
                        keyed.name
                    ),
                    name,
                    payload: source.into_bytes(),
                    library: tunespec::iree::release::spelled_for(&spec, release),
                    function: Some(function),
                    matcher: Some(MatcherCase {
                        file: file.clone(),
                        name: keyed.name.clone(),
                        key: keyed.key.clone(),
                        target: target.clone(),
                        location: info.loc.as_ref().map(ToString::to_string),
                    }),
                    located_library: None,
                });
            }
        }
        if cases.is_empty() {
            tool_error("the library has no matcher bench can build a payload for (contraction and convolution matchers with fixed shapes); give a PAYLOAD");
            return Err(ExitStatus::Usage);
        }
        Ok(cases)
    }
}
