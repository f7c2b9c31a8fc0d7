//! `bench` in three phases on different "machines": a plan compiled with IREE's compiler
//! (`bench --plan`), moved, timed where only IREE's runtime is installed (`tunespec time`, in
//! the runtime-only venv tools/iree-runtime-venv.sh makes: no compiler importable, none on
//! `PATH`), in shards, and decided elsewhere (`tunespec decide`); against a one-machine `bench`
//! of the same cases. The configs timed are the CPU fixtures whose effect is large (tiles of 1
//! are many times slower), so verdict categories are robust on a busy 2-core machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::iree_library::{venv, with_iree};
use crate::reference::{in_ci, output_with_timeout, repo_root};
use crate::support::tunespec_command;

const CPU_LIB: &str = "tests/fixtures/bench/cpu_lib";
/// Short runs (the effects timed are many times the noise), one look at 10 rounds.
const QUICK: &[&str] = &[
    "--repetitions",
    "2",
    "--min-time",
    "0.02",
    "--max-rounds",
    "10",
];

/// The least timing, where what is checked is not a verdict (what is timed, what is refused).
const MINIMAL: &[&str] = &[
    "--rounds",
    "1",
    "--max-rounds",
    "1",
    "--repetitions",
    "1",
    "--min-time",
    "0.01",
];

/// The runtime-only venv (tools/iree-runtime-venv.sh, made by tools/iree-venv.sh), required
/// under CI.
pub(crate) fn runtime_venv() -> Option<PathBuf> {
    let venv = repo_root().join("target/iree-runtime-venv-3.13.0");
    let found = venv
        .join("bin/iree-benchmark-module")
        .is_file()
        .then_some(venv);
    if found.is_none() {
        assert!(
            !in_ci(),
            "the runtime-only venv (tools/iree-runtime-venv.sh) is required when CI=true"
        );
        eprintln!("note: no runtime-only venv; the time phase was not tested");
    }
    found
}

/// `tunespec` on a machine with IREE's runtime alone: the runtime venv, a `PATH` without any
/// IREE, in the directory `cwd` (the plan is not where it was made).
pub(crate) fn runtime_only(runtime: &Path, cwd: &Path) -> Command {
    let mut command = tunespec_command();
    command
        .env_remove("TUNESPEC_NO_IREE")
        .env("TUNESPEC_IREE_VENV", runtime)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(cwd);
    command
}

/// [`runtime_only`] with the small `tunespec-time` binary (the time phase alone).
pub(crate) fn small_runtime_only(runtime: &Path, cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tunespec-time"));
    crate::support::hermetic(&mut command);
    command
        .env_remove("TUNESPEC_NO_IREE")
        .env("TUNESPEC_IREE_VENV", runtime)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(cwd);
    command
}

pub(crate) fn run(command: &mut Command) -> (Option<i32>, String, String) {
    let output: Output = output_with_timeout(command);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Each row's case, kind, name and verdict.
fn verdicts(document: &serde_json::Value) -> Vec<(String, String, String, String)> {
    document["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let text = |field: &str| row[field].as_str().unwrap_or_default().to_string();
            (text("case"), text("kind"), text("name"), text("status"))
        })
        .collect()
}

fn status_of(verdicts: &[(String, String, String, String)], matcher: &str) -> String {
    verdicts
        .iter()
        .find(|(case, ..)| case.contains(matcher))
        .map(|(.., status)| status.clone())
        .unwrap_or_else(|| panic!("no row of {matcher}: {verdicts:?}"))
}

/// The names in `dir`, sorted (none when it is missing).
pub(crate) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn results(dir: &Path) -> Vec<String> {
    names(&dir.join("results"))
}

/// The plan of `CPU_LIB`'s two matcher cases, made in `plan` with the compiler of `venv`.
fn cpu_plan(venv: &Path, plan: &Path) {
    let (status, stdout, stderr) = run(with_iree(venv)
        .args(["bench", "-t", "bench_cpu", "--spec", CPU_LIB, "--plan"])
        .arg(plan));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
}

