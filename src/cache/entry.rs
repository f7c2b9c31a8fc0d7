//! The entry format: header, key preimage, stored warnings and payload, with a checksum keyed by
//! the cache's secret (layout in the module documentation of `cache`).

use super::*;

/// A warning as stored in an entry.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredProblem {
    pub(super) code: String,
    pub(super) severity: String,
    pub(super) message: String,
    pub(super) loc: Option<StoredLoc>,
    pub(super) help: Option<String>,
    pub(super) related: Vec<(StoredLoc, String)>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct StoredLoc {
    pub(super) file: String,
    pub(super) line: u32,
    pub(super) col: u32,
}

impl StoredLoc {
    pub(super) fn from_loc(loc: &Loc) -> Self {
        StoredLoc {
            file: loc.file.clone(),
            line: loc.line,
            col: loc.col,
        }
    }
    pub(super) fn into_loc(self) -> Loc {
        Loc {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }
}

pub(super) fn encode_problems(problems: &[Problem]) -> Vec<u8> {
    let stored: Vec<StoredProblem> = problems
        .iter()
        .map(|problem| StoredProblem {
            code: problem.code.to_string(),
            severity: problem.severity.as_str().to_string(),
            message: problem.message.clone(),
            loc: problem.loc.as_ref().map(StoredLoc::from_loc),
            help: problem.help.clone(),
            related: problem
                .related
                .iter()
                .map(|(loc, label)| (StoredLoc::from_loc(loc), label.clone()))
                .collect(),
        })
        .collect();
    serde_json::to_vec(&stored).unwrap_or_else(|_| b"[]".to_vec())
}

pub(super) fn decode_problems(bytes: &[u8]) -> Option<Vec<Problem>> {
    let stored: Vec<StoredProblem> = serde_json::from_slice(bytes).ok()?;
    stored
        .into_iter()
        .map(|problem| {
            Some(Problem {
                code: intern_code(&problem.code),
                severity: match problem.severity.as_str() {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    "note" => Severity::Note,
                    _ => return None,
                },
                message: problem.message,
                loc: problem.loc.map(StoredLoc::into_loc),
                help: problem.help,
                related: problem
                    .related
                    .into_iter()
                    .map(|(loc, label)| (loc.into_loc(), label))
                    .collect(),
            })
        })
        .collect()
}

/// `Problem::code` is `&'static str`: codes read back from entries are interned, each distinct
/// code once per process (there are a few dozen). Process-wide by nature: a leaked string lives
/// as long as the process, and one table keeps each code from leaking twice; it decides nothing.
pub(super) fn intern_code(code: &str) -> &'static str {
    static CODES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut codes = lock(CODES.get_or_init(Mutex::default));
    if let Some(&known) = codes.get(code) {
        return known;
    }
    let leaked: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.insert(leaked);
    leaked
}

/// The bytes of an entry (layout in the module documentation), with an unkeyed checksum: what a
/// forger without the cache's secret can write. Disk entries use [`encode_entry_with`].
pub fn encode_entry(key: &Key, artifact: &Artifact) -> Vec<u8> {
    encode_entry_with(key, artifact, None)
}

/// The checksum of an entry: BLAKE3, keyed with the cache's secret when given.
pub(super) fn checksum_hasher(secret: Option<&[u8; 32]>) -> blake3::Hasher {
    match secret {
        Some(secret) => blake3::Hasher::new_keyed(secret),
        None => blake3::Hasher::new(),
    }
}

/// The bytes of an entry whose checksum is keyed with `secret`.
pub fn encode_entry_with(key: &Key, artifact: &Artifact, secret: Option<&[u8; 32]>) -> Vec<u8> {
    let problems = encode_problems(&artifact.problems);
    let mut head = Vec::with_capacity(28);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&SCHEMA.to_le_bytes());
    head.extend_from_slice(&(key.preimage.len() as u32).to_le_bytes());
    head.extend_from_slice(&(problems.len() as u32).to_le_bytes());
    head.extend_from_slice(&(artifact.bytecode.len() as u64).to_le_bytes());
    let mut hasher = checksum_hasher(secret);
    hasher.update(&head);
    hasher.update(&key.preimage);
    hasher.update(&problems);
    hasher.update(&artifact.bytecode);
    let mut out = Vec::with_capacity(
        HEADER_LEN + key.preimage.len() + problems.len() + artifact.bytecode.len(),
    );
    out.extend_from_slice(&head);
    out.extend_from_slice(hasher.finalize().as_bytes());
    out.extend_from_slice(&key.preimage);
    out.extend_from_slice(&problems);
    out.extend_from_slice(&artifact.bytecode);
    out
}

/// Why an entry was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryError {
    /// Not a tunespec cache entry (wrong magic).
    Magic,
    /// Written by another schema.
    Schema,
    /// Lengths that do not add up to the file's.
    Length,
    /// The entry of another key (preimage mismatch).
    Preimage,
    /// The checksum does not match (torn, flipped, or forged).
    Checksum,
    /// The stored warnings do not decode.
    Problems,
    /// The payload is not what the key's form says.
    Payload,
}

/// Checks an entry with an unkeyed checksum against `key` (see [`decode_entry_with`]).
pub fn decode_entry(bytes: &[u8], key: &Key) -> Result<Artifact, EntryError> {
    decode_entry_with(bytes, key, None)
}

/// Checks an entry read from disk against `key`, its checksum keyed with `secret`; every field
/// is checked before anything is used.
pub fn decode_entry_with(
    bytes: &[u8],
    key: &Key,
    secret: Option<&[u8; 32]>,
) -> Result<Artifact, EntryError> {
    if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
        return Err(EntryError::Magic);
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    if u32_at(8) != SCHEMA {
        return Err(EntryError::Schema);
    }
    let preimage_len = u32_at(12) as u64;
    let problems_len = u32_at(16) as u64;
    let payload_len = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    let expected = (HEADER_LEN as u64)
        .checked_add(preimage_len)
        .and_then(|total| total.checked_add(problems_len))
        .and_then(|total| total.checked_add(payload_len));
    if expected != Some(bytes.len() as u64) {
        return Err(EntryError::Length);
    }
    let preimage_end = HEADER_LEN + preimage_len as usize;
    let problems_end = preimage_end + problems_len as usize;
    if bytes[HEADER_LEN..preimage_end] != key.preimage[..] {
        return Err(EntryError::Preimage);
    }
    let mut hasher = checksum_hasher(secret);
    hasher.update(&bytes[..28]);
    hasher.update(&bytes[HEADER_LEN..]);
    if hasher.finalize() != blake3::Hash::from_bytes(bytes[28..60].try_into().expect("32 bytes")) {
        return Err(EntryError::Checksum);
    }
    let problems =
        decode_problems(&bytes[preimage_end..problems_end]).ok_or(EntryError::Problems)?;
    let payload = &bytes[problems_end..];
    let well_formed = match key.form {
        Form::Bytecode => payload.starts_with(b"ML\xEFR"),
        Form::Text | Form::Dispatches => {
            !payload.starts_with(b"ML\xEFR") && std::str::from_utf8(payload).is_ok()
        }
        Form::Bytes => true,
    };
    if !well_formed {
        return Err(EntryError::Payload);
    }
    Ok(Artifact {
        bytecode: payload.to_vec(),
        problems,
    })
}
