//! `verify` on IREE's side of a spec: IREE attributes checked by iree-opt (one process per
//! run, messages located in the spec), IREE's codegen ops reported as not tuning-spec ops,
//! matchers that can never fire in IREE's pipeline, and configs that cannot fit the op their
//! matcher accepts. Fixtures in `tests/fixtures/iree_verify/` say in their first line what they
//! hold; every expected line and message here was read off iree-opt 3.13 and the fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::reference::{iree_opt, repo_root};

const CODEGEN_HELP: &str = "a tuning spec matches ops and annotates them with a config; IREE applies codegen ops itself. The IREE ops a spec may use are transform.iree.match.{attention, cast_compatible_dag_from_root, cast_compatible_type, contraction, convolution, dim_bounds, dim_is_multiple_of, dims_equal, has_no_lowering_config, online_attention, regions}";

fn fixture(name: &str) -> String {
    format!("tests/fixtures/iree_verify/{name}")
}

/// tunespec with no way to find iree-opt unless a test gives one.
fn tunespec() -> Command {
    let mut command = crate::support::tunespec_command();
    command
        .env("TUNESPEC_TERM_WIDTH", "100")
        .env("TUNESPEC_IREE_OPT", "/nonexistent/iree-opt")
        .env_remove("TUNESPEC_IREE_VENV")
        .env_remove("TUNESPEC_IREE_TIMEOUT_SECS")
        .env_remove("PATH");
    command
}

/// One finding, as the JSON Lines output has it.
#[derive(Debug, PartialEq)]
struct Finding {
    code: String,
    severity: String,
    line: Option<u64>,
    column: Option<u64>,
    message: String,
    help: Option<String>,
}

fn findings(output: &Output) -> Vec<Finding> {
    records(&String::from_utf8_lossy(&output.stdout))
}

fn records(text: &str) -> Vec<Finding> {
    text.lines()
        // The summary object that ends `verify --format json`.
        .filter(|line| !line.starts_with("{\"summary\""))
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("one JSON object");
            Finding {
                code: value["code"].as_str().unwrap().to_string(),
                severity: value["severity"].as_str().unwrap().to_string(),
                line: value["line"].as_u64(),
                column: value["column"].as_u64(),
                message: value["message"].as_str().unwrap().to_string(),
                help: value["help"].as_str().map(str::to_string),
            }
        })
        .collect()
}

