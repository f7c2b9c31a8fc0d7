//! Differential mutation fuzzing against the reference tools (issues 14 and 15): whatever the
//! reference rejects (or crashes on), `tunespec verify` rejects with a reported error and exit 1;
//! tunespec never crashes.
//!
//! Seeds are the repository's valid specs (fixtures and default specs). Each mutant applies one
//! or two mutations of these kinds: drop, duplicate or swap code lines; flip a
//! `transform.readonly` / `transform.consumed`; rebind a symbol (`@name`) or an SSA value
//! (`%name`) to another of the file's; change a type or a number; drop an attribute (one entry
//! of a dictionary, or the dictionary). The reference is mlir-opt 22 for specs in upstream form
//! and iree-opt 3.13 for specs that use IREE's `transform.iree.match.*` ops.
//!
//! Why batches: both sides run one process per batch, not per mutant. The reference gets the
//! batch as one file split by `// -----` (`--split-input-file`: every chunk is parsed in a fresh
//! context and its errors keep the whole file's line numbers, which map them back to mutants);
//! when a batch crashes the reference, or an error cannot be placed, the batch is rerun one
//! mutant per process. tunespec verifies the batch's files in one `tunespec verify --format json`
//! run (the real CLI: the IREE attribute check with iree-opt, exit statuses, crash isolation);
//! a run that dies is rerun file by file to find the crashing mutant.
//!
//! The suite runs a few hundred seeded mutants. The long mode runs more:
//! `TUNESPEC_MUTANTS=10000 cargo test --test all mutation_fuzz::seeded_mutants` (or
//! `tools/mutation-fuzz`), with `TUNESPEC_MUTATION_SEED` and `TUNESPEC_FUZZ_JOBS`. Failing
//! mutants are written to `target/mutation-fuzz/failures/`; each one fixed becomes a case in
//! `tests/fixtures/mutation/`, which every run checks first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::differential::{form, Form};
use crate::reference::{in_ci, iree_opt, mlir_opt, repo_root};

/// Mutants in the suite's run (the long mode sets `TUNESPEC_MUTANTS`).
const SUITE_MUTANTS: usize = 300;
/// Mutants per reference process and per tunespec process.
const BATCH: usize = 50;
/// How long a reference run may take (a batch takes a second or two).
const TOOL_LIMIT: Duration = Duration::from_secs(60);
/// How long a tunespec run may take; longer is a failure (a hang), like a crash.
const TUNESPEC_LIMIT: Duration = Duration::from_secs(120);

/// A mutant iree-opt 3.13 accepts and tunespec, with IREE found, refuses.
const FALSE_REJECT: &str = "false reject";

mod mutate;
use mutate::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reference {
    MlirOpt,
    IreeOpt,
}

struct Seed {
    path: PathBuf,
    text: String,
    reference: Reference,
}

struct Mutant {
    id: usize,
    seed: usize,
    kinds: Vec<Kind>,
    text: String,
}

#[derive(Clone, Debug)]
enum Verdict {
    Accepts,
    Rejects(String),
    Crashed(String),
}

impl Verdict {
    fn rejects(&self) -> bool {
        !matches!(self, Verdict::Accepts)
    }
    fn describe(&self) -> String {
        match self {
            Verdict::Accepts => "accepts".to_string(),
            Verdict::Rejects(message) => format!("rejects: {message}"),
            Verdict::Crashed(message) => format!("crashed: {message}"),
        }
    }
}

/// The valid specs of the repository, with the reference that judges each.
fn seeds() -> Vec<Seed> {
    let root = repo_root();
    let mut paths = Vec::new();
    for dir in [
        "tests/fixtures/specs/good",
        "tests/fixtures/specs/upstream",
        "tests/fixtures/iree/good",
        "specs",
    ] {
        paths.extend(walk(&root.join(dir)));
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let reference = match form(text.as_bytes()) {
                Form::Upstream => Reference::MlirOpt,
                Form::IreeMatch => Reference::IreeOpt,
                Form::IreeOther => return None,
            };
            Some(Seed {
                path,
                text,
                reference,
            })
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|ext| ext == "mlir") {
            out.push(path);
        }
    }
    out
}

