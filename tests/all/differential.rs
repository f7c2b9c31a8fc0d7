//! Differential tests against the reference tools: mlir-opt 22 for parsing, iree-opt (PyPI
//! iree-base-compiler 3.13) for IREE's attributes.

use std::path::{Path, PathBuf};
use std::process::Command;

use tunespec::mlir::Mlir;
use tunespec::problem::Problem;

use crate::reference::{iree_opt, mlir_opt, repo_root};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir_files(dir);
    files.sort();
    files
}

fn walkdir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixture dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walkdir_files(&path));
        } else if tunespec::manifest::is_spec_file(&path) {
            out.push(path);
        }
    }
    out
}

/// tunespec's MLIR layer accepts the input: it parses and MLIR's verifier reports no error.
fn tunespec_parses(mlir: &Mlir, bytes: &[u8], name: &str) -> bool {
    // Malformed bytecode can make MLIR's reader abort or corrupt the heap of the process that
    // reads it (tests/fixtures/specs/bad/aborts_reader.mlirbc): tunespec never reads untrusted
    // bytecode in process before a contained probe has, so bytecode is judged by the binary,
    // probe included, as users run it. (`verify` adds tunespec's rules; bytecode fixtures are
    // all broken ones, where the verdicts agree.)
    if bytes.starts_with(b"ML\xefR") {
        return crate::support::tunespec_command()
            .args(["verify", "--no-iree-check", name])
            .output()
            .expect("tunespec runs")
            .status
            .success();
    }
    let parsed = mlir.parse(bytes, name);
    match parsed.module {
        Some(module) if !parsed.problems.iter().any(Problem::is_error) => {
            !mlir.verify(&module).iter().any(Problem::is_error)
        }
        _ => false,
    }
}

/// Where `needle` occurs in `bytes`.
fn occurrences<'a>(bytes: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    (0..bytes.len().saturating_sub(needle.len() - 1))
        .filter(move |&start| bytes[start..].starts_with(needle))
}

/// Which ops of IREE's transform extension a spec uses (text, or the op names in a bytecode
/// file's string section): none (upstream form, which mlir-opt 22 parses), only IREE's
/// tuning-spec match ops (which tunespec parses as iree-opt does), or other IREE ops (codegen
/// ops, which tunespec refuses by design: tests/all/iree_verify.rs).
#[derive(PartialEq)]
pub(crate) enum Form {
    Upstream,
    IreeMatch,
    IreeOther,
}

pub(crate) fn form(bytes: &[u8]) -> Form {
    let mut form = Form::Upstream;
    for start in occurrences(bytes, b"transform.iree.") {
        if !bytes[start..].starts_with(b"transform.iree.match.") {
            return Form::IreeOther;
        }
        form = Form::IreeMatch;
    }
    if form == Form::Upstream && occurrences(bytes, b"iree.match.").next().is_some() {
        // Bytecode names an op by its dialect and the rest of its name.
        form = Form::IreeMatch;
    }
    form
}

/// Every spec under the fixtures and the default specs of one form.
fn corpus(wanted: Form) -> Vec<PathBuf> {
    let mut files = files_under(&repo_root().join("tests/fixtures"));
    files.extend(files_under(&repo_root().join("specs")));
    // The fixtures written for IREE 3.10/3.11 are judged by the release they are written for
    // (`the_older_releases_fixtures_parse_in_tunespec_exactly_when_in_iree_3_11`).
    let older = repo_root().join(OLDER_FIXTURES);
    files
        .into_iter()
        .filter(|file| !file.starts_with(&older))
        .filter(|file| form(&std::fs::read(file).expect("fixture")) == wanted)
        .collect()
}

/// Fixtures in the syntax of IREE 3.10 and 3.11 (`tests/all/iree_releases.rs`).
const OLDER_FIXTURES: &str = "tests/fixtures/iree_old";

