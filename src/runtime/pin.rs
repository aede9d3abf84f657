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

use std::cell::Cell;
use std::fmt;
use std::time::Instant;

use crate::CpuSet;

pub(crate) mod widen;

use widen::{Action, Widener};

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

/// A worker's pin and the wider set it may take while the kernel keeps it
/// waiting ([`widen`]; `docs/loaded-pins.md`) or while it idles at light
/// load ([`LoadedPin::float`]; `docs/idle-pins.md`). Owned by the worker's
/// thread, boxed so that a worker without it carries one word.
///
/// Invariant: the thread's affinity is the wide set exactly while the
/// widener holds it or the worker floats, and the pin set otherwise
/// (unless setting it failed once, after which neither rule sets it
/// again).
#[derive(Debug)]
pub(crate) struct LoadedPin {
    /// The pin set.
    pin: CpuSet,
    /// The wider set: the union of the pin sets of the worker's LLC.
    wide: CpuSet,
    /// The decision; switched off where widening does not apply.
    widener: Cell<Widener>,
    /// The origin of the widener's clock (nanoseconds from it).
    epoch: Instant,
    /// The worker's own scheduler statistics, opened at its first sample
    /// (on the worker's thread: `thread-self` names the opener) and read
    /// again in place at every later one.
    stats: imp::SchedStat,
    /// The worker floats: it parked at light load and has not been busy
    /// since ([`LoadedPin::float`]).
    floats: Cell<bool>,
    /// Setting the affinity failed: neither rule tries again.
    failed: Cell<bool>,
}

impl LoadedPin {
    /// The widening of a worker pinned as `status` to `pin` whose LLC's
    /// workers are pinned to `wide` in all; `may_widen` is false where the
    /// pinning asks for the pin whatever the load (`cpu`, `core`). `None`
    /// (nothing to step, nothing allocated) unless the pin was set, `wide`
    /// is wider and the thread has a normal policy, on Linux (elsewhere no
    /// samples can be read).
    pub(crate) fn new(
        status: &PinStatus,
        pin: &CpuSet,
        wide: CpuSet,
        may_widen: bool,
    ) -> Option<Box<Self>> {
        let on = may_widen
            && cfg!(all(target_os = "linux", not(miri)))
            && matches!(status, PinStatus::Pinned(p) if p == pin)
            && pin.is_subset(&wide)
            && wide.len() > pin.len()
            && !imp::realtime();
        on.then(|| {
            Box::new(LoadedPin {
                pin: pin.clone(),
                wide,
                widener: Cell::new(Widener::new(true)),
                epoch: Instant::now(),
                stats: imp::SchedStat::default(),
                floats: Cell::new(false),
                failed: Cell::new(false),
            })
        })
    }

    /// The worker is idle at `now` (it parks or yields in a search): the
    /// widener's step, if one is due.
    #[inline]
    pub(crate) fn idle_at(&self, now: Instant) {
        let t =
            u64::try_from(now.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX);
        if self.widener.get().due(t) {
            self.step(t);
        }
    }

    /// Reads a sample, steps the widener and sets the affinity it asks for
    /// (a floating worker has the wide set already, and keeps it when the
    /// widener's hold ends).
    #[cold]
    fn step(&self, t: u64) {
        let mut w = self.widener.get();
        let action = w.step(t, self.stats.read());
        self.widener.set(w);
        if self.floats.get() {
            return;
        }
        match action {
            Action::Keep => {}
            Action::Widen => self.set(&self.wide),
            Action::Narrow => self.set(&self.pin),
        }
    }

    /// Sets the thread's affinity to `set`; a failure switches both rules
    /// off.
    #[cold]
    fn set(&self, set: &CpuSet) {
        if imp::pin(set).is_err() {
            let mut w = self.widener.get();
            w.fail();
            self.widener.set(w);
            self.floats.set(false);
            self.failed.set(true);
        }
    }

    /// The worker parks with nothing to do at light load (its idle
    /// governor's score is 0: its recent idle periods were long): it
    /// leaves its pin for the wide set, so that the kernel wakes it on
    /// whichever CPU of its LLC runs it soonest and cheapest (for the
    /// thread that woke it, about to sleep, its own CPU), as it would an
    /// unpinned thread. A pin pays for the caches a busy worker keeps
    /// warm; an idle worker fed one job now and then has none worth
    /// keeping, and its pin made each wakeup cost twice the CPU
    /// (`docs/idle-pins.md`).
    #[inline]
    pub(crate) fn float(&self) {
        if !self.floats.get() {
            self.set_floating(true);
        }
    }

    /// The worker is busy again (its governor says so): a floating worker
    /// returns to its pin, unless the widener holds the wide set.
    #[inline]
    pub(crate) fn settle(&self) {
        if self.floats.get() {
            self.set_floating(false);
        }
    }

