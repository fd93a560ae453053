//! Work done ahead, in order, on background threads, and collected one item at a time: the
//! CUDA worker compiles its batch's kernels this way while it verifies and times the earlier
//! ones, so that NVRTC (CPU) and the benchmark (GPU) overlap instead of adding up.
//!
//! Items start in index order (at most `threads` at a time), so the item the consumer waits for
//! next is always among the first started. [`Prefetch::take`] blocks until its item is done and
//! says how long it waited. A panic in the work is caught and returned as an error for that
//! item only.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

struct Shared<T> {
    done: Mutex<HashMap<usize, Result<T, String>>>,
    ready: Condvar,
    len: usize,
}

/// Items computed in the background; see the module documentation.
pub struct Prefetch<T> {
    shared: Arc<Shared<T>>,
    taken: Vec<bool>,
}

impl<T: Send + 'static> Prefetch<T> {
    /// Starts `work` on every item on `threads` (at least 1) background threads, in order.
    pub fn start<K, F>(items: Vec<K>, threads: usize, work: F) -> Prefetch<T>
    where
        K: Send + Sync + 'static,
        F: Fn(&K) -> T + Send + Sync + 'static,
    {
        let len = items.len();
        let shared = Arc::new(Shared {
            done: Mutex::new(HashMap::new()),
            ready: Condvar::new(),
            len,
        });
        let items = Arc::new(items);
        let work = Arc::new(work);
        let next = Arc::new(AtomicUsize::new(0));
        for _ in 0..threads.clamp(1, len.max(1)) {
            let (shared, items, work, next) = (
                Arc::clone(&shared),
                Arc::clone(&items),
                Arc::clone(&work),
                Arc::clone(&next),
            );
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                let r = catch_unwind(AssertUnwindSafe(|| work(item))).map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic without a message".to_string())
                });
                let mut done = shared.done.lock().unwrap_or_else(|e| e.into_inner());
                done.insert(i, r);
                shared.ready.notify_all();
            });
        }
        Prefetch {
            shared,
            taken: vec![false; len],
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.shared.len
    }

    /// True when there are no items.
    pub fn is_empty(&self) -> bool {
        self.shared.len == 0
    }

    /// Waits for item `index` and returns it with the time spent waiting; `None` when the
    /// index is out of range or the item was taken already. `Err` carries the message of a
    /// panic in the work.
    pub fn take(&mut self, index: usize) -> Option<(Result<T, String>, Duration)> {
        if index >= self.shared.len || self.taken[index] {
            return None;
        }
        self.taken[index] = true;
        let t0 = Instant::now();
        let mut done = self.shared.done.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(r) = done.remove(&index) {
                return Some((r, t0.elapsed()));
            }
            done = self
                .shared
                .ready
                .wait(done)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_back_by_index_in_any_order() {
        let mut p = Prefetch::start((0..20u64).collect(), 3, |x| {
            std::thread::sleep(Duration::from_millis(*x % 3));
            x * 10
        });
        assert_eq!(p.len(), 20);
        assert_eq!(p.take(5).map(|(r, _)| r), Some(Ok(50)));
        for i in (0..20).rev() {
            let got = p.take(i).map(|(r, _)| r);
            if i == 5 {
                assert_eq!(got, None, "taken already");
            } else {
                assert_eq!(got, Some(Ok(i as u64 * 10)));
            }
        }
        assert!(p.take(20).is_none());
    }

    #[test]
    fn waiting_is_measured_and_panics_stay_with_their_item() {
        let mut p = Prefetch::start(vec![30u64, 0, 1], 1, |ms| {
            if *ms == 1 {
                panic!("item one fails");
            }
            std::thread::sleep(Duration::from_millis(*ms));
            *ms
        });
        let (r, waited) = p.take(0).unwrap();
        assert_eq!(r, Ok(30));
        assert!(waited >= Duration::from_millis(20), "{waited:?}");
        assert_eq!(p.take(1).unwrap().0, Ok(0));
        let (r, _) = p.take(2).unwrap();
        assert!(r.unwrap_err().contains("item one fails"));
    }

    #[test]
    fn empty() {
        let mut p: Prefetch<u8> = Prefetch::start(Vec::<u8>::new(), 4, |_| 0);
        assert!(p.is_empty());
        assert!(p.take(0).is_none());
    }
}
