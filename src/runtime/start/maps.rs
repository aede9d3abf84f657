//! The memory-mapping budget a build checks before it starts threads.
//!
//! Spawning a thread past `vm.max_map_count` does not fail cleanly: the OS
//! creates the thread, then std cannot map its signal stack inside it and
//! aborts the process. So a build refuses up front ([`BuildError::ThreadLimit`])
//! to start threads whose mappings cannot fit: the limit, minus the
//! mappings the process has, must leave [`MAPS_PER_THREAD`] per thread plus
//! [`MAPS_HEADROOM`].
//!
//! Counting the process's mappings means reading `/proc/self/maps`, which
//! the kernel formats line by line under the process's memory lock: tens
//! of microseconds, a quarter of the cost of building a small pool (see
//! `docs/pool-build-cost.md`). So the count is kept, process-wide, and
//! taken again only when it may matter: when it is older than
//! [`RECOUNT_AFTER`], or when the kept count, plus the mappings of every
//! thread the builds started since it was taken, plus [`RECOUNT_MARGIN`]
//! for mappings made by anything else meanwhile, would not leave room for
//! the threads asked for. A build is refused only on a fresh count, so
//! the cache never refuses a build that fits; it may let one through that
//! no longer fits only if the process made more than [`RECOUNT_MARGIN`]
//! mappings of its own within [`RECOUNT_AFTER`] while within that margin
//! of the limit (the check was best effort before too: threads that map
//! memory while a pool starts can exhaust the budget).
//!
//! Other limits (`kernel.threads-max`, `RLIMIT_NPROC`, cgroup `pids.max`,
//! memory for stacks) make the spawn itself fail, which gives
//! [`BuildError::Spawn`]. When the files cannot be read, nothing is
//! checked.

use crate::runtime::error::BuildError;

/// Memory mappings one thread costs on Linux with glibc and Rust's std: its
/// stack and guard page, and the signal stack std maps for every thread
/// (to report stack overflows) with its guard page. Measured: 4.03 per
/// thread over 1000 threads (the extra is the occasional malloc arena).
#[cfg(any(test, target_os = "linux"))]
pub(super) const MAPS_PER_THREAD: usize = 4;

/// Mappings left free for everything else a new thread may map (malloc
/// arenas, thread-local blocks) and for the rest of the process.
#[cfg(any(test, target_os = "linux"))]
pub(super) const MAPS_HEADROOM: usize = 64;

/// A kept count older than this is taken again.
#[cfg(target_os = "linux")]
const RECOUNT_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Mappings that other code of the process may have made since the kept
/// count: within this many of the limit, every build counts afresh.
#[cfg(target_os = "linux")]
pub(super) const RECOUNT_MARGIN: usize = 4096;

/// Refuses to start `n` threads that cannot all get their memory mappings
/// (see the module docs).
pub(super) fn check_thread_limit(n: usize) -> Result<(), BuildError> {
    #[cfg(target_os = "linux")]
    {
        use std::sync::Mutex;
        use std::time::Instant;

        /// The last exact count: when, the limit and the mappings then,
        /// and the threads builds started since.
        struct Kept {
            at: Instant,
            max: usize,
            used: usize,
            since: usize,
        }
        // A process-wide cache, not a protocol between workers: std's
        // lock, like the topology's once-per-process detection.
        static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kept.as_mut() {
            let grown = k
                .used
                .saturating_add(k.since.saturating_mul(MAPS_PER_THREAD))
                .saturating_add(RECOUNT_MARGIN);
            if k.at.elapsed() < RECOUNT_AFTER && n <= fit(k.max, grown) {
                k.since = k.since.saturating_add(n);
                return Ok(());
            }
        }
        let Some(max) = std::fs::read_to_string("/proc/sys/vm/max_map_count")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
        else {
            return Ok(());
        };
        let Some(used) = count_lines("/proc/self/maps") else {
            return Ok(());
        };
        let fit = fit(max, used);
        if n > fit {
            *kept = None;
            return Err(BuildError::ThreadLimit {
                requested: n,
                fit,
                max_map_count: max,
            });
        }
        *kept = Some(Kept {
            at: Instant::now(),
            max,
            used,
            since: n,
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = n;
    Ok(())
}

/// How many threads fit under limit `max` with `used` mappings.
#[cfg(any(test, target_os = "linux"))]
pub(super) fn fit(max: usize, used: usize) -> usize {
    max.saturating_sub(used.saturating_add(MAPS_HEADROOM)) / MAPS_PER_THREAD
}

/// The number of lines of a file, if it can be read.
#[cfg(target_os = "linux")]
fn count_lines(path: &str) -> Option<usize> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Some(lines),
            Ok(k) => lines += buf[..k].iter().filter(|&&b| b == b'\n').count(),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_leaves_the_headroom_and_four_mappings_per_thread() {
        assert_eq!(fit(65530, 130), (65530 - 130 - MAPS_HEADROOM) / 4);
        assert_eq!(fit(100, 40), 0);
        assert_eq!(fit(10, usize::MAX), 0);
    }

    /// A kept count lets small builds through, and a build that cannot fit
    /// is still refused right after one (it counts afresh first).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_kept_count_never_hides_a_build_that_does_not_fit() {
        let Some(max) = std::fs::read_to_string("/proc/sys/vm/max_map_count")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
        else {
            return;
        };
        assert!(check_thread_limit(2).is_ok());
        assert!(check_thread_limit(2).is_ok());
        let too_many = max / MAPS_PER_THREAD + 1;
        match check_thread_limit(too_many) {
            Err(BuildError::ThreadLimit {
                requested,
                fit,
                max_map_count,
            }) => {
                assert_eq!((requested, max_map_count), (too_many, max));
                assert!(fit < too_many);
            }
            other => panic!("expected the thread limit, got {other:?}"),
        }
        assert!(check_thread_limit(2).is_ok());
    }
}
