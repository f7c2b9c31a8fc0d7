//! Measured entries from a bench: each matcher whose config beat IREE's own (faster beyond the
//! noise, outputs equal) becomes a spec of its own annotated with its measurement, merged by key
//! into a measured library (`bench --write`), as `import-tuner` does for tuner runs.

use crate::device::Device;
use crate::manifest::Definition;
use crate::measured::library::{self as measured_library, Entry};
use crate::measured::tuner_import::{self, Measurement, Subject};
use crate::mlir::Mlir;

use super::{Row, Status};

/// What the device is, in words a reader knows: the GPU's or CPU's name and the driver's
/// version, beside the runtime's device name (a `cuda` alone does not say what was measured).
/// `nvidia-smi` for CUDA, `/proc/cpuinfo` for the CPU; `None` where nothing says more.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceName {
    /// `NVIDIA H100 80GB HBM3`, `CPU Intel(R) Xeon(R) Processor`.
    pub name: Option<String>,
    /// The GPU driver's version.
    pub driver: Option<String>,
    /// The CPU threads the runtime may use (CPU devices: the machine's available parallelism).
    pub threads: Option<u32>,
}

impl DeviceName {
    /// The name of the runtime's `device`.
    pub fn of(device: &Device) -> DeviceName {
        match device.kind() {
            "cuda" => nvidia_smi().unwrap_or_default(),
            "local-task" => DeviceName {
                name: cpu_name(),
                driver: None,
                threads: std::thread::available_parallelism()
                    .ok()
                    .and_then(|n| u32::try_from(n.get()).ok()),
            },
            // One thread: the caller's.
            "local-sync" => DeviceName {
                name: cpu_name(),
                driver: None,
                threads: Some(1),
            },
            _ => DeviceName::default(),
        }
    }
}

fn nvidia_smi() -> Option<DeviceName> {
    let out = crate::iree::runtime::run_tool(
        std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=name,driver_version", "--format=csv,noheader"]),
        std::time::Duration::from_secs(20),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (name, driver) = text.lines().next()?.trim().split_once(", ")?;
    Some(DeviceName {
        name: Some(name.to_string()),
        driver: Some(driver.to_string()),
        threads: None,
    })
}

fn cpu_name() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, name)| format!("CPU {}", name.trim()))
}

/// How a bench was run, for the records.
pub struct Context<'a> {
    /// The runtime's device (`cuda`, `local-task`).
    pub device: &'a Device,
    /// What it is.
    pub name: &'a DeviceName,
    /// The IREE compiler's revision.
    pub iree: &'a str,
    /// The runtime tools' version (`iree-base-runtime 3.13.0`), when known.
    pub runtime: Option<&'a str>,
    /// The compile flags.
    pub flags: &'a [String],
    /// Today, `YYYY-MM-DD`.
    pub date: &'a str,
}

/// Who measures in `context`, as a record without times: the fields of the complete key of
/// the shared store (`crate::store::entry::complete_key`), so that `tune` can ask the store
/// whether a key is measured before measuring it. The IREE revision is in `extra`, as the
/// entries record it.
pub fn measured_as(context: &Context<'_>) -> Measurement {
    Measurement {
        device: context.device.to_string(),
        device_name: context.name.name.clone(),
        driver: context.name.driver.clone(),
        threads: context.name.threads,
        runtime: context.runtime.map(str::to_string),
        flags: Some(context.flags.join(" ")),
        iree: context
            .iree
            .split_whitespace()
            .next()
            .unwrap_or(context.iree)
            .to_string(),
        date: context.date.to_string(),
        extra: vec![("iree_revision".to_string(), context.iree.to_string())],
        ..Measurement::default()
    }
}

/// The measurement of a faster row.
fn measurement(row: &Row, context: &Context<'_>) -> Option<Measurement> {
    let timing = row.timing.as_ref()?;
    // A dispatch of a model is what was measured there; a matcher's own payload, the matcher.
    let subject = match &row.matcher {
        Some(matcher) if row.kind != "dispatch" => Subject::Matcher(matcher.clone()),
        _ => Subject::Dispatch(row.name.clone()),
    };
    Some(Measurement {
        subject,
        candidate: None,
        baseline_us: round3(timing.baseline.median_us),
        tuned_us: round3(timing.tuned.median_us),
        speedup: timing.ratio,
        extra: how_measured(timing, context),
        ..measured_as(context)
    })
}

