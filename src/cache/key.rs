//! The cache key: a fixed, length-prefixed preimage of everything that changes a linked
//! library, and its BLAKE3 hash (see the module documentation of `cache`).

use super::*;

/// One input of a key: role, display name (stored warnings name it), the file name its
/// locations carry in the library, and hash and length of the exact bytes read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInput {
    /// Whether a user spec or a default spec (and of which target).
    pub role: Role,
    /// The display name (stored warnings name it).
    pub name: String,
    /// The file name its locations carry in the library.
    pub location: String,
    /// Length of the bytes read.
    pub len: u64,
    /// BLAKE3 of the bytes read.
    pub hash: [u8; 32],
}

/// Everything a key is made of. [`KeyParts::new`] fills in this build's constants; tests change
/// one field at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyParts {
    /// The key schema ([`SCHEMA`]).
    pub schema: u32,
    /// tunespec's version.
    pub tunespec_version: String,
    /// Fingerprint of the sources that decide the output ([`build_fingerprint`]).
    pub build: String,
    /// The MLIR release tunespec is built with.
    pub mlir_version: String,
    /// Producer string of the MLIR build ([`mlir_producer`]).
    pub mlir_producer: String,
    /// The bytecode version written.
    pub bytecode_version: i64,
    /// The target as resolved (may be empty when no target is involved).
    pub target: String,
    /// The linked library's entry point.
    pub entry_point: String,
    /// `--dedupe`.
    pub dedupe: bool,
    /// Whether derived pairs are linked ([`LinkOptions::derived`]).
    pub derived: bool,
    /// Whose measurements win ([`LinkOptions::measured_on`]).
    pub measured_on: Option<String>,
    /// What the entry holds: the library as bytecode, or as printed text.
    pub form: Form,
    /// The inputs, highest priority first.
    pub inputs: Vec<KeyInput>,
}

/// The form of a cached library. Text is cached separately because printing a large library
/// costs more than linking it from cached bytecode (26 MB of text: about a second), and a hit
/// should cost only a copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// MLIR bytecode (version [`BYTECODE_VERSION`]).
    #[default]
    Bytecode,
    /// The library printed as MLIR text (what `link --emit mlir` writes).
    Text,
    /// Not a library: IREE's dispatches of a model (generic IR text), see [`dispatches_key`].
    Dispatches,
    /// Not a library: any other pure answer kept as its bytes (IREE's bytecode of a library, a
    /// library cut down for one payload), see [`answer_key`]. The entry's checksum is its only
    /// check.
    Bytes,
}

/// The key of IREE's dispatches of a model at `phase`: everything that changes them, as
/// compile caches learned to key: the model's exact bytes (BLAKE3 and length) and the name its
/// locations carry, IREE's full revision (switching venvs never serves another IREE's
/// dispatches), the session flags in order, the phase, tunespec's version and source
/// fingerprint (what asks IREE and how), and the entry schema. A separate domain tag keeps
/// these keys apart from every library key.
pub fn dispatches_key(
    model: &[u8],
    name: &str,
    revision: &str,
    flags: &[String],
    phase: &str,
) -> Key {
    pure_key(
        "tunespec-dispatches-key",
        Form::Dispatches,
        model,
        name,
        revision,
        flags,
        phase,
    )
}

/// The key of any other answer that is a pure function of `input` and the rest (kept as
/// bytes, [`Form::Bytes`]): the same fields as [`dispatches_key`] under a domain tag of its
/// own, so that no answer is ever served for another kind of question.
pub fn answer_key(input: &[u8], name: &str, revision: &str, flags: &[String], phase: &str) -> Key {
    pure_key(
        "tunespec-answer-key",
        Form::Bytes,
        input,
        name,
        revision,
        flags,
        phase,
    )
}

fn pure_key(
    domain: &str,
    form: Form,
    model: &[u8],
    name: &str,
    revision: &str,
    flags: &[String],
    phase: &str,
) -> Key {
    fn field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(value.len() as u64).to_le_bytes());
        out.extend_from_slice(value);
    }
    let mut out = Vec::with_capacity(512);
    field(&mut out, domain, b"");
    field(&mut out, "schema", &SCHEMA.to_le_bytes());
    field(&mut out, "tunespec", env!("CARGO_PKG_VERSION").as_bytes());
    field(&mut out, "build", build_fingerprint().as_bytes());
    field(&mut out, "iree-revision", revision.as_bytes());
    field(&mut out, "flags", &(flags.len() as u64).to_le_bytes());
    for flag in flags {
        field(&mut out, "flag", flag.as_bytes());
    }
    field(&mut out, "phase", phase.as_bytes());
    field(&mut out, "name", name.as_bytes());
    field(&mut out, "len", &(model.len() as u64).to_le_bytes());
    field(&mut out, "blake3", blake3::hash(model).as_bytes());
    Key {
        hash: *blake3::hash(&out).as_bytes(),
        preimage: out,
        form,
    }
}

impl KeyParts {
    /// The key parts of linking `inputs` (highest priority first) for `target` with `options`.
    pub fn new(target: &str, inputs: &[LinkInput], options: &LinkOptions) -> Self {
        // Destructured on purpose: a new option must be added to the key before this compiles.
        // `threads` never changes the linked library, so it is not part of the key.
        let LinkOptions {
            dedupe,
            threads: _,
            derived,
            measured_on,
        } = options.clone();
        KeyParts {
            schema: SCHEMA,
            tunespec_version: env!("CARGO_PKG_VERSION").to_string(),
            build: build_fingerprint().to_string(),
            mlir_version: MLIR_VERSION.to_string(),
            mlir_producer: mlir_producer().to_string(),
            bytecode_version: BYTECODE_VERSION,
            target: target.to_string(),
            entry_point: names::KERNEL_CONFIG.to_string(),
            dedupe,
            derived,
            measured_on,
            form: Form::Bytecode,
            inputs: inputs
                .iter()
                .map(|input| KeyInput {
                    role: input.role.clone(),
                    name: input.name.clone(),
                    location: input.location.clone(),
                    len: input.bytes.len() as u64,
                    hash: *blake3::hash(&input.bytes).as_bytes(),
                })
                .collect(),
        }
    }

