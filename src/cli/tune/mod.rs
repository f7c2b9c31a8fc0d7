//! `tunespec tune`: a search of configs faster than IREE's own for a model's dispatches on the
//! user's device (see `tunespec::tune`); this parses the command line and renders the report
//! (`compile.rs`: the `--compile-only` table).

mod compile;

use std::path::PathBuf;
use std::time::Duration;

use tunespec::bench::stats::percent;
use tunespec::tune::report::{DispatchReport, Report};
use tunespec::tune::{self, Request};

use super::bench::TimingArgs;
use super::common::{emit, emit_stderr, quiet, tool_error, ExitStatus, Format, LibraryArgs};

const AFTER_HELP: &str = "\
For each contraction dispatch of the model (deduplicated by the key a matcher would match),
candidate 0 is IREE's own config and candidate 1 the linked library's, when another. On a CPU
target (llvm-cpu) the rest are #iree_cpu.lowering_config tile levels around IREE's own, those
IREE's vector-size check accepts, ordered by a cheap model of the CPU (register kernel, cache,
tasks over threads: docs/tune.md). On a GPU target (hip, cuda) the rest are IREE's own space:
the pipeline constraints IREE emits for the dispatch, solved by z3 (at most --solutions per
pipeline), ordered by a cheap model (occupancy, arithmetic intensity, MMA fit) and materialized
by IREE. --order nearest (llvm-cpu) or random takes them in another order.

Every candidate is compiled (a failure is reported, never timed), its outputs checked against
IREE's own config's, and screened with --screen-rounds rounds; the best of the screen (ratio
below 1, at most a quarter, at most 3 per dispatch) are timed with full rounds, and a winner is
only one bench's calibrated rule calls faster than IREE's own. With --compile-only nothing is
timed: every candidate is compiled for the target and checked to carry its own config (for a
GPU target on a machine without that GPU).