#[test]
fn a_plan_timed_in_shards_with_the_runtime_alone_and_decided_elsewhere_is_a_bench() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("made-here");
    let args = ["-t", "bench_cpu", "--spec", CPU_LIB];
    // 1. The compile phase, with the compiler (no runtime needed, none asked for).
    let (status, stdout, stderr) = run(with_iree(&venv)
        .arg("bench")
        .args(args)
        .arg("--plan")
        .arg(&plan));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("planned 2 case(s)") && stdout.contains("2 to time"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(plan.join("plan.json")).unwrap();
    crate::cli_formats::assert_valid("plan.schema.json", [text.as_str()]);
    // 2. Moved to two machines, each timing its shard with the runtime alone.
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let copy = work.path().join(format!("gpu-{k}"));
            copy_dir(&plan, &copy);
            // The first machine runs `tunespec time`, the second the small `tunespec-time`.
            let mut command = if k == 1 {
                let mut command = runtime_only(&runtime, work.path());
                command.arg("time");
                command
            } else {
                small_runtime_only(&runtime, work.path())
            };
            let (status, stdout, stderr) = run(command
                .args([&format!("gpu-{k}"), "--shard", &format!("{k}/2")])
                .args(QUICK));
            assert_eq!(status, Some(0), "{stdout}\n{stderr}");
            assert!(stdout.contains(&format!("(shard {k}/2)")), "{stdout}");
            copy
        })
        .collect();
    let (one, two) = (results(&shards[0]), results(&shards[1]));
    assert_eq!(one.len() + two.len(), 2, "{one:?} {two:?}");
    assert!(
        one.iter().all(|name| !two.contains(name)),
        "{one:?} {two:?}"
    );
    // Timed again: everything of the shard is kept (resumable), nothing timed twice.
    let (status, stdout, _) = run(runtime_only(&runtime, work.path())
        .args(["time", "gpu-1", "--shard", "1/2"])
        .args(QUICK));
    assert_eq!(status, Some(0));
    assert!(stdout.contains("timed 0 case(s)"), "{stdout}");
    assert!(
        stdout.contains(&format!("{} already timed", one.len())),
        "{stdout}"
    );
    // 3. Merged and decided on a third machine (no IREE at all), twice: byte-identical.
    let merged = work.path().join("decided-elsewhere");
    copy_dir(&plan, &merged);
    for shard in &shards {
        copy_dir(&shard.join("results"), &merged.join("results"));
    }
    let decide = |dir: &Path| {
        run(tunespec_command()
            .args(["decide", "--format", "json"])
            .arg(dir))
    };
    let (status, first, stderr) = decide(&merged);
    assert_eq!(status, Some(0), "{first}\n{stderr}");
    assert_eq!(decide(&merged).1, first);
    crate::cli_formats::assert_valid("bench.schema.json", [first.as_str()]);
    let split: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        split["iree"].as_str().map(|v| v.starts_with("3.13")),
        Some(true)
    );
    assert_eq!(
        split["runtime"].as_str().map(|v| v.starts_with("3.13")),
        Some(true)
    );
    // 4. The same cases benched on one machine: the same rows, the same robust verdict.
    let kept = work.path().join("one-machine");
    let (status, stdout, stderr) = run(with_iree(&venv)
        .arg("bench")
        .args(args)
        .args(QUICK)
        .args(["--format", "json", "--keep"])
        .arg(&kept));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    let whole: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (split, whole) = (verdicts(&split), verdicts(&whole));
    let names = |rows: &[(String, String, String, String)]| -> Vec<(String, String, String)> {
        rows.iter()
            .map(|(c, k, n, _)| (c.clone(), k.clone(), n.clone()))
            .collect()
    };
    assert_eq!(names(&split), names(&whole));
    assert_eq!(status_of(&split, "tiny_tiles"), "slower", "{split:?}");
    assert_eq!(status_of(&whole, "tiny_tiles"), "slower", "{whole:?}");
    // The one-machine run's kept plan decides to exactly what the run printed.
    let (status, again, _) = decide(&kept);
    assert_eq!(status, Some(0));
    assert_eq!(again, stdout);
}

