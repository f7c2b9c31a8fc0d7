//! Build-time verification and embedding of the default specs.
//!
//! Walks `specs/`, validates `registry.toml`, parses and verifies every spec with the SAME code as
//! `tunespec verify` (the tunespec-core crate, a build-dependency as well as a dependency), and fails
//! the build with `file:line:col` messages on any error. Valid specs are written as MLIR bytecode
//! (pinned emit version) into `OUT_DIR/embedded/` and indexed in `OUT_DIR/index.rs`, which the
//! library embeds (see `src/registry.rs`).
//!
//! `TUNESPEC_SPECS_DIR` points the build at another specs directory (used by the test that proves
//! an invalid spec fails the build).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tunespec_core::{iree_attrs, manifest, mlir, problem, provenance, verify};

fn main() {
    // The package's own directory as cargo compiled this script (the run-time CARGO_MANIFEST_DIR
    // names where the specs are, which tests point elsewhere).
    source_fingerprint(Path::new(env!("CARGO_MANIFEST_DIR")));
    mlir_version();
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-env-changed=TUNESPEC_SPECS_DIR");
    println!("cargo:rerun-if-env-changed={}", iree_attrs::ENV_IREE_OPT);
    println!("cargo:rerun-if-env-changed={}", iree_attrs::ENV_TIMEOUT);
    let specs_dir = std::env::var_os("TUNESPEC_SPECS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir.join("specs"));
    // A directory: cargo rescans it, so adding, changing or removing a spec rebuilds.
    println!("cargo:rerun-if-changed={}", specs_dir.display());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    if let Err(problems) = embed(&specs_dir, &out_dir) {
        let errors = problems.iter().filter(|p| p.is_error()).count();
        for problem in &problems {
            eprintln!("{problem}");
        }
        eprintln!("error: {errors} problem(s) in the default specs; the build stops here");
        std::process::exit(1);
    }
}

/// The source trees whose code decides what `tunespec link` writes: the cache key includes a hash
/// of them (`TUNESPEC_SOURCE_FINGERPRINT`), so that a cache shared by development builds never
/// serves a library linked by other code. Whole trees rather than a list of files, so that a new
/// or split module is covered without anyone remembering to add it.
const FINGERPRINTED_TREES: &[&str] = &["src", "crates/tunespec-core/src", "crates/mlir-shim/src"];

/// Hashes [`FINGERPRINTED_TREES`] (relative path and content of every file, in sorted order, so
/// the hash is the same on any machine and checkout path) into `TUNESPEC_SOURCE_FINGERPRINT`.
fn source_fingerprint(manifest_dir: &Path) {
    let mut hasher = blake3::Hasher::new();
    // A packaged crate (`cargo package`, crates.io) holds only its own tree: the dependencies'
    // code is then pinned by their published versions, which the package version stands for.
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    for tree in FINGERPRINTED_TREES {
        let root = manifest_dir.join(tree);
        if !root.is_dir() {
            hasher.update(b"\0absent\0");
            hasher.update(tree.as_bytes());
            continue;
        }
        println!("cargo:rerun-if-changed={}", root.display());
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&root)
            .into_iter()
            .map(|entry| entry.unwrap_or_else(|error| panic!("cannot walk {tree}: {error}")))
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| entry.into_path())
            .collect();
        files.sort();
        for file in files {
            let relative = file
                .strip_prefix(manifest_dir)
                .expect("walked under the manifest dir");
            let name = relative.to_string_lossy().replace('\\', "/");
            let bytes = std::fs::read(&file)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", file.display()));
            hasher.update(&(name.len() as u64).to_le_bytes());
            hasher.update(name.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    let fingerprint = hasher.finalize().to_hex();
    println!(
        "cargo:rustc-env=TUNESPEC_SOURCE_FINGERPRINT={}",
        &fingerprint[..32]
    );
}

/// The MLIR release tunespec is built with, for `tunespec --version` (`TUNESPEC_MLIR_VERSION`):
/// `llvm-config --version` of the installation mlir-sys links (`MLIR_SYS_220_PREFIX`, else
/// /usr/lib/llvm-22), or the major version when that cannot be run.
fn mlir_version() {
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix =
        std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string());
    let version = std::process::Command::new(Path::new(&prefix).join("bin").join("llvm-config"))
        .arg("--version")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|version| version.trim().to_string())
        .filter(|version| !version.is_empty())
        .unwrap_or_else(|| "22".to_string());
    println!("cargo:rustc-env=TUNESPEC_MLIR_VERSION={version}");
}