/// `count` mutants of the seeds, deterministic in `seed`: kinds in turn, one mutation in four
/// stacked with a second.
fn make_mutants(seeds: &[Seed], count: usize, seed: u64) -> Vec<Mutant> {
    let mut rng = Rng(seed);
    let mut mutants = Vec::with_capacity(count);
    let mut attempts = 0;
    while mutants.len() < count && attempts < count * 20 {
        attempts += 1;
        let seed_index = rng.below(seeds.len());
        let mut kinds = vec![KINDS[mutants.len() % KINDS.len()]];
        if rng.below(4) == 0 {
            kinds.push(KINDS[rng.below(KINDS.len())]);
        }
        let mut text = seeds[seed_index].text.clone();
        let mut applied = true;
        for &kind in &kinds {
            match mutate(kind, &text, &mut rng) {
                Some(next) => text = next,
                None => applied = false,
            }
        }
        if !applied || text == seeds[seed_index].text || text.contains("// -----") {
            continue;
        }
        mutants.push(Mutant {
            id: mutants.len(),
            seed: seed_index,
            kinds,
            text,
        });
    }
    mutants
}

fn first_error(stderr: &str) -> String {
    stderr
        .lines()
        .find(|line| line.contains("error:"))
        .or_else(|| stderr.lines().find(|line| !line.trim().is_empty()))
        .unwrap_or("")
        .chars()
        .take(300)
        .collect()
}

/// Runs `command` with its output in files under `dir` (no pipe to fill), killed after
/// `limit`: `None` for the exit code then, as for a signal. (iree-opt has been seen to hang
/// instead of exiting when a `--split-input-file` chunk crashes it.)
fn run_limited(
    command: &mut Command,
    dir: &Path,
    limit: Duration,
) -> (Option<i32>, String, String) {
    let out_path = dir.join("out.txt");
    let err_path = dir.join("err.txt");
    let mut child = command
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("tool runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |path: &Path| {
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    };
    let (stdout, mut stderr) = (read(&out_path), read(&err_path));
    if status.is_none() {
        stderr.push_str(&format!("killed after {} s", limit.as_secs()));
    }
    (status.and_then(|status| status.code()), stdout, stderr)
}

/// The reference's verdict on one file (its output kept in `dir`).
fn reference_one(tool: &Path, dir: &Path, file: &Path) -> Verdict {
    let (code, _, stderr) = run_limited(
        Command::new(tool)
            .arg("--allow-unregistered-dialect")
            .arg("--mlir-disable-threading")
            .arg(file)
            .args(["-o", "/dev/null"]),
        dir,
        TOOL_LIMIT,
    );
    match code {
        Some(0) => Verdict::Accepts,
        Some(1) => Verdict::Rejects(first_error(&stderr)),
        code => Verdict::Crashed(format!("{code:?}: {}", first_error(&stderr))),
    }
}

/// The reference's verdicts on a batch: one `--split-input-file` run; when that run crashes or
/// says something it cannot place, each half again (a crash costs a few runs, not one per
/// mutant).
fn reference_batch(tool: &Path, dir: &Path, batch: &[&Mutant]) -> Vec<Verdict> {
    if batch.len() == 1 {
        let file = dir.join(format!("ref_{}.mlir", batch[0].id));
        std::fs::write(&file, &batch[0].text).unwrap();
        return vec![reference_one(tool, dir, &file)];
    }
    let bisect = || {
        let (left, right) = batch.split_at(batch.len() / 2);
        let mut verdicts = reference_batch(tool, dir, left);
        verdicts.extend(reference_batch(tool, dir, right));
        verdicts
    };
    let joined = dir.join("batch.mlir");
    let mut text = String::new();
    let mut starts = Vec::new();
    let mut line = 1;
    for (index, mutant) in batch.iter().enumerate() {
        if index > 0 {
            // The separator ends the previous mutant's last line and takes one of its own.
            text.push_str("\n// -----\n");
            line += 2;
        }
        starts.push(line);
        text.push_str(&mutant.text);
        line += mutant.text.matches('\n').count();
    }
    std::fs::write(&joined, &text).unwrap();
    let (code, _, stderr) = run_limited(
        Command::new(tool)
            .arg("--allow-unregistered-dialect")
            .arg("--mlir-disable-threading")
            .arg("--split-input-file")
            .arg(&joined)
            .args(["-o", "/dev/null"]),
        dir,
        TOOL_LIMIT,
    );
    match code {
        Some(0) => return vec![Verdict::Accepts; batch.len()],
        Some(1) => {}
        _ => return bisect(),
    }
    let prefix = format!("{}:", joined.display());
    let mut verdicts = vec![Verdict::Accepts; batch.len()];
    for message in stderr.lines().filter(|line| line.contains(": error:")) {
        let place = message
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split(':').next())
            .and_then(|line| line.parse::<usize>().ok());
        let Some(line) = place else {
            return bisect();
        };
        let chunk = starts.partition_point(|&start| start <= line) - 1;
        if let Verdict::Accepts = verdicts[chunk] {
            let text = message.strip_prefix(&prefix).unwrap_or(message);
            verdicts[chunk] = Verdict::Rejects(text.chars().take(300).collect());
        }
    }
    if verdicts.iter().all(|verdict| !verdict.rejects()) {
        return bisect();
    }
    verdicts
}

