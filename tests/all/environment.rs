//! Issue 17: sizes, home and XDG directories and child time limits through libraries (bytesize,
//! etcetera, shellexpand, wait-timeout), and the cases the hand-written versions got wrong:
//! fractional sizes, `~user/`, a process without `$HOME`, a poll loop per child.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tunespec::cache::{format_size, parse_size};
use tunespec::config::{expand_tilde, xdg_home};
use tunespec::settings::Environment;

/// This user's name and home directory, from `/etc/passwd`.
fn passwd_entry() -> (String, PathBuf) {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() }.to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let fields: Vec<&str> = passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.len() >= 7 && fields[2] == uid)
        .expect("this user is in /etc/passwd");
    (fields[0].to_string(), PathBuf::from(fields[5]))
}

#[test]
fn sizes_take_fractions_and_binary_units() {
    let cases: &[(&str, Option<u64>)] = &[
        ("7", Some(7)),
        ("12k", Some(12 << 10)),
        ("500M", Some(500 << 20)),
        ("500 MB", Some(500 << 20)),
        ("1G", Some(1 << 30)),
        ("1.5GiB", Some(3 << 29)),
        ("1.5 gib", Some(3 << 29)),
        ("0.5K", Some(512)),
        ("2TiB", Some(2 << 40)),
        ("2T", Some(2 << 40)),
        ("-1", None),
        ("1.5", None),
        ("lots", None),
        ("12 parsecs", None),
        ("99999999999999999999G", None),
        ("99999999999EiB", None),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_size(text), *expected, "{text}");
    }
    assert_eq!(format_size(300), "300 B");
    assert_eq!(format_size(1536), "1.5 KiB");
    assert_eq!(format_size(256 << 20), "256.0 MiB");
    assert_eq!(format_size(3 << 40), "3.0 TiB");
}

#[test]
fn a_fractional_cache_cap_is_used_without_a_warning() {
    let cache = tempfile::tempdir().unwrap();
    let output = crate::support::tunespec(cache.path())
        .env("TUNESPEC_CACHE_MAX_BYTES", "1.5GiB")
        .args(["cache", "stats", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["max_bytes"], 3u64 << 29, "{stats}");
}

#[test]
fn tilde_names_this_users_home_and_other_users_homes() {
    let env = |home: Option<&'static str>| {
        move |name: &str| -> Option<OsString> {
            (name == "HOME")
                .then_some(home)
                .flatten()
                .map(OsString::from)
        }
    };
    let with_home = env(Some("/home/me"));
    assert_eq!(expand_tilde("~", &with_home), PathBuf::from("/home/me"));
    assert_eq!(
        expand_tilde("~/specs/a.mlir", &with_home),
        PathBuf::from("/home/me/specs/a.mlir")
    );
    // Only a leading `~` and only as a whole first component.
    for written in ["specs/~/a.mlir", "~~/a", "a~b"] {
        assert_eq!(expand_tilde(written, &with_home), PathBuf::from(written));
    }
    // `~user/`: from the password database, whatever HOME says.
    let (user, home) = passwd_entry();
    assert_eq!(
        expand_tilde(&format!("~{user}/specs"), &with_home),
        home.join("specs")
    );
    assert_eq!(expand_tilde(&format!("~{user}"), &with_home), home);
    // An unknown user, or no home at all: the path as written (then relative to the config).
    assert_eq!(
        expand_tilde("~no_such_user_tunespec/x", &with_home),
        PathBuf::from("~no_such_user_tunespec/x")
    );
    assert_eq!(expand_tilde("~/x", &env(None)), PathBuf::from("~/x"));
}

#[test]
fn xdg_directories_agree_with_etcetera() {
    // In a hermetic child: both sides read the process environment, the private home's there.
    if !crate::support::in_hermetic_child("environment::xdg_directories_agree_with_etcetera") {
        return;
    }
    use etcetera::BaseStrategy;
    let xdg = etcetera::base_strategy::Xdg::new().unwrap();
    let process = Environment::process();
    assert_eq!(
        xdg_home(&process.lookup(), "XDG_CACHE_HOME", ".cache"),
        Some(xdg.cache_dir())
    );
    assert_eq!(
        xdg_home(&process.lookup(), "XDG_CONFIG_HOME", ".config"),
        Some(xdg.config_dir())
    );
    // A relative XDG value is ignored, as the XDG spec says.
    let env = |name: &str| -> Option<OsString> {
        match name {
            "HOME" => Some("/home/me".into()),
            "XDG_CACHE_HOME" => Some("relative/cache".into()),
            _ => None,
        }
    };
    assert_eq!(
        xdg_home(&env, "XDG_CACHE_HOME", ".cache"),
        Some(PathBuf::from("/home/me/.cache"))
    );
}

#[test]
fn without_home_the_cache_is_under_the_password_databases_home() {
    // A cron job or `env -i` has no HOME: the cache still has a directory (it was "no cache
    // directory", exit 2). Read-only, so that nothing is written under the real home.
    let (_, home) = passwd_entry();
    let output = crate::support::tunespec_command()
        .env_remove("HOME")
        .env_remove("TUNESPEC_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env("TUNESPEC_CACHE", "readonly")
        .args(["cache", "path"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim_end(),
        home.join(".cache/tunespec").display().to_string()
    );
}

#[test]
fn a_child_past_its_time_limit_is_stopped_and_a_quick_one_is_not_polled() {
    let mut sleeper = Command::new("sleep")
        .arg("30")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = tunespec::child::wait_or_kill(&mut sleeper, Duration::from_millis(200)).unwrap();
    assert_eq!(status, None);
    assert!(started.elapsed() < Duration::from_secs(10));
    // Killed and reaped.
    assert!(sleeper.try_wait().unwrap().is_some());

    let mut quick = Command::new("sh")
        .args(["-c", "exit 3"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let status = tunespec::child::wait_or_kill(&mut quick, Duration::from_secs(30))
        .unwrap()
        .expect("exited");
    assert_eq!(status.code(), Some(3));
}
