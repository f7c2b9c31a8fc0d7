//! Writing outputs: atomically to a file (a temporary file next to it, then a rename), or
//! straight through a stream. A failed or interrupted write never leaves a half-written output.
//!
//! The rules (the way git, cargo and `sed -i` behave):
//! - `-` is stdout. A path that names a stream (`/dev/stdout`, `/dev/fd/3`, a FIFO, a device) is
//!   written through, never replaced: renaming a file over `/dev/stdout` would replace the link
//!   (or, as root, the device) with a regular file and leave the real stdout empty.
//! - A symlink is followed to the file it names, and that file is replaced (atomically, next to
//!   it); the link stays a link.
//! - A new file gets `0666` minus the umask; a replaced file keeps its mode (and, when tunespec
//!   runs as root, its owner and group).
//! - Several outputs of one command ([`write_outputs`]) are all written and synced before any is
//!   renamed into place: a full disk leaves none of them, not some.
//! - Temporary files are named `.tunespec-*`; ones a killed writer left behind are removed (when
//!   over a day old) from the directories tunespec writes to.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tunespec::files;
use tunespec::link::{LinkInput, Role};

/// Output form of a library.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// MLIR text
    #[default]
    Mlir,
    /// MLIR bytecode (emit version 6; 4 when matcher bodies hold payload ops)
    Mlirbc,
}

/// Prefix of temporary output files.
pub const TEMP_PREFIX: &str = ".tunespec-";
/// A temporary output file older than this was left by a writer that died.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(24 * 3600);

/// Writes `bytes` to `path` (`-` is stdout).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_outputs(&[(path, bytes)])
}

/// Writes several outputs all or nothing: every file is written to a temporary file and synced
/// before the first is renamed into place. Streams are written last.
pub fn write_outputs(outputs: &[(&Path, &[u8])]) -> Result<(), String> {
    let mut pending = Vec::new();
    let mut streams = Vec::new();
    for &(path, bytes) in outputs {
        match plan(path)? {
            Plan::File(target) => pending.push((path, target, prepare(path, bytes)?)),
            stream => streams.push((path, stream, bytes)),
        }
    }
    for (path, target, temporary) in pending {
        temporary
            .persist(&target)
            .map_err(|error| format!("cannot write {}: {}", path.display(), error.error))?;
        if let Some(directory) = target.parent() {
            sweep_stale_temps(directory);
        }
    }
    for (path, stream, bytes) in streams {
        write_stream(path, stream, bytes)?;
    }
    Ok(())
}

/// How an output is written.
enum Plan {
    /// Standard output or error (fd 1 or 2), as `-` is.
    Fd(i32),
    /// Written through in place: a FIFO, device or socket, or a stream named through
    /// `/dev/fd` or `/proc`.
    Direct(PathBuf),
    /// A regular file (existing or not), replaced atomically.
    File(PathBuf),
}

fn plan(path: &Path) -> Result<Plan, String> {
    if path.as_os_str() == "-" {
        return Ok(Plan::Fd(1));
    }
    let cannot = |error: std::io::Error| format!("cannot write {}: {error}", path.display());
    if names_a_stream(path) {
        // `/dev/stdout > f`: the link leads to this process's own descriptor. Write to that
        // descriptor (its offset and append mode are the shell's), not to a reopened file.
        if let Some(identity) = files::identity(path) {
            for fd in [1, 2] {
                if fd_identity(fd) == Some(identity) {
                    return Ok(Plan::Fd(fd));
                }
            }
        }
        return Ok(Plan::Direct(path.to_path_buf()));
    }
    let target = files::resolve_links(path).map_err(cannot)?;
    match std::fs::metadata(&target) {
        Ok(metadata) if metadata.is_dir() => Err(format!(
            "cannot write {}: it is a directory",
            path.display()
        )),
        Ok(metadata) if !metadata.is_file() => Ok(Plan::Direct(target)),
        _ => Ok(Plan::File(target)),
    }
}

/// Whether `path`, or a link on the way to its file, is in `/dev/fd`, `/dev/std*` or `/proc`:
/// names of open descriptors, whose links `readlink` cannot follow faithfully.
fn names_a_stream(path: &Path) -> bool {
    let special = |path: &Path| {
        path.starts_with("/proc")
            || path.starts_with("/dev/fd")
            || ["/dev/stdout", "/dev/stderr", "/dev/stdin"]
                .iter()
                .any(|name| path == Path::new(name))
    };
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        if special(&current) {
            return true;
        }
        match std::fs::read_link(&current) {
            Ok(target) => {
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                }
            }
            Err(_) => return false,
        }
    }
    false
}

fn fd_identity(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: fds 1 and 2 are borrowed only for the duration of this fstat; if either is
    // closed, fstat fails with EBADF.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let stat = rustix::fs::fstat(borrowed).ok()?;
    Some((stat.st_dev, stat.st_ino))
}

