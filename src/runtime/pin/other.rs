//! Pinning off Linux: hwloc's binding with feature `hwloc`, else
//! `core_affinity` on the lowest CPU of the set; no scheduler statistics.

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

/// Not asked here (the widener is off).
pub(super) fn realtime() -> bool {
    false
}

/// No `/proc/thread-self/schedstat` here: the widener stays off.
pub(super) use super::NoSchedStat as SchedStat;

/// Not known on this platform.
pub(crate) fn current_cpu() -> Option<usize> {
    None
}
