//! hwloc thread binding (feature `hwloc`): the pinning path off Linux,
//! compiled on Linux too so that it is checked and tested there.

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
