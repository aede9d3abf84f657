//! Pinning the calling thread to a CPU set.
//!
//! - **Linux**: the raw `sched_setaffinity` system call with a mask sized for
//!   the largest CPU in the set (so sets wider than glibc's `CPU_SETSIZE` of
//!   1024 work). This is the path on Linux with or without feature `hwloc`.
//! - **Elsewhere, with cargo feature `hwloc`**: hwloc's thread CPU binding
//!   (`hwloc_set_cpubind` with `HWLOC_CPUBIND_THREAD`) to the whole set. The
//!   hwloc topology it needs is loaded once per process, by the first worker
//!   that pins. If hwloc fails (the topology does not load, the OS cannot
//!   bind threads, hwloc refuses the set), `core_affinity` pins the thread to
//!   the lowest CPU of the set and the worker is reported
//!   [`PinStatus::Failed`] with both reasons and the CPU it runs on.
//! - **Elsewhere, without the feature**: `core_affinity`, which can pin to
//!   one CPU only, so the lowest CPU of the set is used, and the pin report
//!   says [`PinStatus::Pinned`] with that one CPU.
//!
//! - **Under Miri** (`cfg(miri)`, any OS): no pinning (the report says
//!   [`PinStatus::Failed`], why) and no current CPU, as Miri does not
//!   emulate the affinity and `sched_getcpu` calls; the pool runs as it does
//!   where pinning fails.
//!
//! The hwloc path is compiled whenever feature `hwloc` is on, Linux included,
//! so that its unit tests run on Linux. Failures are returned, never fatal:
//! the pool records them in its pin report and keeps running.

use std::fmt;

use crate::CpuSet;

/// What happened when a worker tried to pin itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinStatus {
    /// Pinning was not requested (pinning `none`, or a virtual topology).
    NotRequested,
    /// The worker runs on these CPUs.
    Pinned(CpuSet),
    /// The request failed. The text says why, and where the worker runs:
    /// unpinned, or (off Linux, when hwloc failed but the `core_affinity`
    /// fallback worked) on the one CPU the text names.
    Failed {
        /// The CPUs requested.
        cpus: CpuSet,
        /// The reason.
        reason: String,
    },
    /// The worker thread has not started yet.
    Pending,
}

impl fmt::Display for PinStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinStatus::NotRequested => write!(f, "not pinned (not requested)"),
            PinStatus::Pinned(c) => write!(f, "pinned to {c}"),
            PinStatus::Failed { cpus, reason } => write!(f, "pinning to {cpus} failed: {reason}"),
            PinStatus::Pending => write!(f, "not started"),
        }
    }
}

