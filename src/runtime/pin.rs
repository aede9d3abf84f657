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
//! Each OS's binding is a file of its own (`pin/linux.rs`, `pin/other.rs`,
//! `pin/hwloc.rs`; Miri's is inline); this module keeps what they share:
//! the report, and the load widener and floating of [`LoadedPin`].
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
    #[cfg(all(test, target_os = "linux", not(miri)))]
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
#[path = "pin/linux.rs"]
mod imp;

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
#[path = "pin/other.rs"]
mod imp;

#[cfg(feature = "hwloc")]
// On Linux only the tests call it (the libc path pins the workers).
#[cfg_attr(all(target_os = "linux", not(test)), allow(dead_code))]
mod hwloc;

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
