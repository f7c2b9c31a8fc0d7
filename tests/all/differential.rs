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
    let parsed = mlir.parse(bytes, name);
    match parsed.module {
        Some(module) if !parsed.problems.iter().any(Problem::is_error) => {
            !mlir.verify(&module).iter().any(Problem::is_error)
        }
        _ => false,
    }
}

#[test]
fn every_fixture_parses_in_tunespec_exactly_when_it_parses_in_mlir_opt() {
    let Some(mlir_opt) = mlir_opt() else { return };
    let mlir = Mlir::new();
    let mut files = files_under(&repo_root().join("tests/fixtures"));
    files.extend(files_under(&repo_root().join("specs")));
    assert!(
        files.len() >= 20,
        "expected a real corpus, found {}",
        files.len()
    );
    let mut compared = 0;
    for file in &files {
        let output = Command::new(&mlir_opt)
            .arg("--allow-unregistered-dialect")
            .arg(file)
            .arg("-o")
            .arg("/dev/null")
            .output()
            .expect("mlir-opt runs");
        let bytes = std::fs::read(file).expect("fixture");
        let ours = tunespec_parses(&mlir, &bytes, &file.display().to_string());
        match output.status.code() {
            Some(code) => {
                assert_eq!(
                    ours,
                    code == 0,
                    "{}: mlir-opt exit {code}, tunespec parses: {ours}\n{}",
                    file.display(),
                    String::from_utf8_lossy(&output.stderr)
                );
                compared += 1;
            }
            None => {
                // mlir-opt died on a signal (stack overflow on a duplicated matcher): tunespec
                // must not crash and must report the input as broken.
                let verified = tunespec::verify::verify_bytes(&mlir, &bytes, "crash.mlir");
                assert!(
                    verified.has_errors(),
                    "{}: mlir-opt crashed, tunespec accepted it",
                    file.display()
                );
            }
        }
    }
    assert!(compared >= 20, "only {compared} files compared");
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
    let registry = tunespec::Registry::embedded();
    for target in tunespec::registry::targets() {
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