    /// The fixed encoding: a domain tag, then `name = value` fields in a fixed order, each as
    /// u32 LE name length, name, u64 LE value length, value.
    pub fn preimage(&self) -> Vec<u8> {
        fn field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(value.len() as u64).to_le_bytes());
            out.extend_from_slice(value);
        }
        let mut out = Vec::with_capacity(256 + self.inputs.len() * 96);
        field(&mut out, "tunespec-cache-key", b"");
        field(&mut out, "schema", &self.schema.to_le_bytes());
        field(&mut out, "tunespec", self.tunespec_version.as_bytes());
        field(&mut out, "build", self.build.as_bytes());
        field(&mut out, "mlir", self.mlir_version.as_bytes());
        field(&mut out, "mlir-producer", self.mlir_producer.as_bytes());
        field(&mut out, "bytecode", &self.bytecode_version.to_le_bytes());
        field(&mut out, "target", self.target.as_bytes());
        field(&mut out, "entry-point", self.entry_point.as_bytes());
        field(&mut out, "dedupe", &[u8::from(self.dedupe)]);
        field(&mut out, "derived", &[u8::from(self.derived)]);
        // Absent when not chosen: keys of links without it are as before.
        if let Some(device) = &self.measured_on {
            field(&mut out, "measured_on", device.as_bytes());
        }
        let form: &[u8] = match self.form {
            Form::Bytecode => b"mlirbc",
            Form::Text => b"mlir",
            Form::Dispatches => b"dispatches",
            Form::Bytes => b"bytes",
        };
        field(&mut out, "form", form);
        field(
            &mut out,
            "inputs",
            &(self.inputs.len() as u64).to_le_bytes(),
        );
        for input in &self.inputs {
            match &input.role {
                Role::User => field(&mut out, "role", b"user"),
                Role::Library => field(&mut out, "role", b"library"),
                Role::IreeDefault => field(&mut out, "role", b"iree-default"),
                Role::Default { target } => {
                    field(&mut out, "role", b"default");
                    field(&mut out, "role-target", target.as_bytes());
                }
            }
            field(&mut out, "name", input.name.as_bytes());
            field(&mut out, "location", input.location.as_bytes());
            field(&mut out, "len", &input.len.to_le_bytes());
            field(&mut out, "blake3", &input.hash);
        }
        out
    }

    /// The key: the preimage and its hash.
    pub fn key(&self) -> Key {
        let preimage = self.preimage();
        Key {
            hash: *blake3::hash(&preimage).as_bytes(),
            preimage,
            form: self.form,
        }
    }
}

/// A cache key: the BLAKE3 hash of a preimage, and the preimage (compared on load).
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    pub(super) hash: [u8; 32],
    pub(super) preimage: Vec<u8>,
    /// Also in the preimage; kept apart so that an entry's payload can be checked by its form.
    pub(super) form: Form,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Key({}, {} preimage bytes)",
            self.hex(),
            self.preimage.len()
        )
    }
}

impl Key {
    /// The BLAKE3 hash (the entry's name).
    pub fn hash(&self) -> &[u8; 32] {
        &self.hash
    }
    /// The preimage (stored in the entry and compared on load).
    pub fn preimage(&self) -> &[u8] {
        &self.preimage
    }
    /// 64 lowercase hex digits: the entry's file name.
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.hash).to_hex().to_string()
    }
}

/// A fingerprint of the sources that decide the linked output: the stand-in for a git hash that
/// makes a cache shared by development builds safe. build.rs hashes whole source trees (see its
/// `FINGERPRINTED_TREES`), so no list of files here can fall out of date.
pub fn build_fingerprint() -> &'static str {
    env!("TUNESPEC_SOURCE_FINGERPRINT")
}

/// The producer string MLIR wrote into the embedded specs' bytecode (`MLIR22.1.8`): the exact
/// MLIR release tunespec was built with, with no build-script support.
pub fn mlir_producer() -> &'static str {
    // Memoised, not a setting: a constant of the build (the embedded specs), the same for
    // every caller.
    static PRODUCER: OnceLock<String> = OnceLock::new();
    PRODUCER.get_or_init(|| {
        registry::specs()
            .iter()
            .find_map(|spec| bytecode_producer(spec.bytecode()))
            .unwrap_or_else(|| format!("MLIR{MLIR_VERSION}"))
    })
}

/// Reads the producer of MLIR bytecode: magic `ML\xEFR`, a prefix varint version, then a
/// NUL-terminated string.
pub(super) fn bytecode_producer(bytes: &[u8]) -> Option<String> {
    let rest = bytes.strip_prefix(b"ML\xEFR")?;
    let first = *rest.first()?;
    let varint_len = if first == 0 {
        9
    } else {
        first.trailing_zeros() as usize + 1
    };
    let rest = rest.get(varint_len..)?;
    let end = rest.iter().take(256).position(|&byte| byte == 0)?;
    String::from_utf8(rest[..end].to_vec()).ok()
}
