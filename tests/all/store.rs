//! The shared store (`--store`, `tunespec store`): against real servers (Redis, moto's S3,
//! Azurite's Blob storage: tests/all/store_servers.rs) and the `file://` backend.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use tunespec::measured::library::Entry;
use tunespec::mlir::Mlir;
use tunespec::store::{Options, Purge, Store};

use crate::reference::repo_root;
use crate::store_servers::{engines, Redis};
use crate::support::tunespec_command;

/// A measured library of one matcher measured on two devices (local-task and local-sync).
const TWO_DEVICES: &str = "tests/fixtures/bench/two_devices";

/// `tunespec ARGS`: (exit status, stdout, stderr).
pub fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let output = tunespec_command()
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("tunespec runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Every file of `dir`, relative, with its bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry.path().strip_prefix(dir).unwrap();
            (
                relative.display().to_string(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn fixture_entries() -> Vec<Entry> {
    let mlir = Mlir::new();
    tunespec::measured::library::existing_entries(&mlir, &repo_root().join(TWO_DEVICES)).unwrap()
}

/// The fixture's local-task entry timed at `tuned_us` and measured on the device `name`.
pub fn timed(tuned_us: f64, name: &str) -> Entry {
    let mut entry = fixture_entries()
        .into_iter()
        .find(|entry| entry.measurement.device == "local-task")
        .unwrap();
    entry.measurement.tuned_us = tuned_us;
    entry.measurement.device_name = Some(name.to_string());
    entry
}

fn open(url: &str) -> Store {
    open_with(url, &[])
}

/// The store at `url` with its engine's variables `vars`.
pub fn open_with(url: &str, vars: &[(String, String)]) -> Store {
    let options = Options {
        engine_variables: vars.to_vec(),
        ..Options::default()
    };
    Store::open(url, &options).unwrap()
}

/// The best times of the store, in key order.
fn best_times(store: &Store) -> Vec<f64> {
    store
        .list()
        .unwrap()
        .iter()
        .map(|listed| listed.pointer.tuned_us)
        .collect()
}

#[test]
fn pushed_libraries_pull_byte_identical_from_every_engine() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    let mut pulled = Vec::new();
    for engine in &engines {
        let (url, env) = (&engine.url, engine.env());
        let (status, stdout, stderr) = run(&["store", "push", TWO_DEVICES, "--store", url], &env);
        assert_eq!(status, Some(0), "{}: {stdout}{stderr}", engine.name);
        assert!(stdout.contains("pushed 2 entries"), "{stdout}");
        // Pushed again: nothing new, nothing replaced.
        let (status, stdout, _) = run(&["store", "push", TWO_DEVICES, "--store", url], &env);
        assert_eq!(status, Some(0));
        assert!(stdout.contains("0 new, 0 now the best"), "{stdout}");
        for round in 0..2 {
            let out = work.path().join(format!("pulled-{}-{round}", pulled.len()));
            let out_text = out.to_str().unwrap();
            let args = ["store", "pull", "--store", url, "--target", "bench_cpu"];
            let (status, stdout, stderr) = run(&[&args[..], &["-o", out_text]].concat(), &env);
            assert_eq!(status, Some(0), "{stdout}{stderr}");
            assert!(stdout.contains("pulled 2 entries"), "{stdout}");
            pulled.push(tree(&out));
        }
        let ls = ["store", "ls", "--store", url, "--format", "json"];
        let (status, stdout, _) = run(&ls, &env);
        assert_eq!(status, Some(0), "{}", engine.name);
        crate::cli_formats::assert_valid("store-ls.schema.json", [stdout.as_str()]);
        let listed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let entries = listed["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 2, "{listed:#}");
        assert!(entries.iter().all(|entry| entry["target"] == "bench_cpu"));
    }
    // The same content gives the same bytes, whichever engine and however often.
    assert!(pulled.windows(2).all(|pair| pair[0] == pair[1]));
    // The specs are the pushed library's, byte for byte; the manifest names `store pull`.
    let original = tree(&repo_root().join(TWO_DEVICES));
    let specs = |files: &[(String, Vec<u8>)]| -> Vec<Vec<u8>> {
        let mut texts: Vec<Vec<u8>> = files
            .iter()
            .filter(|(name, _)| name.ends_with(".mlir"))
            .map(|(_, bytes)| bytes.clone())
            .collect();
        texts.sort();
        texts
    };
    assert_eq!(specs(&pulled[0]), specs(&original));
    let manifest = &pulled[0]
        .iter()
        .find(|(n, _)| n == "registry.toml")
        .unwrap()
        .1;
    assert!(String::from_utf8_lossy(manifest).starts_with("# Written by `tunespec store`"));
    // A device's entries alone: what `--device` names, never the other device's.
    let out = work.path().join("sync-only");
    let url = &engines[0].url;
    let args = [
        "store",
        "pull",
        "--store",
        url,
        "--device",
        "local-sync",
        "-o",
    ];
    let (status, _, stderr) = run(&[&args[..], &[out.to_str().unwrap()]].concat(), &[]);
    assert_eq!(status, Some(0), "{stderr}");
    let mlir = Mlir::new();
    let entries = tunespec::measured::library::existing_entries(&mlir, &out).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].measurement.device, "local-sync");
    // A directory of someone's own files is never replaced by a pull.
    let (status, _, stderr) = run(&[&args[..], &["tests/fixtures/bench"]].concat(), &[]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains("is not empty and was not written by"),
        "{stderr}"
    );
}

/// Of racing writers on one key the fastest ends as the best, whatever the order, on every
/// engine; a slower result pushed after a faster one never replaces it.
#[test]
fn a_slower_result_never_replaces_a_faster_one_even_racing() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in &engines {
        let (url, vars) = (&engine.url, &engine.vars);
        let store = engine.open();
        store.push(&[timed(20.0, "CPU race")]).unwrap();
        let pushed = store.push(&[timed(30.0, "CPU race")]).unwrap();
        assert_eq!((pushed.stored, pushed.best, pushed.kept), (1, 0, 1));
        assert_eq!(best_times(&store), vec![20.0]);
        store.push(&[timed(10.0, "CPU race")]).unwrap();
        assert_eq!(best_times(&store), vec![10.0]);
        // Eight writers at once, each with its own connection, in three rounds on new keys.
        for round in 0..3 {
            let name = format!("CPU race {round}");
            let threads: Vec<_> = (0..8)
                .map(|i| {
                    let (url, vars) = (url.clone(), vars.clone());
                    let name = name.clone();
                    // Times in a scrambled order: 40, 33, 26, ... wrapping.
                    let time = 5.0 + f64::from((i * 5 + round * 3) % 8) * 7.0;
                    std::thread::spawn(move || {
                        let store = open_with(&url, &vars);
                        for _ in 0..3 {
                            store.push(&[timed(time, &name)]).unwrap();
                        }
                    })
                })
                .collect();
            for thread in threads {
                thread.join().unwrap();
            }
            let pulled = store.pull(None, Some(&name)).unwrap();
            assert_eq!(pulled.library.entries.len(), 1);
            assert_eq!(pulled.library.entries[0].measurement.tuned_us, 5.0, "{url}");
        }
    }
}

/// Four shard processes push to one store, one of them killed with SIGKILL and rerun: the
/// pulled library is byte-identical to the one a single run of the same shards gives, on Redis
/// and on a directory alike.
#[test]
fn four_shards_one_killed_and_rerun_pull_what_a_single_run_pulls() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    // Four shards' libraries: the fixture measured on four machines.
    let shards: Vec<PathBuf> = (0..4)
        .map(|k| {
            let shard = work.path().join(format!("shard-{k}"));
            for (name, bytes) in tree(&repo_root().join(TWO_DEVICES)) {
                let path = shard.join(&name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let text = String::from_utf8(bytes).unwrap();
                std::fs::write(
                    &path,
                    text.replace("CPU loop test", &format!("CPU shard {k}")),
                )
                .unwrap();
            }
            shard
        })
        .collect();
    let push = |shard: &Path, url: &str, env: &[(&str, &str)]| {
        let mut command = tunespec_command();
        command
            .args(["store", "push"])
            .arg(shard)
            .args(["--store", url])
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    };
    let pull = |url: &str, env: &[(&str, &str)], name: &str| {
        let out = work.path().join(name);
        let args = [
            "store",
            "pull",
            "--store",
            url,
            "--target",
            "bench_cpu",
            "-o",
        ];
        let (status, stdout, stderr) = run(&[&args[..], &[out.to_str().unwrap()]].concat(), env);
        assert_eq!(status, Some(0), "{stdout}{stderr}");
        assert!(stdout.contains("pulled 8 entries"), "{stdout}");
        tree(&out)
    };
    let mut pulled = Vec::new();
    for (index, engine) in engines.iter().enumerate() {
        let env = engine.env();
        let shared = engine.in_namespace("shards");
        let single = engine.in_namespace("single");
        let mut children: Vec<Child> = shards
            .iter()
            .map(|shard| push(shard, &shared, &env).spawn().unwrap())
            .collect();
        let killed = index % shards.len();
        let _ = children[killed].kill();
        for child in &mut children {
            let _ = child.wait();
        }
        let rerun = push(&shards[killed], &shared, &env).status().unwrap();
        assert!(rerun.success(), "{}", engine.name);
        for shard in &shards {
            assert!(push(shard, &single, &env).status().unwrap().success());
        }
        pulled.push(pull(&shared, &env, &format!("from-shards-{index}")));
        pulled.push(pull(&single, &env, &format!("from-single-{index}")));
    }
    // One library, whichever engine, however the shards ran.
    assert!(pulled.windows(2).all(|pair| pair[0] == pair[1]));
}

/// A server that dies: the push that was under way fails with the store's words (nothing the
/// store had is lost), the next command cannot connect (exit 2), and `bench`/`tune` keep their
/// local library (tests/all/bench.rs).
#[test]
fn a_store_that_stops_fails_clearly_and_keeps_what_it_had() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for mut engine in engines.into_iter().filter(|engine| engine.server.is_some()) {
        let store = engine.open();
        store.push(&[timed(10.0, "CPU stop")]).unwrap();
        engine.server.as_mut().unwrap().kill();
        let error = store.push(&[timed(5.0, "CPU stop")]).unwrap_err();
        assert_eq!(error.code(), "tunespec::store::unavailable", "{error}");
        let push = ["store", "push", TWO_DEVICES, "--store", &engine.url];
        let (status, _, stderr) = run(&push, &engine.env());
        assert_eq!(status, Some(2), "{}: {stderr}", engine.name);
        let words = match engine.name {
            "redis" => "cannot connect to redis://127.0.0.1".to_string(),
            _ => engine.url.clone(),
        };
        assert!(stderr.contains(&words), "{stderr}");
    }
}

