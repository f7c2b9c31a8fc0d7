//! Issue 16, outputs: links to stdout, links and modes kept, an output that is an input, a
//! full disk, stale temporary outputs.

use super::*;

#[test]
fn an_output_link_to_this_process_stdout_writes_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let link = dir.path().join("out");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    for output in [link.as_path(), Path::new("/dev/stdout")] {
        let file = dir.path().join("captured");
        let captured = std::fs::File::create(&file).unwrap();
        let status = tunespec(cache.path())
            .env("TUNESPEC_CACHE", "off")
            .args(["link", "--target", "gfx942", "-o"])
            .arg(output)
            .stdout(captured)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            std::fs::read(&file).unwrap(),
            reference_link(),
            "-o {}",
            output.display()
        );
    }
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
    // A FIFO is written through, not replaced.
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::read(fifo).unwrap()
    });
    let writer = spawn(
        tunespec(cache.path())
            .env("TUNESPEC_CACHE", "off")
            .args(["link", "--target", "gfx942", "-o"])
            .arg(&fifo),
    );
    assert!(finish(writer, 60, "link -o FIFO").status.success());
    assert_eq!(reader.join().unwrap(), reference_link());
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn an_output_link_is_kept_and_modes_follow_the_umask_or_the_replaced_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.mlir");
    std::fs::write(&real, b"old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.mlir");
    std::os::unix::fs::symlink("real.mlir", &link).unwrap();
    run(tunespec(cache.path())
        .args(["link", "--target", "gfx942", "-o"])
        .arg(&link));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&real).unwrap(), reference_link());
    assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o640);
    // A new file: 0666 minus the umask.
    let new = dir.path().join("new.mlir");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 027; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_tunespec"))
        .args(["link", "--target", "gfx942", "--derived", "-o"])
        .arg(&new)
        .env("TUNESPEC_NO_CONFIG", "1")
        .env("TUNESPEC_CACHE_DIR", cache.path())
        .current_dir(repo_root())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::metadata(&new).unwrap().mode() & 0o777, 0o640);
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let spec = dir.path().join("a.mlir");
    std::fs::copy(fixture("one_matcher.mlir"), &spec).unwrap();
    let original = std::fs::read(&spec).unwrap();
    let alias = dir.path().join("alias.mlir");
    std::fs::hard_link(&spec, &alias).unwrap();
    for output in [&spec, &alias] {
        let result = tunespec(cache.path())
            .args(["link", "--no-default", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(output)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        assert!(
            stderr(&result).contains("is the input"),
            "{}",
            stderr(&result)
        );
        assert_eq!(std::fs::read(&spec).unwrap(), original);
    }
    // An output inside a spec directory that is an input would be linked into the next output.
    let result = tunespec(cache.path())
        .args(["link", "--no-default", "--spec"])
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("library.mlir"))
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(!dir.path().join("library.mlir").exists());
    // attach and apply write payloads: not over a spec either.
    let payload = repo_root().join("tests/fixtures/payloads/llama2_f16_decoder.mlir");
    for command in ["attach", "apply"] {
        let result = tunespec(cache.path())
            .args([command, "--no-default", "--spec"])
            .arg(&spec)
            .arg("-o")
            .arg(&alias)
            .arg(&payload)
            .output()
            .unwrap();
        assert_eq!(
            result.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&result)
        );
        assert_eq!(std::fs::read(&spec).unwrap(), original, "{command}");
    }
}

#[test]
fn export_on_a_full_disk_leaves_neither_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // 100 blocks: room for the header (a few KiB), not for the source (hundreds of KiB).
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 100; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_tunespec"))
        .args(["export", "--format", "c", "-o"])
        .arg(&out)
        .env("TUNESPEC_NO_CONFIG", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|item| item.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn stale_temporary_outputs_are_swept() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".tunespec-AbC123");
    let fresh = dir.path().join(".tunespec-XyZ789");
    std::fs::write(&stale, b"partial").unwrap();
    std::fs::write(&fresh, b"partial").unwrap();
    set_age(&stale, Duration::from_secs(2 * 24 * 3600));
    run(tunespec(cache.path())
        .args(["link", "--target", "gfx942", "-o"])
        .arg(dir.path().join("out.mlir")));
    assert!(!stale.exists(), "a two-day-old temporary file was kept");
    assert!(fresh.exists(), "a live writer's temporary file was removed");
}
