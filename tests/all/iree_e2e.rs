//! End to end in IREE's real compile: what `tunespec explain` says each op gets is what
//! `iree-compile` 3.13 puts on its dispatch, whether the library comes by path
//! (`--iree-codegen-tuning-spec-path`), attached to the payload (`tunespec attach`), or already
//! materialized (`tunespec apply`, `apply --as-dispatch`); ops tunespec leaves unmatched keep
//! IREE's own choice; and the full compile succeeds.
//!
//! How configs are read from iree-compile: `--compile-to=executable-configurations` with the
//! generic op form and debug locations, one op per line, so each `lowering_config` comes with the
//! payload location of its root op and each dispatch function ends with its `translation_info`.
//! MLIR cannot parse that output outside IREE (its memrefs carry HAL memory spaces), hence the
//! line-based reader below, which fails loudly on anything it does not expect.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::reference::{iree_compile, repo_root};
use crate::support::{run, tunespec};

/// A tunespec target and the iree-compile flags of a GPU it stands for. iree-compile 3.13 has
/// no sm_90 target (its CUDA targets stop at sm_89 before sm_120): sm_90 is compiled as sm_89
/// PTX, as tunespec compiles it (`tunespec::iree::target`); the `nvidia` vendor spec too.
const TARGETS: &[(&str, &[&str])] = &[
    (
        "gfx942",
        &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"],
    ),
    (
        "gfx950",
        &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx950"],
    ),
    (
        "gfx90a",
        &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx90a"],
    ),
    (
        "gfx1100",
        &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx1100"],
    ),
    (
        "gfx1201",
        &["--iree-hal-target-device=hip", "--iree-rocm-target=gfx1201"],
    ),
    (
        "sm_80",
        &["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"],
    ),
    (
        "sm_90",
        &["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"],
    ),
    (
        "nvidia",
        &["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"],
    ),
];

/// The configs iree-compile put on one dispatch function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dispatch {
    function: String,
    /// (line, column) of each configured op's payload location, and its `lowering_config`.
    ops: Vec<((u32, u32), String)>,
    translation_info: Option<String>,
}

/// The text of the attribute that starts at `text[start..]`, up to its matching bracket
/// (tunespec's reader of IREE's configs, `tunespec::iree::configs`).
fn attribute_at(text: &str, start: usize) -> String {
    tunespec::iree::configs::attribute_at(text, start)
        .unwrap_or_else(|| panic!("unbalanced attribute in: {}", &text[start..]))
}

/// The value of `name = ...` in `text`, if present.
fn attribute_named(text: &str, name: &str) -> Option<String> {
    tunespec::iree::configs::attribute_named(text, name)
}

/// The first `"file":line:col` of a trailing `loc(...)`.
fn location(line: &str) -> Option<(u32, u32)> {
    let loc = &line[line.rfind(" loc(")?..];
    let quote = loc.find("\":")?;
    let mut numbers = loc[quote + 2..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse::<u32>().unwrap());
    Some((numbers.next()?, numbers.next()?))
}

/// Without whitespace: IREE's printer and a spec's author may space attributes differently.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Reads the dispatch functions of `--compile-to=executable-configurations
/// --mlir-print-op-generic --mlir-print-debuginfo` output.
fn read_dispatches(text: &str) -> Vec<Dispatch> {
    let mut dispatches = Vec::new();
    let mut current: Option<Dispatch> = None;
    let mut in_executable = 0usize;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("\"hal.executable\"") {
            in_executable += 1;
        }
        if in_executable > 0 && trimmed.starts_with("\"func.func\"()") {
            let name = trimmed
                .split_once("sym_name = \"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| name.to_string())
                .unwrap_or_else(|| panic!("a dispatch function without a name: {trimmed}"));
            assert!(current.is_none(), "nested dispatch functions: {trimmed}");
            current = Some(Dispatch {
                function: name,
                ops: Vec::new(),
                translation_info: None,
            });
            continue;
        }
        let Some(dispatch) = current.as_mut() else {
            continue;
        };
        if let Some(config) = attribute_named(trimmed, "lowering_config") {
            let at = location(trimmed)
                .unwrap_or_else(|| panic!("a configured op without a location: {trimmed}"));
            dispatch.ops.push((at, squash(&config)));
        }
        if trimmed.starts_with("})") && trimmed.contains(": () -> ()") {
            // The end of the function: its attributes, then its type.
            dispatch.translation_info =
                attribute_named(trimmed, "translation_info").map(|text| squash(&text));
            dispatches.push(current.take().unwrap());
        }
    }
    assert!(current.is_none(), "an unterminated dispatch function");
    dispatches
}

