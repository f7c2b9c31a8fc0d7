//! Inputs that are streams (issue 39): binary data is refused at its first read, an endless
//! stream at the stream limit (`files::MAX_STREAM_BYTES`), through a FIFO and through stdin;
//! a regular file over the input limit is refused from its size.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use crate::hardening::{finish, mkfifo, report, spawn};
use crate::support::tunespec;

#[test]
fn an_endless_input_is_refused_at_the_limit() {
    let cache = tempfile::tempdir().unwrap();
    // Binary data is refused at its first read (not after the stream limit's worth of zeros).
    let verify = spawn(tunespec(cache.path()).args(["verify", "/dev/zero"]));
    let output = finish(verify, 120, "verify /dev/zero");
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(
        report(&output).contains("is not MLIR: a NUL byte at offset 0"),
        "{}",
        report(&output)
    );
    // A regular file is refused from its size, without reading it.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.mlir");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let output = tunespec(cache.path())
        .arg("verify")
        .arg(&big)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(
        report(&output).contains("larger than the 1024 MiB input limit"),
        "{}",
        report(&output)
    );
}

/// Writes MLIR comment lines to `sink` in 1 MiB pieces with a pause after each, until the
/// reader goes away; returns how many bytes it wrote.
fn slow_endless_text(mut sink: impl Write) -> u64 {
    let line = "// an endless spec, one comment line after another\n";
    let piece = line.repeat((1 << 20) / line.len());
    let mut written = 0u64;
    while sink.write_all(piece.as_bytes()).is_ok() {
        written += piece.len() as u64;
        std::thread::sleep(Duration::from_millis(2));
    }
    written
}

#[test]
fn a_slow_endless_stream_is_refused_at_the_stream_limit() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Through a FIFO named as the input...
    let fifo = dir.path().join("endless.mlir");
    mkfifo(&fifo);
    let verify = spawn(tunespec(cache.path()).arg("verify").arg(&fifo));
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            slow_endless_text(std::fs::OpenOptions::new().write(true).open(fifo).unwrap())
        })
    };
    let output = finish(verify, 300, "verify of an endless FIFO");
    let written = writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(
        report(&output).contains("is a stream larger than the 256 MiB limit"),
        "{}",
        report(&output)
    );
    // The reader stopped at the limit: the writer got no further than a pipe's buffer beyond.
    assert!(written <= (256 << 20) + (2 << 20), "{written}");
    // ... and through stdin.
    let mut verify = tunespec(cache.path())
        .args(["verify", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = verify.stdin.take().unwrap();
    let writer = std::thread::spawn(move || slow_endless_text(stdin));
    let output = finish(verify, 300, "verify - of an endless stdin");
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(
        report(&output).contains("is a stream larger than the 256 MiB limit"),
        "{}",
        report(&output)
    );
}
