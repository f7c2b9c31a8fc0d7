//! Careful file access: reading inputs, walking spec directories, and deciding whether a
//! directory or file that tunespec did not just create may be trusted.
//!
//! Why a module: tunespec runs as root in containers, in CI and on shared build machines, where
//! inputs can be FIFOs or devices, directories can hold dangling links, and a cache or config
//! can belong to someone else. Every read of an input goes through [`read_input`] (bounded, never
//! blocks on a FIFO without a writer, checks the file type before reading), every
//! file of tunespec's own state is opened with [`open_private`] (`O_NOFOLLOW`, `O_NONBLOCK`).

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Nothing larger is read as an input (the limit `tunespec verify` puts on specs and payloads).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Nothing larger is read from a stream (a pipe, FIFO, character device or stdin).
///
/// Why lower than [`MAX_INPUT_BYTES`]: a regular file's size is known before a byte is read,
/// a stream's only once it ends, so the limit is what an endless stream costs before it is
/// refused (memory, and time: at a pipe's speed 256 MiB is a fraction of a second). A spec or
/// a payload of IR is far below it; a model that large keeps its weights out of line, and a
/// file of any size up to [`MAX_INPUT_BYTES`] can still be named as a path.
pub const MAX_STREAM_BYTES: u64 = 256 << 20;

/// How much of a stream's start is looked at for a NUL byte (see [`read_stream`]).
const SNIFF_BYTES: usize = 64 << 10;

/// How much is asked of a stream per read: large reads keep a fast stream's cost at a copy.
const STREAM_CHUNK: usize = 1 << 20;

/// Reads an input file whole: a regular file (its size checked from its metadata before
/// reading), or a stream (FIFO, pipe, character device) through a reader bounded by
/// [`MAX_INPUT_BYTES`]. A FIFO without a writer reads as empty instead of blocking; a directory
/// is an error.
pub fn read_input(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    read_bounded(path.as_ref(), MAX_INPUT_BYTES, false)
}

/// [`read_input`] as text (a UTF-8 error is `InvalidData`).
pub fn read_input_text(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read_input(path)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "is not valid UTF-8"))
}

/// Reads one of tunespec's own files (a cache's counters or secret): not through a symlink,
/// regular files only, at most `limit` bytes.
pub fn read_private(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_bounded(path, limit, true)
}

fn read_bounded(path: &Path, limit: u64, private: bool) -> io::Result<Vec<u8>> {
    let mut flags = libc::O_NONBLOCK;
    if private {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    let metadata = file.metadata()?;
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if !kind.is_file() && private {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file",
        ));
    }
    if kind.is_file() && metadata.len() > limit {
        return Err(too_large(limit));
    }
    // Streams are read blocking (a pipe's writer may be slow), but only once open: a FIFO
    // without a writer was opened without waiting and reads as empty.
    let flags = rustix::fs::fcntl_getfl(&file)?;
    rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)?;
    if !kind.is_file() {
        return read_stream(file, limit.min(MAX_STREAM_BYTES));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// Reads a stream to its end in large reads, refusing it as soon as it passes `limit`, or as
/// soon as its start shows it is not MLIR: a NUL byte in its first [`SNIFF_BYTES`] when it does
/// not begin with MLIR's bytecode magic (MLIR text never holds one; `/dev/zero` is refused at
/// its first read instead of after `limit` bytes).
fn read_stream(mut reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; STREAM_CHUNK];
    let mut sniffed = 0;
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if (bytes.len() + read) as u64 > limit {
            return Err(too_large_stream(limit));
        }
        bytes.extend_from_slice(&chunk[..read]);
        if sniffed < SNIFF_BYTES {
            let end = bytes.len().min(SNIFF_BYTES);
            let bytecode = bytes.starts_with(&crate::verify::BYTECODE_MAGIC[..bytes.len().min(4)]);
            if !bytecode {
                if let Some(at) = bytes[sniffed..end].iter().position(|&byte| byte == 0) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "is not MLIR: a NUL byte at offset {} of a stream that does not start as MLIR bytecode",
                            sniffed + at
                        ),
                    ));
                }
            }
            sniffed = end;
        }
    }
}

