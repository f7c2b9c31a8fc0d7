//! The cache's second level (`TUNESPEC_CACHE_STORE`): a link made on one machine is taken by
//! another from the shared store instead of linked again, byte for byte; an entry written
//! without the team's secret is never used; a store that stops is a warning and the link goes
//! on locally; read-only stores are read, never written. File, Redis and S3 stores, the Redis
//! and S3 ones real servers (redis-server, moto).

use super::*;
use tunespec::settings::Environment;

const SECRET: &str = "5ea1ed0c0ffee5ea1ed0c0ffee5ea1ed0c0ffee5ea1ed0c0ffee5ea1ed0c0ffe";
const OTHER_SECRET: &str = "0000000000000000000000000000000000000000000000000000000000000001";

/// A store's URL and its engine's variables (an object store's `AWS_*`).
type At<'a> = (&'a str, &'a [(&'a str, &'a str)]);

/// A cache of its own directory (another machine) on the store `at` with `secret`.
fn machine(dir: &Path, (url, engine): At<'_>, secret: &str, read_only: bool) -> Cache {
    let mut vars = vec![
        ("TUNESPEC_CACHE_STORE", url),
        ("TUNESPEC_CACHE_STORE_SECRET", secret),
    ];
    vars.extend(engine.iter().copied());
    if read_only {
        vars.push(("TUNESPEC_STORE_READ_ONLY", "1"));
    }
    machine_with(dir, &vars)
}

/// A cache of its own directory with these variables.
fn machine_with(dir: &Path, vars: &[(&str, &str)]) -> Cache {
    let dir = dir.to_str().unwrap();
    let all = [("TUNESPEC_CACHE_DIR", dir)]
        .into_iter()
        .chain(vars.iter().copied());
    Cache::from_env(&Environment::from_vars(all))
}

/// Asserts that `cache` warned with a message containing `text`.
fn assert_warned(cache: &Cache, text: &str) {
    let warnings = cache.take_warnings();
    assert!(
        warnings.iter().any(|w| w.message.contains(text)),
        "no warning with {text:?}: {warnings:?}"
    );
}

fn link_on(cache: &Cache, options: LinkOptions) -> (Vec<u8>, bool) {
    let mlir = Mlir::new();
    let library = cache
        .link(&mlir, &gfx942_target(), &gfx942_inputs(), options)
        .unwrap();
    (library.bytecode.to_vec(), library.hit)
}

fn second_level_shares_links_between_machines(at: At<'_>) {
    let url = at.0;
    let dir = tempfile::tempdir().unwrap();
    let mlir = Mlir::new();
    let direct = link::link(&mlir, &gfx942_inputs(), LinkOptions::default())
        .unwrap()
        .module
        .to_bytecode()
        .unwrap();
    // The first machine links and offers its link to the store.
    let first = machine(&dir.path().join("a"), at, SECRET, false);
    assert_eq!(
        link_on(&first, LinkOptions::default()),
        (direct.clone(), false)
    );
    let stats = first.process_stats();
    assert_eq!((stats.links, stats.remote_stores), (1, 1), "{stats:?}");
    assert!(first.take_warnings().is_empty());
    // Another machine with the team's secret takes it from the store: no link, the same bytes,
    // and its own disk holds it afterwards.
    let second = machine(&dir.path().join("b"), at, SECRET, false);
    assert_eq!(
        link_on(&second, LinkOptions::default()),
        (direct.clone(), true)
    );
    let stats = second.process_stats();
    assert_eq!(
        (stats.links, stats.remote_hits, stats.stores),
        (0, 1, 1),
        "{stats:?}"
    );
    let again = machine(&dir.path().join("b"), at, SECRET, false);
    assert!(link_on(&again, LinkOptions::default()).1);
    assert_eq!(again.process_stats().disk_hits, 1);
    // A machine with another secret rejects the store's entry, says so and links itself.
    let stranger = machine(&dir.path().join("c"), at, OTHER_SECRET, false);
    assert_eq!(link_on(&stranger, LinkOptions::default()), (direct, false));
    assert_eq!(stranger.process_stats().links, 1);
    assert_warned(&stranger, "fails the team secret's check");
    // Read-only: a new link (other options, another key) is not offered.
    let reader = machine(&dir.path().join("d"), at, SECRET, true);
    let options = LinkOptions {
        dedupe: !LinkOptions::default().dedupe,
        ..LinkOptions::default()
    };
    let _ = link_on(&reader, options.clone());
    assert_eq!(reader.process_stats().remote_stores, 0);
    // `TUNESPEC_CACHE=readonly` writes nothing anywhere, the store included.
    let mut vars = vec![
        ("TUNESPEC_CACHE", "readonly"),
        ("TUNESPEC_CACHE_STORE", url),
        ("TUNESPEC_CACHE_STORE_SECRET", SECRET),
    ];
    vars.extend(at.1.iter().copied());
    let readonly = machine_with(&dir.path().join("f"), &vars);
    let _ = link_on(&readonly, options.clone());
    assert!(readonly.take_warnings().is_empty());
    assert_eq!(readonly.process_stats().remote_stores, 0);
    let later = machine(&dir.path().join("e"), at, SECRET, false);
    assert!(!link_on(&later, options).1, "nothing was written read-only");
}

#[test]
fn a_file_store_shares_links_and_rejects_entries_without_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().join("store").display());
    second_level_shares_links_between_machines((&url, &[]));
}

#[test]
fn a_redis_store_shares_links_and_a_stopped_one_is_a_warning() {
    let Some(mut redis) = crate::store_servers::Redis::start(&[]) else {
        return;
    };
    second_level_shares_links_between_machines((&redis.url(), &[]));
    // The server stops after the cache opened it: the link goes on here, said once.
    let dir = tempfile::tempdir().unwrap();
    let cache = machine(dir.path(), (&redis.url(), &[]), SECRET, false);
    redis.kill();
    let (_, hit) = link_on(&cache, LinkOptions::default());
    assert!(!hit);
    assert_eq!(cache.process_stats().links, 1);
    assert_warned(&cache, "the cache's store failed");
}

#[test]
fn an_s3_store_shares_links_between_machines() {
    let Some(moto) = crate::store_servers::moto() else {
        return;
    };
    let vars = crate::store_servers::s3_env(moto.port());
    let engine: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let url = format!("s3://{}/cache", crate::store_servers::BUCKET);
    second_level_shares_links_between_machines((&url, &engine));
}

#[test]
fn the_second_level_needs_the_teams_secret() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().join("store").display());
    let cache = machine_with(
        &dir.path().join("cache"),
        &[("TUNESPEC_CACHE_STORE", url.as_str())],
    );
    assert_warned(&cache, "TUNESPEC_CACHE_STORE_SECRET");
    let (_, hit) = link_on(&cache, LinkOptions::default());
    assert!(!hit);
    assert!(
        !dir.path().join("store").exists(),
        "nothing written without the secret"
    );
}
