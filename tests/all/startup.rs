//! Start-up without a Python interpreter per command (issue 44): the `python3` step of the
//! search for IREE reads a venv's layout, or remembers the interpreter's answer in the cache
//! until what could change it changes; `doctor` says which way answered. The timings are
//! `tools/bench-startup`'s (BENCHMARKS.md); these tests check the ways, not the times.

use std::path::Path;
use std::process::Command;

use crate::reference::output_with_timeout;
use crate::support::{private_home, tunespec_command};

/// `doctor --format json`'s `python_lookup` with only `bin` on PATH and the cache in `cache`.
fn lookup(bin: &Path, cache: &Path) -> String {
    let mut command: Command = tunespec_command();
    command
        .env_remove("TUNESPEC_NO_IREE")
        .env_remove("TUNESPEC_IREE_VENV")
        .env_remove("TUNESPEC_IREE_LIB")
        .env_remove("TUNESPEC_IREE_OPT")
        .env("TUNESPEC_CACHE_DIR", cache)
        .env("PATH", bin)
        .args(["doctor", "--format", "json"]);
    let output = output_with_timeout(&mut command);
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    report["python_lookup"]
        .as_str()
        .unwrap_or_else(|| panic!("no python_lookup: {report}"))
        .to_string()
}

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// A venv without IREE answers from its layout: no interpreter is started (the venv's
/// `python3` here would fail the run if it were).
#[test]
fn a_venv_without_iree_is_answered_from_its_layout() {
    let home = private_home();
    let venv = home.join("venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\n",
    )
    .unwrap();
    let marker = home.join("python-started");
    executable(
        &venv.join("bin/python3"),
        &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    );
    let answer = lookup(&venv.join("bin"), &home.join("cache"));
    assert!(answer.contains("read the layout of the venv"), "{answer}");
    assert!(answer.contains("no interpreter started"), "{answer}");
    assert!(!marker.exists(), "python3 was started");
}

/// An interpreter outside a venv is asked once; the next command remembers its answer (the
/// wrapper counts its starts), and a package installed into its search path asks again.
#[test]
fn the_interpreters_answer_is_remembered_in_the_cache() {
    let Some(system) = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .map(Path::new)
        .find(|python| python.is_file())
    else {
        return;
    };
    let home = private_home();
    let bin = home.join("bin");
    let site = home.join("site-packages");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&site).unwrap();
    let starts = home.join("starts");
    executable(
        &bin.join("python3"),
        &format!(
            "#!/bin/sh\necho started >>{}\nexec {} -I -c \"import sys; sys.path.insert(0, '{}'); exec(sys.argv[1])\" \"$3\"\n",
            starts.display(),
            system.display(),
            site.display()
        ),
    );
    let cache = home.join("cache");
    let count = || {
        std::fs::read_to_string(&starts)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let first = lookup(&bin, &cache);
    assert!(first.starts_with("asked "), "{first}");
    assert_eq!(count(), 1);
    let second = lookup(&bin, &cache);
    assert!(second.contains("remembered in the cache"), "{second}");
    assert_eq!(count(), 1, "the second command started python3");
    std::fs::create_dir_all(site.join("iree/compiler")).unwrap();
    let third = lookup(&bin, &cache);
    assert!(third.starts_with("asked "), "{third}");
    assert_eq!(count(), 2);
}
