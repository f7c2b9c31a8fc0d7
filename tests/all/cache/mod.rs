//! The cache of linked libraries (src/cache/): every key input changes the key, the key is
//! stable across runs, processes, directory-listing order and environment noise; bad entries
//! (torn, flipped bit, wrong schema, foreign) are relinked and counted; a process killed at each
//! step of a write leaves no torn entry; 8 processes race on one key while eviction runs;
//! read-only and missing directories degrade to uncached work with one warning.
//!
//! One file per theme: `key`, `entries`, `writes`, `directories`, `library` (the in-process
//! cache); the helpers they share are here.

mod directories;
mod entries;
mod key;
mod library;
mod remote;
mod writes;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tunespec::cache::{
    self, decode_entry, decode_entry_with, encode_entry, encode_entry_with, Artifact, Cache,
    EntryError, Form, Key, KeyParts, Mode, Settings,
};
use tunespec::link::{self, LinkInput, LinkOptions, Role};
use tunespec::mlir::Mlir;
use tunespec::problem::Problem;
use tunespec::registry;

use crate::reference::repo_root;

// ---------------------------------------------------------------------------------------------
// Helpers

/// The binary with a private cache directory and none of the caller's cache settings.
fn tunespec(cache_dir: &Path) -> Command {
    let mut command = crate::support::tunespec_command();
    command
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .env("TUNESPEC_TERM_WIDTH", "100")
        .env("TUNESPEC_CACHE_DIR", cache_dir)
        .env("TUNESPEC_NO_CONFIG", "1");
    for name in [
        "TUNESPEC_SPEC_PATH",
        "TUNESPEC_CACHE",
        "TUNESPEC_CACHE_MAX_BYTES",
        "TUNESPEC_CACHE_FAULT",
    ] {
        command.env_remove(name);
    }
    command
}

fn fixture(name: &str) -> String {
    repo_root()
        .join("tests/fixtures/specs/good")
        .join(name)
        .display()
        .to_string()
}

/// A copy of the default spec specs/gfx942/llama2_f16.mlir in `dir`, and its matcher count: given
/// as a user spec for gfx942, it shadows every matcher of the default.
fn copy_of_default_spec(dir: &Path) -> (String, usize) {
    let text = std::fs::read_to_string(repo_root().join("specs/gfx942/llama2_f16.mlir")).unwrap();
    let path = dir.join("copy_of_gfx942_llama2_f16.mlir");
    std::fs::write(&path, &text).unwrap();
    (
        path.display().to_string(),
        text.matches("transform.named_sequence @match_").count(),
    )
}

/// Decodes an entry of the cache in `dir` (its checksum is keyed with the cache's secret).
fn decode_disk(dir: &Path, bytes: &[u8], key: &Key) -> Result<Artifact, EntryError> {
    let secret = cache::entry_secret(dir).expect("the cache has a secret");
    decode_entry_with(bytes, key, Some(&secret))
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("tunespec runs");
    assert!(
        output.status.success(),
        "{:?} failed: {:?}\n{}",
        command,
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn link_gfx942(dir: &Path) -> Output {
    run(tunespec(dir).args(["link", "--target", "gfx942"]))
}

/// The reference: the same link with the cache off.
fn uncached(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let output = run(tunespec(dir.path()).env("TUNESPEC_CACHE", "off").args(args));
    assert!(
        !dir.path().join("entries").exists(),
        "TUNESPEC_CACHE=off wrote to the cache"
    );
    output
}

#[derive(Debug, PartialEq, Eq)]
struct Stats {
    hits: u64,
    misses: u64,
    corrupt: u64,
    entries: u64,
    temp_files: u64,
}

fn stats(dir: &Path) -> Stats {
    let output = run(tunespec(dir).args(["cache", "stats", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let field = |name: &str| json[name].as_u64().unwrap();
    assert_eq!(json["dir"], dir.display().to_string());
    Stats {
        hits: field("hits"),
        misses: field("misses"),
        corrupt: field("corrupt"),
        entries: field("entries"),
        temp_files: field("temp_files"),
    }
}

/// Entry files (64 hex digits) in the cache.
fn entry_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("entries"))
        .map(|items| {
            items
                .filter_map(Result::ok)
                .map(|item| item.path())
                .filter(|path| {
                    let name = path.file_name().unwrap().to_string_lossy();
                    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("entries"))
        .map(|items| {
            items
                .filter_map(Result::ok)
                .map(|item| item.path())
                .filter(|path| {
                    path.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(".tmp-")
                })
                .collect()
        })
        .unwrap_or_default()
}

fn only_entry(dir: &Path) -> PathBuf {
    let files = entry_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// The inputs `tunespec link --target gfx942` links, as the library sees them.
fn gfx942_inputs() -> Vec<LinkInput> {
    registry::Registry::embedded()
        .with_derived(true)
        .chain("gfx942")
        .unwrap()
        .into_iter()
        .filter_map(|target| target.embedded())
        .flat_map(|target| {
            target.specs().map(move |spec| LinkInput {
                name: spec.path.to_string(),
                location: spec.path.to_string(),
                bytes: spec.bytecode().to_vec(),
                role: Role::Default {
                    target: target.name.to_string(),
                },
            })
        })
        .collect()
}

/// The target part of the key `link --target gfx942` uses: its resolved fallback chain.
fn gfx942_target() -> String {
    let registry = registry::Registry::embedded().with_derived(true);
    let chain: Vec<&str> = registry
        .chain("gfx942")
        .unwrap()
        .iter()
        .map(|target| target.name.as_str())
        .collect();
    chain.join(">")
}

fn gfx942_key() -> Key {
    KeyParts::new(&gfx942_target(), &gfx942_inputs(), &LinkOptions::default()).key()
}

/// The key of the entry `link --target gfx942` (text output) stores.
fn gfx942_text_key() -> Key {
    let mut parts = KeyParts::new(&gfx942_target(), &gfx942_inputs(), &LinkOptions::default());
    parts.form = Form::Text;
    parts.key()
}