/// Verifies everything under `specs_dir` and writes the embedded bytecode and index.
fn embed(specs_dir: &Path, out_dir: &Path) -> Result<(), Vec<problem::Problem>> {
    let manifest_path = specs_dir.join("registry.toml");
    let manifest_name = "specs/registry.toml";
    let text = std::fs::read_to_string(&manifest_path).map_err(|error| {
        vec![problem::Problem::error(
            problem::codes::IO,
            format!("cannot read {}: {error}", manifest_path.display()),
            None,
        )]
    })?;
    let resolved = manifest::load(&text, manifest_name, specs_dir)?;
    // Unlisted spec files are verified and embedded, but they are worth a warning.
    for warning in &resolved.warnings {
        println!("cargo:warning={warning}");
    }

    let mut problems = Vec::new();
    let context = mlir::Mlir::new();
    let embedded_dir = out_dir.join("embedded");
    let _ = std::fs::remove_dir_all(&embedded_dir);
    std::fs::create_dir_all(&embedded_dir).expect("OUT_DIR is writable");

    // Every spec file, each verified once even if several targets list it.
    let mut spec_index: Vec<String> = Vec::new();
    let mut iree_sites: Vec<iree_attrs::Site> = Vec::new();
    let mut spec_entries = String::new();
    for relative in
        manifest::list_spec_files(specs_dir).unwrap_or_else(|message| panic!("{message}"))
    {
        // Files reached through symlinks out of specs/ are never embedded (a target listing one
        // is a manifest error, reported above).
        if manifest::check_inside(specs_dir, &relative).is_err() {
            continue;
        }
        let name = format!("specs/{relative}");
        let bytes = match std::fs::read(specs_dir.join(&relative)) {
            Ok(bytes) => bytes,
            Err(error) => {
                problems.push(problem::Problem::error(
                    problem::codes::IO,
                    format!("cannot read {name}: {error}"),
                    None,
                ));
                continue;
            }
        };
        let verified = verify::verify_bytes(&context, &bytes, &name);
        if let Some(module) = &verified.module {
            // Bytecode has no text to read attributes from: print them.
            let printed = bytes
                .starts_with(verify::BYTECODE_MAGIC)
                .then(|| module.snapshot());
            iree_sites.extend(iree_attrs::collect(
                &bytes,
                &name,
                printed.as_ref().or(verified.snapshot.as_ref()),
            ));
        }
        let has_errors = verified.has_errors();
        problems.extend(verified.problems.iter().cloned());
        if has_errors {
            continue;
        }
        let (Some(module), Some(facts)) = (&verified.module, &verified.facts) else {
            continue;
        };
        let bytecode = match module.to_bytecode() {
            Ok(bytecode) => bytecode,
            Err(message) => {
                problems.push(problem::Problem::error(problem::codes::IO, message, None));
                continue;
            }
        };
        // Where each matcher's config comes from, counted once here so that resolution can
        // withhold derived-only defaults (measured first) without parsing at run time.
        let counts = match &verified.snapshot {
            Some(snapshot) => provenance::count(snapshot),
            None => provenance::count(&module.snapshot()),
        };
        if refuse_slower_measured(&name, &counts, &mut problems) {
            continue;
        }
        let file = format!("{relative}bc").replace(".mlirbcbc", ".mlirbc");
        let destination = embedded_dir.join(&file);
        std::fs::create_dir_all(destination.parent().expect("has a parent")).expect("writable");
        std::fs::write(&destination, &bytecode).expect("OUT_DIR is writable");
        writeln!(
            spec_entries,
            "    EmbeddedSpec {{ path: {path:?}, bytecode_file: {file:?}, module_name: {module_name:?}, \
             source_hash: {source_hash:?}, bytecode_hash: {bytecode_hash:?}, matcher_count: {matchers}, \
             source_bytes: {source_bytes}, bytecode_bytes: {bytecode_bytes}, merge_ready: {merge_ready}, \
             measured_matchers: {measured}, derived_matchers: {derived}, derived_rules: &{rules:?}, \
             measured_records: &{records:?} }},",
            path = name,
            module_name = facts.module_name.clone().unwrap_or_default(),
            source_hash = blake3::hash(&bytes).to_hex().to_string(),
            bytecode_hash = blake3::hash(&bytecode).to_hex().to_string(),
            matchers = facts.matcher_count,
            source_bytes = bytes.len(),
            bytecode_bytes = bytecode.len(),
            merge_ready = facts.merge_ready,
            measured = counts.measured,
            derived = counts.derived,
            rules = counts.rules,
            records = counts
                .records
                .iter()
                .map(|record| (&record.device, &record.iree, &record.speedup))
                .collect::<Vec<_>>(),
        )
        .expect("write to String");
        spec_index.push(relative);
    }
    check_iree_attributes(&iree_sites, &mut problems);
    if problems.iter().any(problem::Problem::is_error) {
        return Err(problems);
    }
    // Warnings do not fail the build, but they are shown.
    for problem in &problems {
        println!("cargo:warning={problem}");
    }

    let mut targets = String::new();
    for target in &resolved.targets {
        let mut specs: Vec<usize> = Vec::new();
        let mut spec_features: Vec<Vec<String>> = Vec::new();
        for file in &target.specs {
            if let Some(index) = spec_index.iter().position(|known| *known == file.path) {
                specs.push(index);
                spec_features.push(file.features.clone());
            }
        }
        writeln!(
            targets,
            "    EmbeddedTarget {{ name: {name:?}, description: {description:?}, kind: {kind:?}, \
             aliases: &{aliases:?}, fallback: {fallback:?}, features: &{features:?}, \
             backend: {backend:?}, specs: &{specs:?}, spec_features: &[{spec_features}] }},",
            name = target.name,
            description = target.description,
            kind = target.kind,
            aliases = target.aliases,
            fallback = target.fallback,
            features = target.features,
            backend = target.backend,
            spec_features = spec_features
                .iter()
                .map(|features| format!("&{features:?}"))
                .collect::<Vec<_>>()
                .join(", "),
        )
        .expect("write to String");
    }
    let index = format!(
        "// Generated by build.rs from specs/. Do not edit.\n\
         pub static SPECS: &[EmbeddedSpec] = &[\n{spec_entries}];\n\
         pub static TARGETS: &[EmbeddedTarget] = &[\n{targets}];\n"
    );
    std::fs::write(out_dir.join("index.rs"), index).expect("OUT_DIR is writable");
    Ok(())
}

