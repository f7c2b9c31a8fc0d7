//! One settings object, no globals in the library (issue 43): the library keeps no
//! process-wide state of its own (the CLI builds one `tunespec::settings::Settings` and hands it
//! down), except state that is process-wide by nature, each listed here with why; and every
//! `TUNESPEC_*` variable the sources read is in the one table of `docs/settings.md`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::reference::repo_root;

/// The statics of the library that hold state (a lock, a once-set cell, an atomic), by file
/// (under `src/`, or `core/` for `crates/tunespec-core/src/`) and name, and why each is
/// process-wide by nature. Anything else is a setting or a cache of one and belongs in a value
/// the caller passes (`Settings`, `iree::Session`, `cache::Cache`).
const PROCESS_WIDE: &[(&str, &str, &str)] = &[
    (
        "contain/mod.rs",
        "ENABLED",
        "the probe re-executes this binary: on only in the process that is the tunespec binary",
    ),
    (
        "contain/mod.rs",
        "EXECUTABLE",
        "the process's one executable",
    ),
    (
        "files.rs",
        "STDIN",
        "the process's one standard input, readable once",
    ),
    (
        "cache/key.rs",
        "PRODUCER",
        "a memoised constant of the build",
    ),
    (
        "cache/disk.rs",
        "NONCE",
        "temporary names unique across the process's caches",
    ),
    (
        "cache/entry.rs",
        "CODES",
        "interned codes: leaked once per process, decides nothing",
    ),
    (
        "core/verify/mod.rs",
        "FOREIGN_READER",
        "the verifier's hook for IREE's syntax, reached from every thread without a context",
    ),
];

/// Types that make a `static` hold state.
const STATEFUL: &[&str] = &[
    "Mutex", "RwLock", "OnceLock", "OnceCell", "LazyLock", "Atomic", "RefCell", "Cell<",
];

/// The names of the stateful statics declared in `text` before its unit tests (and any
/// `thread_local!`, named `thread_local`).
fn stateful_statics(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text
        .lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
    {
        let code = line.split("//").next().unwrap_or("").trim_start();
        if code.contains("thread_local!") {
            found.push("thread_local".to_string());
            continue;
        }
        let declaration = [
            "static ",
            "pub static ",
            "pub(crate) static ",
            "pub(super) static ",
        ]
        .iter()
        .find_map(|prefix| code.strip_prefix(prefix));
        let Some(rest) = declaration else {
            continue;
        };
        if !STATEFUL.iter().any(|kind| rest.contains(kind)) {
            continue;
        }
        let name: String = rest
            .trim_start_matches("mut ")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        found.push(name);
    }
    found
}

/// Every stateful static of the `.rs` files under `dir` (files under `skip` left out), as
/// (`prefix` + path relative to `dir`, name).
fn statics_under(dir: &Path, prefix: &str, skip: &[&str]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.expect("the sources can be walked");
        if entry.path().extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let relative = entry.path().strip_prefix(dir).unwrap();
        let relative = relative.to_string_lossy().replace('\\', "/");
        if skip.iter().any(|skipped| relative.starts_with(skipped)) {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for name in stateful_statics(&text) {
            found.push((format!("{prefix}{relative}"), name));
        }
    }
    found.sort();
    found
}