DIR holds journal.jsonl (every outcome, synced as it is known: the same command again after an
interruption continues without measuring a finished candidate again), report.json,
report.svg (each timed candidate's ratio per dispatch), and library/ (the winners as a measured library, when any won); with --compile-only,
candidates/<matcher>/<N>_spec.mlir and compile-report.json.

Examples:
  tunespec tune model.mlir -t host -o tuned --budget 10m
  tunespec tune model.mlir -t host -o tuned --max-candidates 16 --format json
  tunespec tune --keys tuner-specs/ -t host -o retuned --dispatch 4096x
  tunespec tune model.mlir -t gfx942 -o candidates --compile-only
  tunespec link --target host --spec tuned/library -o lib.mlir

Exit status:
  0  the search ran (whether or not a candidate beat IREE's own; see the report), or the
     store (--store) already holds every dispatch
  1  nothing could be tuned: no contraction dispatch, no candidate compiled, or the budget
     ran out before any was tried
  2  usage or tool error: IREE or its runtime missing, a GPU target without its device or
     --compile-only, DIR holding the journal of another tune";

/// A matcher of `--keys`'s library left out of the model built from its keys.
pub const KEYS_LEFT_OUT: &str = "tunespec::tune::keys";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Opts {
    /// The model to tune (MLIR text or bytecode)
    #[arg(
        value_name = "PAYLOAD",
        required_unless_present = "keys",
        conflicts_with = "keys"
    )]
    pub payload: Option<PathBuf>,
    /// Tune a spec library's keys instead of a model (repeatable: spec files, directories,
    /// libraries): each root matcher becomes an op of its own shape, types and layout, and
    /// those ops are the model (written to DIR/keys-model.mlir)
    #[arg(long = "keys", value_name = "LIB")]
    pub keys: Vec<PathBuf>,
    /// The target: `host` (IREE's llvm-cpu for this machine's CPU), a CPU target a spec
    /// library defines, or a GPU target (`gfx942`, `sm_90`, ...)
    #[arg(long, short)]
    pub target: String,
    /// A spec library (repeatable): one may define the target; the config the linked library
    /// gives a dispatch, when another than IREE's, is candidate 1
    #[arg(long = "spec", short = 's')]
    pub specs: Vec<PathBuf>,
    /// The output directory: journal, report and the winners' library
    #[arg(long, short, value_name = "DIR")]
    pub output: PathBuf,
    /// After the winners' library is written, push its entries to this shared store
    /// (redis://, file://, s3://, gs://, azblob://; docs/store.md). A store that fails is a
    /// warning: the local library is kept and the exit status is unchanged
    #[arg(long, value_name = "URL", conflicts_with_all = ["compile_only", "plan"])]
    pub store: Option<String>,
    /// With --store: search the dispatches whose key the store already holds for this device,
    /// IREE, flags and target too (by default they are skipped, and the report says so)
    #[arg(long, requires = "store")]
    pub remeasure: bool,
    /// The time this run may take (`90s`, `10m`, `1h`, or seconds); the screen takes at most
    /// 60% of it. Default: no limit
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub budget: Option<Duration>,
    /// The most candidates per dispatch, IREE's own config included
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_candidates: u16,
    /// Rounds of the screen (every candidate)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..100))]
    pub screen_rounds: u32,
    /// The runtime's device: local-task or local-sync for a CPU target, the target's GPU
    /// (`cuda`, `hip`, `cuda://1`) for a GPU target; repeated (cuda://0 --device cuda://1):
    /// devices of one driver timing at once, one worker each
    #[arg(
        long = "device",
        short = 'd',
        default_value = "local-task",
        value_parser = tunespec::device::Device::parse
    )]
    pub devices: Vec<tunespec::device::Device>,
    /// Rounds of the confirmation before its first look
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..1000))]
    pub rounds: u32,
    /// The most rounds of a confirmation
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..10000))]
    pub max_rounds: u32,
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
    /// Search only the deterministic share K of N of the dispatches (1-based), e.g. 2/4: each
    /// shard on its own machine, the libraries merged afterwards
    #[arg(long, value_name = "K/N", value_parser = tunespec::farm::shard::Spec::parse)]
    pub shard: Option<tunespec::farm::shard::Spec>,
    /// Compiles at once (default: the number of CPUs); timing runs one at a time
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// An extra iree-compile flag (repeatable)
    #[arg(long = "iree-flag", value_name = "FLAG", allow_hyphen_values = true)]
    pub iree_flags: Vec<String>,
    /// Output format: human (a table per dispatch) or json (docs/schema/tune.schema.json)
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Generate and compile every candidate, time none: for a GPU target on a machine
    /// without that GPU. Writes DIR/candidates/<matcher>/<N>_spec.mlir and
    /// DIR/compile-report.json
    #[arg(long)]
    pub compile_only: bool,
    /// Compile here, time there: generate and compile every candidate into DIR (a new or empty
    /// directory) as a plan, for `tunespec time DIR --device D` on the device's machine (IREE's
    /// runtime alone: the screen, then the survivors' confirmation) and `tunespec decide DIR`
    /// (the report and DIR/library)
    #[arg(long, conflicts_with_all = ["compile_only", "shard", "budget"])]
    pub plan: bool,
    /// Only the dispatches whose key (`matmul 512x512x512`) or dispatch function's name
    /// contains PATTERN (repeatable: any of them); a pattern that selects none is an error
    /// listing the model's dispatches
    #[arg(long = "dispatch", value_name = "PATTERN")]
    pub dispatches: Vec<String>,
    /// The order candidates are taken in (--max-candidates and --budget take the first):
    /// model (the target's cheap model, docs/tune.md), nearest (llvm-cpu only: the tile grid
    /// nearest IREE's own config first) or random (the same on every machine: the model's
    /// baseline)
    #[arg(long, value_name = "ORDER", default_value = "model", value_parser = parse_order)]
    pub order: tune::order::Order,
    /// GPU targets: the most solutions of each pipeline's constraints (IREE's space)
    /// enumerated before the model orders them
    #[arg(long, value_name = "N", default_value_t = tune::gpu::POOL, value_parser = parse_solutions)]
    pub solutions: usize,
}