/// tunespec's verify of `files`; with `iree` (`iree-opt` and IREE's venv), as a user with IREE
/// installed runs it: iree-opt's attribute check, and IREE's library found (text MLIR 22
/// cannot parse is read through it).
fn tunespec_verify(
    dir: &Path,
    files: &[PathBuf],
    iree: Option<(&Path, Option<&Path>)>,
) -> (Option<i32>, String, String) {
    let mut command = crate::support::tunespec_command();
    command
        .args(["verify", "--format", "json", "--quiet", "--jobs", "1"])
        .env("TUNESPEC_CACHE", "off");
    let iree_opt = iree.map(|(iree_opt, _)| iree_opt);
    if let Some((_, Some(venv))) = iree {
        command
            .env_remove("TUNESPEC_NO_IREE")
            .env("TUNESPEC_IREE_VENV", venv);
    }
    match iree_opt {
        Some(path) => command.arg("--iree-opt").arg(path),
        None => command.arg("--no-iree-check"),
    };
    command.args(files);
    run_limited(&mut command, dir, TUNESPEC_LIMIT)
}

/// Files with an error in tunespec's JSON output.
fn files_with_errors(stdout: &str) -> std::collections::HashSet<String> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|problem| problem["severity"] == "error")
        .filter_map(|problem| problem["file"].as_str().map(str::to_string))
        .collect()
}

/// tunespec's verdicts on a batch: one run, or each half again when it did not exit as its
/// output says it should. A file is rejected when tunespec reports an error for it; a run must
/// exit 1 when it reports an error, 0 otherwise: a single file's run that does neither (a
/// signal, a panic, exit 2) is a crash.
fn tunespec_batch(
    dir: &Path,
    batch: &[&Mutant],
    iree: Option<(&Path, Option<&Path>)>,
) -> Vec<Verdict> {
    let files: Vec<PathBuf> = batch
        .iter()
        .map(|mutant| {
            let file = dir.join(format!("m{}.mlir", mutant.id));
            std::fs::write(&file, &mutant.text).unwrap();
            file
        })
        .collect();
    let (code, stdout, stderr) = tunespec_verify(dir, &files, iree);
    let errors = files_with_errors(&stdout);
    let rejected: Vec<bool> = files
        .iter()
        .map(|file| errors.contains(&file.display().to_string()))
        .collect();
    let any = rejected.iter().any(|&rejected| rejected);
    if code == Some(i32::from(any)) {
        return rejected
            .into_iter()
            .map(|rejected| {
                if rejected {
                    Verdict::Rejects(String::new())
                } else {
                    Verdict::Accepts
                }
            })
            .collect();
    }
    if batch.len() == 1 {
        return vec![Verdict::Crashed(format!(
            "exit {code:?}: {}",
            first_error(&stderr)
        ))];
    }
    let (left, right) = batch.split_at(batch.len() / 2);
    let mut verdicts = tunespec_batch(dir, left, iree);
    verdicts.extend(tunespec_batch(dir, right, iree));
    verdicts
}

#[derive(Default)]
struct Tally {
    tried: usize,
    reference_rejects: usize,
    reference_crashes: usize,
    tunespec_rejects: usize,
    stricter: usize,
    false_accepts: usize,
    /// Mutants iree-opt accepts and tunespec (with IREE found) refuses.
    false_rejects: usize,
    crashes: usize,
}

