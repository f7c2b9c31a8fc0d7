//! Work spread over threads, results in input order: IREE compiles of `check` and `bench`
//! (each a child process, so threads only wait).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `work` on every item with up to `jobs` threads; results in item order.
pub fn parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                let result = work(item);
                *results[index].lock().expect("not poisoned") = Some(result);
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .expect("not poisoned")
                .expect("every item ran")
        })
        .collect()
}