pub(crate) fn compile_configs(
    compiler: &Path,
    flags: &[&str],
    input: &Path,
    spec: Option<&Path>,
) -> Vec<Dispatch> {
    try_compile_configs(compiler, flags, input, spec).unwrap_or_else(|error| panic!("{error}"))
}

/// The dispatches of `input` (with `spec` by path), or iree-compile's failure.
fn try_compile_configs(
    compiler: &Path,
    flags: &[&str],
    input: &Path,
    spec: Option<&Path>,
) -> Result<Vec<Dispatch>, String> {
    let mut command = Command::new(compiler);
    command
        .args(flags)
        .args([
            "--compile-to=executable-configurations",
            "--mlir-print-op-generic",
            "--mlir-print-debuginfo",
            "--iree-global-opt-enable-warn-on-uninitialized-values=false",
            "-o",
            "-",
        ])
        .arg(input);
    if let Some(spec) = spec {
        command.arg(format!(
            "--iree-codegen-tuning-spec-path={}",
            spec.display()
        ));
    }
    let output = crate::reference::output_with_timeout(&mut command);
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed: {}",
            first_errors(&String::from_utf8_lossy(&output.stderr))
        ));
    }
    let dispatches = read_dispatches(&String::from_utf8(output.stdout).unwrap());
    assert!(!dispatches.is_empty(), "{command:?} printed no dispatch");
    Ok(dispatches)
}

/// The first error lines of a compiler's stderr (or its first lines when it crashed).
fn first_errors(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("error"))
        .take(5)
        .collect();
    if errors.is_empty() {
        stderr.lines().take(5).collect::<Vec<_>>().join("\n")
    } else {
        errors.join("\n")
    }
}

/// What iree-compile put on one op: its dispatch function, `lowering_config` and the
/// function's `translation_info`.
pub(crate) type Placed = (String, String, Option<String>);

/// Per payload location (line, column): what iree-compile put on the op there.
pub(crate) fn by_location(dispatches: &[Dispatch]) -> BTreeMap<(u32, u32), Placed> {
    let mut map = BTreeMap::new();
    for dispatch in dispatches {
        for (at, config) in &dispatch.ops {
            let placed = (
                dispatch.function.clone(),
                config.clone(),
                dispatch.translation_info.clone(),
            );
            if let Some(previous) = map.insert(*at, placed.clone()) {
                assert_eq!(previous.1, placed.1, "two configs at {at:?}");
            }
        }
    }
    map
}

