//! The in-process cache through the library API: a link through it equals a direct link,
//! single flight on one key, failures and panics not cached, the memory cache bounded.

use super::*;

fn settings(dir: Option<&Path>) -> Settings {
    Settings {
        mode: Mode::On,
        dir: dir.map(Path::to_path_buf),
        max_bytes: 1 << 30,
        memory_entries: 64,
        memory_bytes: 64 << 20,
        fault: None,
    }
}

#[test]
fn library_link_equals_a_direct_link() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let inputs = gfx942_inputs();
    let direct = link::link(&mlir, &inputs, LinkOptions::default()).unwrap();
    let expected = direct.module.to_bytecode().unwrap();
    let first = cache
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(!first.hit);
    assert_eq!(first.bytecode, expected);
    assert_eq!(first.key, gfx942_key());
    let second = cache
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(second.hit);
    assert_eq!(second.bytecode, expected);
    // Another cache object (another process, as far as the disk goes) hits on disk.
    let other = Cache::new(settings(Some(dir.path())));
    let third = other
        .link(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(third.hit);
    assert_eq!(other.process_stats().disk_hits, 1);
    assert_eq!(cache.process_stats().memory_hits, 1);
    assert_eq!(cache.process_stats().links, 1);
    // The module parsed from the cache prints what the direct link prints.
    let (module, library) = other
        .link_module(&mlir, &gfx942_target(), &inputs, LinkOptions::default())
        .unwrap();
    assert!(library.hit);
    assert_eq!(module.print(), direct.module.print());
    assert!(cache.take_warnings().is_empty());
}

#[test]
fn concurrent_requests_for_one_key_link_once() {
    let cache = Arc::new(Cache::new(settings(None)));
    let _ = cache.take_warnings(); // "no cache directory": memory only
    let key = gfx942_key();
    let bytecode = registry::specs()[0].bytecode().to_vec();
    let builds = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (cache, key, bytecode, builds, barrier) = (
                cache.clone(),
                key.clone(),
                bytecode.clone(),
                builds.clone(),
                barrier.clone(),
            );
            std::thread::spawn(move || {
                barrier.wait();
                cache
                    .get_or_insert_with(&key, || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(300));
                        Ok(Artifact {
                            bytecode,
                            problems: Vec::new(),
                        })
                    })
                    .unwrap()
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    assert_eq!(results.iter().filter(|result| !result.hit).count(), 1);
    assert!(results.iter().all(|result| result.bytecode == bytecode));
    let stats = cache.process_stats();
    assert_eq!(stats.links, 1);
    assert_eq!(stats.shared + stats.memory_hits, 7);
}

#[test]
fn concurrent_links_on_threads_with_their_own_contexts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::new(settings(Some(dir.path()))));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let mlir = Mlir::new();
                cache
                    .link(
                        &mlir,
                        &gfx942_target(),
                        &gfx942_inputs(),
                        LinkOptions::default(),
                    )
                    .unwrap()
                    .bytecode
            })
        })
        .collect();
    let results: Vec<Vec<u8>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(results.windows(2).all(|pair| pair[0] == pair[1]));
    assert_eq!(cache.process_stats().links, 1);
}

#[test]
fn failures_are_not_cached_and_waiters_get_them() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let bad = vec![LinkInput {
        name: "bad.mlir".into(),
        location: "bad.mlir".into(),
        bytes: b"func.func @f() { return }".to_vec(),
        role: Role::User,
    }];
    for _ in 0..2 {
        let problems = cache
            .link(&mlir, "", &bad, LinkOptions::default())
            .unwrap_err();
        assert!(problems.iter().any(Problem::is_error));
    }
    assert_eq!(cache.process_stats().links, 2);
    assert!(entry_files(dir.path()).is_empty());
}

#[test]
fn a_panicking_link_does_not_wedge_other_requests() {
    let cache = Arc::new(Cache::new(settings(None)));
    let key = gfx942_key();
    let panicking = {
        let (cache, key) = (cache.clone(), key.clone());
        std::thread::spawn(move || {
            let _ = cache.get_or_insert_with(&key, || {
                std::thread::sleep(Duration::from_millis(200));
                panic!("link bug");
            });
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let result = cache.get_or_insert_with(&key, || {
        Ok(Artifact {
            bytecode: b"ML\xEFR".to_vec(),
            problems: Vec::new(),
        })
    });
    assert!(panicking.join().is_err());
    assert_eq!(result.unwrap().bytecode, b"ML\xEFR");
}

#[test]
fn the_memory_cache_is_bounded_by_entries_and_bytes() {
    let mut limits = settings(None);
    limits.memory_entries = 2;
    limits.memory_bytes = 1000;
    let cache = Cache::new(limits);
    let builds = AtomicUsize::new(0);
    let get = |target: &str, size: usize| {
        let key = KeyParts::new(target, &[], &LinkOptions::default()).key();
        cache
            .get_or_insert_with(&key, || {
                builds.fetch_add(1, Ordering::SeqCst);
                Ok(Artifact {
                    bytecode: vec![7; size],
                    problems: Vec::new(),
                })
            })
            .unwrap()
            .hit
    };
    assert!(!get("a", 100));
    assert!(!get("b", 100));
    assert!(get("a", 100)); // a is now the most recently used
    assert!(!get("c", 100)); // evicts b
    assert!(get("a", 100));
    assert!(!get("b", 100));
    assert!(!get("big", 2000)); // larger than the byte bound: never kept
    assert!(!get("big", 2000));
    assert_eq!(builds.load(Ordering::SeqCst), 6);
}

#[test]
fn an_entry_mlir_cannot_parse_is_relinked() {
    // A checksum-valid entry whose bytecode MLIR rejects (a version from the future), in a
    // cache that has its secret (made by a first link).
    let dir = tempfile::tempdir().unwrap();
    let key = gfx942_key();
    link_gfx942(dir.path());
    let secret = cache::entry_secret(dir.path()).unwrap();
    let mut bogus = b"ML\xEFR".to_vec();
    bogus.push((99 << 1) | 1);
    bogus.extend_from_slice(b"MLIR99\0");
    std::fs::write(
        dir.path().join("entries").join(key.hex()),
        encode_entry_with(
            &key,
            &Artifact {
                bytecode: bogus,
                problems: Vec::new(),
            },
            Some(&secret),
        ),
    )
    .unwrap();
    let cache = Cache::new(settings(Some(dir.path())));
    let mlir = Mlir::new();
    let (module, library) = cache
        .link_module(
            &mlir,
            &gfx942_target(),
            &gfx942_inputs(),
            LinkOptions::default(),
        )
        .unwrap();
    assert!(!library.hit);
    assert!(module.print().contains("@__kernel_config"));
    assert_eq!(cache.process_stats().corrupt, 1);
    assert_eq!(stats(dir.path()).corrupt, 1);
    let stored = std::fs::read(dir.path().join("entries").join(key.hex())).unwrap();
    assert_eq!(
        decode_entry_with(&stored, &key, Some(&secret))
            .unwrap()
            .bytecode,
        library.bytecode
    );
}
