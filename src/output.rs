//! Writing outputs: atomically to a file (temp file in the same directory, then rename), or to
//! stdout. A failed or interrupted write never leaves a half-written output behind.

use std::io::Write;
use std::path::Path;

/// Output form of a library.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// MLIR text
    #[default]
    Mlir,
    /// MLIR bytecode (emit version 6)
    Mlirbc,
}

/// Writes `bytes` to `path` (`-` is stdout).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if path.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        return match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(error) => Err(format!("cannot write to stdout: {error}")),
        };
    }
    // A device, a pipe or a socket (`-o /dev/null`, `-o /dev/stderr`, a FIFO) is written in
    // place: renaming a file over it would replace the device with a regular file.
    if let Ok(metadata) = std::fs::metadata(path) {
        if !metadata.is_file() && !metadata.is_dir() {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
            return file
                .write_all(bytes)
                .map_err(|error| format!("cannot write {}: {error}", path.display()));
        }
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(".tunespec-")
        .tempfile_in(directory)
        .map_err(|error| format!("cannot create a file in {}: {error}", directory.display()))?;
    temporary
        .write_all(bytes)
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    // Temporary files are created 0600; the output gets the permissions of the file it
    // replaces, or the usual 0644.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions = std::fs::metadata(path)
            .map(|metadata| metadata.permissions())
            .unwrap_or_else(|_| std::fs::Permissions::from_mode(0o644));
        let _ = temporary.as_file().set_permissions(permissions);
    }
    temporary
        .persist(path)
        .map_err(|error| format!("cannot write {}: {}", path.display(), error.error))?;
    Ok(())
}