/// Runs the reference tool on each file and compares its verdict with tunespec's MLIR layer.
/// Returns how many files were compared (the others crashed the tool).
fn compare_parsing(tool: &Path, files: &[PathBuf]) -> usize {
    let mlir = Mlir::new();
    let mut compared = 0;
    for file in files {
        let output = Command::new(tool)
            .arg("--allow-unregistered-dialect")
            .arg(file)
            .arg("-o")
            .arg("/dev/null")
            .output()
            .expect("reference tool runs");
        let bytes = std::fs::read(file).expect("fixture");
        let ours = tunespec_parses(&mlir, &bytes, &file.display().to_string());
        match output.status.code() {
            Some(code) => {
                assert_eq!(
                    ours,
                    code == 0,
                    "{}: {} exit {code}, tunespec parses: {ours}\n{}",
                    file.display(),
                    tool.display(),
                    String::from_utf8_lossy(&output.stderr)
                );
                compared += 1;
            }
            None => {
                // The tool died on a signal (stack overflow on a duplicated matcher): tunespec
                // must not crash and must report the input as broken.
                let rejected = if bytes.starts_with(b"ML\xefR") {
                    // Bytecode goes through the binary and its contained probe (see above).
                    crate::support::tunespec_command()
                        .args(["verify", "--no-iree-check"])
                        .arg(file)
                        .output()
                        .expect("tunespec runs")
                        .status
                        .code()
                        == Some(1)
                } else {
                    tunespec::verify::verify_bytes(&mlir, &bytes, "crash.mlir").has_errors()
                };
                assert!(
                    rejected,
                    "{}: {} crashed, tunespec accepted it",
                    file.display(),
                    tool.display()
                );
            }
        }
    }
    compared
}

#[test]
fn every_fixture_parses_in_tunespec_exactly_when_it_parses_in_mlir_opt() {
    let Some(mlir_opt) = mlir_opt() else { return };
    // The specs in upstream form (IREE's ops are compared with iree-opt, below).
    let files = corpus(Form::Upstream);
    assert!(
        files.len() >= 20,
        "expected a real corpus, found {}",
        files.len()
    );
    let compared = compare_parsing(&mlir_opt, &files);
    assert!(compared >= 20, "only {compared} files compared");
}

#[test]
fn every_iree_form_spec_parses_in_tunespec_exactly_when_it_parses_in_iree_opt() {
    let Some(iree_opt) = iree_opt() else { return };
    // The specs using IREE's match ops: the default specs, IREE's good and bad uses.
    let files = corpus(Form::IreeMatch);
    assert!(
        files.len() >= 40,
        "expected a real corpus, found {}",
        files.len()
    );
    assert!(files
        .iter()
        .any(|file| file.starts_with(repo_root().join("specs"))));
    let compared = compare_parsing(&iree_opt, &files);
    assert!(compared >= 40, "only {compared} files compared");
}

#[test]
fn the_older_releases_fixtures_parse_in_tunespec_exactly_when_in_iree_3_11() {
    let iree_opt = repo_root().join("target/iree-venv-3.11.0/bin/iree-opt");
    if !iree_opt.is_file() {
        assert!(
            !crate::reference::in_ci(),
            "IREE 3.11 (tools/iree-venv.sh) is required when CI=true"
        );
        return;
    }
    let files: Vec<PathBuf> = files_under(&repo_root().join(OLDER_FIXTURES))
        .into_iter()
        .filter(|file| form(&std::fs::read(file).expect("fixture")) == Form::IreeMatch)
        .collect();
    assert!(!files.is_empty());
    assert_eq!(compare_parsing(&iree_opt, &files), files.len());
}

#[test]
fn every_default_spec_parses_in_iree_opt_as_source_and_as_embedded_bytecode() {
    let Some(iree_opt) = iree_opt() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let specs = tunespec::registry::specs();
    assert!(!specs.is_empty());
    for spec in specs {
        let source = repo_root().join(spec.path);
        let bytecode = dir.path().join("spec.mlirbc");
        std::fs::write(&bytecode, spec.bytecode()).expect("write bytecode");
        for input in [&source, &bytecode] {
            let output = Command::new(&iree_opt)
                .arg(input)
                .arg("-o")
                .arg("/dev/null")
                .output()
                .expect("iree-opt runs");
            assert!(
                output.status.success(),
                "iree-opt rejects {} ({}):\n{}",
                spec.path,
                input.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

#[test]
fn every_default_target_resolves_to_at_least_eight_matchers() {
    // Own specs or, for a SKU or an architecture without its own (mi308x, gfx90a), its chain's.
    let registry = tunespec::Registry::embedded().with_derived(true);
    // The built-in `host` (a CPU target for users' specs) has no defaults, by design.
    for target in tunespec::registry::targets()
        .iter()
        .filter(|target| !target.specs.is_empty() || target.fallback.is_some())
    {
        let resolution = registry
            .resolve(target.name, &[])
            .expect("a default target resolves");
        let matchers: usize = resolution
            .specs
            .iter()
            .filter_map(|spec| spec.matchers())
            .sum();
        assert!(matchers >= 8, "{} has {matchers} matchers", target.name);
        assert!(
            target.specs().all(|spec| spec.merge_ready),
            "{}",
            target.name
        );
    }
}
