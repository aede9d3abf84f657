//! A work list (`#[path]` include of `benches/par_bridge_paired.rs` and
//! `tests/iter_sources.rs`): a queue whose items, when consumed, queue
//! their two children below a limit, and whose `next` waits while items
//! are out, as jwalk's directory queue and channels fed by their consumers
//! do. A `par_bridge` over it runs only if every worker consumes the item
//! it pulled before it calls `next` again. A deadline of 30 s turns a wait
//! that would never end into `None` and [`WorkList::timed_out`].

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The queue, rooted at item 0, with items below `limit`.
pub struct WorkList {
    /// Queued items and the count of items queued or being consumed.
    state: Mutex<(VecDeque<u32>, usize)>,
    limit: u32,
    deadline: Instant,
    timed_out: AtomicBool,
}

impl WorkList {
    /// A list that will hold items `0..limit`, with item 0 queued.
    pub fn new(limit: u32) -> WorkList {
        WorkList {
            state: Mutex::new((VecDeque::from([0]), 1)),
            limit,
            deadline: Instant::now() + Duration::from_secs(30),
            timed_out: AtomicBool::new(false),
        }
    }

    /// Consumes item `n`: queues its children below the limit, then
    /// counts it done.
    pub fn finish(&self, n: u32) {
        let mut st = self.state.lock().unwrap();
        for child in [2 * n + 1, 2 * n + 2] {
            if child < self.limit {
                st.0.push_back(child);
                st.1 += 1;
            }
        }
        st.1 -= 1;
    }

    /// Whether `next` gave up at the deadline with items still out.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }
}

impl Iterator for &WorkList {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        loop {
            {
                let mut st = self.state.lock().unwrap();
                if let Some(n) = st.0.pop_front() {
                    return Some(n);
                }
                if st.1 == 0 {
                    return None;
                }
                if Instant::now() > self.deadline {
                    self.timed_out.store(true, Ordering::Relaxed);
                    return None;
                }
            }
            std::thread::yield_now();
        }
    }
}
