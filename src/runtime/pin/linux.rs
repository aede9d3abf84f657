//! Pinning and the scheduler's statistics on Linux: the raw
//! `sched_setaffinity` system call, `/proc/thread-self/schedstat`, the
//! thread's policy and CPU.

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

/// The calling thread's `/proc/thread-self/schedstat`, kept open.
///
/// Opening the file walks `/proc`'s paths on every call (about 2 us
/// here, more with cold caches); a kept descriptor read at offset 0
/// makes the kernel format the line afresh (a `seq_file` restarts at
/// offset 0) for about a sixth of that (`docs/loaded-pins.md`). The
/// descriptor names the thread that opened it, so it is opened at the
/// first read, which the worker makes on its own thread, and never
/// shared (`!Sync`).
#[derive(Debug, Default)]
pub(super) struct SchedStat {
    file: std::cell::OnceCell<Option<std::fs::File>>,
}

impl SchedStat {
    /// The statistics now, if the file opens, reads and parses.
    pub(super) fn read(&self) -> Option<super::widen::Sample> {
        use std::os::unix::fs::FileExt;
        let file = self
            .file
            .get_or_init(|| std::fs::File::open("/proc/thread-self/schedstat").ok())
            .as_ref()?;
        // One read: the kernel formats the whole line before copying
        // any of it, so a buffer longer than the line gets all of it.
        let mut buf = [0u8; 96];
        let len = file.read_at(&mut buf, 0).ok()?;
        if len == buf.len() {
            return None; // longer than any schedstat line: not one
        }
        super::widen::parse(std::str::from_utf8(&buf[..len]).ok()?)
    }
}

/// Whether the calling thread runs under a real-time policy
/// (`SCHED_FIFO`, `SCHED_RR`, `SCHED_DEADLINE`).
pub(super) fn realtime() -> bool {
    // SAFETY: sched_getscheduler has no preconditions; pid 0 is the
    // calling thread.
    let policy = unsafe { libc::sched_getscheduler(0) };
    policy == libc::SCHED_FIFO || policy == libc::SCHED_RR || policy == libc::SCHED_DEADLINE
}

/// The CPU the calling thread runs on, if the kernel says.
pub(crate) fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no preconditions.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).ok()
}
