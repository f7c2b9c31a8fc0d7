//! A library of measured configs (what `import-tuner` and `bench --write` write): one spec per
//! measured matcher, each annotated with its measurement, and a manifest that lists them per
//! target. Entries merge by matcher key and target: a faster measurement replaces a slower one.
//!
//! Why in the library and not the CLI: `import-tuner`, `bench --write` and the Python package
//! write the same libraries, and merging the libraries of `bench --shard` runs must give the same
//! library whatever the order (ties broken by text, new files named in key order).

use std::path::{Path, PathBuf};

use crate::link::MatcherKey;
use crate::manifest::Definition;
use crate::measured::tuner_import::{self, Measurement};
use crate::mlir::Mlir;
use crate::verify;

/// One entry of the library: a spec with one measured matcher.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The target it is measured for.
    pub target: String,
    /// Its matcher's key (with the target).
    pub key: MatcherKey,
    /// The file, relative to the library (kept for entries read from it).
    pub file: Option<String>,
    /// The spec's text, its matcher annotated with the measurement.
    pub text: String,
    /// The measurement.
    pub measurement: Measurement,
    /// Where it came from, for notes.
    pub origin: String,
}

/// The tools that write measured libraries (each merges into a library the other wrote).
pub const WRITERS: [&str; 3] = [tuner_import::TOOL, BENCH_TOOL, STORE_TOOL];

/// The tool name `bench --write` writes in a library's first line.
pub const BENCH_TOOL: &str = "tunespec bench";

/// The tool name `store pull` writes in a library's first line (its entries were written by the
/// other two, on whichever machine pushed them).
pub const STORE_TOOL: &str = "tunespec store";

/// A measured library: its entries, and the targets it defines itself (copies of targets a
/// user's library defines, so that it works alone as well as beside that library).
#[derive(Clone, Debug, Default)]
pub struct Library {
    /// The measured entries.
    pub entries: Vec<Entry>,
    /// The targets defined in its manifest (their specs are the entries for them).
    pub targets: Vec<Definition>,
}

impl Library {
    /// Adds target definitions the library needs (the user-defined target its entries are for,
    /// and that target's user-defined fallbacks); one already there is kept as it is.
    pub fn define(&mut self, definitions: Vec<Definition>) {
        for definition in definitions {
            if !self
                .targets
                .iter()
                .any(|known| known.name == definition.name)
            {
                self.targets.push(definition);
            }
        }
        self.targets.sort();
    }
}

/// Puts `entry` in: a new key is added; for a known key, target and device
/// ([`crate::provenance::Measurement::same_device`]) the faster measurement stays, and the choice
/// is noted. An entry measured on another device never replaces one: both are kept (linking
/// picks by device, `--measured-on`). Returns whether `entry` went in.
pub fn merge(entries: &mut Vec<Entry>, entry: Entry, notes: &mut Vec<String>) -> bool {
    let identity = entry.measurement.identity();
    let same_key = |old: &Entry| old.target == entry.target && old.key == entry.key;
    let Some(index) = entries
        .iter()
        .position(|old| same_key(old) && old.measurement.same_device(&entry.measurement))
    else {
        if let Some(other) = entries.iter().find(|old| same_key(old)) {
            notes.push(format!(
                "{} (measured on {identity}) kept beside {} (measured on {}): same op on {}, another device",
                entry.origin,
                other.origin,
                other.measurement.identity(),
                entry.target
            ));
        }
        entries.push(entry);
        return true;
    };
    let old = &entries[index];
    // Ties are broken by the text, so that merging shards in any order gives one library.
    let faster = entry.measurement.tuned_us < old.measurement.tuned_us
        || (entry.measurement.tuned_us == old.measurement.tuned_us && entry.text < old.text);
    if faster {
        notes.push(format!(
            "{} ({} us) replaces {} ({} us): same op on {}, faster on {identity}",
            entry.origin,
            entry.measurement.tuned_us,
            old.origin,
            old.measurement.tuned_us,
            entry.target
        ));
        entries[index] = entry;
        true
    } else {
        notes.push(format!(
            "{} ({} us) not imported: {} ({} us) matches the same op on {} and is as fast or faster on {identity}",
            entry.origin,
            entry.measurement.tuned_us,
            old.origin,
            old.measurement.tuned_us,
            entry.target
        ));
        false
    }
}

/// The library's files, written by `tool` (one of [`WRITERS`]): each entry's spec (kept at its
/// place, or `TARGET/<subject>.mlir`) and the manifest, which lists each entry under its
/// target's own `[targets.NAME]` where the library defines it, else under `[extend.NAME]`.
pub fn library_files(library: &mut Library, tool: &str) -> Vec<(String, String)> {
    let entries = &mut library.entries;
    let mut taken: Vec<String> = entries.iter().filter_map(|e| e.file.clone()).collect();
    // New entries are named in a canonical order (target, key, text), not in the order they
    // came: shards merged in any order get the same file names.
    let mut new: Vec<&mut Entry> = entries
        .iter_mut()
        .filter(|entry| entry.file.is_none())
        .collect();
    new.sort_by(|a, b| {
        (&a.target, a.key.to_string(), &a.text).cmp(&(&b.target, b.key.to_string(), &b.text))
    });
    for entry in new {
        let stem = tuner_import::file_stem(entry.measurement.subject.name());
        let mut file = format!("{}/{stem}.mlir", entry.target);
        let mut n = 2;
        while taken.contains(&file) {
            file = format!("{}/{stem}-{n}.mlir", entry.target);
            n += 1;
        }
        taken.push(file.clone());
        entry.file = Some(file);
    }
    let mut targets: Vec<(String, Vec<String>)> = Vec::new();
    let mut files = Vec::new();
    for entry in entries.iter() {
        let file = entry.file.clone().unwrap_or_default();
        match targets
            .iter_mut()
            .find(|(target, _)| *target == entry.target)
        {
            Some((_, specs)) => specs.push(file.clone()),
            None => targets.push((entry.target.clone(), vec![file.clone()])),
        }
        files.push((file, entry.text.clone()));
    }
    for (_, specs) in targets.iter_mut() {
        specs.sort();
    }
    targets.sort();
    files.push((
        "registry.toml".to_string(),
        tuner_import::manifest_text(tool, &targets, &library.targets),
    ));
    files
}

