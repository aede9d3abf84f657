//! CPU clocks the paired benches and examples read (`#[path]` include):
//! the CPU a comparison costs, besides its wall time. Unix only: elsewhere
//! both clocks read zero, so the benches' CPU columns say nothing there
//! (their wall times still do).

use std::time::Duration;

/// User + system CPU time of the whole process so far (every thread of
/// every pool: workers still searching or winding down count too).
#[cfg(unix)]
#[allow(dead_code)]
pub fn process_cpu() -> Duration {
    // SAFETY: `getrusage` writes the `rusage` it is given, which is all
    // zeros (valid for that plain C struct) until then; RUSAGE_SELF is a
    // valid target.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CPU time of the calling thread so far.
#[cfg(unix)]
#[allow(dead_code)]
pub fn thread_cpu() -> Duration {
    // SAFETY: `clock_gettime` writes into the zeroed timespec we own; the
    // clock id is valid on Linux.
    let ts = unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts);
        ts
    };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// No CPU clock read here (not Unix): zero.
#[cfg(not(unix))]
#[allow(dead_code)]
pub fn process_cpu() -> Duration {
    Duration::ZERO
}

/// No CPU clock read here (not Unix): zero.
#[cfg(not(unix))]
#[allow(dead_code)]
pub fn thread_cpu() -> Duration {
    Duration::ZERO
}