fn json(command: &mut Command) -> (Option<i32>, Vec<Finding>, String) {
    let output = command.args(["--format", "json"]).output().expect("runs");
    (
        output.status.code(),
        findings(&output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// (line, column, code, message) of each finding with one of `codes`.
fn located(findings: &[Finding], codes: &[&str]) -> Vec<(u64, u64, String, String)> {
    findings
        .iter()
        .filter(|finding| codes.contains(&finding.code.as_str()))
        .map(|finding| {
            (
                finding.line.unwrap_or(0),
                finding.column.unwrap_or(0),
                finding.code.clone(),
                finding.message.clone(),
            )
        })
        .collect()
}

fn row(line: u64, column: u64, code: &str, message: &str) -> (u64, u64, String, String) {
    (line, column, code.to_string(), message.to_string())
}

const ATTRIBUTE: &str = "tunespec::iree::attribute";
const NOT_CHECKED: &str = "tunespec::iree::not-checked";

#[test]
fn iree_opt_rejections_are_reported_at_the_attribute_in_the_spec() {
    let Some(iree_opt) = iree_opt() else { return };
    let (status, findings, _) = json(
        tunespec()
            .args(["verify", "--iree-opt"])
            .arg(&iree_opt)
            .arg(fixture("attributes.mlir")),
    );
    assert_eq!(status, Some(1), "{findings:#?}");
    assert_eq!(
        located(&findings, &[ATTRIBUTE]),
        [
            // In the alias definition, at the intrinsic (not at each use of the alias).
            row(3, 76, ATTRIBUTE, "`MFMA_F32_16x16x16_F17` is not a valid value: expected ::mlir::iree_compiler::IREE::GPU::MMAIntrinsic to be one of 98 values"),
            // The third line of a multi-line attribute.
            row(20, 89, ATTRIBUTE, "expected ::mlir::iree_compiler::IREE::GPU::LoweringPipeline to be one of: Default, BaseLowering, Distribute, Vectorize, VectorDistribute, WinogradVectorize, TileAndFuse"),
            row(32, 81, ATTRIBUTE, "expected attribute value"),
            row(33, 39, ATTRIBUTE, "IREE has no attribute dialect `iree_gpus`"),
        ]
    );
    let helps: Vec<&str> = findings
        .iter()
        .filter(|finding| finding.code == ATTRIBUTE)
        .filter_map(|finding| finding.help.as_deref())
        .collect();
    assert_eq!(
        helps,
        [
            "did you mean `MFMA_F32_16x16x16_F16`? (IREE would fail to load this spec; checked with iree-opt)",
            "did you mean `VectorDistribute`? (IREE would fail to load this spec; checked with iree-opt)",
            "IREE 3.13 spells a GPU pipeline as an attribute: `pipeline = #iree_gpu.pipeline<TileAndFuse>` (`tunespec check --fix` rewrites it) (IREE would fail to load this spec; checked with iree-opt)",
            // Found by tunespec itself, without iree-opt (iree-opt's finding is the same).
            "did you mean `#iree_gpu`? (IREE would fail to load this spec)",
        ]
    );
}

#[test]
fn split_markers_strings_and_aliases_reach_iree_opt_as_written() {
    let Some(iree_opt) = iree_opt() else { return };
    let (status, findings, _) = json(
        tunespec()
            .args(["verify", "--iree-opt"])
            .arg(&iree_opt)
            .arg(fixture("tricky.mlir")),
    );
    // Only the unknown key: the `// -----` comment does not split the attribute, the string is
    // not an attribute, and `#ci` finds `#wg` and `#tr`.
    assert_eq!(status, Some(1));
    assert_eq!(
        located(&findings, &[ATTRIBUTE]),
        [row(18, 58, ATTRIBUTE, "expected '>'")]
    );
}

#[test]
fn a_spec_iree_accepts_verifies_clean() {
    let Some(iree_opt) = iree_opt() else { return };
    let output = tunespec()
        .args(["verify", "--iree-opt"])
        .arg(&iree_opt)
        .arg(fixture("clean.mlir"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "verified 1 file(s), 1 matcher(s): 0 error(s), 0 warning(s)\n"
    );
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// A stand-in for iree-opt: a shell script (Unix only).
#[cfg(unix)]
fn fake_iree_opt(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("iree-opt");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A stand-in that runs `iree_opt` and appends a line to a count file each time: the script
/// and the count file.
#[cfg(unix)]
fn counting_iree_opt(dir: &Path, iree_opt: &Path) -> (PathBuf, PathBuf) {
    let count = dir.join("count");
    let counting = fake_iree_opt(
        dir,
        &format!(
            "echo run >> '{}'\nexec '{}' \"$@\"",
            count.display(),
            iree_opt.display()
        ),
    );
    (counting, count)
}

#[cfg(unix)]
#[test]
fn one_iree_opt_process_checks_every_attribute_of_the_run() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (counting, count) = counting_iree_opt(dir.path(), &iree_opt);
    let (status, findings, _) = json(
        tunespec()
            .args(["verify", "-j", "2", "--iree-opt"])
            .arg(&counting)
            .args([
                fixture("attributes.mlir"),
                fixture("tricky.mlir"),
                fixture("clean.mlir"),
            ]),
    );
    assert_eq!(status, Some(1));
    assert_eq!(located(&findings, &[ATTRIBUTE]).len(), 5);
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "run\n");
}

#[cfg(unix)]
#[test]
fn iree_opts_acceptance_is_kept_in_the_cache_and_its_rejections_are_not() {
    // A spec whose attributes this iree-opt accepted is verified again without starting
    // iree-opt (its start-up is most of a small spec's verify); a rejection is asked again
    // each run, and a cache turned off keeps nothing.
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (counting, count) = counting_iree_opt(dir.path(), &iree_opt);
    let cache = dir.path().join("cache");
    let verify = |spec: &str, extra: &[(&str, &str)]| {
        let output = tunespec()
            .env("TUNESPEC_CACHE_DIR", &cache)
            .envs(extra.iter().copied())
            .args(["verify", "--iree-opt"])
            .arg(&counting)
            .arg(fixture(spec))
            .output()
            .unwrap();
        let runs = std::fs::read_to_string(&count)
            .unwrap_or_default()
            .lines()
            .count();
        (output.status.code(), runs)
    };
    assert_eq!(verify("clean.mlir", &[]), (Some(0), 1));
    assert_eq!(verify("clean.mlir", &[]), (Some(0), 1));
    assert_eq!(verify("attributes.mlir", &[]), (Some(1), 2));
    assert_eq!(verify("attributes.mlir", &[]), (Some(1), 3));
    assert_eq!(
        verify("clean.mlir", &[("TUNESPEC_CACHE", "off")]),
        (Some(0), 4)
    );
}

#[test]
fn without_iree_opt_verify_says_once_that_attributes_were_not_checked() {
    // Two files with IREE attributes: one note for the run, on stderr, and the exit status of
    // the findings alone.
    let output = tunespec()
        .args(["verify", &fixture("clean.mlir"), &fixture("configs.mlir")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "tunespec: note: IREE attributes were not checked (4 in 2 file(s)): TUNESPEC_IREE_OPT=/nonexistent/iree-opt is not a file\n"
    );
    // JSON: one record, with no file, on stderr (stdout holds the findings only).
    let (status, findings, stderr) =
        json(tunespec().args(["verify", &fixture("clean.mlir"), &fixture("configs.mlir")]));
    assert_eq!(status, Some(0));
    assert!(findings.iter().all(|f| f.code != NOT_CHECKED));
    assert_eq!(
        records(&stderr),
        [Finding {
            code: NOT_CHECKED.to_string(),
            severity: "note".to_string(),
            line: None,
            column: None,
            message: "IREE attributes were not checked (4 in 2 file(s)): TUNESPEC_IREE_OPT=/nonexistent/iree-opt is not a file".to_string(),
            help: Some("install IREE's compiler (tools/iree-venv.sh, or pip install iree-base-compiler) and pass --iree-opt PATH or set TUNESPEC_IREE_OPT; --no-iree-check turns the check off".to_string()),
        }]
    );
    // Nothing on PATH either.
    let (_, _, stderr) = json(
        tunespec()
            .env_remove("TUNESPEC_IREE_OPT")
            .args(["verify", &fixture("clean.mlir")]),
    );
    assert_eq!(
        records(&stderr).last().map(|f| f.message.clone()).as_deref(),
        Some("IREE attributes were not checked (1 in 1 file(s)): iree-opt not found (--iree-opt, TUNESPEC_IREE_OPT, TUNESPEC_IREE_VENV, PATH)")
    );
}

#[test]
fn no_note_without_iree_attributes_or_with_no_iree_check() {
    let (_, findings, stderr) = json(tunespec().args(["verify", &fixture("named_ops.mlir")]));
    assert!(
        findings.iter().all(|f| f.code != NOT_CHECKED),
        "{findings:#?}"
    );
    assert_eq!(stderr, "");
    let output = tunespec()
        .args(["verify", "--no-iree-check", &fixture("clean.mlir")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn a_missing_iree_opt_flag_is_a_usage_error() {
    let output = tunespec()
        .args([
            "verify",
            "--iree-opt",
            "no/such/iree-opt",
            &fixture("clean.mlir"),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "tunespec: error: --iree-opt no/such/iree-opt: no such file\n"
    );
}

#[cfg(unix)]
#[test]
fn an_iree_opt_that_hangs_is_stopped_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let hanging = fake_iree_opt(dir.path(), "exec sleep 60");
    let started = std::time::Instant::now();
    let (status, _, stderr) = json(
        tunespec()
            .env("TUNESPEC_IREE_TIMEOUT_SECS", "1")
            .args(["verify", "--iree-opt"])
            .arg(&hanging)
            .arg(fixture("clean.mlir")),
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(status, Some(0));
    assert_eq!(
        records(&stderr).last().map(|f| f.message.clone()),
        Some(format!(
            "IREE attributes were not checked (1 in 1 file(s)): {} did not finish within 1 s and was stopped (TUNESPEC_IREE_TIMEOUT_SECS sets the limit)",
            hanging.display()
        ))
    );
}

#[cfg(unix)]
#[test]
fn an_iree_opt_that_fails_without_a_diagnostic_is_not_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let failing = fake_iree_opt(dir.path(), "echo 'LLVM ERROR: out of luck' >&2\nexit 3");
    let (status, _, stderr) = json(
        tunespec()
            .args(["verify", "--iree-opt"])
            .arg(&failing)
            .arg(fixture("clean.mlir")),
    );
    assert_eq!(status, Some(0));
    assert_eq!(
        records(&stderr).last().map(|f| f.message.clone()),
        Some(format!(
            "IREE attributes were not checked (1 in 1 file(s)): {} exited with exit status: 3 without a diagnostic tunespec could place: LLVM ERROR: out of luck",
            failing.display()
        ))
    );
}

#[test]
fn iree_codegen_ops_are_not_tuning_spec_ops() {
    const CODE: &str = "tunespec::iree::not-a-tuning-op";
    let (status, findings, _) = json(tunespec().args(["verify", &fixture("ops.mlir")]));
    assert_eq!(status, Some(1));
    assert_eq!(
        located(&findings, &[CODE, "tunespec::parse"]),
        [row(4, 5, CODE, "`transform.iree.apply_licm` is an IREE codegen op, not a tuning-spec op: tunespec supports IREE's match ops only")]
    );
    assert_eq!(findings[0].help.as_deref(), Some(CODEGEN_HELP));

    let (status, findings, _) = json(tunespec().args(["verify", &fixture("ops_match.mlir")]));
    assert_eq!(status, Some(1));
    assert_eq!(
        located(&findings, &[CODE, "tunespec::parse"]),
        [row(
            4,
            5,
            CODE,
            "`transform.iree.match.has_no_lowering_confg` is not an IREE tuning-spec op"
        )]
    );
    assert_eq!(
        findings[0].help.as_deref(),
        Some("did you mean `transform.iree.match.has_no_lowering_config`?")
    );

    // Generic form: MLIR reports the first unknown op only; tunespec reports each, once.
    let (status, findings, _) = json(tunespec().args(["verify", &fixture("ops_generic.mlir")]));
    assert_eq!(status, Some(1));
    assert_eq!(
        located(&findings, &[CODE, "tunespec::parse", "tunespec::verify::unsafe-op"]),
        [
            row(4, 5, CODE, "`transform.iree.bufferize` is an IREE codegen op, not a tuning-spec op: tunespec supports IREE's match ops only"),
            row(5, 5, CODE, "`transform.iree.tile_everything` is not an op of IREE 3.13"),
        ]
    );
}

#[test]
fn matchers_on_named_ops_iree_generalizes_get_a_warning() {
    const CODE: &str = "tunespec::verify::named-op-matcher";
    let (status, findings, _) = json(tunespec().args(["verify", &fixture("named_ops.mlir")]));
    assert_eq!(status, Some(0), "warnings only");
    assert_eq!(
        located(&findings, &[CODE]),
        [
            row(8, 5, CODE, "this matcher never fires in IREE on GPU targets: it accepts only `linalg.matmul`, `linalg.batch_matmul`, and IREE turns named ops like these into `linalg.generic` when it forms GPU dispatches, before it applies tuning specs"),
            // ["linalg.matmul", "linalg.generic"] at line 13 can fire.
            row(18, 5, CODE, "this matcher never fires in IREE: it accepts only `linalg.matmul_transpose_b`, and no such op exists in MLIR 22 or IREE 3.13"),
            row(23, 5, CODE, "this matcher never fires in IREE on GPU targets: it accepts only `linalg.conv_2d_nhwc_hwcf`, and IREE turns named ops like these into `linalg.generic` when it forms GPU dispatches, before it applies tuning specs"),
            row(28, 5, CODE, "this matcher never fires in IREE on GPU targets: it accepts only `linalg.transpose`, and IREE turns named ops like these into `linalg.generic` when it forms GPU dispatches, before it applies tuning specs"),
            // fill, batch_matvec and mmt4d survive dispatch formation (line 33).
        ]
    );
    assert!(findings[0]
        .help
        .as_deref()
        .unwrap()
        .starts_with("match IREE's form, which sees named and generic contractions alike: `%batch, %m, %n, %k = transform.iree.match.contraction %op"));
    let denied = tunespec()
        .args(["verify", "--deny-warnings", &fixture("named_ops.mlir")])
        .output()
        .unwrap();
    assert_eq!(denied.status.code(), Some(1));
}

const CONFIG: &str = "tunespec::iree::config";

fn config_rows(workgroup_size_column: u64) -> Vec<(u64, u64, String, String)> {
    vec![
        row(
            8,
            15,
            CONFIG,
            "`tile_sizes[0]` has 4 tile sizes but the op this matcher accepts has 3 loops",
        ),
        row(
            22,
            15,
            CONFIG,
            "`workgroup` has 4 tile sizes but the op this matcher accepts has 3 loops",
        ),
        row(
            46,
            15,
            CONFIG,
            "`subgroup` has 4 tile sizes but the op this matcher accepts has 3 loops",
        ),
        row(
            46,
            workgroup_size_column,
            CONFIG,
            "workgroup_size = [96, 1, 1] is 96 threads, not a multiple of subgroup_size = 64",
        ),
    ]
}

#[test]
fn configs_that_cannot_fit_the_matched_op_get_a_warning() {
    let (status, findings, _) = json(tunespec().args(["verify", &fixture("configs.mlir")]));
    assert_eq!(status, Some(0), "warnings only");
    // Rank pinned (line 22), dims pinned with the action's own config (line 8), IREE's
    // contraction with dims_equal (line 46), and the workgroup size at its attribute.
    assert_eq!(located(&findings, &[CONFIG]), config_rows(40));
}

/// The spec as MLIR bytecode, in a temp dir.
fn as_bytecode(name: &str, dir: &Path) -> PathBuf {
    let mlir = tunespec::mlir::Mlir::new();
    let text = std::fs::read(repo_root().join(fixture(name))).unwrap();
    let parsed = mlir.parse(&text, &fixture(name));
    let bytecode = parsed.module.expect("parses").to_bytecode().unwrap();
    let path = dir.join(name.replace(".mlir", ".mlirbc"));
    std::fs::write(&path, bytecode).unwrap();
    path
}

#[test]
fn bytecode_specs_get_the_same_lints_at_their_ops() {
    let dir = tempfile::tempdir().unwrap();
    let bytecode = as_bytecode("configs.mlir", dir.path());
    let (status, findings, _) = json(tunespec().arg("verify").arg(&bytecode));
    assert_eq!(status, Some(0));
    // No text: the workgroup size is reported at its op.
    assert_eq!(located(&findings, &[CONFIG]), config_rows(15));
}

#[test]
fn bytecode_attributes_are_checked_in_their_printed_form() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bytecode = as_bytecode("repeated.mlir", dir.path());
    let (status, findings, _) = json(
        tunespec()
            .args(["verify", "--iree-opt"])
            .arg(&iree_opt)
            .arg(&bytecode),
    );
    assert_eq!(status, Some(1));
    // No text: at the ops that hold the attribute, with the column in MLIR's print of it.
    let message = "expected ::mlir::iree_compiler::IREE::GPU::LoweringPipeline to be one of: Default, BaseLowering, Distribute, Vectorize, VectorDistribute, WinogradVectorize, TileAndFuse (at column 62 of the attribute as MLIR prints it)";
    assert_eq!(
        located(&findings, &[ATTRIBUTE]),
        [
            row(4, 15, ATTRIBUTE, message),
            row(8, 10, ATTRIBUTE, message)
        ],
        "{findings:#?}"
    );
}

#[test]
fn aliases_inside_iree_attributes_are_expanded_so_output_has_none_dangling() {
    // tricky.mlir uses `#wg` and `#tr` inside the definition of `#ci`, an IREE attribute that
    // MLIR keeps as text: tunespec expands them before parsing, so what it writes refers to no
    // alias it does not define.
    let dir = tempfile::tempdir().unwrap();
    let linked = dir.path().join("linked.mlir");
    let output = tunespec()
        .args(["link", "--no-default", "--emit", "mlir", "--spec"])
        .arg(fixture("tricky.mlir"))
        .arg("-o")
        .arg(&linked)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&linked).unwrap();
    for alias in ["#wg", "#tr"] {
        assert!(
            !text.contains(&format!("{alias}>")) && !text.contains(&format!("{alias},")),
            "{alias} dangles in:\n{text}"
        );
    }
    assert!(
        text.contains("lowering_config = #iree_gpu.lowering_config<{workgroup = [64, 128, 0]}>")
            && text.contains("translation_info = #iree_codegen.translation_info<"),
        "the aliases' values stand in their place:\n{text}"
    );
}

#[test]
fn the_embedded_registry_passes_iree_opt() {
    let Some(iree_opt) = iree_opt() else { return };
    let (_, findings, _) = json(tunespec().args(["verify", "--iree-opt"]).arg(&iree_opt));
    assert_eq!(located(&findings, &[ATTRIBUTE]), []);
}

/// The build script (see build_check.rs) with the given iree-opt.
fn run_build_script(specs: &[(&str, &str)], iree_opt: &Path) -> (bool, String) {
    let crate_dir = tempfile::tempdir().unwrap();
    for (path, text) in specs {
        let path = crate_dir.path().join("specs").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out_dir = crate_dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let output = Command::new(crate::build_check::build_script())
        .env("CARGO_MANIFEST_DIR", crate_dir.path())
        .env("OUT_DIR", &out_dir)
        .env("TUNESPEC_IREE_OPT", iree_opt)
        .env_remove("TUNESPEC_SPECS_DIR")
        .output()
        .unwrap();
    let mut report = String::from_utf8_lossy(&output.stderr).into_owned();
    report.push_str(&String::from_utf8_lossy(&output.stdout));
    (output.status.success(), report)
}

#[test]
fn the_build_checks_the_default_specs_attributes_with_iree_opt() {
    let clean = std::fs::read_to_string(repo_root().join(fixture("clean.mlir"))).unwrap();
    let bad = clean.replace("MFMA_F32_16x16x16_F16", "MFMA_F32_16x16x16_F61");
    let registry = crate::build_check::REGISTRY;
    // Without iree-opt: the build goes on and says so.
    let (ok, report) = run_build_script(
        &[("registry.toml", registry), ("gfx942/bad.mlir", &bad)],
        Path::new("/nonexistent/iree-opt"),
    );
    assert!(ok, "{report}");
    assert!(
        report.contains("cargo:warning=the IREE attributes of the default specs were not checked: no iree-opt at /nonexistent/iree-opt"),
        "{report}"
    );
    let Some(iree_opt) = iree_opt() else { return };
    let (ok, report) = run_build_script(
        &[("registry.toml", registry), ("gfx942/bad.mlir", &bad)],
        &iree_opt,
    );
    assert!(!ok, "{report}");
    assert!(
        report.contains(
            "specs/gfx942/bad.mlir:14:148: error: `MFMA_F32_16x16x16_F61` is not a valid value"
        ),
        "{report}"
    );
    let (ok, report) = run_build_script(
        &[("registry.toml", registry), ("gfx942/clean.mlir", &clean)],
        &iree_opt,
    );
    assert!(ok, "{report}");
}

#[test]
fn a_repeated_attribute_is_checked_once_and_reported_at_each_place() {
    let Some(iree_opt) = iree_opt() else { return };
    let (_, findings, _) = json(
        tunespec()
            .args(["verify", "--iree-opt"])
            .arg(&iree_opt)
            .arg(fixture("repeated.mlir")),
    );
    let message = "expected ::mlir::iree_compiler::IREE::GPU::LoweringPipeline to be one of: Default, BaseLowering, Distribute, Vectorize, VectorDistribute, WinogradVectorize, TileAndFuse";
    assert_eq!(
        located(&findings, &[ATTRIBUTE]),
        [
            row(4, 101, ATTRIBUTE, message),
            row(8, 96, ATTRIBUTE, message)
        ]
    );
}
