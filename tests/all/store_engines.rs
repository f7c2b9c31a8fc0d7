//! The five operations every store engine must make atomic (`tunespec::store::Backend`),
//! checked on each real engine: Redis, a directory, S3 (moto) and Azure Blob (Azurite).

use tunespec::store::{open_backend, url, Backend, Options};

use crate::store::run;
use crate::store_servers::{engines, Engine, Redis};

pub fn backend(engine: &Engine, namespace: &str) -> Box<dyn Backend> {
    let url = url::parse(&engine.in_namespace(namespace)).unwrap();
    let options = Options {
        engine_variables: engine.vars.clone(),
        ..Options::default()
    };
    open_backend(&url, &options).unwrap()
}

/// Put-if-absent writes once; a swap from a stale value fails and changes nothing; `list`
/// keeps to its prefix (a string prefix, not a path segment) and is sorted; `delete` of an
/// absent key is fine.
#[test]
fn every_engine_writes_once_swaps_only_from_the_current_value_and_lists_by_prefix() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in &engines {
        let store = backend(engine, "ops");
        let name = engine.name;
        let key = "ops/best/k1";
        assert_eq!(store.get(key).unwrap(), None, "{name}");
        assert!(store.put_if_absent(key, b"a").unwrap(), "{name}");
        assert!(!store.put_if_absent(key, b"b").unwrap(), "{name}");
        assert_eq!(
            store.get(key).unwrap().as_deref(),
            Some(&b"a"[..]),
            "{name}"
        );
        assert!(
            !store.compare_and_swap(key, Some(b"b"), b"c").unwrap(),
            "{name}"
        );
        assert!(!store.compare_and_swap(key, None, b"c").unwrap(), "{name}");
        assert!(
            store.compare_and_swap(key, Some(b"a"), b"c").unwrap(),
            "{name}"
        );
        assert_eq!(
            store.get(key).unwrap().as_deref(),
            Some(&b"c"[..]),
            "{name}"
        );
        assert!(
            store.compare_and_swap("ops/best/k0", None, b"z").unwrap(),
            "{name}"
        );
        store.put_if_absent("ops/best-other/k2", b"x").unwrap();
        store.put_if_absent("ops/entries/e1", b"y").unwrap();
        assert_eq!(
            store.list("ops/best/").unwrap(),
            vec!["ops/best/k0".to_string(), "ops/best/k1".to_string()],
            "{name}"
        );
        assert_eq!(store.list("ops/best").unwrap().len(), 3, "{name}");
        assert_eq!(store.list("ops/").unwrap().len(), 4, "{name}");
        store.delete(key).unwrap();
        store.delete(key).unwrap();
        assert_eq!(store.get(key).unwrap(), None, "{name}");
    }
}

/// Writers racing on one counter, each reading it and swapping in the next value until its swap
/// takes: no increment is lost on any engine. A swap that did not check the value it read
/// (a plain write after a read) loses increments here.
#[test]
fn racing_swaps_lose_no_update_on_any_engine() {
    const WRITERS: usize = 6;
    const INCREMENTS: usize = 8;
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in &engines {
        let key = "race/counter";
        backend(engine, "race").put_if_absent(key, b"0").unwrap();
        std::thread::scope(|scope| {
            for _ in 0..WRITERS {
                scope.spawn(|| {
                    let store = backend(engine, "race");
                    for _ in 0..INCREMENTS {
                        loop {
                            let current = store.get(key).unwrap().unwrap();
                            let value: usize = String::from_utf8_lossy(&current).parse().unwrap();
                            let next = (value + 1).to_string();
                            if store
                                .compare_and_swap(key, Some(&current), next.as_bytes())
                                .unwrap()
                            {
                                break;
                            }
                        }
                    }
                });
            }
        });
        let total = backend(engine, "race").get(key).unwrap().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&total),
            (WRITERS * INCREMENTS).to_string(),
            "{}",
            engine.name
        );
    }
}

