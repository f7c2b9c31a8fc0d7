//! Cache entry -> `cache::decode_entry`: what a cache hit reads from disk before trusting it.
//!
//! The first byte chooses the mode:
//! - even: the rest is an entry file, decoded as is against a fixed key (header parsing:
//!   magic, schema, lengths that overflow or disagree with the file length);
//! - odd: the rest is `problems JSON` NUL `payload`, sealed by this harness into a well-formed
//!   entry (documented layout, the key's preimage, a correct BLAKE3 checksum) so that decoding
//!   reaches the stored warnings and the payload check; bit 1 then flips one byte of the sealed
//!   entry (the position from bytes 1..3, the mask is the mode byte).
//!
//! Properties: no panic; a decoded entry holds exactly the sealed payload and re-encodes to an
//! entry that decodes to the same artifact (stored warnings are whatever the checksum covers:
//! their codes are not checked, only rendered); a sealed entry with `[]` warnings and a bytecode
//! payload decodes; any single flipped byte is refused; stored warnings render.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tunespec::cache::{self, Key, KeyParts, MAGIC, SCHEMA};
use tunespec::link::{LinkInput, LinkOptions};
use tunespec::verify::BYTECODE_MAGIC;

#[path = "common.rs"]
mod common;

fn key() -> &'static Key {
    static KEY: OnceLock<Key> = OnceLock::new();
    KEY.get_or_init(|| {
        let inputs: [LinkInput; 0] = [];
        KeyParts::new("gfx942", &inputs, LinkOptions::default()).key()
    })
}

/// An entry as `encode_entry` lays it out, from raw parts.
fn seal(key: &Key, problems: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut entry = Vec::new();
    entry.extend_from_slice(&MAGIC);
    entry.extend_from_slice(&SCHEMA.to_le_bytes());
    entry.extend_from_slice(&(key.preimage().len() as u32).to_le_bytes());
    entry.extend_from_slice(&(problems.len() as u32).to_le_bytes());
    entry.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut hasher = blake3::Hasher::new();
    hasher.update(&entry);
    hasher.update(key.preimage());
    hasher.update(problems);
    hasher.update(payload);
    entry.extend_from_slice(hasher.finalize().as_bytes());
    entry.extend_from_slice(key.preimage());
    entry.extend_from_slice(problems);
    entry.extend_from_slice(payload);
    entry
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let key = key();
    if mode & 1 == 0 {
        if let Ok(artifact) = cache::decode_entry(body, key) {
            // Only an entry with a correct checksum gets here.
            common::render_problems(&artifact.problems, None);
            assert!(artifact.bytecode.starts_with(BYTECODE_MAGIC));
        }
        return;
    }
    let split = body
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(body.len());
    let problems = &body[..split];
    let payload = body.get(split + 1..).unwrap_or_default();
    let mut entry = seal(key, problems, payload);
    let result = cache::decode_entry(&entry, key);
    match &result {
        Ok(artifact) => {
            assert_eq!(
                artifact.bytecode, payload,
                "decoded payload differs from the stored one"
            );
            common::render_problems(&artifact.problems, None);
            let encoded = cache::encode_entry(key, artifact);
            let again = cache::decode_entry(&encoded, key).expect("a re-encoded entry decodes");
            assert_eq!(again.bytecode, artifact.bytecode);
            assert_eq!(
                again.problems, artifact.problems,
                "warnings change on a round trip"
            );
        }
        Err(_) => assert!(
            !(problems == b"[]" && payload.starts_with(BYTECODE_MAGIC)),
            "a well-formed entry was refused: {result:?}"
        ),
    }
    if mode & 2 != 0 && data.len() >= 3 {
        let at = usize::from(u16::from_le_bytes([data[1], data[2]])) % entry.len();
        entry[at] ^= mode; // odd, so never zero
        let corrupt = cache::decode_entry(&entry, key);
        assert!(
            corrupt.is_err(),
            "an entry with byte {at} flipped was accepted"
        );
    }
});