/// `model`, `nearest` or `random`.
fn parse_order(text: &str) -> Result<tune::order::Order, String> {
    use tune::order::Order;
    [Order::Model, Order::Nearest, Order::Random]
        .into_iter()
        .find(|order| order.name() == text)
        .ok_or_else(|| "an order is model, nearest or random".to_string())
}

/// A count of solutions, at least 1.
fn parse_solutions(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(count) if count >= 1 => Ok(count),
        _ => Err(format!("'{text}' is not a count of at least 1")),
    }
}

/// `90s`, `10m`, `1h`, `120` (seconds).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration (e.g. 90s, 10m, 1h)"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("'{unit}': a duration's unit is s, m or h")),
    };
    let seconds = value * scale;
    if !(seconds > 0.0 && seconds < 1e7) {
        return Err("a budget must be a positive duration".to_string());
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl Opts {
    /// The model's bytes and name: PAYLOAD's, or (`--keys`) the model of the libraries' keys,
    /// with its text to keep beside the results; the matchers left out are said.
    fn payload_and_name(&self) -> Result<(Vec<u8>, String, Option<String>), ExitStatus> {
        if let Some(path) = &self.payload {
            let payload = super::common::read(path)?;
            return Ok((payload, super::common::input_name(path), None));
        }
        let mlir = tunespec::mlir::Mlir::new();
        let model = tune::keys::model(&mlir, &self.keys).map_err(|message| {
            tool_error(message);
            ExitStatus::Usage
        })?;
        for left_out in &model.left_out {
            super::common::warning(KEYS_LEFT_OUT, format!("--keys: {left_out}: not tuned"));
        }
        let names: Vec<String> = self.keys.iter().map(|p| p.display().to_string()).collect();
        let name = format!("the keys of {}", names.join(", "));
        Ok((model.text.clone().into_bytes(), name, Some(model.text)))
    }

    fn timing(&self) -> TimingArgs {
        TimingArgs {
            devices: self.devices.clone(),
            rounds: self.rounds,
            max_rounds: self.max_rounds,
            budget: None,
            repetitions: self.repetitions,
            min_time: self.min_time,
            alpha: self.alpha,
            min_effect: self.min_effect,
        }
    }

    pub fn run(self, settings: &tunespec::settings::Settings) -> ExitStatus {
        let timing = self.timing();
        // Nothing is timed with --compile-only: the timing options and the machine's load
        // do not matter.
        if !self.compile_only && !self.plan {
            if let Err(status) = timing.validate() {
                return status;
            }
        }
        let library = LibraryArgs {
            target: Some(self.target.clone()),
            specs: self.specs.clone(),
            no_default: false,
            derived: Default::default(),
            measured_on: None,
            store: None,
        };
        let flags = match super::model::flags_in(settings, &library, "tune") {
            Ok(flags) => flags,
            Err(status) => return status,
        };
        let cpu = flags
            .iter()
            .any(|flag| flag == "--iree-hal-local-target-device-backends=llvm-cpu");
        if !cpu && self.order == tune::order::Order::Nearest {
            tool_error(format!(
                "--order nearest is llvm-cpu's (a grid around IREE's own config); target '{}' is a GPU target, whose space is IREE's constraints: give --order model or random",
                self.target
            ));
            return ExitStatus::Usage;
        }
        let local = self
            .devices
            .first()
            .is_none_or(tunespec::device::Device::is_local);
        if !cpu && local && !self.compile_only && !self.plan {
            tool_error(format!(
                "target '{}' is a GPU target: time its candidates on its GPU (--device cuda or hip), or give --compile-only to generate and compile them here",
                self.target
            ));
            return ExitStatus::Usage;
        }
        let iree = match super::model::iree_in(settings, "tune compiles with IREE") {
            Ok(iree) => iree,
            Err(status) => return status,
        };
        let tools = match timing.tools(iree, settings) {
            Ok(tools) => tools,
            Err(status) => return status,
        };
        // Compiled only: for the target as it is, not for a device of this machine.
        let device_flags = if (self.compile_only || self.plan) && !cpu {
            Ok(flags)
        } else {
            timing.device_flags(flags, Some(&self.target))
        };
        let mut flags = match device_flags {
            Ok(flags) => flags,
            Err(status) => return status,
        };
        flags.extend(self.iree_flags.iter().cloned());
        // `host`'s flags already name the host CPU, which the local device's flags add again:
        // each flag once, in the records too.
        let mut seen = std::collections::HashSet::new();
        flags.retain(|flag| seen.insert(flag.clone()));
        let (payload, name, keys_model) = match self.payload_and_name() {
            Ok(found) => found,
            Err(status) => return status,
        };
        // The library `link` would give the target (the user's specs and the target's measured
        // entries): its config of a dispatch is candidate 1.
        // A GPU target has tunespec's own defaults (measured or derived) to link even without
        // `--spec`; `host` has none.
        let linked = if self.specs.is_empty() && cpu {
            None
        } else {
            let mlir = tunespec::mlir::Mlir::new_threaded();
            let text = library
                .link_resolved(settings, &mlir)
                .map(|(bytes, _)| bytes)
                .and_then(|bytes| super::attach::library_text_for_iree(settings, &mlir, &bytes));
            match text {
                Ok(text) => Some(text),
                Err(status) => return status,
            }
        };
        let jobs = self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        );
        // A target a user's library defines goes into the written library too (with its
        // user-defined fallbacks): the library then works alone.
        let definitions = settings
            .registry()
            .and_then(|registry| registry.with_command_line(&self.specs))
            .map(|registry| registry.library_definitions(&self.target))
            .unwrap_or_default();
        let shard = match super::bench::resolve_shard(self.shard, settings) {
            Ok(shard) => shard,
            Err(status) => return status,
        };
        let request = Request {
            payload,
            name,
            target: self.target.clone(),
            specs: self.specs.clone(),
            definitions,
            options: timing.options(flags, jobs, settings),
            screen_rounds: self.screen_rounds,
            max_candidates: usize::from(self.max_candidates),
            only: self.dispatches.clone(),
            order: self.order,
            solutions: self.solutions,
            budget: self.budget,
            output: self.output.clone(),
            date: super::bench_report::today(),
            shard,
            linked,
            skip_measured: self
                .store
                .clone()
                .filter(|_| !self.remeasure)
                .map(|url| (url, tunespec::store::Options::from_env(true, &settings.env))),
        };
        super::bench::clean_up_on_interrupt();
        let empty = std::fs::read_dir(&self.output).map_or(true, |mut e| e.next().is_none());
        if self.plan && !empty {
            tool_error(format!(
                "--plan: {} is not empty; a plan goes into a new directory",
                self.output.display()
            ));
            return ExitStatus::Usage;
        }
        if let Err(error) = std::fs::create_dir_all(&self.output) {
            tool_error(format!("cannot create {}: {error}", self.output.display()));
            return ExitStatus::Usage;
        }
        if let Some(text) = &keys_model {
            if let Err(error) = tune::write_whole(&self.output, "keys-model.mlir", text) {
                tool_error(error);
                return ExitStatus::Usage;
            }
        }
        if self.compile_only {
            return self.compile_only(iree, &tools, &request);
        }
        if self.plan {
            return plan_only(iree, &tools, &request);
        }
        let report = match tune::tune(iree, &tools, &request, &progress) {
            Ok(report) => report,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        self.render(&report);
        if let (Some(url), Some(library)) = (&self.store, &report.library) {
            let mlir = tunespec::mlir::Mlir::new_threaded();
            super::store::push_written((url, &settings.env), &mlir, std::path::Path::new(library));
        }
        // Nothing compiled is a failure, unless nothing was left to search because the store
        // holds every dispatch: that run is done, as a farm's rerun of it must see.
        let compiled: usize = report.dispatches.iter().map(|d| d.compiled).sum();
        let all_held = report.dispatches.is_empty() && report.held_in_store > 0;
        if compiled == 0 && !all_held {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        }
    }

    fn compile_only(
        &self,
        iree: &tunespec::iree::Iree,
        tools: &tunespec::iree::runtime::Tools,
        request: &Request,
    ) -> ExitStatus {
        let report = match tune::compile::compile_only(iree, tools, request, &progress) {
            Ok(report) => report,
            Err(message) => {
                tool_error(message);
                return ExitStatus::Usage;
            }
        };
        if self.format == Format::Json {
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            ));
        } else {
            emit(&compile::table(&report));
        }
        let compiled = report
            .dispatches
            .iter()
            .flat_map(|d| &d.candidates)
            .filter(|c| c.status == "compiled")
            .count();
        if compiled == 0 {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        }
    }

    fn render(&self, report: &Report) {
        if self.format == Format::Json {
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(report).unwrap_or_default()
            ));
        } else {
            emit(&table(report));
        }
        for note in &report.written {
            emit_stderr(&format!("note: {note}\n"));
        }
    }
}

