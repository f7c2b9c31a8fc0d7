//! Output is a pure function of the inputs: the same command gives byte-identical output across
//! runs, worker counts, and the order in which a directory lists its files.

use std::path::Path;

use crate::reference::repo_root;

fn tunespec(args: &[&str], dir: &Path) -> Vec<u8> {
    let output = crate::support::tunespec_command()
        .args(args)
        .arg(dir)
        .env("TUNESPEC_CACHE", "off")
        .output()
        .expect("runs");
    assert!(output.status.code().is_some(), "no signal");
    output.stdout
}

/// Copies the spec fixtures into `dir`, creating the files in `order` (and, through renames,
/// with different directory entry histories), so that the directory lists them differently.
fn populate(dir: &Path, order: &[usize]) {
    let mut sources: Vec<std::path::PathBuf> =
        ["specs/gfx942", "specs/gfx950", "tests/fixtures/specs/good"]
            .iter()
            .flat_map(|sub| {
                std::fs::read_dir(repo_root().join(sub))
                    .unwrap()
                    .map(|e| e.unwrap().path())
            })
            .filter(|path| path.extension().is_some_and(|e| e == "mlir"))
            .collect();
    sources.sort();
    for (rank, &index) in order.iter().enumerate() {
        let source = &sources[index % sources.len()];
        let name = format!(
            "{}_{}",
            source
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy(),
            source.file_name().unwrap().to_string_lossy()
        );
        let staging = dir.join(format!(".staging{rank}"));
        std::fs::write(&staging, std::fs::read(source).unwrap()).unwrap();
        std::fs::rename(&staging, dir.join(name)).unwrap();
    }
}

#[test]
fn verify_and_link_ignore_directory_listing_order_and_worker_count() {
    let count = 7;
    let forward: Vec<usize> = (0..count).collect();
    let shuffled = vec![4, 0, 6, 2, 5, 1, 3];
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    populate(a.path(), &forward);
    populate(b.path(), &shuffled);
    let listing = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let mut sorted_a = listing(a.path());
    let mut sorted_b = listing(b.path());
    sorted_a.sort();
    sorted_b.sort();
    assert_eq!(sorted_a, sorted_b, "same files");

    // verify reports in path order: only the directory prefix differs.
    let report = |dir: &Path, jobs: &str| {
        String::from_utf8(tunespec(&["verify", "--format", "json", "-j", jobs], dir))
            .unwrap()
            .replace(&dir.display().to_string(), "DIR")
    };
    let reference = report(a.path(), "1");
    for jobs in ["1", "2", "4"] {
        assert_eq!(report(b.path(), jobs), reference, "-j {jobs}");
    }
    // link output does not mention file paths except in locations: compare the library text
    // with locations stripped by mlir's default printing (no locations).
    let linked_a = tunespec(&["link", "--no-default", "--dedupe", "--spec"], a.path());
    let linked_b = tunespec(&["link", "--no-default", "--dedupe", "--spec"], b.path());
    assert!(!linked_a.is_empty());
    assert!(linked_a == linked_b, "link output depends on listing order");
    // And on the run: twice the same.
    assert!(linked_a == tunespec(&["link", "--no-default", "--dedupe", "--spec"], a.path()));
}