#[test]
fn read_only_stores_refuse_writes_and_still_pull() {
    let work = tempfile::tempdir().unwrap();
    let url = format!("file://{}", work.path().join("store").display());
    let push = ["store", "push", TWO_DEVICES, "--store", &url];
    let (status, _, stderr) = run(&[&push[..], &["--read-only"]].concat(), &[]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
    let (status, _, stderr) = run(&push, &[("TUNESPEC_STORE_READ_ONLY", "1")]);
    assert_eq!(status, Some(2), "{stderr}");
    let (status, _, stderr) = run(&push, &[]);
    assert_eq!(status, Some(0), "{stderr}");
    let out = work.path().join("pulled");
    let pull = ["store", "pull", "--store", &url, "--read-only", "-o"];
    let (status, _, stderr) = run(&[&pull[..], &[out.to_str().unwrap()]].concat(), &[]);
    assert_eq!(status, Some(0), "{stderr}");
    let purge = ["store", "purge", "--store", &url, "--device", "local-sync"];
    let (status, _, stderr) = run(&purge, &[("TUNESPEC_STORE_READ_ONLY", "1")]);
    assert_eq!(status, Some(2), "{stderr}");
}

#[test]
fn purge_by_device_iree_version_age_and_namespace() {
    let work = tempfile::tempdir().unwrap();
    let url = format!("file://{}", work.path().display());
    let store = open(&url);
    store.push(&fixture_entries()).unwrap();
    store.push(&[timed(1.0, "CPU other")]).unwrap();
    assert_eq!(store.list().unwrap().len(), 3);
    let removed = store
        .purge(&Purge {
            device: Some("local-sync".into()),
            ..Purge::default()
        })
        .unwrap();
    assert_eq!(removed.len(), 1);
    assert!(removed[0].pointer.identity.starts_with("local-sync"));
    // Nothing measured before 2026-11-28 (the fixture's day); an older IREE matches nothing.
    let day = tunespec::store::entry::day_number("2026-11-28");
    let older = Purge {
        before_day: day,
        ..Purge::default()
    };
    assert!(store.purge(&older).unwrap().is_empty());
    let other_iree = Purge {
        iree_version: Some("3.12.0".into()),
        ..Purge::default()
    };
    assert!(store.purge(&other_iree).unwrap().is_empty());
    let same_iree = Purge {
        iree_version: Some("3.13.0".into()),
        device: Some("CPU other".into()),
        ..Purge::default()
    };
    assert_eq!(store.purge(&same_iree).unwrap().len(), 1);
    assert_eq!(store.list().unwrap().len(), 1);
    // A namespace disowned whole, from the command line.
    let (status, stdout, stderr) = run(
        &["store", "purge", "--store", &url, "--namespace", "default"],
        &[],
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("removed namespace default"), "{stdout}");
    assert!(store.list().unwrap().is_empty());
    let (status, _, stderr) = run(&["store", "purge", "--store", &url], &[]);
    assert_eq!(status, Some(2));
    assert!(stderr.contains("needs a filter"), "{stderr}");
}

/// `bench --write LIB --store URL` with a server that stops during the run: the run ends as it
/// would without a store (exit 0), the library is kept whole, and a warning says it was not
/// pushed. The library is there before the run (no winner of this bench replaces its entries),
/// so that the push is always tried, whichever configs win on a busy machine.
#[test]
fn bench_write_keeps_its_library_when_the_store_stops_mid_run() {
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let Some(mut redis) = Redis::start(&[]) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let library = work.path().join("measured");
    for (name, bytes) in tree(&repo_root().join(TWO_DEVICES)) {
        let path = library.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let before = tree(&library);
    let url = redis.url();
    let child = crate::iree_library::with_iree(&venv)
        .args([
            "bench",
            "-t",
            "bench_cpu",
            "--spec",
            "tests/fixtures/bench/cpu_lib",
        ])
        .args([
            "--repetitions",
            "1",
            "--min-time",
            "0.01",
            "--max-rounds",
            "10",
        ])
        .args(["--format", "json", "--write"])
        .arg(&library)
        .args(["--store", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Compiling alone takes longer than this: the server is gone before the push.
    std::thread::sleep(Duration::from_millis(500));
    redis.kill();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("tunespec::store::unavailable") && stderr.contains("is kept locally"),
        "{stderr}"
    );
    let mlir = Mlir::new();
    let entries = tunespec::measured::library::existing_entries(&mlir, &library).unwrap();
    assert!(entries.len() >= 2, "{entries:?}");
    // Nothing of what was there is lost: every spec before the run is still there or replaced
    // by a faster measurement of the same key.
    assert!(before.len() <= tree(&library).len());
}

/// `link --store`: the store's best entries for the target are a layer below the user's own
/// specs (the user's library is included first), `--measured-on` pulls one device's entries,
/// and a store that stops is a warning: the entries pulled before are linked.
#[test]
fn link_takes_the_stores_entries_below_the_users_specs_and_survives_the_store() {
    let Some(mut redis) = Redis::start(&[]) else {
        return;
    };
    let url = redis.url();
    let (status, _, stderr) = run(&["store", "push", TWO_DEVICES, "--store", &url], &[]);
    assert_eq!(status, Some(0), "{stderr}");
    // One cache (and so one pulled copy) for the runs of this test.
    let home = crate::support::private_home();
    let cache = home.join("cache/tunespec");
    let cache_text = cache.to_str().unwrap();
    let env = [("TUNESPEC_CACHE_DIR", cache_text)];
    let link = |store: Option<&str>| {
        let mut args = vec![
            "link",
            "-t",
            "bench_cpu",
            "--spec",
            "tests/fixtures/bench/cpu_lib",
        ];
        args.extend(["--measured-on", "local-task", "--emit", "mlir"]);
        if let Some(store) = store {
            args.extend(["--store", store]);
        }
        run(&args, &env)
    };
    let (status, without, _) = link(None);
    assert_eq!(status, Some(0));
    assert!(!without.contains("CPU loop test"));
    let (status, with, stderr) = link(Some(&url));
    assert_eq!(status, Some(0), "{stderr}");
    // The local-task entry alone, after the user's library.
    assert_eq!(with.matches("tunespec.measurement").count(), 1, "{with}");
    assert!(
        with.contains("local-task") && !with.contains("local-sync"),
        "{with}"
    );
    let include = with.find("transform.include @two_matmuls").unwrap();
    let measured = with.rfind("foreach_match in %0").unwrap();
    assert!(include < measured, "{with}");
    // The server gone: the copy pulled before is linked, and said.
    redis.kill();
    let (status, again, stderr) = link(Some(&url));
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("linking the store's entries pulled before"),
        "{stderr}"
    );
    assert_eq!(again, with);
    // A store never reached, nothing pulled before: linked without it, and said.
    let (status, alone, stderr) = link(Some("redis://127.0.0.1:1/5"));
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("linking without the store's entries"),
        "{stderr}"
    );
    assert_eq!(alone, without);
    // The machine's copies of what the store was read are cache: `cache clean` removes them,
    // and keeps the pulled layer a link falls back to.
    let store_dir = home.join("cache/tunespec-store");
    let reads = store_dir.join("reads");
    assert!(reads.is_dir(), "no copies kept in {}", store_dir.display());
    let (status, _, stderr) = run(&["cache", "clean"], &env);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!reads.exists());
    assert!(std::fs::read_dir(&store_dir).unwrap().next().is_some());
}