/// `tune --plan`: the candidates generated and compiled into the output directory as a plan.
fn plan_only(
    iree: &tunespec::iree::Iree,
    tools: &tunespec::iree::runtime::Tools,
    request: &Request,
) -> ExitStatus {
    let (plan, tune) = match tune::phases::make((iree, tools), request, &request.output, &progress)
    {
        Ok(made) => made,
        Err(message) => {
            tool_error(message);
            return ExitStatus::Usage;
        }
    };
    let candidates: usize = tune.cases.iter().map(Vec::len).sum();
    let compiled = plan
        .cases
        .iter()
        .filter(|case| !matches!(case.outcome, tunespec::bench::plan::Outcome::Failed { .. }))
        .count();
    let dir = request.output.display();
    emit(&format!(
        "planned {candidates} candidate(s) of {} dispatch(es) in {dir}: {compiled} compiled\nnext: tunespec time {dir} --device {} (IREE's runtime {} alone), then tunespec decide {dir}\n",
        tune.searches.len(),
        plan.device_hint(&request.options.device),
        tunespec::iree::release(&iree.revision),
    ));
    if compiled == 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    }
}

/// The knobs column as wide as its longest entry (at least the header's): rows stay aligned.
pub fn knobs_width<'a>(knobs: impl Iterator<Item = &'a str>) -> usize {
    knobs
        .map(|knobs| knobs.chars().count())
        .max()
        .unwrap_or(0)
        .max(5)
}