/// What the configs say, without the payload positions: the same payload written elsewhere
/// (attached, applied) has other line numbers but the same dispatches.
pub(crate) fn without_locations(
    dispatches: &[Dispatch],
) -> Vec<(String, Vec<String>, Option<String>)> {
    dispatches
        .iter()
        .map(|d| {
            (
                d.function.clone(),
                d.ops.iter().map(|(_, config)| config.clone()).collect(),
                d.translation_info.clone(),
            )
        })
        .collect()
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("examples"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    files
}

/// `tunespec explain --format json` of `payload` (with the target's library, or the one
/// attached to the payload when `target` is None).
fn explain(cache: &Path, target: Option<&str>, payload: &Path) -> serde_json::Value {
    let mut command = tunespec(cache);
    command.args(["explain", "--format", "json"]);
    if let Some(target) = target {
        command.args(["--target", target]);
    }
    let output = run(command.arg(payload));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Checks explain's report against iree-compile's configs, op by op (by payload location):
/// a configured op got exactly its `lowering_config` and `translation_info`; an unmatched op
/// kept what IREE chose without the library (`baseline`, by dispatch function name). Returns
/// the number of configured ops.
pub(crate) fn compare(
    context: &str,
    report: &serde_json::Value,
    tuned: &BTreeMap<(u32, u32), Placed>,
    baseline: Option<&Baseline>,
) -> usize {
    let at = |op: &serde_json::Value| -> (u32, u32) {
        let location = op["location"].as_str().unwrap();
        let mut parts = location.rsplitn(3, ':');
        let col: u32 = parts.next().unwrap().parse().unwrap();
        let line: u32 = parts.next().unwrap().parse().unwrap();
        (line, col)
    };
    // iree-compile deduplicates identical dispatches: of two ops with the same computation
    // (the k and v projections of a layer), one executable remains, located at one of them.
    // An op without a dispatch of its own is checked against its twin's.
    let signature = |op: &serde_json::Value| {
        (
            op["op"].to_string(),
            op["loops"].to_string(),
            op["element_types"].to_string(),
            op["config"].to_string(),
        )
    };
    let ops = report["ops"].as_array().unwrap();
    let mut configured = 0;
    for op in ops {
        let location = op["location"].as_str().unwrap();
        let (line, col) = at(op);
        let context = format!("{context}: {} at {location}", op["op"]);
        let info = op["config"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["name"] == "compilation_info");
        let placed = tuned.get(&(line, col)).or_else(|| {
            ops.iter()
                .filter(|twin| signature(twin) == signature(op))
                .find_map(|twin| tuned.get(&at(twin)))
        });
        match info {
            Some(info) => {
                configured += 1;
                let text = info["value"].as_str().unwrap();
                let lowering = squash(&attribute_named(text, "lowering_config").unwrap());
                let translation = squash(&attribute_named(text, "translation_info").unwrap());
                let (_, got, got_translation) = placed
                    .unwrap_or_else(|| panic!("{context}: iree-compile configured no op there"));
                assert_eq!(got, &lowering, "{context}: lowering_config");
                assert_eq!(
                    got_translation.as_ref(),
                    Some(&translation),
                    "{context}: translation_info"
                );
            }
            None => {
                if let (Some((function, got, got_translation)), Some(baseline)) = (placed, baseline)
                {
                    let own = baseline.get(function).unwrap_or_else(|| {
                        panic!("{context}: no dispatch {function} without the library")
                    });
                    assert!(
                        own.contains(&(got.clone(), got_translation.clone())),
                        "{context}: tunespec says unmatched, so IREE's own choice must stay; got {got}"
                    );
                }
            }
        }
    }
    assert_eq!(
        configured,
        report["matched"].as_u64().unwrap() as usize,
        "{context}: only compilation_info configs are expected from the defaults"
    );
    configured
}

/// IREE's own choices without a library: per dispatch function, (lowering_config,
/// translation_info) of each configured op.
pub(crate) type Baseline = BTreeMap<String, Vec<(String, Option<String>)>>;

/// Whether iree-compile 3.13 reads `--iree-codegen-tuning-spec-path` for these flags: its CUDA
/// backend builds its pipeline without the option (the pass runs with `tuning-spec-path=`), so
/// on NVIDIA targets a library takes effect only attached to the payload.
fn reads_spec_path(flags: &[&str]) -> bool {
    !flags.contains(&"--iree-hal-target-device=cuda")
}

/// Checks one example for one target; returns how many ops tunespec said are configured.
fn check_example(
    compiler: &Path,
    target: &str,
    flags: &[&str],
    library: &Path,
    example: &Path,
    dir: &Path,
) -> usize {
    let cache = dir.join("cache");
    let stem = example.file_stem().unwrap().to_string_lossy().to_string();
    let context = format!("{target} {stem}");
    let baseline = baseline_configs(compiler, flags, example, &context);

    // The library attached to the payload: explain the attached payload itself (its library,
    // its line numbers) and compile it.
    let attached = dir.join(format!("{stem}.attached.mlir"));
    run(tunespec(&cache)
        .args(["attach", "--target", target])
        .arg(example)
        .arg("-o")
        .arg(&attached));
    let attached_dispatches = match try_compile_configs(compiler, flags, &attached, None) {
        Ok(dispatches) => dispatches,
        Err(error) if baseline.is_none() => {
            eprintln!("note: {context}: skipped, iree-compile fails with and without the library: {error}");
            return 0;
        }
        Err(error) => panic!("{context}: the library makes iree-compile fail: {error}"),
    };
    let configured = compare(
        &format!("{context} (attached)"),
        &explain(&cache, None, &attached),
        &by_location(&attached_dispatches),
        baseline.as_ref(),
    );
    let expected = without_locations(&attached_dispatches);

    // The library by path, where iree-compile reads it.
    let report = explain(&cache, Some(target), example);
    if reads_spec_path(flags) {
        let by_path = compile_configs(compiler, flags, example, Some(library));
        let count = compare(
            &format!("{context} (by path)"),
            &report,
            &by_location(&by_path),
            baseline.as_ref(),
        );
        assert_eq!(count, configured, "{context}: by path and attached");
        assert_eq!(without_locations(&by_path), expected, "{context}: by path");
    }

    // The payload configured by `apply`.
    let applied = dir.join(format!("{stem}.applied.mlir"));
    run(tunespec(&cache)
        .args(["apply", "--target", target])
        .arg(example)
        .arg("-o")
        .arg(&applied));
    let got = without_locations(&compile_configs(compiler, flags, &applied, None));
    assert_eq!(got, expected, "{context}: apply output");

    assert_as_dispatch_writes_what_explain_reports(&cache, target, example, &report, &context);

    assert_full_compile_goes_through(compiler, flags, &attached, example, &context);
    configured
}

/// IREE's own choices for `example` without the library, per dispatch function; `None` where
/// iree-compile itself fails. Part of `check_example`, split out to keep it short.
fn baseline_configs(
    compiler: &Path,
    flags: &[&str],
    example: &Path,
    context: &str,
) -> Option<Baseline> {
    // IREE's own choices, without the library. iree-compile 3.13 itself fails on some
    // (target, payload) pairs (it crashes selecting a gfx950 config for a bf16 decode batch
    // GEMM); the unmatched ops then cannot be compared, the matched ones still are.
    match try_compile_configs(compiler, flags, example, None) {
        Ok(dispatches) => {
            let mut map = Baseline::new();
            for dispatch in &dispatches {
                for (_, config) in &dispatch.ops {
                    map.entry(dispatch.function.clone())
                        .or_default()
                        .push((config.clone(), dispatch.translation_info.clone()));
                }
            }
            Some(map)
        }
        Err(error) => {
            eprintln!("note: {context}: iree-compile fails without tunespec's library: {error}");
            None
        }
    }
}

/// `apply --as-dispatch` writes exactly the configs `report` (explain's JSON) names, and no
/// dispatch tags. Part of `check_example`, split out to keep it short.
fn assert_as_dispatch_writes_what_explain_reports(
    cache: &Path,
    target: &str,
    example: &Path,
    report: &serde_json::Value,
    context: &str,
) {
    // `apply --as-dispatch` writes the prediction itself: the configs explain reports, on the
    // ops as IREE's matchers see them. It is for reading, not for compiling: iree-compile treats
    // a pre-generalized op differently from a named one (unit dims of a generic are folded
    // away, so a 1xNxK matmul becomes an NxK matvec and loses its config).
    let predicted = run(tunespec(cache)
        .args(["apply", "--as-dispatch", "--target", target])
        .arg(example))
    .stdout;
    let predicted = String::from_utf8(predicted).unwrap();
    let mut written_configs = Vec::new();
    let mut rest = predicted.as_str();
    while let Some(at) = rest.find("compilation_info = ") {
        let start = at + "compilation_info = ".len();
        let text = attribute_at(rest, start);
        rest = &rest[start + text.len()..];
        written_configs.push(squash(&text));
    }
    let explained_configs: Vec<String> = report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|op| op["config"].as_array().unwrap().clone())
        .filter(|entry| entry["name"] == "compilation_info")
        .map(|entry| squash(entry["value"].as_str().unwrap()))
        .collect();
    assert_eq!(
        written_configs, explained_configs,
        "{context}: apply --as-dispatch writes what explain reports"
    );
    assert!(
        !predicted.contains("tunespec.op."),
        "{context}: the dispatch tags are removed"
    );
}

/// The whole compile of the `attached` payload goes through, or fails exactly as `example`
/// fails without the library. Part of `check_example`, split out to keep it short.
fn assert_full_compile_goes_through(
    compiler: &Path,
    flags: &[&str],
    attached: &Path,
    example: &Path,
    context: &str,
) {
    // And the whole compile goes through, unless iree-compile fails the same way without the
    // library (gfx90a: IREE 3.13 picks a sparse MFMA for its own f16 GEMV configs, which only
    // gfx942+ has): then the failure is IREE's own, on ops tunespec left alone.
    let full = |input: &Path| {
        let output = crate::reference::output_with_timeout(
            Command::new(compiler)
                .args(flags)
                .arg("--iree-global-opt-enable-warn-on-uninitialized-values=false")
                .arg(input)
                .args(["-o", "/dev/null"]),
        );
        (
            output.status.success(),
            first_errors(&String::from_utf8_lossy(&output.stderr)),
        )
    };
    let (ok, errors) = full(attached);
    if !ok {
        let (own_ok, own_errors) = full(example);
        assert!(
            !own_ok && own_errors == errors,
            "{context}: the full compile fails with the library: {errors}"
        );
        eprintln!("note: {context}: the full compile fails with and without the library: {errors}");
    }
}

#[test]
fn explain_predicts_what_iree_compile_does_for_every_target_and_example() {
    let Some(compiler) = iree_compile() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let examples = examples();
    let jobs: Mutex<Vec<(usize, usize)>> = Mutex::new(
        (0..TARGETS.len())
            .flat_map(|t| (0..examples.len()).map(move |e| (t, e)))
            .collect(),
    );
    let configured: Mutex<BTreeMap<&str, usize>> = Mutex::new(BTreeMap::new());
    let libraries: Vec<PathBuf> = TARGETS
        .iter()
        .map(|(target, _)| {
            let path = dir.path().join(format!("{target}.mlir"));
            run(tunespec(&dir.path().join("cache"))
                .args(["link", "--target", target, "--emit", "mlir", "-o"])
                .arg(&path));
            path
        })
        .collect();
    std::thread::scope(|scope| {
        for worker in 0..2 {
            let (jobs, configured, libraries, examples, compiler) =
                (&jobs, &configured, &libraries, &examples, &compiler);
            let work = dir.path().join(format!("w{worker}"));
            std::fs::create_dir_all(&work).unwrap();
            scope.spawn(move || loop {
                let Some((t, e)) = jobs.lock().unwrap().pop() else {
                    break;
                };
                let (target, flags) = TARGETS[t];
                let count =
                    check_example(compiler, target, flags, &libraries[t], &examples[e], &work);
                *configured.lock().unwrap().entry(target).or_default() += count;
            });
        }
    });
    // Every target's defaults configure something in the examples (else the comparison above
    // would only show that IREE keeps its own choices).
    let configured = configured.into_inner().unwrap();
    for (target, _) in TARGETS {
        assert!(
            configured.get(target).copied().unwrap_or(0) > 0,
            "{target}: the default specs configure no op of the examples: {configured:?}"
        );
    }
}

#[test]
fn the_dispatch_reader_finds_configs_locations_and_functions() {
    let text = r#"  "hal.executable"() ({
        "func.func"() <{function_type = () -> (), sym_name = "f_dispatch_0_matmul"}> ({
          %1 = "linalg.generic"(%a, %b) ({
          }) {lowering_config = #iree_gpu.lowering_config<{workgroup = [64, 128, 0], s = "a>b"}>} : (tensor<4xf16>) -> tensor<4xf32> loc(callsite("x.mlir":5:8 at "x.mlir":1:1))
        }) {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64>} : () -> () loc("x.mlir":1:1)
  }) : () -> ()
"#;
    let dispatches = read_dispatches(text);
    assert_eq!(dispatches.len(), 1);
    assert_eq!(dispatches[0].function, "f_dispatch_0_matmul");
    assert_eq!(
        dispatches[0].ops,
        vec![(
            (5, 8),
            "#iree_gpu.lowering_config<{workgroup=[64,128,0],s=\"a>b\"}>".to_string()
        )]
    );
    assert_eq!(
        dispatches[0].translation_info.as_deref(),
        Some("#iree_codegen.translation_info<pipeline=#iree_gpu.pipeline<TileAndFuse>workgroup_size=[256,1,1]subgroup_size=64>")
    );
}