fn too_large_stream(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "is a stream larger than the {} MiB limit for streams (a regular file may be up to {} MiB)",
            limit >> 20,
            MAX_INPUT_BYTES >> 20
        ),
    )
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("is larger than the {} MiB input limit", limit >> 20),
    )
}

/// Opens (creating it if missing) one of tunespec's own files for appending or locking: never
/// through a symlink, never a FIFO or device (`O_NOFOLLOW | O_NONBLOCK`, then the type is
/// checked).
pub fn open_private(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Why a directory that tunespec keeps its own state in (the cache) cannot be trusted, if it
/// cannot: it is owned by someone other than this user or root, or others may write to it
/// without the sticky bit (they could plant links or forge files). Symlinks to the directory
/// are followed (a cache under a linked home is fine).
pub fn untrusted_dir(metadata: &Metadata) -> Option<String> {
    if !metadata.is_dir() {
        return Some("is not a directory".to_string());
    }
    let owner = metadata.uid();
    if owner != euid() && owner != 0 {
        return Some(format!("is owned by another user (uid {owner})"));
    }
    let mode = metadata.mode();
    if mode & 0o002 != 0 && mode & 0o1000 == 0 {
        return Some("is writable by every user (and not sticky)".to_string());
    }
    None
}

/// Whether a config file may be used: owned by this user, by root, or by the owner of the
/// directory it is in.
pub fn trusted_config(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return true; // an unreadable file is reported when it is read
    };
    let owner = metadata.uid();
    if owner == euid() || owner == 0 {
        return true;
    }
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    std::fs::metadata(dir).is_ok_and(|dir| dir.uid() == owner && dir.mode() & 0o022 == 0)
}

/// Follows `path` through symlinks to the file it names (which may not exist yet), at most 40
/// links deep. Relative links resolve against their link's directory.
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Device and inode of a path (following symlinks), if it exists.
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path)
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

/// An I/O error's message without the temporary file's path that `tempfile` appends to errors
/// of creating or writing its files (`... at path "/dir/.tunespec-XXXX"`): tunespec's messages
/// name the user's file, never its own temporary one.
pub fn without_temp_path(error: &io::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at path \"") {
        Some(end) => message[..end].to_string(),
        None => message,
    }
}

/// How diagnostics name input read from standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// What read standard input first (`--spec -`, the payload), and what it read. Process-wide by
/// nature: a process has one standard input, and it can be read only once.
static STDIN: std::sync::Mutex<Option<(String, std::sync::Arc<Vec<u8>>)>> =
    std::sync::Mutex::new(None);

/// All of standard input (at most [`MAX_INPUT_BYTES`]), read once per process for `reader`
/// (`--spec -`, "the payload"): later calls for the same reader get the same bytes (a command
/// may resolve its specs more than once), and a call for another reader is an error, since
/// stdin can feed only one input.
pub fn read_stdin(reader: &str) -> io::Result<std::sync::Arc<Vec<u8>>> {
    let mut state = STDIN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((first, bytes)) = state.as_ref() {
        return if first == reader {
            Ok(bytes.clone())
        } else {
            Err(io::Error::other(format!(
                "standard input is already read as {first}; it cannot also be {reader}"
            )))
        };
    }
    let stdin = io::stdin().lock();
    // A regular file redirected to stdin has a known size: the file limit; anything else is a
    // stream.
    let bytes = match rustix::fs::fstat(&stdin) {
        Ok(stat) if rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file() => {
            let mut bytes = Vec::new();
            stdin.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > MAX_INPUT_BYTES {
                return Err(too_large(MAX_INPUT_BYTES));
            }
            bytes
        }
        _ => read_stream(stdin, MAX_STREAM_BYTES)?,
    };
    let bytes = std::sync::Arc::new(bytes);
    *state = Some((reader.to_string(), bytes.clone()));
    Ok(bytes)
}
