//! Several threads working in one MLIR context: the linker parses and checks its inputs
//! concurrently, into the context the linked module is then assembled in.
//!
//! MLIR allows that when the context's threading is on (its uniquers then take locks) and no
//! dialect is loaded while threads run (loading is not synchronized: every available dialect is
//! loaded first). Diagnostics are kept per worker thread (see `context::Sink`), so that each
//! input's problems stay its own.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use mlir_sys::mlirContextLoadAllAvailableDialects;

use super::{Mlir, OwnedOp, MLIR_STACK_BYTES};

/// The context as a worker of [`Mlir::parallel`] sees it, and the only way to hand an op back
/// to the calling thread ([`Worker::send`]).
pub struct Worker<'c> {
    mlir: &'c Mlir,
    /// Not `Send`: a worker stays on its thread.
    _here: PhantomData<*const ()>,
}

impl<'c> Worker<'c> {
    /// The shared context.
    pub fn mlir(&self) -> &'c Mlir {
        self.mlir
    }

    /// Wraps an op made in this worker so that it can go back to the thread that called
    /// [`Mlir::parallel`].
    pub fn send(&self, op: OwnedOp<'c>) -> SendOp<'c> {
        SendOp(op)
    }
}

/// An op on its way from a worker of [`Mlir::parallel`] to the calling thread.
pub struct SendOp<'c>(OwnedOp<'c>);

// SAFETY: a `SendOp` is only made by `Worker::send`, that is in a context with MLIR's threading on
// and every available dialect loaded, where MLIR itself (its pass manager) builds, reads and
// destroys ops on any thread. The op is owned by this value alone (an `OwnedOp` root), so no other
// thread holds a handle into it while it moves.
unsafe impl Send for SendOp<'_> {}

impl<'c> SendOp<'c> {
    /// The op, on the receiving thread.
    pub fn into_op(self) -> OwnedOp<'c> {
        self.0
    }
}

/// `&Mlir` shared by the workers.
struct Shared<'c>(&'c Mlir);

// SAFETY: only made by `Mlir::parallel` for a context with MLIR's threading on and every available
// dialect loaded (MLIR's context is then safe to use from several threads); tunespec's own state
// in `Mlir` is behind a mutex (the diagnostics sink), and melior's context is a plain handle.
unsafe impl Sync for Shared<'_> {}

impl Mlir {
    /// Runs `work(worker, i)` for every `i` in `0..count` on up to `threads` threads sharing
    /// this context, and returns the results in index order (the same whatever the threads and
    /// their timing). Diagnostics MLIR emits during one call of `work` are that call's (as with
    /// one thread). A context without threading, one thread, one item, or a call from inside a
    /// worker: everything runs on the calling thread.
    ///
    /// A panic in a worker is raised again on the calling thread once every worker has stopped.
    pub fn parallel<'c, R: Send>(
        &'c self,
        count: usize,
        threads: usize,
        work: impl Fn(&Worker<'c>, usize) -> R + Sync,
    ) -> Vec<R> {
        let threads = threads.min(count);
        let worker = Worker {
            mlir: self,
            _here: PhantomData,
        };
        // Inside a worker (a nested call) the context is shared already: run here.
        let nested = self.sink().per_thread.is_some();
        if !self.is_threaded() || threads <= 1 || nested {
            return (0..count).map(|index| work(&worker, index)).collect();
        }
        tracing::info_span!("mlir.load_all_dialects").in_scope(|| {
            // SAFETY: the context is alive; loading dialects before any worker starts is what
            // makes sharing it sound (MLIR does not synchronize dialect loading).
            unsafe { mlirContextLoadAllAvailableDialects(self.raw()) }
        });
        self.sink().per_thread = Some(Default::default());
        let shared = Shared(self);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(count));
        let outcome = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (shared, next, results, work) = (&shared, &next, &results, &work);
                    std::thread::Builder::new()
                        .name("tunespec-worker".into())
                        .stack_size(MLIR_STACK_BYTES)
                        .spawn_scoped(scope, move || {
                            let mlir = shared.0;
                            mlir.sink()
                                .per_thread
                                .as_mut()
                                .expect("workers run in parallel mode")
                                .insert(std::thread::current().id(), Vec::new());
                            let worker = Worker {
                                mlir,
                                _here: PhantomData,
                            };
                            loop {
                                let index = next.fetch_add(1, Ordering::Relaxed);
                                if index >= count {
                                    break;
                                }
                                let result = work(&worker, index);
                                results
                                    .lock()
                                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                                    .push((index, result));
                            }
                        })
                })
                .collect();
            let mut panic = None;
            let mut spawn_error = None;
            for handle in handles {
                match handle {
                    Ok(handle) => {
                        if let Err(payload) = handle.join() {
                            panic.get_or_insert(payload);
                        }
                    }
                    Err(error) => spawn_error = Some(error),
                }
            }
            (panic, spawn_error)
        });
        let leftover = {
            let mut sink = self.sink();
            let per_thread = sink.per_thread.take().unwrap_or_default();
            per_thread.into_values().flatten().collect::<Vec<_>>()
        };
        // Diagnostics a worker did not take (none, when every call takes its own) stay visible.
        self.sink().shared.extend(leftover);
        let (panic, spawn_error) = outcome;
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
        let mut results = results
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // A thread that could not be started leaves its share to the others; none started at
        // all (every spawn failed) leaves it to this thread.
        if spawn_error.is_some() {
            let done: std::collections::HashSet<usize> =
                results.iter().map(|(index, _)| *index).collect();
            for index in (0..count).filter(|index| !done.contains(index)) {
                results.push((index, work(&worker, index)));
            }
        }
        results.sort_by_key(|(index, _)| *index);
        results.into_iter().map(|(_, result)| result).collect()
    }
}