/// What a reader gets from a store someone tampered with: an entry whose bytes are not its
/// name's is skipped with a warning, never linked; `ls` names every key in its formats; a pull
/// with `--spec` defines the user's target, so that the pulled library loads alone.
#[test]
fn corrupt_entries_are_skipped_and_pulled_libraries_load_alone() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("store");
    let url = format!("file://{}", root.display());
    let (status, _, stderr) = run(&["store", "push", TWO_DEVICES, "--store", &url], &[]);
    assert_eq!(status, Some(0), "{stderr}");
    let (status, table, _) = run(&["store", "ls", "--store", &url], &[]);
    assert_eq!(status, Some(0));
    assert!(
        table.contains("TARGET") && table.contains("2 key(s)"),
        "{table}"
    );
    let (status, short, _) = run(&["store", "ls", "--store", &url, "--format", "short"], &[]);
    assert_eq!(status, Some(0));
    assert_eq!(short.lines().count(), 2, "{short}");
    assert!(
        short.lines().all(|line| line.contains("target=bench_cpu")),
        "{short}"
    );
    // Alone, defined by the user's library given with --spec: `verify` loads it as it is.
    let alone = work.path().join("alone");
    let args = ["store", "pull", "--store", &url, "--target", "bench_cpu"];
    let extra = ["--spec", "tests/fixtures/bench/cpu_lib", "-o"];
    let (status, _, stderr) = run(
        &[&args[..], &extra[..], &[alone.to_str().unwrap()]].concat(),
        &[],
    );
    assert_eq!(status, Some(0), "{stderr}");
    let manifest = std::fs::read_to_string(alone.join("registry.toml")).unwrap();
    assert!(manifest.contains("[targets.bench_cpu]"), "{manifest}");
    let (status, stdout, stderr) = run(&["verify", alone.to_str().unwrap()], &[]);
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    // One entry's bytes changed under its name.
    let entries = root.join("tunespec/v1/default/entries");
    let first = std::fs::read_dir(&entries)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let mut bytes = std::fs::read(first.path()).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(first.path(), bytes).unwrap();
    let out = work.path().join("after");
    let (status, stdout, stderr) = run(&[&args[..], &["-o", out.to_str().unwrap()]].concat(), &[]);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("pulled 1 entry"), "{stdout}");
    assert!(stderr.contains("is corrupt"), "{stderr}");
}