struct Failure {
    mutant: usize,
    what: &'static str,
    reference: Verdict,
    tunespec: Verdict,
}

struct Run {
    tally: BTreeMap<Kind, Tally>,
    total: Tally,
    failures: Vec<Failure>,
}

/// Judges `mutants` in batches on `jobs` threads.
fn run(
    seeds: &[Seed],
    mutants: &[Mutant],
    tools: &BTreeMap<&'static str, PathBuf>,
    jobs: usize,
) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let iree = tools.get("iree-opt").map(PathBuf::as_path);
    let venv = iree.and_then(|_| crate::iree_library::venv());
    let venv = venv.as_deref();
    let batches: Vec<Vec<&Mutant>> = [Reference::MlirOpt, Reference::IreeOpt]
        .into_iter()
        .flat_map(|reference| {
            let of_kind: Vec<&Mutant> = mutants
                .iter()
                .filter(|mutant| seeds[mutant.seed].reference == reference)
                .collect();
            of_kind
                .chunks(BATCH)
                .map(<[&Mutant]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for worker in 0..jobs.max(1) {
            let (next, results, batches, dir) = (&next, &results, &batches, dir.path());
            scope.spawn(move || {
                let dir = dir.join(format!("w{worker}"));
                std::fs::create_dir_all(&dir).unwrap();
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(batch) = batches.get(index) else {
                        break;
                    };
                    let tool = match seeds[batch[0].seed].reference {
                        Reference::MlirOpt => &tools["mlir-opt"],
                        Reference::IreeOpt => &tools["iree-opt"],
                    };
                    let reference = reference_batch(tool, &dir, batch);
                    // IREE's syntax is judged by IREE: tunespec runs with IREE found.
                    let library = match seeds[batch[0].seed].reference {
                        Reference::MlirOpt => None,
                        Reference::IreeOpt => venv,
                    };
                    let ours = tunespec_batch(&dir, batch, iree.map(|path| (path, library)));
                    let mut results = results.lock().unwrap();
                    for ((mutant, reference), ours) in batch.iter().zip(reference).zip(ours) {
                        results.push((mutant.id, reference, ours));
                    }
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(id, _, _)| *id);
    let mut run = Run {
        tally: BTreeMap::new(),
        total: Tally::default(),
        failures: Vec::new(),
    };
    for (id, reference, ours) in results {
        let judged_by_iree = seeds[mutants[id].seed].reference == Reference::IreeOpt;
        let failure = match (&reference, &ours) {
            (_, Verdict::Crashed(_)) => Some("tunespec crashed"),
            (Verdict::Rejects(_) | Verdict::Crashed(_), Verdict::Accepts) => Some("false accept"),
            (Verdict::Accepts, Verdict::Rejects(_)) if judged_by_iree => Some(FALSE_REJECT),
            _ => None,
        };
        let mut kinds = mutants[id].kinds.clone();
        kinds.dedup();
        let add = |tally: &mut Tally| {
            tally.tried += 1;
            tally.reference_rejects += usize::from(matches!(reference, Verdict::Rejects(_)));
            tally.reference_crashes += usize::from(matches!(reference, Verdict::Crashed(_)));
            tally.tunespec_rejects += usize::from(ours.rejects());
            tally.stricter += usize::from(!reference.rejects() && ours.rejects());
            tally.false_accepts += usize::from(failure == Some("false accept"));
            tally.false_rejects += usize::from(failure == Some(FALSE_REJECT));
            tally.crashes += usize::from(failure == Some("tunespec crashed"));
        };
        for kind in &kinds {
            add(run.tally.entry(*kind).or_default());
        }
        add(&mut run.total);
        if let Some(what) = failure {
            run.failures.push(Failure {
                mutant: id,
                what,
                reference,
                tunespec: ours,
            });
        }
    }
    run
}

fn report(run: &Run, seeds: usize, mutants: usize) -> String {
    let mut out = format!(
        "mutation fuzz: {mutants} mutants of {seeds} seeds\n{:<15} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}\n",
        "kind", "tried", "ref-rej", "ref-crash", "ts-rej", "stricter", "f-acc", "f-rej", "crash"
    );
    let rows = run
        .tally
        .iter()
        .map(|(kind, tally)| (format!("{kind:?}"), tally))
        .chain(std::iter::once(("total".to_string(), &run.total)));
    for (name, tally) in rows {
        out.push_str(&format!(
            "{:<15} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}\n",
            name,
            tally.tried,
            tally.reference_rejects,
            tally.reference_crashes,
            tally.tunespec_rejects,
            tally.stricter,
            tally.false_accepts,
            tally.false_rejects,
            tally.crashes
        ));
    }
    out
}

/// The reference tools, or `None` (with a note) outside CI when one is missing.
fn tools() -> Option<BTreeMap<&'static str, PathBuf>> {
    let mut tools = BTreeMap::new();
    tools.insert("mlir-opt", mlir_opt()?);
    if let Some(iree) = iree_opt() {
        tools.insert("iree-opt", native_iree_opt(iree));
    }
    Some(tools)
}

/// The venv's `bin/iree-opt` is a Python launcher that costs half a second per run; the
/// binary it starts sits in the package (`iree/compiler/_mlir_libs/iree-opt`). Used when found.
fn native_iree_opt(launcher: PathBuf) -> PathBuf {
    let Some(venv) = launcher.parent().and_then(Path::parent) else {
        return launcher;
    };
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return launcher;
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| {
            entry
                .path()
                .join("site-packages/iree/compiler/_mlir_libs/iree-opt")
        })
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found.pop().unwrap_or(launcher)
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|value| {
        let value = value.trim();
        match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        }
    })
}