/// Pins the calling thread to `cpus` (empty: nothing requested).
pub(crate) fn pin_current(cpus: &CpuSet) -> PinStatus {
    if cpus.is_empty() {
        return PinStatus::NotRequested;
    }
    match imp::pin(cpus) {
        Ok(bound) => PinStatus::Pinned(bound),
        Err(reason) => PinStatus::Failed {
            cpus: cpus.clone(),
            reason,
        },
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
mod imp {
    use crate::CpuSet;

    /// Pins to the whole set; returns the CPUs bound.
    pub(super) fn pin(cpus: &CpuSet) -> Result<CpuSet, String> {
        let max = cpus.max().ok_or("empty CPU set")?;
        // The kernel wants a multiple of sizeof(long) bytes.
        let words = max / 64 + 1;
        let mut mask = vec![0u64; words];
        for c in cpus.iter() {
            mask[c / 64] |= 1u64 << (c % 64);
        }
        let bytes = words * std::mem::size_of::<u64>();
        // SAFETY: `mask` is a live buffer of `bytes` bytes; pid 0 is the
        // calling thread; the kernel only reads the buffer.
        let r = unsafe {
            libc::syscall(
                libc::SYS_sched_setaffinity,
                0 as libc::pid_t,
                bytes,
                mask.as_ptr(),
            )
        };
        if r == 0 {
            Ok(cpus.clone())
        } else {
            Err(std::io::Error::last_os_error().to_string())
        }
    }

    /// The CPU the calling thread runs on, if the kernel says.
    pub(crate) fn current_cpu() -> Option<usize> {
        // SAFETY: sched_getcpu has no preconditions.
        let c = unsafe { libc::sched_getcpu() };
        usize::try_from(c).ok()
    }
}

#[cfg(miri)]
mod imp {
    use crate::CpuSet;

    /// Miri has no CPUs to bind to.
    pub(super) fn pin(_cpus: &CpuSet) -> Result<CpuSet, String> {
        Err("Miri does not emulate thread affinity: running unpinned".into())
    }

    /// Unknown under Miri (callers then take their CPU-free paths).
    pub(crate) fn current_cpu() -> Option<usize> {
        None
    }
}

#[cfg(all(not(target_os = "linux"), not(miri)))]
mod imp {
    use crate::CpuSet;

    /// hwloc's binding to the whole set; `core_affinity` on one CPU if that
    /// fails (still reported as a failure, saying what was done instead).
    #[cfg(feature = "hwloc")]
    pub(super) fn pin(cpus: &CpuSet) -> Result<CpuSet, String> {
        let hwloc = match super::hwloc::bind_thread(cpus) {
            Ok(()) => return Ok(cpus.clone()),
            Err(e) => e,
        };
        match pin_lowest(cpus) {
            Ok(id) => Err(format!(
                "{hwloc}; fell back to core_affinity: pinned to CPU {id} only"
            )),
            Err(e) => Err(format!(
                "{hwloc}; the core_affinity fallback failed too ({e}): running unpinned"
            )),
        }
    }

    /// Reports the one CPU actually bound, not the set asked for.
    #[cfg(not(feature = "hwloc"))]
    pub(super) fn pin(cpus: &CpuSet) -> Result<CpuSet, String> {
        pin_lowest(cpus).map(|id| CpuSet::from_ids([id]))
    }

    /// Pins to the lowest CPU of `cpus` (all `core_affinity` can do).
    fn pin_lowest(cpus: &CpuSet) -> Result<usize, String> {
        let id = cpus.min().ok_or("empty CPU set")?;
        if core_affinity::set_for_current(core_affinity::CoreId { id }) {
            Ok(id)
        } else {
            Err(format!("core_affinity could not pin to CPU {id}"))
        }
    }

    /// Not known on this platform.
    pub(crate) fn current_cpu() -> Option<usize> {
        None
    }
}

/// hwloc thread binding (feature `hwloc`): the pinning path off Linux,
/// compiled on Linux too so that it is checked and tested there.
#[cfg(feature = "hwloc")]
// On Linux only the tests call it (the libc path pins the workers).
#[cfg_attr(all(target_os = "linux", not(test)), allow(dead_code))]
mod hwloc {
    use std::sync::OnceLock;

    use hwlocality::bitmap::BitmapIndex;
    use hwlocality::cpu::binding::CpuBindingFlags;
    use hwlocality::cpu::cpuset::CpuSet as HwCpuSet;

    use crate::CpuSet;

    /// The topology hwloc binds through, loaded on first use: loading costs
    /// milliseconds, so workers share one. A failed load is kept too (and
    /// reported by every worker) rather than retried per worker. This static
    /// compiles only because `hwlocality::Topology` is `Send + Sync`; that
    /// holds for binding: hwloc lets several threads read one topology at
    /// once, and `hwloc_set_cpubind` only reads it (a const topology).
    static TOPOLOGY: OnceLock<Result<hwlocality::Topology, String>> = OnceLock::new();

    fn topology() -> Result<&'static hwlocality::Topology, String> {
        TOPOLOGY
            .get_or_init(|| {
                let topo = hwlocality::Topology::new().map_err(|e| {
                    format!(
                        "hwloc could not load this machine's topology ({e}); check that \
                         `lstopo` works, or build without feature `hwloc`"
                    )
                })?;
                if topo.is_this_system() {
                    Ok(topo)
                } else {
                    Err(
                        "hwloc's topology is not this machine (HWLOC_XMLFILE, HWLOC_FSROOT or \
                         HWLOC_SYNTHETIC set?), so it cannot bind threads: unset them"
                            .into(),
                    )
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Binds the calling thread to all of `cpus` through hwloc.
    pub(super) fn bind_thread(cpus: &CpuSet) -> Result<(), String> {
        if cpus.is_empty() {
            return Err("empty CPU set".into());
        }
        let mut set = HwCpuSet::new();
        for c in cpus.iter() {
            let i = BitmapIndex::try_from(c)
                .map_err(|_| format!("CPU {c} is beyond hwloc's largest CPU index"))?;
            set.set(i);
        }
        topology()?
            .bind_cpu(&set, CpuBindingFlags::THREAD)
            .map_err(|e| format!("hwloc could not bind this thread to CPUs {cpus}: {e}"))
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::*;

        /// The calling thread's affinity mask, as the kernel reports it
        /// (the topology reader's own query).
        fn affinity() -> CpuSet {
            crate::topology::thread_affinity().expect("sched_getaffinity failed")
        }

        #[test]
        fn binds_a_thread_to_exact_sets() {
            // A fresh thread, so the harness's threads stay as they are. It
            // starts with the process's mask: the CPUs it may use (in a
            // container or under taskset, possibly fewer than the machine's).
            std::thread::spawn(|| {
                let allowed = affinity();
                let first = CpuSet::from_ids(allowed.min());
                assert!(!first.is_empty(), "no allowed CPU");
                bind_thread(&first).expect("bind to the first allowed CPU");
                assert_eq!(affinity(), first);
                bind_thread(&allowed).expect("bind to all allowed CPUs");
                assert_eq!(affinity(), allowed);
                assert!(std::ptr::eq(topology().unwrap(), topology().unwrap()));
            })
            .join()
            .unwrap();
        }

        #[test]
        fn bad_sets_are_errors() {
            std::thread::spawn(|| {
                let before = affinity();
                assert!(bind_thread(&CpuSet::new()).is_err());
                let beyond = CpuSet::from_ids([1 << 20]);
                let e = bind_thread(&beyond).expect_err("no machine here has CPU 2^20");
                assert!(e.contains("1048576"), "{e}");
                assert_eq!(affinity(), before, "a failed binding changed the mask");
            })
            .join()
            .unwrap();
        }
    }
}

pub(crate) use imp::current_cpu;