#[test]
fn decide_writes_the_library_bench_wrote_from_the_same_timings() {
    let Some(venv) = venv() else { return };
    let work = tempfile::tempdir().unwrap();
    let (kept, library) = (work.path().join("kept"), work.path().join("measured"));
    let (status, stdout, stderr) = run(with_iree(&venv)
        .args([
            "bench",
            "-t",
            "host",
            "--spec",
            "tests/fixtures/bench/host_512/mm512.mlir",
        ])
        .args(QUICK)
        .args(["--format", "json", "--keep"])
        .arg(&kept)
        .arg("--write")
        .arg(&library));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    let again = work.path().join("again");
    let (status, decided, stderr) = run(tunespec_command()
        .args(["decide", "--format", "json", "--write"])
        .arg(&again)
        .arg(&kept));
    assert_eq!(status, Some(0), "{decided}\n{stderr}");
    let rows =
        |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap()["rows"].clone();
    assert_eq!(rows(&decided), rows(&stdout));
    // Whatever the verdict on this machine, both wrote the same library (or both nothing).
    assert_eq!(library.exists(), again.exists(), "{stdout}");
    if library.exists() {
        let files = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
            let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
                .into_iter()
                .map(Result::unwrap)
                .filter(|entry| entry.file_type().is_file())
                .map(|entry| {
                    let relative = entry.path().strip_prefix(dir).unwrap().to_path_buf();
                    (relative, std::fs::read(entry.path()).unwrap())
                })
                .collect();
            files.sort();
            files
        };
        assert_eq!(files(&library), files(&again));
    }
}

#[test]
fn a_changed_module_another_runtime_release_or_a_mixed_device_is_refused() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    cpu_plan(&venv, &plan);
    // A plan goes into a new directory.
    let (status, _, stderr) = run(with_iree(&venv)
        .args(["bench", "-t", "bench_cpu", "--spec", CPU_LIB, "--plan"])
        .arg(&plan));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("not empty"), "{stderr}");
    // Nothing timed yet: nothing to decide.
    let (status, _, stderr) = run(tunespec_command().arg("decide").arg(&plan));
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("nothing in") && stderr.contains("is timed yet"),
        "{stderr}"
    );
    // Not a plan.
    let (status, _, stderr) = run(runtime_only(&runtime, work.path()).args(["time", "."]));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("is not a bench plan"), "{stderr}");
    // Compiled for the CPU: a GPU device cannot run it (said before the runtime is asked).
    let (status, _, stderr) =
        run(runtime_only(&runtime, work.path()).args(["time", "plan", "--device", "cuda"]));
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("compiled for the local HAL device"),
        "{stderr}"
    );
    // Another release's runtime (3.12's, made by tools/iree-venv.sh) is refused, both named.
    let other = repo_root().join("target/iree-venv-3.12.0");
    if other.join("bin/iree-benchmark-module").is_file() {
        let (status, _, stderr) = run(runtime_only(&other, work.path()).args(["time", "plan"]));
        assert_eq!(status, Some(2));
        assert!(
            stderr.contains("compiled by IREE 3.13") && stderr.contains("runtime is IREE 3.12"),
            "{stderr}"
        );
    } else {
        assert!(
            !in_ci(),
            "IREE 3.12 (tools/iree-venv.sh) is required when CI=true"
        );
    }
    // A module changed since the plan was made: refused before anything is timed.
    let tuned = plan.join("cases/0001/tuned.vmfb");
    let mut bytes = std::fs::read(&tuned).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&tuned, &bytes).unwrap();
    let (status, _, stderr) = run(runtime_only(&runtime, work.path())
        .args(["time", "plan"])
        .args(QUICK));
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("cases/0001/tuned.vmfb changed since the plan was made"),
        "{stderr}"
    );
    assert!(results(&plan).is_empty(), "{:?}", results(&plan));
    bytes[last] ^= 1;
    std::fs::write(&tuned, &bytes).unwrap();
    let (status, stdout, stderr) = run(runtime_only(&runtime, work.path())
        .args(["time", "plan"])
        .args(MINIMAL));
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    // Results of two devices in one plan: one report is about one device.
    let result = plan.join("results/0001.json");
    let text = std::fs::read_to_string(&result).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["device_name"]["name"] = "CPU another one".into();
    std::fs::write(&result, value.to_string()).unwrap();
    let (status, _, stderr) = run(tunespec_command().arg("decide").arg(&plan));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("timed on different devices"), "{stderr}");
    // A result gone (a shard not copied back): decided as not timed, exit 1, and said.
    std::fs::remove_file(&result).unwrap();
    let (status, stdout, stderr) = run(tunespec_command().arg("decide").arg(&plan));
    assert_eq!(status, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("not timed"), "{stdout}");
    assert!(
        stderr.contains("1 case(s) of the plan have no result yet"),
        "{stderr}"
    );
    // The runtime-only machine says what it can do.
    let (status, stdout, _) = run(runtime_only(&runtime, work.path()).arg("doctor"));
    assert_eq!(status, Some(0));
    assert!(
        stdout.contains("IREE runtime (alone, no compiler)") && stdout.contains("can: time"),
        "{stdout}"
    );
}