/// What a bench knows beyond a tuner's CSV: how it was measured (tool, IREE revision,
/// samples, spread, rounds, interval, p-value), recorded after the measurement's fields.
fn how_measured(timing: &super::stats::Comparison, context: &Context<'_>) -> Vec<(String, String)> {
    let (base, tuned) = (&timing.baseline, &timing.tuned);
    [
        ("method", "tunespec bench".to_string()),
        ("iree_revision", context.iree.to_string()),
        ("samples", format!("{}/{}", base.samples, tuned.samples)),
        (
            "baseline_iqr_us",
            format!("{:.3}-{:.3}", base.q1_us, base.q3_us),
        ),
        (
            "tuned_iqr_us",
            format!("{:.3}-{:.3}", tuned.q1_us, tuned.q3_us),
        ),
        ("rounds", timing.rounds.to_string()),
        ("ratio_interval", interval_words(timing)),
        ("p_value", format!("{:.2e}", timing.p_value)),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The library entries of `rows` (faster function rows of matcher cases) for `target`; `specs`
/// holds each matcher's standalone spec by matcher name. Rows that are not winners are
/// returned as why-not lines.
pub fn entries(
    mlir: &Mlir,
    rows: &[(Row, String, crate::link::MatcherKey)],
    target: &str,
    context: &Context<'_>,
) -> (Vec<Entry>, Vec<String>) {
    let mut winners = Vec::new();
    let mut losers = Vec::new();
    for (row, spec, key) in rows {
        let name = row.matcher.clone().unwrap_or_else(|| row.name.clone());
        if row.status != Status::Faster || !matches!(row.kind, "function" | "dispatch") {
            losers.push(format!("@{name}: {} (left out)", row.status.words()));
            continue;
        }
        let Some(measured) = measurement(row, context) else {
            losers.push(format!("@{name}: not timed (left out)"));
            continue;
        };
        let Some(text) = tuner_import::annotate(spec, &name, &measured) else {
            losers.push(format!("@{name}: its header was not found (left out)"));
            continue;
        };
        let verified = crate::verify::verify_bytes(mlir, text.as_bytes(), &name);
        if verified.has_errors() {
            losers.push(format!(
                "@{name}: the annotated spec does not verify (left out)"
            ));
            continue;
        }
        winners.push(Entry {
            target: target.to_string(),
            key: key.clone().for_target(target.to_string()),
            file: None,
            text,
            measurement: measured,
            origin: format!("{} (@{name})", row.case),
        });
    }
    (winners, losers)
}

/// The dispatch rows of models (`bench --dispatches --write LIB model.mlir`) that can become
/// measured entries, each with its matcher's standalone spec and key: a dispatch row called
/// faster whose configured ops were all configured by one matcher of `specs` (the library's
/// specs as (name, text, snapshot)). The time of a dispatch two matchers configured belongs to
/// neither alone, so such a row is left out, as is one whose matcher has no key; each reason is a
/// why-not line. The rows returned carry the matcher's own name (for its annotation).
pub fn model_winners(
    rows: &[Row],
    specs: &[(String, String, crate::ir::Module)],
) -> (Vec<(Row, String, crate::link::MatcherKey)>, Vec<String>) {
    let mut winners = Vec::new();
    let mut losers = Vec::new();
    for row in rows.iter().filter(|row| row.kind == "dispatch") {
        if row.status != Status::Faster {
            losers.push(format!("{}: {} (left out)", row.name, row.status.words()));
            continue;
        }
        let mut locations: Vec<&str> = row
            .ops
            .iter()
            .filter_map(|op| op.matcher_location.as_deref())
            .collect();
        locations.sort_unstable();
        locations.dedup();
        let [location] = locations[..] else {
            losers.push(if locations.is_empty() {
                format!(
                    "{}: no matcher of the library is known to configure it (left out)",
                    row.name
                )
            } else {
                format!(
                    "{}: configured by {} matchers, its time belongs to none alone (left out)",
                    row.name,
                    locations.len()
                )
            });
            continue;
        };
        match matcher_at(location, specs) {
            Ok((name, spec, key)) => {
                let mut row = row.clone();
                row.matcher = Some(name);
                winners.push((row, spec, key));
            }
            Err(why) => losers.push(format!("{}: {why} (left out)", row.name)),
        }
    }
    (winners, losers)
}

/// The matcher written at `location` (`file:line:col`) in one of `specs`: its name, its spec
/// cut out alone, and its key.
fn matcher_at(
    location: &str,
    specs: &[(String, String, crate::ir::Module)],
) -> Result<(String, String, crate::link::MatcherKey), String> {
    let mut parts = location.rsplitn(3, ':');
    let (_col, line, file) = (parts.next(), parts.next(), parts.next());
    let line: u32 = line.and_then(|line| line.parse().ok()).unwrap_or(0);
    let file = file.unwrap_or(location);
    let same_file = |name: &str| {
        name == file || name.ends_with(&format!("/{file}")) || file.ends_with(&format!("/{name}"))
    };
    let Some((_, text, module)) = specs.iter().find(|(name, _, _)| same_file(name)) else {
        return Err(format!("its matcher's spec {file} is not in the library"));
    };
    let keyed = tuner_import::keyed_matchers(module);
    let found = module.root.body().iter().find_map(|op| {
        let name = op.sym_name()?;
        let at_line = op.loc.as_ref().is_some_and(|loc| loc.line == line);
        at_line.then(|| keyed.iter().find(|keyed| keyed.name == name))?
    });
    let Some(keyed) = found else {
        return Err(format!(
            "the matcher at {location} has no key (its root op and shapes are not of a form the key knows)"
        ));
    };
    let spec = super::standalone::standalone(text, module, &keyed.name)?;
    Ok((keyed.name.clone(), spec, keyed.key.clone()))
}

/// A comparison's interval in words: `0.712-0.748 (99%)`, or `unbounded` with too few rounds.
pub fn interval_words(timing: &super::stats::Comparison) -> String {
    match (timing.ci_low, timing.ci_high) {
        (Some(low), Some(high)) => format!(
            "{low:.3}-{high:.3} ({}%)",
            super::stats::percent(timing.confidence)
        ),
        _ => "unbounded".to_string(),
    }
}

/// The entries of the measured library at `output` as JSON (`bench --format json`'s
/// `entries`): per entry its target, file, device identity and record, so that a program sees
/// which device each entry was measured on (one key may have several).
pub fn library_json(mlir: &Mlir, output: &std::path::Path) -> Result<serde_json::Value, String> {
    let library = measured_library::existing(mlir, output)?;
    let entries: Vec<serde_json::Value> = library
        .entries
        .iter()
        .map(|entry| {
            serde_json::json!({
                "target": entry.target,
                "file": entry.file,
                "identity": entry.measurement.identity(),
                "measurement": entry.measurement.to_json(),
            })
        })
        .collect();
    Ok(serde_json::Value::Array(entries))
}

/// Merges `winners` into the measured library at `output` (created, or merged into when a
/// measured library is there) and writes it whole or not at all. `definitions`: the targets the
/// library must define to work alone (a target a user's library defines, and its user-defined
/// fallbacks). Returns the merge notes.
pub fn write(
    mlir: &Mlir,
    output: &std::path::Path,
    winners: Vec<Entry>,
    definitions: Vec<Definition>,
) -> Result<Vec<String>, String> {
    let mut library = measured_library::existing(mlir, output)?;
    library.define(definitions);
    let mut notes = Vec::new();
    for entry in winners {
        measured_library::merge(&mut library.entries, entry, &mut notes);
    }
    let files = measured_library::library_files(&mut library, measured_library::BENCH_TOOL);
    measured_library::write_directory(output, &files)?;
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::stats::{self, Rule};

    const SPEC: &str = include_str!("../../tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir");

    /// A faster row for `matcher` (tuned samples scaled by `factor`).
    fn faster(matcher: &str, factor: f64) -> Row {
        let rounds: Vec<stats::Round> = (0..8)
            .map(|i| {
                let base = vec![100.0 + f64::from(i)];
                let tuned = base.iter().map(|v| v * factor).collect();
                (base, tuned)
            })
            .collect();
        let timing = stats::compare_rounds(&rounds, Rule::default(), 0.01);
        assert_eq!(timing.verdict, stats::Verdict::Faster);
        Row {
            case: format!("two_matmuls.mlir: @{matcher}"),
            kind: "function",
            name: "f".into(),
            matcher: Some(matcher.into()),
            status: Status::Faster,
            message: None,
            timing: Some(timing),
            outputs: None,
            samples_us: Some((
                rounds.iter().flat_map(|round| round.0.clone()).collect(),
                rounds.iter().flat_map(|round| round.1.clone()).collect(),
            )),
            ops: Vec::new(),
        }
    }

    fn winners(mlir: &Mlir, rows: &[(&str, f64)]) -> Vec<Entry> {
        let verified = crate::verify::verify_bytes(mlir, SPEC.as_bytes(), "two_matmuls.mlir");
        let module = verified.snapshot.unwrap();
        let keys = tuner_import::keyed_matchers(&module);
        let rows: Vec<(Row, String, crate::link::MatcherKey)> = rows
            .iter()
            .map(|(matcher, factor)| {
                let key = keys
                    .iter()
                    .find(|k| k.name == *matcher)
                    .unwrap()
                    .key
                    .clone();
                let spec = crate::bench::standalone::standalone(SPEC, &module, matcher).unwrap();
                (faster(matcher, *factor), spec, key)
            })
            .collect();
        let name = DeviceName {
            name: Some("CPU test".to_string()),
            driver: None,
            threads: Some(4),
        };
        let device = Device::parse("local-task").unwrap();
        let context = Context {
            device: &device,
            name: &name,
            iree: "3.13.0 @ abc",
            runtime: Some("iree-base-runtime 3.13.0"),
            flags: &["--iree-hal-target-device=local".to_string()],
            date: "2026-11-26",
        };
        let (winners, losers) = entries(mlir, &rows, "bench_cpu", &context);
        assert!(losers.is_empty(), "{losers:?}");
        winners
    }

    fn library(dir: &std::path::Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| {
                let relative = entry
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .display()
                    .to_string();
                (relative, std::fs::read_to_string(entry.path()).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn winners_carry_their_measurement_and_shards_merge_to_one_library_in_any_order() {
        let mlir = Mlir::new();
        let first = winners(&mlir, &[("match_mm_128_tiny_tiles", 0.5)]);
        let second = winners(&mlir, &[("match_mm_96_note", 0.7)]);
        // The same key measured twice: the faster stays.
        let slower_again = winners(&mlir, &[("match_mm_128_tiny_tiles", 0.9)]);
        let text = &first[0].text;
        assert!(
            text.contains(
                "tunespec.measurement = {source = \"measured\", device = \"local-task\", device_name = \"CPU test\", threads = \"4\", runtime = \"iree-base-runtime 3.13.0\""
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "measured on CPU test (local-task, 4 threads) with --iree-hal-target-device=local"
            ),
            "{text}"
        );
        assert!(text.contains("method = \"tunespec bench\""), "{text}");
        assert!(
            text.contains("matcher = \"match_mm_128_tiny_tiles\""),
            "{text}"
        );
        assert!(
            !text.contains("dispatch = ") && !text.contains("gpu = "),
            "{text}"
        );
        assert!(text.contains("samples = \"8/8\""), "{text}");
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for shard in [&first, &second, &slower_again] {
            write(&mlir, &a, shard.clone(), Vec::new()).unwrap();
        }
        for shard in [&slower_again, &second, &first] {
            write(&mlir, &b, shard.clone(), Vec::new()).unwrap();
        }
        let (a, b) = (library(&a), library(&b));
        assert_eq!(a, b);
        assert_eq!(a.len(), 3, "two specs and the manifest: {a:?}");
        let spec_128 = a
            .iter()
            .find(|(_, text)| text.contains("match_mm_128"))
            .unwrap();
        assert!(spec_128.1.contains("speedup = \"0.500\""), "{}", spec_128.1);
    }
}

#[cfg(test)]
mod model_tests {
    use super::*;
    use crate::bench::ops::RowOp;

    const SPEC: &str = include_str!("../../tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir");
    const NAME: &str = "tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir";

    fn op(matcher_line: Option<u32>) -> RowOp {
        RowOp {
            op: "linalg.matmul".into(),
            loops: Some(vec![128, 128, 128]),
            element_types: vec!["f32".into(); 3],
            location: None,
            matcher: matcher_line.map(|_| "two_matmuls::m".into()),
            matcher_location: matcher_line.map(|line| format!("{NAME}:{line}:3")),
        }
    }

    fn dispatch(name: &str, status: Status, ops: Vec<RowOp>) -> Row {
        Row {
            case: "model.mlir".into(),
            kind: "dispatch",
            name: name.into(),
            matcher: None,
            status,
            message: None,
            timing: None,
            outputs: None,
            samples_us: None,
            ops,
        }
    }

    /// Each faster dispatch row configured by one matcher is that matcher's; a dispatch of two
    /// matchers, a slower one and one whose location names no matcher are left out, each said.
    #[test]
    fn a_models_faster_dispatch_is_attributed_to_its_one_matcher() {
        let mlir = Mlir::new();
        let module = crate::verify::verify_bytes(&mlir, SPEC.as_bytes(), NAME)
            .snapshot
            .unwrap();
        let specs = vec![(NAME.to_string(), SPEC.to_string(), module)];
        let rows = [
            dispatch("d0", Status::Faster, vec![op(Some(5)), op(None)]),
            dispatch("d1", Status::Faster, vec![op(Some(5)), op(Some(14))]),
            dispatch("d2", Status::Slower, vec![op(Some(5))]),
            dispatch("d3", Status::Faster, vec![op(Some(2))]),
            dispatch("d4", Status::Faster, vec![]),
        ];
        let (winners, losers) = model_winners(&rows, &specs);
        assert_eq!(winners.len(), 1, "{losers:?}");
        let (row, spec, key) = &winners[0];
        assert_eq!(row.name, "d0");
        assert_eq!(row.matcher.as_deref(), Some("match_mm_128_tiny_tiles"));
        assert!(spec.contains("@match_mm_128_tiny_tiles"), "{spec}");
        assert!(!spec.contains("@match_mm_96_note"), "{spec}");
        assert!(key.to_string().contains("128"), "{key}");
        assert_eq!(losers.len(), 4, "{losers:?}");
        assert!(
            losers[0].starts_with("d1: configured by 2 matchers"),
            "{losers:?}"
        );
        assert!(losers[1].starts_with("d2: slower"), "{losers:?}");
        assert!(losers[2].contains("has no key"), "{losers:?}");
        assert!(
            losers[3].starts_with("d4: no matcher of the library is known"),
            "{losers:?}"
        );
        // The entry records the dispatch it was measured in, on the matcher it came from.
        let rounds: Vec<crate::bench::stats::Round> = (0..8)
            .map(|i| (vec![100.0 + f64::from(i)], vec![50.0]))
            .collect();
        let mut row = winners[0].0.clone();
        row.timing = Some(crate::bench::stats::compare_rounds(
            &rounds,
            crate::bench::stats::Rule::default(),
            0.01,
        ));
        let name = DeviceName::default();
        let device = Device::parse("local-task").unwrap();
        let context = Context {
            device: &device,
            name: &name,
            iree: "3.13.0",
            runtime: None,
            flags: &[],
            date: "2026-11-28",
        };
        let chosen = [(row, spec.clone(), key.clone())];
        let (entries, why) = entries(&mlir, &chosen, "bench_cpu", &context);
        assert!(why.is_empty(), "{why:?}");
        assert_eq!(
            entries[0].measurement.subject,
            Subject::Dispatch("d0".into())
        );
        assert!(
            entries[0].text.contains("dispatch = \"d0\""),
            "{}",
            entries[0].text
        );
    }
}
