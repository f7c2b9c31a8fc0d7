//! The in-process side: single flight (concurrent requests for one key link once) and the LRU
//! bounded by entries and bytes.

use super::*;

#[derive(Clone)]
pub(super) enum FlightState {
    Running,
    Done(Result<Arc<Artifact>, Vec<Problem>>),
    Abandoned,
}

pub(super) struct Flight {
    pub(super) state: Mutex<FlightState>,
    pub(super) done: Condvar,
}

impl Default for Flight {
    fn default() -> Self {
        Flight {
            state: Mutex::new(FlightState::Running),
            done: Condvar::new(),
        }
    }
}

impl Flight {
    pub(super) fn wait(&self) -> FlightState {
        let mut state = lock(&self.state);
        while matches!(*state, FlightState::Running) {
            state = self
                .done
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state.clone()
    }
}

/// Ends a flight: with the leader's result, or abandoned if the leader unwinds.
pub(super) struct FlightGuard<'a> {
    pub(super) cache: &'a Cache,
    pub(super) hash: [u8; 32],
    pub(super) flight: Arc<Flight>,
    pub(super) done: bool,
}

impl FlightGuard<'_> {
    pub(super) fn finish(&mut self, result: Result<Arc<Artifact>, Vec<Problem>>) {
        self.end(FlightState::Done(result));
        self.done = true;
    }
    pub(super) fn end(&self, state: FlightState) {
        lock(&self.cache.flights).remove(&self.hash);
        *lock(&self.flight.state) = state;
        self.flight.done.notify_all();
    }
}

impl Drop for FlightGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.end(FlightState::Abandoned);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// In-process LRU

pub(super) struct Memory {
    pub(super) max_entries: usize,
    pub(super) max_bytes: u64,
    pub(super) bytes: u64,
    pub(super) tick: u64,
    pub(super) entries: HashMap<[u8; 32], (Key, Arc<Artifact>, u64)>,
    pub(super) order: BTreeMap<u64, [u8; 32]>,
}

impl Memory {
    pub(super) fn new(max_entries: usize, max_bytes: u64) -> Self {
        Memory {
            max_entries,
            max_bytes,
            bytes: 0,
            tick: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    pub(super) fn size(artifact: &Artifact) -> u64 {
        (artifact.bytecode.len() + artifact.problems.len() * 256) as u64
    }

    pub(super) fn get(&mut self, key: &Key) -> Option<Arc<Artifact>> {
        self.tick += 1;
        let tick = self.tick;
        let (stored_key, artifact, last) = self.entries.get_mut(&key.hash)?;
        if stored_key.preimage != key.preimage {
            return None;
        }
        self.order.remove(last);
        *last = tick;
        self.order.insert(tick, key.hash);
        Some(artifact.clone())
    }

    pub(super) fn insert(&mut self, key: &Key, artifact: Arc<Artifact>) {
        self.remove(&key.hash);
        let size = Self::size(&artifact);
        if self.max_entries == 0 || size > self.max_bytes {
            return;
        }
        while self.entries.len() >= self.max_entries || self.bytes + size > self.max_bytes {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((_, evicted, _)) = self.entries.remove(&oldest) {
                self.bytes -= Self::size(&evicted);
            }
        }
        self.tick += 1;
        self.bytes += size;
        self.order.insert(self.tick, key.hash);
        self.entries
            .insert(key.hash, (key.clone(), artifact, self.tick));
    }

    pub(super) fn remove(&mut self, hash: &[u8; 32]) {
        if let Some((_, artifact, tick)) = self.entries.remove(hash) {
            self.order.remove(&tick);
            self.bytes -= Self::size(&artifact);
        }
    }
}
