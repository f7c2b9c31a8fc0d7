//! The journal of a tune: an append-only file of JSON lines in the output directory, each
//! candidate's outcome at each stage written (and `fsync`ed) as soon as it is known, so that the
//! same command after a crash or a `kill -9` continues where it stopped, without measuring a
//! finished candidate again.
//!
//! Why JSON lines: a crash can only cut the last line short, and a line that does not parse is
//! the one unfinished record (ignored: that candidate is measured again). The first line says
//! what was tuned (payload, flags, device, IREE, timing options): a journal of another run is
//! refused, never mixed in.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bench::stats::Comparison;
use crate::bench::Status;

/// The journal's file name in the output directory.
pub const FILE: &str = "journal.jsonl";

/// What a journal is of: a later run continues it only when its own header is equal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always `tunespec tune`.
    pub journal: String,
    /// The format's version.
    pub version: u32,
    /// BLAKE3 of the payload's bytes.
    pub payload: String,
    /// The target.
    pub target: String,
    /// iree-compile's flags.
    pub flags: Vec<String>,
    /// The runtime's device.
    pub device: String,
    /// The IREE compiler's revision.
    pub iree: String,
    /// How candidates were screened and confirmed (rounds, repetitions, rule), in words.
    pub timing: String,
}

/// A stage of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Few rounds, every candidate that compiles.
    Screen,
    /// Full rounds under the calibrated rule, the screen's best.
    Confirm,
    /// The model benched with the winners.
    Model,
}

/// One candidate's outcome at one stage.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// The dispatch's key ([`super::dispatches::Dispatch::key`]).
    pub dispatch: String,
    /// The candidate's number.
    pub candidate: usize,
    /// Its knobs in words.
    pub knobs: String,
    /// The stage.
    pub stage: Stage,
    /// Whether it compiled (a candidate that does not is never timed).
    pub compiled: bool,
    /// bench's outcome.
    pub status: Status,
    /// Why (failures, wrong outputs, unchanged).
    pub message: Option<String>,
    /// The largest absolute difference of its outputs from IREE's own config's.
    pub max_abs_diff: Option<f64>,
    /// The timing, when timed.
    pub timing: Option<Comparison>,
    /// The model's function (the model stage's records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// An open journal.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
}

impl Journal {
    /// Opens the journal of `dir` for `header`: its records when it is one of the same tune
    /// (an unfinished last line ignored), a new one when there is none; an error when it is the
    /// journal of another tune.
    pub fn open(dir: &Path, header: &Header) -> Result<(Journal, Vec<Record>), String> {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
        let path = dir.join(FILE);
        let mut records = Vec::new();
        // The journal is a file in the user's directory: read as any input is (bounded, its
        // type checked, problems worded).
        let existing = match crate::files::read_input_text(&path) {
            Ok(text) => Some(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => {
                return Err(format!(
                    "cannot read {}: {}",
                    path.display(),
                    crate::problem::io_message(&error)
                ))
            }
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
        match existing.as_deref().filter(|text| !text.trim().is_empty()) {
            Some(text) => {
                let mut lines = text.lines();
                let found: Option<Header> = lines
                    .next()
                    .and_then(|line| serde_json::from_str(line).ok());
                if found.as_ref() != Some(header) {
                    return Err(format!(
                        "{} is the journal of another tune (another payload, target, device, IREE or timing options): give another output directory, or remove it to start over",
                        path.display()
                    ));
                }
                records.extend(lines.filter_map(|line| serde_json::from_str(line).ok()));
                // A line cut short by a crash is ended, so the next record starts on its own.
                if !text.ends_with('\n') {
                    append(&mut file, &path, "")?;
                }
            }
            None => {
                let line = serde_json::to_string(header).map_err(|error| error.to_string())?;
                append(&mut file, &path, &line)?;
            }
        }
        Ok((Journal { path, file }, records))
    }

    /// Appends `record`, durably (written and synced before this returns).
    pub fn append(&mut self, record: &Record) -> Result<(), String> {
        let line = serde_json::to_string(record).map_err(|error| error.to_string())?;
        append(&mut self.file, &self.path, &line)
    }
}

fn append(file: &mut std::fs::File, path: &Path, line: &str) -> Result<(), String> {
    file.write_all(format!("{line}\n").as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            journal: "tunespec tune".into(),
            version: 1,
            payload: "abc".into(),
            target: "host".into(),
            flags: vec!["--iree-hal-target-device=local".into()],
            device: "local-task".into(),
            iree: "3.13.0".into(),
            timing: "rounds 10".into(),
        }
    }

    fn record(candidate: usize) -> Record {
        Record {
            dispatch: "matmul 8x8x8 f32*f32->f32".into(),
            candidate,
            knobs: "iree".into(),
            stage: Stage::Screen,
            compiled: true,
            status: Status::NoDifference,
            message: None,
            max_abs_diff: Some(0.0),
            timing: None,
            function: None,
        }
    }

    #[test]
    fn records_survive_a_reopen_and_a_line_cut_short_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, records) = Journal::open(dir.path(), &header()).unwrap();
        assert!(records.is_empty());
        journal.append(&record(0)).unwrap();
        journal.append(&record(1)).unwrap();
        drop(journal);
        // A crash in the middle of the third record.
        let path = dir.path().join(FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"dispatch\": \"matm");
        std::fs::write(&path, text).unwrap();
        let (mut journal, records) = Journal::open(dir.path(), &header()).unwrap();
        let numbers: Vec<usize> = records.iter().map(|r| r.candidate).collect();
        assert_eq!(numbers, vec![0, 1]);
        journal.append(&record(2)).unwrap();
        drop(journal);
        let (_, records) = Journal::open(dir.path(), &header()).unwrap();
        assert_eq!(records.len(), 3);
        let mut other = header();
        other.payload = "def".into();
        let error = Journal::open(dir.path(), &other).err().unwrap();
        assert!(error.contains("another tune"), "{error}");
    }
}