/// Whether a default spec has a measured matcher that did not beat IREE's own config where it
/// was measured (each is an error in `problems`). Why: a config measured as slow or slower (a
/// derived config timed at 1.077 of IREE's time once), or whose record gives no speedup, must
/// never ship as a measured default, whatever its provenance sentence says.
fn refuse_slower_measured(
    name: &str,
    counts: &provenance::Counts,
    problems: &mut Vec<problem::Problem>,
) -> bool {
    let mut refused = false;
    for record in counts
        .records
        .iter()
        .filter(|record| !record.beats_baseline())
    {
        problems.push(problem::Problem::error(
            problem::codes::MANIFEST,
            format!(
                "{name}: measured matcher @{} has speedup '{}' on {}: a measured default must beat IREE's own config (speedup below 1); leave it out or ship it as derived",
                record.matcher, record.speedup, record.device
            ),
            None,
        ));
        refused = true;
    }
    refused
}

/// IREE's parser on the default specs' IREE attributes (the check `tunespec verify` makes), when
/// iree-opt is at hand: `TUNESPEC_IREE_OPT`, else the reference venv `target/iree-venv` that
/// `tools/iree-venv.sh` makes. Without it the build goes on and says what it did not check.
fn check_iree_attributes(sites: &[iree_attrs::Site], problems: &mut Vec<problem::Problem>) {
    if sites.is_empty() {
        return;
    }
    let venv = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("target/iree-venv/bin/iree-opt");
    let iree_opt = match std::env::var_os(iree_attrs::ENV_IREE_OPT).filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => venv,
    };
    if !iree_opt.is_file() {
        println!(
            "cargo:warning=the IREE attributes of the default specs were not checked: no iree-opt at {} (tools/iree-venv.sh, or {})",
            iree_opt.display(),
            iree_attrs::ENV_IREE_OPT
        );
        return;
    }
    match iree_attrs::check(
        &iree_opt,
        sites,
        iree_attrs::timeout_from(std::env::var(iree_attrs::ENV_TIMEOUT).ok().as_deref()),
    ) {
        Ok(found) => problems.extend(found.into_iter().map(|(_, problem)| problem)),
        Err(reason) => println!(
            "cargo:warning=the IREE attributes of the default specs were not checked: {reason}"
        ),
    }
}