/// What `tune` asks the store before it measures a key (`Store::best_of` with the identity
/// `bench::measured::measured_as` gives) is the complete key of the entry `bench --write` writes
/// for that key and pushes: found on the same device and IREE, not with another revision, not
/// on another device.
#[test]
fn the_key_tune_asks_for_is_the_key_bench_writes() {
    use tunespec::bench::measured::{self, Context, DeviceName};
    use tunespec::bench::stats::{self, Rule};
    use tunespec::bench::{Row, Status};
    const SPEC: &str = "tests/fixtures/bench/cpu_lib/specs/two_matmuls.mlir";
    const MATCHER: &str = "match_mm_128_tiny_tiles";
    let mlir = Mlir::new();
    let text = std::fs::read_to_string(repo_root().join(SPEC)).unwrap();
    let module = tunespec::verify::verify_bytes(&mlir, text.as_bytes(), "two_matmuls.mlir")
        .snapshot
        .unwrap();
    let key = tunespec::measured::tuner_import::keyed_matchers(&module)
        .into_iter()
        .find(|keyed| keyed.name == MATCHER)
        .unwrap()
        .key;
    let spec = tunespec::bench::standalone::standalone(&text, &module, MATCHER).unwrap();
    let rounds: Vec<stats::Round> = (0..8)
        .map(|i| {
            let base = vec![100.0 + f64::from(i)];
            (base.clone(), base.iter().map(|v| v * 0.5).collect())
        })
        .collect();
    let row = Row {
        case: format!("two_matmuls.mlir: @{MATCHER}"),
        kind: "function",
        name: "f".into(),
        matcher: Some(MATCHER.into()),
        status: Status::Faster,
        message: None,
        timing: Some(stats::compare_rounds(&rounds, Rule::default(), 0.01)),
        outputs: None,
        samples_us: None,
        ops: Vec::new(),
    };
    let name = DeviceName {
        name: Some("CPU key test".into()),
        driver: None,
        threads: Some(2),
    };
    let device = tunespec::device::Device::parse("local-task").unwrap();
    let flags = ["--iree-hal-target-device=local".to_string()];
    let context = |iree: &'static str| Context {
        device: &device,
        name: &name,
        iree,
        runtime: Some("iree-base-runtime 3.13.0"),
        flags: &flags,
        date: "2026-11-28",
    };
    let written = context("3.13.0 @ 1a2b3c");
    let (winners, losers) =
        measured::entries(&mlir, &[(row, spec, key.clone())], "bench_cpu", &written);
    assert!(losers.is_empty(), "{losers:?}");
    let work = tempfile::tempdir().unwrap();
    let library = work.path().join("lib");
    measured::write(&mlir, &library, winners, Vec::new()).unwrap();
    // Pushed as `bench --write --store` pushes: the library read back from disk.
    let store = open(&format!("file://{}", work.path().join("store").display()));
    let read_back = tunespec::measured::library::existing_entries(&mlir, &library).unwrap();
    store.push(&read_back).unwrap();
    let asked = measured::measured_as(&written);
    let found = store.best_of("bench_cpu", &key, &asked).unwrap().unwrap();
    assert_eq!(found.tuned_us, read_back[0].measurement.tuned_us);
    // Another IREE revision of the same version, another device, another target: not measured.
    let other_revision = measured::measured_as(&context("3.13.0 @ 9f8e7d"));
    assert_eq!(
        store.best_of("bench_cpu", &key, &other_revision).unwrap(),
        None
    );
    let mut other_device = asked.clone();
    other_device.threads = Some(64);
    assert_eq!(
        store.best_of("bench_cpu", &key, &other_device).unwrap(),
        None
    );
    assert_eq!(store.best_of("host", &key, &asked).unwrap(), None);
}