/// On a terminal only: one line rewritten in place (an empty line clears it), cut to the
/// terminal's width, as `bench` does.
fn progress(line: &str) {
    use std::io::IsTerminal;
    if quiet() || !std::io::stderr().is_terminal() {
        return;
    }
    if line.is_empty() {
        emit_stderr("\r\x1b[2K");
        return;
    }
    let width = super::table::stderr_width().unwrap_or(80).max(20);
    let line: String = format!("tune: {line}").chars().take(width - 1).collect();
    emit_stderr(&format!("\r\x1b[2K{line}"));
}

/// The human report: a table per dispatch, its outcome, the skipped ops and the time per phase.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    if report.dispatches.is_empty() && report.held_in_store > 0 {
        out.push_str(&format!(
            "{}: every dispatch is already measured in the store ({})\n",
            report.payload, report.held_in_store
        ));
    } else if report.dispatches.is_empty() {
        out.push_str(&format!("{}: no matmul dispatch to tune\n", report.payload));
    }
    for dispatch in &report.dispatches {
        out.push_str(&dispatch_table(dispatch));
    }
    for row in &report.model {
        out.push_str(&format!(
            "model {} ({}) with the winners: {} of IREE's own time, {}\n",
            report.payload,
            row.function,
            ratio_words(Some(&row.outcome)),
            row.outcome.status.words()
        ));
        if let Some(message) = &row.outcome.message {
            out.push_str(&format!("  {message}\n"));
        }
    }
    if let Some(note) = &report.model_note {
        out.push_str(&format!("model {}: not benched: {note}\n", report.payload));
    }
    for (function, op, why) in &report.skipped {
        out.push_str(&format!("skipped {op} in {function}: {why}\n"));
    }
    let phases = &report.phases;
    if !report.order.is_empty() {
        out.push_str(&format!("candidates in the {} order\n", report.order));
    }
    out.push_str(&format!(
        "time: generate {:.1}s, compile {:.1}s, screen {:.1}s, confirm {:.1}s, model {:.1}s, write {:.1}s{}{}\n",
        phases.generate_s,
        phases.compile_s,
        phases.screen_s,
        phases.confirm_s,
        phases.model_s,
        phases.write_s,
        if report.resumed > 0 {
            format!("; {} outcome(s) from the journal", report.resumed)
        } else {
            String::new()
        },
        if report.budget_exhausted {
            "; the budget ran out"
        } else {
            ""
        },
    ));
    out
}

