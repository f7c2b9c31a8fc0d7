//! One home for each kind of access (issue 31): inputs are read only through `files` (bounded,
//! type checked, clear messages for missing, unreadable and non-UTF-8 files), manifests are
//! parsed only by the manifest module, `check` gives a spec the target the registry gives it
//! (one glob rule), the environment is read only into the settings' snapshot
//! (`settings::Environment`), and `--device` is parsed only by `device.rs` (issue 43). The scans read `src/`, so a new direct read or a
//! manifest walked as raw TOML fails here instead of silently bypassing the rule.

use std::path::{Path, PathBuf};

use tunespec::Registry;

use crate::reference::repo_root;

/// Files of `src/` allowed to read files directly, and why: none of them reads a user's input.
const DIRECT_READS: &[(&str, &str)] = &[
    ("files.rs", "the careful reader itself"),
    ("cache/", "the cache's own files (O_NOFOLLOW, checksummed)"),
    ("iree/", "IREE's own files: version.py, iree-opt's dumps"),
    ("contain/mod.rs", "/proc/self/exe, to re-execute the binary"),
    (
        "bench/plan.rs",
        "iree-compile's dumps, written by this run into the plan's case directory",
    ),
    ("bench/measured.rs", "/proc/cpuinfo"),
    (
        "store/file.rs",
        "the file store's own entries and pointers (checked against their digests)",
    ),
    (
        "bench/execute.rs",
        "iree-run-module's outputs, written by this run into the plan's case directory",
    ),
    (
        "tune/generate.rs",
        "iree-compile's executable-configurations in tune's own temporary directory",
    ),
    (
        "tune/compile.rs",
        "iree-compile's dumped executable configurations in tune's own temporary directory",
    ),
    (
        "tune/shares.rs",
        "iree-compile's dumped dispatch benchmark modules in tune's own temporary directory",
    ),
];

/// Files of `src/` allowed to parse TOML, and why: none of them parses a manifest.
const TOML_PARSES: &[(&str, &str)] = &[("config/mod.rs", "configs (tunespec.toml), not manifests")];

/// Every `.rs` file under `dir`, as `/`-separated paths relative to it, sorted.
fn rust_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("src/ can be walked"))
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "rs"))
        .map(|entry| {
            let relative = entry.path().strip_prefix(dir).unwrap();
            let relative = relative.to_string_lossy().replace('\\', "/");
            (relative, entry.into_path())
        })
        .collect();
    files.sort();
    files
}

/// The lines of `text` (1-based numbers) before its unit tests that contain one of `needles`
/// outside a `//` comment.
fn hits(text: &str, needles: &[&str]) -> Vec<(usize, String)> {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or("");
            needles.iter().any(|needle| code.contains(needle))
        })
        .map(|(index, line)| (index + 1, line.trim().to_string()))
        .collect()
}

/// The hits of `needles` in `src/` outside the `allowed` files and directories.
fn violations(needles: &[&str], allowed: &[(&str, &str)]) -> Vec<String> {
    let src = repo_root().join("src");
    for (path, _) in allowed {
        assert!(
            src.join(path.trim_end_matches('/')).exists(),
            "the allow-list names src/{path}, which is gone: drop it"
        );
    }
    let mut found = Vec::new();
    for (relative, path) in rust_files(&src) {
        if allowed.iter().any(|(allowed, _)| {
            relative == *allowed || (allowed.ends_with('/') && relative.starts_with(allowed))
        }) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, code) in hits(&text, needles) {
            found.push(format!("src/{relative}:{line}: {code}"));
        }
    }
    found
}

const READS: &[&str] = &["fs::read(", "fs::read_to_string(", "File::open("];
const TOML: &[&str] = &["toml::"];

#[test]
fn inputs_are_read_only_through_files() {
    let found = violations(READS, DIRECT_READS);
    assert!(
        found.is_empty(),
        "read inputs with tunespec::files::read_input (or read_input_text), which bounds the read, \
         checks the file type and words missing, unreadable and non-UTF-8 files clearly; \
         or add the file to DIRECT_READS with why it reads no input:\n{}",
        found.join("\n")
    );
}

#[test]
fn manifests_are_parsed_only_by_the_manifest_module() {
    let found = violations(TOML, TOML_PARSES);
    assert!(
        found.is_empty(),
        "parse registry.toml with tunespec::manifest (parse, load_with) and write it with \
         manifest::Writer, not as raw TOML:\n{}",
        found.join("\n")
    );
}

/// Files of `src/` allowed to hold a target's source forms (the build's table row, the
/// manifest's parsed table), and why: everything else takes `registry::Target`.
const TARGET_SOURCES: &[(&str, &str)] = &[
    (
        "registry/",
        "turns each source form into the one `registry::Target`",
    ),
    (
        "export.rs",
        "writes the build's own tables and bytecode into C sources, row for row",
    ),
];

#[test]
fn commands_see_one_record_of_a_target() {
    let found = violations(&["EmbeddedTarget", "ResolvedTarget"], TARGET_SOURCES);
    assert!(
        found.is_empty(),
        "take targets from tunespec::registry::Registry (find, chain, targets):          registry::Target is the one record of a target, whoever defines it:\n{}",
        found.join("\n")
    );
}