/// The farm's environment contract (docs/farm.md): `--shard auto` reads a Slurm array task's
/// rank among the array's IDs, and a Kubernetes Indexed Job's index with `auto/N`.
#[test]
fn the_shard_comes_from_the_scheduler_that_started_the_task() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    cpu_plan(&venv, &plan);
    let time = |vars: &[(&str, &str)], shard: &str| {
        let mut command = runtime_only(&runtime, work.path());
        command
            .args(["time", "plan", "--shard", shard])
            .args(MINIMAL)
            .envs(vars.iter().copied());
        run(&mut command)
    };
    // `#SBATCH --array=3-17:2`: IDs 3, 5, ..., 17 (8 tasks); ID 9 is the fourth.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "9"),
        ("SLURM_ARRAY_TASK_MIN", "3"),
        ("SLURM_ARRAY_TASK_MAX", "17"),
        ("SLURM_ARRAY_TASK_STEP", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "8"),
    ];
    let (status, stdout, stderr) = time(&slurm, "auto");
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("(shard 4/8)"), "{stdout}");
    // An Indexed Job of 8 completions, index 1.
    let (status, stdout, stderr) = time(&[("JOB_COMPLETION_INDEX", "1")], "auto/8");
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("(shard 2/8)"), "{stdout}");
    let (status, _, stderr) = time(&[("JOB_COMPLETION_INDEX", "1")], "auto");
    assert_eq!(status, Some(2));
    assert!(stderr.contains("auto/N"), "{stderr}");
    // Nothing says K: a usage error naming what was looked for.
    let (status, _, stderr) = time(&[], "auto");
    assert_eq!(status, Some(2));
    assert!(stderr.contains("SLURM_ARRAY_TASK_ID"), "{stderr}");
    // The docs' job script and manifest use exactly these forms.
    let farm = std::fs::read_to_string(repo_root().join("docs/farm.md")).unwrap();
    assert!(farm.contains("--shard auto\n") && farm.contains("\"--shard\", \"auto/4\""));
}

/// The small time binary carries neither MLIR nor z3 (what lets a GPU machine carry it alone),
/// and refuses what `tunespec time` refuses.
#[test]
fn the_small_time_binary_links_no_mlir_and_no_z3_and_refuses_alike() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_tunespec-time")).unwrap();
    let full = std::fs::read(env!("CARGO_BIN_EXE_tunespec")).unwrap();
    let has = |bytes: &[u8], needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    // The full binary is the control: the same probes find MLIR and z3 in it.
    assert!(has(&full, b"mlirContextCreate") && has(&full, b"libz3.so"));
    assert!(!has(&binary, b"mlirContextCreate"), "MLIR is linked in");
    assert!(!has(&binary, b"libz3.so"), "z3 is linked in");
    let Some(runtime) = runtime_venv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let (status, _, stderr) = run(small_runtime_only(&runtime, work.path()).arg("."));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("is not a bench plan"), "{stderr}");
    let (status, _, stderr) =
        run(small_runtime_only(&runtime, work.path()).args([".", "--shard", "auto"]));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("SLURM_ARRAY_TASK_ID"), "{stderr}");
}