#[test]
fn seeded_mutants_are_rejected_whenever_the_reference_rejects_them() {
    let Some(tools) = tools() else { return };
    let mut seeds = seeds();
    if !tools.contains_key("iree-opt") {
        assert!(!in_ci());
        seeds.retain(|seed| seed.reference == Reference::MlirOpt);
    }
    assert!(seeds.len() >= 20, "only {} seeds", seeds.len());
    let count = env_number("TUNESPEC_MUTANTS").unwrap_or(SUITE_MUTANTS as u64) as usize;
    let seed = env_number("TUNESPEC_MUTATION_SEED").unwrap_or(0x15);
    let jobs = env_number("TUNESPEC_FUZZ_JOBS").unwrap_or(1) as usize;
    let mutants = make_mutants(&seeds, count, seed);
    assert_eq!(mutants.len(), count, "every mutant could be made");
    let started = Instant::now();
    let run = run(&seeds, &mutants, &tools, jobs);
    let summary = report(&run, seeds.len(), mutants.len());
    eprintln!(
        "{summary}seed {seed:#x}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Ok(path) = std::env::var("TUNESPEC_MUTATION_REPORT") {
        std::fs::write(path, &summary).unwrap();
    }
    // Every kind was tried, and the references rejected a good part of the mutants: a
    // fuzzer whose mutants all pass would test nothing.
    assert_eq!(run.tally.len(), KINDS.len(), "{summary}");
    assert!(
        run.total.reference_rejects * 4 >= run.total.tried,
        "{summary}"
    );
    let failures_dir = repo_root().join("target/mutation-fuzz/failures");
    let mut lines = Vec::new();
    for failure in &run.failures {
        let mutant = &mutants[failure.mutant];
        std::fs::create_dir_all(&failures_dir).unwrap();
        let file = failures_dir.join(format!(
            "{}-{seed:x}-{}.mlir",
            failure.what.replace(' ', "_"),
            mutant.id
        ));
        std::fs::write(&file, &mutant.text).unwrap();
        lines.push(format!(
            "{}: {} (seed {}, {:?}); reference {}; tunespec {}",
            file.display(),
            failure.what,
            seeds[mutant.seed]
                .path
                .strip_prefix(repo_root())
                .unwrap_or(&seeds[mutant.seed].path)
                .display(),
            mutant.kinds,
            failure.reference.describe(),
            failure.tunespec.describe()
        ));
    }
    eprintln!("{}", lines.join("\n"));
    // False rejects count like false accepts: the goal is 0 and a run with one fails.
    assert!(
        run.failures.is_empty(),
        "{} failure(s):\n{}\n{summary}",
        lines.len(),
        lines.join("\n")
    );
}