/// The manifest of the measured library at `output`, or `None` when there is nothing to read
/// (no `output`, or an empty directory). Anything else at `output` is refused: a command that
/// replaces a measured library whole (`store pull`) must not replace a directory of someone's
/// own files.
pub fn written_manifest(output: &Path) -> Result<Option<String>, String> {
    let Ok(metadata) = std::fs::symlink_metadata(output) else {
        return Ok(None);
    };
    if !metadata.is_dir() {
        return Err(format!(
            "{} exists and is not a directory",
            output.display()
        ));
    }
    let manifest_path = output.join("registry.toml");
    let manifest = match crate::files::read_input_text(&manifest_path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(format!(
                "cannot read {}: {}",
                manifest_path.display(),
                crate::problem::io_message(&error)
            ))
        }
    };
    let writer = tunespec_core::manifest::written_by(&manifest);
    if !writer.is_some_and(|writer| WRITERS.contains(&writer)) {
        let empty = std::fs::read_dir(output)
            .map_err(|error| format!("cannot read {}: {error}", output.display()))?
            .next()
            .is_none();
        if empty {
            return Ok(None);
        }
        return Err(format!(
            "{} is not empty and was not written by `tunespec import-tuner`, `tunespec bench` or `tunespec store pull`; choose another directory",
            output.display()
        ));
    }
    Ok(Some(manifest))
}

/// The library at `output` a measured-library writer wrote (empty if `output` does not exist or
/// is an empty directory). Anything else at `output` is refused.
pub fn existing(mlir: &Mlir, output: &Path) -> Result<Library, String> {
    let Some(manifest) = written_manifest(output)? else {
        return Ok(Library::default());
    };
    let manifest_path = output.join("registry.toml");
    let parsed = crate::manifest::parse(&manifest, &manifest_path.display().to_string())
        .map_err(|problems| crate::manifest::one_line(&problems))?;
    let mut library = Library {
        targets: parsed
            .targets
            .iter()
            .map(|(name, entry)| Definition::read(name.get_ref(), entry))
            .collect(),
        entries: Vec::new(),
    };
    for (_, target, spec) in parsed.listed_specs() {
        library
            .entries
            .push(read_entry(mlir, output, target, &spec.path)?);
    }
    Ok(library)
}

/// The entries of a library a measured-library writer wrote; see [`existing`].
pub fn existing_entries(mlir: &Mlir, output: &Path) -> Result<Vec<Entry>, String> {
    existing(mlir, output).map(|library| library.entries)
}

/// One listed spec of a measured library, read back as its entry.
fn read_entry(mlir: &Mlir, output: &Path, target: &str, file: &str) -> Result<Entry, String> {
    let path = output.join(file);
    let text = crate::files::read_input_text(&path).map_err(|error| {
        format!(
            "cannot read {}: {}",
            path.display(),
            crate::problem::io_message(&error)
        )
    })?;
    let name = path.display().to_string();
    let verified = verify::verify_bytes(mlir, text.as_bytes(), &name);
    let keyed = verified.snapshot.as_ref().and_then(|module| {
        let matchers = tuner_import::keyed_matchers(module);
        let matcher = matchers.into_iter().next()?;
        let measurement = tuner_import::recorded_measurement(module, &matcher.name)?;
        Some((matcher, measurement))
    });
    let Some((matcher, measurement)) = keyed else {
        return Err(format!(
            "{name}: no measured matcher (tunespec.measurement); was the library edited?"
        ));
    };
    Ok(Entry {
        target: target.to_string(),
        key: matcher.key.for_target(target.to_string()),
        file: Some(file.to_string()),
        text,
        measurement,
        origin: format!("{name} ({})", matcher.name),
    })
}

/// Writes `files` (relative path, text) as the directory `output`: staged in a fresh directory
/// next to it, then renamed into place (an existing `output` is replaced whole; missing parents
/// are created).
pub fn write_directory(output: &Path, files: &[(String, String)]) -> Result<(), String> {
    let parent = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // The library is a directory this command creates: its missing parents are created too
    // (`-o tuning/team` in a fresh checkout), as `mkdir -p` would.
    std::fs::create_dir_all(&parent)
        .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".tunespec-import-")
        .tempdir_in(&parent)
        .map_err(|error| format!("cannot create a directory in {}: {error}", parent.display()))?;
    for (relative, text) in files {
        let path = staging.path().join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
        }
        std::fs::write(&path, text)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    let staged = staging.keep();
    let old = parent.join(format!(".tunespec-import-old-{}", std::process::id()));
    let replacing = output.exists();
    if replacing {
        std::fs::rename(output, &old)
            .map_err(|error| format!("cannot move {} aside: {error}", output.display()))?;
    }
    if let Err(error) = std::fs::rename(&staged, output) {
        if replacing {
            let _ = std::fs::rename(&old, output);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(format!("cannot create {}: {error}", output.display()));
    }
    if replacing {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}
