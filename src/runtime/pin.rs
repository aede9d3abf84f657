//! Pinning the calling thread to a CPU set.
//!
//! Linux: the raw `sched_setaffinity` system call with a mask sized for the
//! largest CPU in the set (so sets wider than glibc's `CPU_SETSIZE` of 1024
//! work). Elsewhere: `core_affinity`, which can pin to one CPU only, so the
//! lowest CPU of the set is used. Failures are returned, never fatal: the
//! pool records them in its pin report and keeps running unpinned.

use std::fmt;

use crate::CpuSet;

/// What happened when a worker tried to pin itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinStatus {
    /// Pinning was not requested (pinning `none`, or a virtual topology).
    NotRequested,
    /// The worker runs on these CPUs.
    Pinned(CpuSet),
    /// The request failed; the worker runs unpinned. The text says why.
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
        Ok(()) => PinStatus::Pinned(cpus.clone()),
        Err(reason) => PinStatus::Failed {
            cpus: cpus.clone(),
            reason,
        },
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use crate::CpuSet;

    pub(super) fn pin(cpus: &CpuSet) -> Result<(), String> {
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
            Ok(())
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

#[cfg(not(target_os = "linux"))]
mod imp {
    use crate::CpuSet;

    pub(super) fn pin(cpus: &CpuSet) -> Result<(), String> {
        let id = cpus.min().ok_or("empty CPU set")?;
        if core_affinity::set_for_current(core_affinity::CoreId { id }) {
            Ok(())
        } else {
            Err(format!("core_affinity could not pin to CPU {id}"))
        }
    }

    /// Not known on this platform.
    pub(crate) fn current_cpu() -> Option<usize> {
        None
    }
}

pub(crate) use imp::current_cpu;