/// `check --store`: CI checks what a store holds as it checks a library. Each best entry pulled
/// read-only beside the cache (the report names those files), checked against the installed
/// IREE; a user-defined target compiles with the definition of the libraries checked beside
/// it, and without one the check fails rather than passing unchecked. An empty selection is a
/// warning, a store never reached exit 2.
#[test]
fn check_store_checks_the_stores_entries_against_iree() {
    let Some(venv) = crate::iree_library::venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().join("store").display());
    let (status, _, stderr) = run(&["store", "push", TWO_DEVICES, "--store", &url], &[]);
    assert_eq!(status, Some(0), "{stderr}");
    let cache = dir.path().join("cache");
    let check = |args: &[&str]| {
        let output = crate::iree_library::with_iree(&venv)
            .current_dir(repo_root())
            .args(["check", "--format", "json", "--store", &url])
            .args(args)
            .env("TUNESPEC_CACHE_DIR", &cache)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        (
            output.status.code(),
            stdout,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // Beside the library that defines the target: both checked, every matcher passes, and
    // the store's two entries are files of the pulled copy.
    let (status, stdout, stderr) = check(&[TWO_DEVICES]);
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let results = document["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "{document:#}");
    let pulled: Vec<&str> = results
        .iter()
        .map(|result| result["file"].as_str().unwrap())
        .filter(|file| !file.starts_with(TWO_DEVICES))
        .collect();
    assert_eq!(pulled.len(), 2, "{document:#}");
    for file in &pulled {
        assert!(Path::new(file).starts_with(dir.path()), "{file}");
        assert!(
            Path::new(file).is_file(),
            "{file}: the report names a file that is there"
        );
    }
    assert!(
        results.iter().all(|r| r["compile"]["status"] == "ok"),
        "{document:#}"
    );
    // Only the entries measured on one device.
    let (status, stdout, stderr) = check(&[TWO_DEVICES, "--measured-on", "local-task"]);
    assert_eq!(status, Some(0), "{stdout}\n{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let results = document["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        3,
        "one entry measured on local-task: {document:#}"
    );
    // Alone, no config defines the store's target: failed, never passed unchecked.
    let (status, stdout, _) = check(&[]);
    assert_eq!(status, Some(1), "{stdout}");
    assert!(
        stdout.contains("bench_cpu is not an architecture"),
        "{stdout}"
    );
    // No entry measured on that device: said, nothing to check.
    let (status, _, stderr) = check(&["--measured-on", "MI300X"]);
    assert_eq!(status, Some(0));
    assert!(
        stderr.contains("holds no entry measured on MI300X"),
        "{stderr}"
    );
    // A store never reached is exit 2; so are --fix (a pulled copy is not the user's file)
    // and a check of nothing.
    let output = crate::iree_library::with_iree(&venv)
        .args(["check", "--store", "redis://127.0.0.1:1/0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot connect"));
    for args in [
        &["check", "--store", url.as_str(), "--fix"][..],
        &["check"][..],
    ] {
        let (status, _, _) = run(args, &[]);
        assert_eq!(status, Some(2), "{args:?}");
    }
}