/// A runtime directory whose tools are IREE's real CPU runtime behind a wrapper that lists two
/// `hip` devices and runs `--device=hip://N` on `local-sync`: what a host with two GPUs looks
/// like to the time phase, on a machine without one (the plan's `target_device` is said to be
/// `hip`; its modules are the CPU's, so the real runtime times them).
fn two_device_runtime(runtime_venv: &Path, dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let real = runtime_venv.join("lib/python3.11/site-packages/iree/_runtime_libs");
    let fake = dir.join("two-hip-devices");
    std::fs::create_dir_all(&fake).unwrap();
    for tool in ["iree-benchmark-module", "iree-run-module"] {
        let script = format!(
            "#!/bin/bash\nargs=()\nfor a in \"$@\"; do\n  case \"$a\" in\n    --list_devices) echo hip://0; echo hip://1; exit 0;;\n    --device=hip://*) echo \"${{a#--device=}}\" >> \"$(dirname \"$0\")/used\"; args+=(--device=local-sync);;\n    *) args+=(\"$a\");;\n  esac\ndone\nexec {} \"${{args[@]}}\"\n",
            real.join(tool).display()
        );
        let path = fake.join(tool);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::os::unix::fs::symlink(real.join("iree-dump-module"), fake.join("iree-dump-module"))
        .unwrap();
    std::fs::copy(real.join("version.py"), fake.join("version.py")).unwrap();
    fake
}

/// `--device` repeated: devices of one driver time one plan at once, one worker each, each
/// case whole on the device its identity picks (`bench::in_part`), so a rerun resumes on the
/// same devices; the decided report is about the driver (one model's devices). Devices of two
/// drivers, one device twice, or several of IREE's local drivers (one device each) are usage
/// errors.
#[test]
fn several_devices_of_one_driver_time_one_plan_at_once() {
    let (Some(venv), Some(runtime)) = (venv(), runtime_venv()) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let plan = work.path().join("plan");
    cpu_plan(&venv, &plan);
    let time = |runtime_dir: Option<&Path>, devices: &[&str]| {
        let mut command = runtime_only(&runtime, work.path());
        if let Some(dir) = runtime_dir {
            command.env("TUNESPEC_IREE_RUNTIME", dir);
        }
        command.args(["time", "plan"]).args(MINIMAL);
        for device in devices {
            command.args(["--device", device]);
        }
        run(&mut command)
    };
    for (devices, said) in [
        (&["local-sync", "local-task"][..], "share one driver"),
        (&["hip://0", "hip://0"][..], "given twice"),
        (
            &["local-sync://0", "local-sync://1"][..],
            "local drivers have one device",
        ),
    ] {
        let (status, _, stderr) = time(None, devices);
        assert_eq!(status, Some(2), "{devices:?}: {stderr}");
        assert!(stderr.contains(said), "{devices:?}: {stderr}");
    }
    assert!(results(&plan).is_empty(), "{:?}", results(&plan));

    // The plan as if compiled for hip, timed on the two-device runtime.
    let plan_json = plan.join("plan.json");
    let text = std::fs::read_to_string(&plan_json).unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(document["target_device"], "local");
    std::fs::write(
        &plan_json,
        text.replace("\"target_device\": \"local\"", "\"target_device\": \"hip\""),
    )
    .unwrap();
    let fake = two_device_runtime(&runtime, work.path());
    let devices = ["hip://0", "hip://1"];
    let (status, stdout, stderr) = time(Some(&fake), &devices);
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("timed 2 case(s)") && stdout.contains(" on hip;"),
        "{stdout}"
    );
    // Each case timed whole on the device its identity picks, and both devices were asked.
    let mut expected_devices = std::collections::BTreeSet::new();
    for (index, case) in document["cases"].as_array().unwrap().iter().enumerate() {
        let id = case["id"].as_str().unwrap();
        let path = plan.join(format!("results/{index:04}.json"));
        let result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let expected = if tunespec::bench::in_part(id, 1, 2) {
            devices[0]
        } else {
            devices[1]
        };
        assert_eq!(result["device"], expected, "{}", path.display());
        expected_devices.insert(expected.to_string());
        for row in result["rows"].as_array().unwrap() {
            assert_ne!(row["status"], "failed", "{row:#}");
        }
    }
    let used: std::collections::BTreeSet<String> = std::fs::read_to_string(fake.join("used"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(used, expected_devices);
    // Timed again with the same devices: everything kept, nothing refused.
    let (status, stdout, stderr) = time(Some(&fake), &devices);
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("timed 0 case(s)"), "{stdout}");
    // The report is about the driver when both devices timed cases, else the one device.
    let (status, stdout, stderr) = run(tunespec_command()
        .args(["decide", "--format", "json"])
        .arg(&plan));
    assert!(matches!(status, Some(0 | 1)), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let reported = if expected_devices.len() == 2 {
        "hip".to_string()
    } else {
        expected_devices.iter().next().unwrap().clone()
    };
    assert_eq!(report["device"], reported.as_str(), "{stdout}");
}