    /// Starts or stops floating; the affinity changes only where the
    /// widener does not hold the wide set anyway.
    #[cold]
    fn set_floating(&self, on: bool) {
        if on && self.failed.get() {
            return;
        }
        self.floats.set(on);
        if !self.widener.get().is_wide() {
            self.set(if on { &self.wide } else { &self.pin });
        }
    }

    /// Whether the worker floats now.
    #[cfg(test)]
    pub(crate) fn floats(&self) -> bool {
        self.floats.get()
    }

    /// The worker is idle now (it yields in a search): as
    /// [`LoadedPin::idle_at`] with the clock read here, and not at all
    /// when the widener is off.
    #[inline]
    pub(crate) fn idle(&self) {
        if self.widener.get().is_on() {
            self.idle_at(Instant::now());
        }
    }
}

/// The scheduler statistics where none can be read (Miri, other OSes).
#[cfg(any(miri, not(target_os = "linux")))]
#[derive(Debug, Default)]
struct NoSchedStat;

#[cfg(any(miri, not(target_os = "linux")))]
impl NoSchedStat {
    /// Never a sample.
    fn read(&self) -> Option<widen::Sample> {
        None
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
}

#[cfg(miri)]
mod imp {
    use crate::CpuSet;

    /// Miri has no CPUs to bind to.
    pub(super) fn pin(_cpus: &CpuSet) -> Result<CpuSet, String> {
        Err("Miri does not emulate thread affinity: running unpinned".into())
    }

    /// Not asked under Miri.
    pub(super) fn realtime() -> bool {
        false
    }

    /// No scheduler statistics under Miri: the widener stays off.
    pub(super) use super::NoSchedStat as SchedStat;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's affinity, as the kernel reports it.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn affinity() -> CpuSet {
        crate::topology::thread_affinity().expect("the thread's affinity")
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn a_floating_worker_has_the_wide_set_until_it_settles() {
        // A thread of its own: the test changes its affinity.
        std::thread::spawn(|| {
            let allowed = affinity();
            let Some(first) = allowed.min() else { return };
            if allowed.len() < 2 || imp::realtime() {
                return; // nothing wider to float on, or no widener here
            }
            let pin = CpuSet::from_ids([first]);
            let status = pin_current(&pin);
            if !matches!(status, PinStatus::Pinned(_)) {
                return; // this sandbox does not let a thread set its affinity
            }
            let p = LoadedPin::new(&status, &pin, allowed.clone(), true).expect("a widener");
            assert_eq!(affinity(), pin);
            p.settle(); // not floating: nothing to do
            assert_eq!(affinity(), pin);
            p.float();
            assert!(p.floats());
            assert_eq!(affinity(), allowed);
            p.float(); // already floating
            assert_eq!(affinity(), allowed);
            p.settle();
            assert!(!p.floats());
            assert_eq!(affinity(), pin);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_widener_is_off_where_widening_does_not_apply() {
        let pin = CpuSet::from_ids([0]);
        let wide = CpuSet::from_ids([0, 1]);
        let pinned = PinStatus::Pinned(pin.clone());
        // Pinning `cpu` or `core`: the pin whatever the load.
        assert!(LoadedPin::new(&pinned, &pin, wide.clone(), false).is_none());
        // The pin was not set.
        let failed = PinStatus::Failed {
            cpus: pin.clone(),
            reason: "test".into(),
        };
        assert!(LoadedPin::new(&failed, &pin, wide.clone(), true).is_none());
        assert!(
            LoadedPin::new(&PinStatus::NotRequested, &CpuSet::new(), wide.clone(), true).is_none()
        );
        // Nothing wider (the LLC is the worker's own CPU).
        assert!(LoadedPin::new(&pinned, &pin, pin.clone(), true).is_none());
        // On where samples can be read, for a thread of a normal policy.
        let on = LoadedPin::new(&pinned, &pin, wide, true).is_some();
        let linux = cfg!(all(target_os = "linux", not(miri)));
        assert_eq!(on, linux && !imp::realtime());
    }

    #[test]
    fn schedstat_reads_where_proc_has_it_and_reads_afresh() {
        let stats = imp::SchedStat::default();
        let first = stats.read();
        if cfg!(all(target_os = "linux", not(miri)))
            && std::path::Path::new("/proc/thread-self/schedstat").exists()
        {
            let first = first.expect("a first sample");
            // A sleep takes the thread off its CPU, which adds the time it
            // ran since the last update to its total: a descriptor that
            // returned its first text again would repeat `run_ns`.
            std::thread::sleep(std::time::Duration::from_millis(1));
            let again = stats.read().expect("a second sample from the kept file");
            assert!(
                again.run_ns > first.run_ns,
                "{first:?} then {again:?}: the kept file was not read afresh"
            );
            assert!(again.wait_ns >= first.wait_ns, "{first:?} then {again:?}");
        } else {
            assert_eq!(first, None);
        }
    }
}