/// Malformed URLs, an engine not supported, credentials in a URL, and a server that refuses
/// the credentials (Redis's password, S3's unknown access key, Azure's Shared Key): exit 2 with
/// the store's words, the secret never printed.
#[test]
fn bad_urls_unsupported_engines_and_refused_credentials_are_exit_2() {
    let cases: [(&str, &str); 6] = [
        ("s3://", "names a bucket first"),
        ("gs://bucket/a//b", "the prefix"),
        ("webdav://host/dav", "webdav:// stores are not supported"),
        ("tuning/store", "not a URL"),
        (
            "redis://user:secret@host",
            "credentials in a store URL are refused",
        ),
        (
            "s3://key:secret@bucket",
            "credentials in a store URL are refused",
        ),
    ];
    for (url, words) in cases {
        let (status, stdout, stderr) = run(&["store", "ls", "--store", url], &[]);
        assert_eq!(status, Some(2), "{url}: {stdout}{stderr}");
        assert!(stderr.contains(words), "{url}: {stderr}");
        assert!(!stderr.contains("secret"), "{stderr}");
    }
    let (status, _, stderr) = run(
        &["store", "ls", "--store", "webdav://h/p", "--format", "json"],
        &[],
    );
    assert_eq!(status, Some(2));
    let line: serde_json::Value = serde_json::from_str(stderr.lines().next().unwrap()).unwrap();
    assert_eq!(line["code"], "tunespec::store::url", "{line:#}");
    let Some(redis) = Redis::start(&["--requirepass", "right-password"]) else {
        return;
    };
    let url = redis.url();
    for env in [&[][..], &[("REDISCLI_AUTH", "wrong-password")][..]] {
        let (status, _, stderr) = run(&["store", "ls", "--store", &url], env);
        assert_eq!(status, Some(2), "{stderr}");
        assert!(stderr.contains("refused the credentials"), "{stderr}");
    }
    let (status, stdout, stderr) = run(
        &["store", "ls", "--store", &url],
        &[("REDISCLI_AUTH", "right-password")],
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("0 key(s)"), "{stdout}");
    // S3 refusing an access key it does not know (moto checking keys as S3 does).
    let Some(moto) = crate::store_servers::moto_checking_keys() else {
        return;
    };
    let vars = crate::store_servers::s3_env(moto.port());
    let env: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let url = format!("s3://{}", crate::store_servers::BUCKET);
    let (status, _, stderr) = run(&["store", "ls", "--store", &url], &env);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("refused the credentials"), "{stderr}");
    assert!(!stderr.contains("test-secret"), "{stderr}");
    // An object store that refuses the key: Azurite checks every request's signature.
    let Some(azurite) = crate::store_servers::azurite() else {
        return;
    };
    let url = format!("azblob://{}", crate::store_servers::BUCKET);
    let port = azurite.port();
    let wrong = "d3Jvbmcga2V5IGZvciB0aGUgZGV2ZWxvcG1lbnQgYWNjb3VudA==";
    for (key, refused) in [(wrong, true), (crate::store_servers::azurite_key(), false)] {
        let vars = crate::store_servers::azure_env(port, key);
        let env: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let (status, _, stderr) = run(&["store", "ls", "--store", &url], &env);
        assert_eq!(status, Some(if refused { 2 } else { 0 }), "{stderr}");
        assert_eq!(
            stderr.contains("refused the credentials"),
            refused,
            "{stderr}"
        );
    }
}

/// A bucket that does not exist is named as such (tunespec creates none), exit 2, on S3 and
/// Azure alike.
#[test]
fn a_missing_bucket_is_said_and_is_exit_2() {
    let work = tempfile::tempdir().unwrap();
    let Some(engines) = engines(work.path()) else {
        return;
    };
    for engine in engines.iter().filter(|e| matches!(e.name, "s3" | "azblob")) {
        let url = engine
            .url
            .replace(crate::store_servers::BUCKET, "no-such-bucket");
        let (status, _, stderr) = run(&["store", "ls", "--store", &url], &engine.env());
        assert_eq!(status, Some(2), "{}: {stderr}", engine.name);
        assert!(stderr.contains("the bucket does not exist"), "{stderr}");
    }
}

/// `rediss://`: the store over TLS, the server's certificate checked against the roots the
/// client trusts (`SSL_CERT_FILE`, as OpenSSL reads it); a certificate nobody vouched for is a
/// connection refused with the TLS error's words (exit 2), never a silent plain-text fallback.
#[test]
fn rediss_checks_the_servers_certificate_and_carries_the_store() {
    let Some((redis, trusted)) = Redis::start_tls() else {
        return;
    };
    let url = format!("rediss://127.0.0.1:{}", redis.0.port());
    let trust = [("SSL_CERT_FILE", trusted.to_str().unwrap())];
    let push = [
        "store",
        "push",
        "tests/fixtures/bench/two_devices",
        "--store",
        &url,
    ];
    let (status, stdout, stderr) = run(&push, &trust);
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("pushed 2 entries"), "{stdout}");
    let (status, stdout, _) = run(&["store", "ls", "--store", &url], &trust);
    assert_eq!(status, Some(0));
    assert!(stdout.contains("2 key(s)"), "{stdout}");
    let untrusted = [("SSL_CERT_FILE", "/dev/null")];
    let (status, _, stderr) = run(&["store", "ls", "--store", &url], &untrusted);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    assert!(stderr.to_lowercase().contains("certificate"), "{stderr}");
    let plain = format!("redis://127.0.0.1:{}", redis.0.port());
    let (status, _, stderr) = run(&["store", "ls", "--store", &plain], &[]);
    assert_eq!(status, Some(2), "{stderr}");
}