#[test]
fn the_library_keeps_no_process_wide_state_but_what_is_so_by_nature() {
    let root = repo_root();
    // The binary's own modules (the CLI's rendering state and its one `Settings`) are not
    // the library.
    let mut found = statics_under(&root.join("src"), "", &["cli/", "main.rs"]);
    found.extend(statics_under(
        &root.join("crates/tunespec-core/src"),
        "core/",
        &[],
    ));
    let unlisted: Vec<String> = found
        .iter()
        .filter(|(file, name)| {
            !PROCESS_WIDE
                .iter()
                .any(|(allowed, static_name, _)| file == allowed && name == static_name)
        })
        .map(|(file, name)| format!("{file}: static {name}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "the library keeps no global state: take the setting from a value the caller passes \
         (tunespec::settings::Settings, iree::Session, cache::Cache), or, if it is process-wide \
         by nature, list it in PROCESS_WIDE with why:\n{}",
        unlisted.join("\n")
    );
    // Every listed static still exists: the list says what is, not what was.
    for (file, name, _) in PROCESS_WIDE {
        assert!(
            found.iter().any(|(f, n)| f == file && n == name),
            "PROCESS_WIDE lists {file}: {name}, which is gone: drop it"
        );
    }
}

/// The scan finds statics of every stateful kind, and not in comments or unit tests.
#[test]
fn the_scan_finds_a_global() {
    let text = "static A: std::sync::Mutex<u8> = Mutex::new(0);\n\
                pub static B: OnceLock<String> = OnceLock::new();\n\
                    static C: AtomicBool = AtomicBool::new(false);\n\
                static TABLE: &[u8] = &[];\n\
                // static D: Mutex<u8>\n\
                #[cfg(test)]\n\
                static E: Mutex<u8> = Mutex::new(0);\n";
    assert_eq!(stateful_statics(text), ["A", "B", "C"]);
}

/// The `TUNESPEC_*` variables named in `text`.
fn variables(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("TUNESPEC_") {
        let name: String = rest[at..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        rest = &rest[at + name.len()..];
        if name.len() > "TUNESPEC_".len() {
            names.insert(name);
        }
    }
    names
}

/// Names in the sources that are not settings of a run: set by `build.rs` for the sources, the
/// macros of the C header `export` writes, and the docs tests' own switch.
const NOT_SETTINGS: &[&str] = &[
    "TUNESPEC_UPDATE_DOCS",
    "TUNESPEC_MLIR_VERSION",
    "TUNESPEC_SOURCE_FINGERPRINT",
    "TUNESPEC_SPECS_H",
    "TUNESPEC_SPECS_VERSION",
    "TUNESPEC_SPECS_ALIGNMENT",
    "TUNESPEC_ALIGNED",
];

/// Every variable the library, the core and the CLI read has a row in docs/settings.md's one
/// table, and every row names a variable some source reads.
#[test]
fn every_variable_is_in_the_settings_table() {
    let root = repo_root();
    let mut read = BTreeSet::new();
    for dir in ["src", "crates/tunespec-core/src"] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let entry = entry.unwrap();
            if entry.path().extension().is_some_and(|ext| ext == "rs") {
                read.extend(variables(&std::fs::read_to_string(entry.path()).unwrap()));
            }
        }
    }
    for name in NOT_SETTINGS {
        read.remove(*name);
    }
    let table = std::fs::read_to_string(root.join("docs/settings.md")).unwrap();
    let rows: BTreeSet<String> = table
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|name| name.starts_with("TUNESPEC_"))
        .map(str::to_string)
        .collect();
    let missing: Vec<_> = read.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&read).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/settings.md: variables read but not in the table: {missing:?}; rows no source \
         reads: {stale:?}"
    );
    let index = std::fs::read_to_string(root.join("docs/README.md")).unwrap();
    assert!(
        index.contains("settings.md"),
        "the docs index links the settings table"
    );
}

/// The CLI's own state: its rendering state (the diagnostic format, `-q`, the SARIF log, one
/// warning per skipped spec library) and the one `Settings` it builds, by file under `src/cli/`
/// and name. Nothing else: what a command is configured with comes from the `&Settings` it is
/// passed, or from what the library returns (a payload read through IREE says so in `Read`).
const CLI_STATE: &[(&str, &str)] = &[
    ("shared/common.rs", "SESSION"),
    ("shared/common.rs", "SETTINGS"),
    ("shared/common.rs", "QUIET"),
    ("shared/common.rs", "FINISHED"),
    ("shared/common.rs", "TOLD"),
];

/// The files of `src/cli/` that read the settings from the CLI's cell rather than take them as
/// a parameter: only `--version -v`, which prints the IREE before any command runs (`mod.rs`),
/// by path under `src/cli/`.
const SETTINGS_FROM_THE_CELL: &[&str] = &["mod.rs"];

/// The `.rs` files of the CLI, as (path relative to `src/cli/`, text).
fn cli_files() -> Vec<(String, String)> {
    let src = repo_root().join("src");
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(src.join("cli")) {
        let entry = entry.expect("src/cli/ can be walked");
        if entry.path().extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let relative = entry.path().strip_prefix(src.join("cli")).unwrap();
        files.push((
            relative.to_string_lossy().replace('\\', "/"),
            std::fs::read_to_string(entry.path()).unwrap(),
        ));
    }
    files.sort();
    files
}