fn ratio_words(outcome: Option<&tune::report::Outcome>) -> String {
    let Some(outcome) = outcome else {
        return "-".to_string();
    };
    match (outcome.ratio, outcome.interval, outcome.confidence) {
        (Some(ratio), Some([low, high]), Some(confidence)) => {
            format!("{ratio:.3}x [{low:.3}-{high:.3} {}%]", percent(confidence))
        }
        (Some(ratio), _, _) => format!("{ratio:.3}x"),
        _ => "-".to_string(),
    }
}

fn dispatch_table(dispatch: &DispatchReport) -> String {
    let share = dispatch.share.map_or(String::new(), |share| {
        format!("; {:.0}% of the model's dispatch time", share * 100.0)
    });
    let mut out = format!(
        "{} ({}; {} of {} candidates compiled{share})\n",
        dispatch.key,
        dispatch.functions.join(", "),
        dispatch.compiled,
        dispatch.candidates.len()
    );
    let width = knobs_width(dispatch.candidates.iter().map(|c| c.knobs.as_str()));
    out.push_str(&format!(
        "  {:>3}  {:<width$}  {:<10}  {:<28}  {}\n",
        "#", "knobs", "screen", "confirm", "verdict"
    ));
    for candidate in &dispatch.candidates {
        out.push_str(&format!(
            "  {:>3}  {:<width$}  {:<10}  {:<28}  {}\n",
            candidate.index,
            candidate.knobs,
            ratio_words(candidate.screen.as_ref()),
            ratio_words(candidate.confirm.as_ref()),
            candidate.verdict
        ));
    }
    match dispatch.winner {
        Some(index) => {
            let winner = &dispatch.candidates[index];
            out.push_str(&format!(
                "  winner: #{index} {} at {} of IREE's own time\n",
                winner.knobs,
                ratio_words(winner.confirm.as_ref())
            ));
        }
        None if dispatch.candidates.iter().all(|c| c.screen.is_none()) => {
            out.push_str("  no candidate tried: the budget ran out first\n");
        }
        None if dispatch.candidates.iter().any(|c| c.screen.is_none()) => {
            out.push_str("  none of those tried beat IREE's own config\n");
        }
        None => out.push_str("  none beat IREE's own config\n"),
    }
    out
}
