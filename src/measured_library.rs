//! A library of measured configs (what `import-tuner` and `bench --write` write): one spec per
//! measured matcher, each annotated with its measurement, and a manifest that lists them per
//! target. Entries merge by matcher key and target: a faster measurement replaces a slower one.
//!
//! Why in the library and not the CLI: `import-tuner`, `bench --write` and the Python package
//! write the same libraries, and merging the libraries of `bench --shard` runs must give the same
//! library whatever the order (ties broken by text, new files named in key order).

use std::path::{Path, PathBuf};

use crate::link::MatcherKey;
use crate::mlir::Mlir;
use crate::tuner_import::{self, Measurement};
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

/// Puts `entry` in: a new key is added; for a known key and target the faster measurement
/// stays, and the choice is noted. Returns whether `entry` went in.
pub fn merge(entries: &mut Vec<Entry>, entry: Entry, notes: &mut Vec<String>) -> bool {
    let Some(index) = entries
        .iter()
        .position(|old| old.target == entry.target && old.key == entry.key)
    else {
        entries.push(entry);
        return true;
    };
    let old = &entries[index];
    // Ties are broken by the text, so that merging shards in any order gives one library.
    let faster = entry.measurement.tuned_us < old.measurement.tuned_us
        || (entry.measurement.tuned_us == old.measurement.tuned_us && entry.text < old.text);
    if faster {
        notes.push(format!(
            "{} ({} us) replaces {} ({} us): same op on {}, faster",
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
            "{} ({} us) not imported: {} ({} us) matches the same op on {} and is as fast or faster",
            entry.origin,
            entry.measurement.tuned_us,
            old.origin,
            old.measurement.tuned_us,
            entry.target
        ));
        false
    }
}

/// The library's files: each entry's spec (kept at its place, or `TARGET/<dispatch>.mlir`) and
/// the manifest.
pub fn library_files(entries: &mut [Entry]) -> Vec<(String, String)> {
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
        let stem = tuner_import::file_stem(&entry.measurement.dispatch);
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
        tuner_import::manifest_text(&targets),
    ));
    files
}

/// The entries of a library this command wrote (none if `output` does not exist or is an
/// empty directory). Anything else at `output` is refused.
pub fn existing_entries(mlir: &Mlir, output: &Path) -> Result<Vec<Entry>, String> {
    let Ok(metadata) = std::fs::symlink_metadata(output) else {
        return Ok(Vec::new());
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
    if tunespec_core::manifest::written_by(&manifest) != Some(tuner_import::TOOL) {
        let empty = std::fs::read_dir(output)
            .map_err(|error| format!("cannot read {}: {error}", output.display()))?
            .next()
            .is_none();
        if empty {
            return Ok(Vec::new());
        }
        return Err(format!(
            "{} is not empty and was not written by `tunespec import-tuner`; choose another directory",
            output.display()
        ));
    }
    let parsed = crate::manifest::parse(&manifest, &manifest_path.display().to_string())
        .map_err(|problems| crate::manifest::one_line(&problems))?;
    let mut entries = Vec::new();
    let extended = parsed
        .listed_specs()
        .filter(|(table, _, _)| *table == crate::manifest::Table::Extend);
    for (_, target, spec) in extended {
        let (target, file) = (target.to_string(), spec.path.as_str());
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
        entries.push(Entry {
            target: target.clone(),
            key: matcher.key.for_target(target.clone()),
            file: Some(file.to_string()),
            text,
            measurement,
            origin: format!("{name} ({})", matcher.name),
        });
    }
    Ok(entries)
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