fn write_stream(path: &Path, plan: Plan, bytes: &[u8]) -> Result<(), String> {
    let result = match plan {
        Plan::Fd(1) => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(bytes).and_then(|()| stdout.flush())
        }
        Plan::Fd(_) => std::io::stderr().lock().write_all(bytes),
        Plan::Direct(target) | Plan::File(target) => OpenOptions::new()
            .write(true)
            .open(&target)
            .and_then(|mut file| {
                // A regular file named through `/dev/fd/N` is rewritten from its start.
                if file.metadata()?.is_file() {
                    file.set_len(0)?;
                }
                file.write_all(bytes)
            }),
    };
    match result {
        Ok(()) => Ok(()),
        // The reader went away (`tunespec link | head`): it has what it wanted.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) if path.as_os_str() == "-" => Err(format!("cannot write to stdout: {error}")),
        Err(error) => Err(format!("cannot write {}: {error}", path.display())),
    }
}

/// Writes `bytes` to a synced temporary file next to `target` with the mode (and, as root, the
/// owner) the output will have.
fn prepare(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, String> {
    let target = files::resolve_links(path)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = std::fs::metadata(&target).ok();
    // The mode reaches open(2), which applies the umask: a new output gets 0666 minus it.
    let mut temporary = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&directory)
        .map_err(|error| {
            format!(
                "cannot write {}: cannot create a file in {}: {}",
                path.display(),
                directory.display(),
                files::without_temp_path(&error)
            )
        })?;
    let write_error = |error: std::io::Error| format!("cannot write {}: {error}", path.display());
    // Through the `File`: `NamedTempFile`'s own `Write` names the temporary file in its errors.
    temporary
        .as_file_mut()
        .write_all(bytes)
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(write_error)?;
    if let Some(existing) = existing {
        keep_owner_and_mode(temporary.as_file(), &existing).map_err(write_error)?;
    }
    Ok(temporary)
}

/// Gives a replacement file the mode of the file it replaces (and its owner and group, when
/// this process may set them: as root).
fn keep_owner_and_mode(file: &File, existing: &std::fs::Metadata) -> std::io::Result<()> {
    if files::euid() == 0 {
        let owner = rustix::fs::Uid::from_raw(existing.uid());
        let group = rustix::fs::Gid::from_raw(existing.gid());
        let _ = rustix::fs::fchown(file, Some(owner), Some(group));
    }
    file.set_permissions(std::fs::Permissions::from_mode(existing.mode() & 0o777))
}

/// Removes `.tunespec-*` files over a day old in `directory`: temporary outputs of writers
/// that were killed. Only this user's regular files; errors are ignored.
pub fn sweep_stale_temps(directory: &Path) {
    let Ok(items) = std::fs::read_dir(directory) else {
        return;
    };
    for item in items.flatten() {
        if !item.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let Ok(metadata) = item.metadata() else {
            continue;
        };
        let stale = metadata
            .modified()
            .ok()
            .and_then(|time| time.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if stale && metadata.is_file() && metadata.uid() == files::euid() {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

/// Refuses an output that would overwrite or feed an input: the same file as one of the user's
/// specs (by device and inode), or a file inside a spec directory given with `--spec` (the next
/// run would link the output into itself). `specs` are the paths given on the command line;
/// `inputs` the specs resolved from them and from configs.
pub fn check_not_an_input(
    output: &Path,
    specs: &[PathBuf],
    inputs: &[LinkInput],
) -> Result<(), String> {
    if output.as_os_str() == "-" {
        return Ok(());
    }
    let output_identity = files::identity(output);
    let same = |path: &Path| output_identity.is_some() && files::identity(path) == output_identity;
    let user_inputs = inputs
        .iter()
        .filter(|input| !matches!(input.role, Role::Default { .. }))
        .map(|input| Path::new(&input.name));
    for input in specs.iter().map(PathBuf::as_path).chain(user_inputs) {
        if same(input) {
            return Err(format!(
                "the output {} is the input {}; write the output elsewhere",
                output.display(),
                input.display()
            ));
        }
    }
    let Some(target) = files::resolve_links(output).ok() else {
        return Ok(());
    };
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(directory) = directory.canonicalize() else {
        return Ok(());
    };
    for spec in specs {
        let is_dir = std::fs::metadata(spec).is_ok_and(|metadata| metadata.is_dir());
        if let (true, Ok(spec_dir)) = (is_dir, spec.canonicalize()) {
            let is_spec_name = target
                .extension()
                .is_some_and(|extension| extension == "mlir" || extension == "mlirbc");
            if directory.starts_with(&spec_dir) && is_spec_name {
                return Err(format!(
                    "the output {} is inside the spec directory {}, an input (the next link would read it); write it elsewhere",
                    output.display(),
                    spec.display()
                ));
            }
        }
    }
    Ok(())
}