/// The mutants the fuzzer found (and their fixes pin), each judged like a fresh mutant.
#[test]
fn mutation_regressions_are_rejected_like_the_reference_rejects_them() {
    let Some(tools) = tools() else { return };
    let dir = repo_root().join("tests/fixtures/mutation");
    let mut files = walk(&dir);
    files.sort();
    assert!(files.len() >= 3, "regression cases: {files:?}");
    let scratch = tempfile::tempdir().unwrap();
    for (id, file) in files.iter().enumerate() {
        let text = std::fs::read_to_string(file).unwrap();
        let tool = match form(text.as_bytes()) {
            Form::Upstream => &tools["mlir-opt"],
            _ => match tools.get("iree-opt") {
                Some(tool) => tool,
                None => continue,
            },
        };
        let mutant = Mutant {
            id,
            seed: 0,
            kinds: Vec::new(),
            text,
        };
        let reference = reference_one(tool, scratch.path(), file);
        assert!(
            reference.rejects(),
            "{}: {}",
            file.display(),
            reference.describe()
        );
        let ours = tunespec_batch(
            scratch.path(),
            &[&mutant],
            tools.get("iree-opt").map(|path| (path.as_path(), None)),
        );
        assert!(
            matches!(ours[0], Verdict::Rejects(_)),
            "{}: reference {}, tunespec {}",
            file.display(),
            reference.describe(),
            ours[0].describe()
        );
    }
}

#[test]
fn forward_reference_defined_in_the_ops_own_region_is_an_error_not_a_crash() {
    // Issue 15's abort: MLIR 22's parser leaves null operands without an error; reading them
    // crashed tunespec. In process: no crash, a located parse error.
    let bytes = std::fs::read(
        repo_root().join("tests/fixtures/mutation/null_operand_block_header_swapped.mlir"),
    )
    .unwrap();
    let mlir = tunespec::mlir::Mlir::new();
    let verified = tunespec::verify::verify_bytes(&mlir, &bytes, "swapped.mlir");
    let errors: Vec<_> = verified
        .problems
        .iter()
        .filter(|problem| problem.is_error())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "tunespec::parse");
    assert!(errors[0].message.contains("own region"), "{}", errors[0]);
    assert_eq!(errors[0].loc.as_ref().map(|loc| loc.line), Some(10));
}

#[test]
fn mlir_error_is_kept_when_tunespec_only_warns_with_the_same_code() {
    // Issue 15's false accept: MLIR's error about @h was dropped because tunespec warned, with
    // the same code, about @__kernel_config.
    let bytes = std::fs::read(
        repo_root().join("tests/fixtures/mutation/readonly_helper_consumes_argument.mlir"),
    )
    .unwrap();
    let mlir = tunespec::mlir::Mlir::new();
    let verified = tunespec::verify::verify_bytes(&mlir, &bytes, "helper.mlir");
    let effects: Vec<_> = verified
        .problems
        .iter()
        .filter(|problem| problem.code == "tunespec::verify::entry-effect")
        .map(|problem| (problem.severity, problem.loc.as_ref().map(|loc| loc.line)))
        .collect();
    use tunespec::problem::Severity;
    assert_eq!(
        effects,
        [(Severity::Warning, Some(38)), (Severity::Error, Some(44))],
        "{:?}",
        verified.problems
    );
}

#[test]
fn mutations_of_each_kind_change_the_text_deterministically() {
    let text =
        std::fs::read_to_string(repo_root().join("tests/fixtures/specs/good/one_matcher.mlir"))
            .unwrap();
    for kind in KINDS {
        let first = mutate(kind, &text, &mut Rng(7));
        let again = mutate(kind, &text, &mut Rng(7));
        assert_eq!(first, again, "{kind:?} is deterministic");
        let mutated = first.unwrap_or_else(|| panic!("{kind:?} applies to one_matcher.mlir"));
        assert_ne!(mutated, text, "{kind:?} changes the text");
    }
    // The helpers find what they should.
    assert_eq!(
        numbers("x = 12, %0, bb1, d0, [4096, 0]"),
        [(4, 6), (22, 26), (28, 29)]
    );
    assert_eq!(
        types("tensor<4096x?xf16>, !transform.param<i64>, f32x"),
        [(14, 17), (20, 41), (37, 40)]
    );
    assert_eq!(
        entries("a = [1, 2], b = \"x,y\", c"),
        [(0, 10), (11, 21), (22, 24)]
    );
}