/// Files of `src/` allowed to read the process environment, and why: everything else reads
/// the snapshot its `Settings` hold (`settings::Environment`), so that every setting is read the
/// same way (an unset `HOME` is the password database's) and a program using the library can
/// give its own. `crates/tunespec-core`, shared with `build.rs`, cannot depend on it and reads
/// no variable: its callers pass the values (`iree_attrs::timeout_from`).
const ENVIRONMENT_READS: &[(&str, &str)] = &[(
    "config/environment.rs",
    "`Environment::process`, the one snapshot",
)];

#[test]
fn the_environment_is_read_only_through_the_settings_snapshot() {
    let mut found = violations(&["env::var"], ENVIRONMENT_READS);
    let core = repo_root().join("crates/tunespec-core/src");
    for (relative, path) in rust_files(&core) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, code) in hits(&text, &["env::var"]) {
            found.push(format!(
                "crates/tunespec-core/src/{relative}:{line}: {code}"
            ));
        }
    }
    assert!(
        found.is_empty(),
        "read environment variables from the Settings' Environment, the one snapshot (the \
         core takes the values from its callers):\n{}",
        found.join("\n")
    );
}

/// Files of `src/` allowed to know how a device URI is spelled (issue 43): `--device` is parsed
/// once into `tunespec::device::Device`, and records' devices are read by `device::kind_of`.
const DEVICE_URIS: &[(&str, &str)] = &[
    ("device.rs", "the device type, the one parser"),
    (
        "store/url.rs",
        "the store's URLs (redis://, file://), not devices",
    ),
];

/// The lines of `text` before its unit tests that hold the literal `"://"` in code. Not
/// [`hits`]: its comment stripping cuts the literal itself at `//`.
fn uri_splits(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .enumerate()
        .filter(|(_, line)| {
            line.find("\"://\"")
                .is_some_and(|at| !line[..at].contains("//"))
        })
        .map(|(index, line)| (index + 1, line.trim().to_string()))
        .collect()
}

#[test]
fn the_device_is_parsed_only_by_the_device_module() {
    let src = repo_root().join("src");
    let mut found = Vec::new();
    let mut in_device_module = 0;
    for (relative, path) in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let splits = uri_splits(&text);
        if DEVICE_URIS.iter().any(|(allowed, _)| relative == *allowed) {
            in_device_module += splits.len();
            continue;
        }
        for (line, code) in splits {
            found.push(format!("src/{relative}:{line}: {code}"));
        }
    }
    // The scan sees the parser's own separator: it would see another file's too.
    assert!(
        in_device_module > 0,
        "src/device.rs no longer spells the separator"
    );
    assert!(
        found.is_empty(),
        "take the device as tunespec::device::Device (kind, id, index, is_local), or a record's \
         device's kind from device::kind_of, instead of splitting on \"://\":\n{}",
        found.join("\n")
    );
    assert_eq!(
        uri_splits(
            "let k = d.split(\"://\");\n// d.split(\"://\")\n#[cfg(test)]\nx.split(\"://\");\n"
        ),
        [(1, "let k = d.split(\"://\");".to_string())]
    );
}

/// The scan sees a read in code and not in a comment or the unit tests.
#[test]
fn the_scan_finds_a_direct_read() {
    let text = "fn a() { let _ = std::fs::read_to_string(p); }\n\
                // std::fs::read(p)\n\
                fn b() {} // File::open(p)\n\
                #[cfg(test)]\n\
                mod tests { fn c() { std::fs::read(p); } }\n";
    assert_eq!(
        hits(text, READS),
        [(
            1,
            "fn a() { let _ = std::fs::read_to_string(p); }".to_string()
        )]
    );
}

/// A spec in a subdirectory of a library: `*.mlir` does not reach `sub/x.mlir` (a `*` stays in
/// one path segment, as the registry says), so `check` gives each spec the target `resolve`
/// (and so `link`) gives it.
#[test]
fn check_gives_a_spec_the_target_the_registry_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("lib");
    std::fs::create_dir_all(library.join("sub")).unwrap();
    let spec = "module attributes {transform.with_named_sequence} {\n}\n";
    std::fs::write(library.join("top.mlir"), spec).unwrap();
    std::fs::write(library.join("sub/x.mlir"), spec).unwrap();
    // `[extend.gfx90a]` sorts first: a `*` that crossed `/` would claim sub/x.mlir for it.
    std::fs::write(
        library.join("registry.toml"),
        "schema = 1\n\n[extend.gfx90a]\nspecs = [\"*.mlir\"]\n\n[extend.gfx942]\nspecs = [\"sub/*.mlir\"]\n",
    )
    .unwrap();

    let checked = tunespec::spec_check::collect(std::slice::from_ref(&library)).unwrap();
    let check_target = |file: &str| {
        checked
            .iter()
            .find(|spec| spec.path.ends_with(file))
            .unwrap_or_else(|| panic!("check collects {file}"))
            .target
            .clone()
    };
    assert_eq!(check_target("top.mlir").as_deref(), Some("gfx90a"));
    assert_eq!(check_target("sub/x.mlir").as_deref(), Some("gfx942"));

    let registry = Registry::embedded();
    let resolved = |target: &str| -> Vec<String> {
        registry
            .resolve(target, std::slice::from_ref(&library))
            .unwrap()
            .specs
            .iter()
            .map(|spec| spec.location.clone())
            .filter(|location| location.ends_with("x.mlir") || location.ends_with("top.mlir"))
            .collect()
    };
    assert_eq!(resolved("gfx90a"), ["top.mlir"]);
    assert_eq!(resolved("gfx942"), ["sub/x.mlir"]);
}