#[test]
fn the_cli_keeps_only_its_rendering_state_and_its_settings() {
    let mut found: Vec<(String, String)> = cli_files()
        .into_iter()
        .flat_map(|(file, text)| {
            stateful_statics(&text)
                .into_iter()
                .map(move |name| (file.clone(), name))
        })
        .collect();
    found.sort();
    let mut expected: Vec<(String, String)> = CLI_STATE
        .iter()
        .map(|(file, name)| (file.to_string(), name.to_string()))
        .collect();
    expected.sort();
    assert_eq!(
        found, expected,
        "the CLI keeps its rendering state and its one Settings, nothing else: pass what a \
         command needs as a value"
    );
}

#[test]
fn commands_take_the_settings_as_a_parameter() {
    let readers: Vec<String> = cli_files()
        .into_iter()
        .filter(|(file, text)| {
            text.contains("common::settings()") && !SETTINGS_FROM_THE_CELL.contains(&file.as_str())
        })
        .map(|(file, _)| file)
        .collect();
    assert!(
        readers.is_empty(),
        "commands take `settings: &Settings` from cli::run, not from common::settings(): {readers:?}"
    );
}

/// The modules that read the environment (through `config::process_env`, the one reader, which
/// `tests/all/one_home.rs` holds every read to), by path under `src/`, and what each reads.
/// Issue 43 moves these reads into `Settings`, so that only `settings.rs` and `config.rs` read
/// the environment; until then the list only shrinks: a new module that reads a variable takes
/// it from the `Settings` it is passed instead.
const ENVIRONMENT_READERS: &[(&str, &str)] = &[
    (
        "config.rs",
        "process_env itself; the configs' discovery; XDG directories",
    ),
    (
        "cache/settings.rs",
        "TUNESPEC_CACHE*, through Cache::from_env",
    ),
    (
        "cli/shared/log.rs",
        "TUNESPEC_LOG, before the settings are built",
    ),
    ("diagnostics/mod.rs", "TUNESPEC_TERM_WIDTH"),
    ("contain/mod.rs", "TUNESPEC_TRUST_BYTECODE"),
    (
        "iree/find.rs",
        "TUNESPEC_IREE_LIB, _VENV, _OPT, TUNESPEC_NO_IREE, PATH",
    ),
    ("iree/mod.rs", "TUNESPEC_IREE_TIMEOUT_SECS"),
    (
        "iree/probe.rs",
        "the interpreter's identity (pyenv, asdf, venv and conda variables, HOME)",
    ),
    (
        "iree/runtime.rs",
        "TUNESPEC_IREE_RUNTIME; for the runtime alone, TUNESPEC_IREE_VENV and VIRTUAL_ENV",
    ),
    (
        "shard.rs",
        "--shard auto: the scheduler's task index (SLURM_ARRAY_*, JOB_COMPLETION_INDEX, RANK, WORLD_SIZE), read as the command line is parsed",
    ),
    ("iree/session.rs", "whether TUNESPEC_IREE_LIB was set"),
    ("iree/split.rs", "TUNESPEC_IREE_CHECK_PART_BYTES"),
    (
        "store/mod.rs",
        "TUNESPEC_STORE_READ_ONLY; REDISCLI_AUTH, the Redis password as redis-cli reads it",
    ),
];

#[test]
fn no_new_module_reads_the_environment() {
    let src = repo_root().join("src");
    let mut readers = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.expect("src/ can be walked");
        if entry.path().extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let reads = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .any(|code| code.contains("process_env"));
        if reads {
            let relative = entry.path().strip_prefix(&src).unwrap();
            readers.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    readers.sort();
    let mut listed: Vec<String> = ENVIRONMENT_READERS
        .iter()
        .map(|(file, _)| file.to_string())
        .collect();
    listed.sort();
    assert_eq!(
        readers, listed,
        "the environment is read where ENVIRONMENT_READERS says: take a new setting from \
         tunespec::settings::Settings (and drop a file from the list once it reads none)"
    );
}
