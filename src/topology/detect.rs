//! The running machine's topology: which source is read, and the view a
//! new pool gets.
//!
//! Invariants: [`Topology::detect`] never fails (sysfs, else hwloc with the
//! `hwloc` feature, else a flat machine, the reason for each fallback in the
//! notes); the machine is read once per process for pools
//! ([`Topology::detect_for_pool`]), and only the affinity mask is applied
//! again per pool.

use super::build::{self, Facts, PuFacts};
use super::{CpuSet, Source, Topology, sysfs};
use std::path::Path;

impl Topology {
    /// Detects the running machine: Linux sysfs; where that is not available
    /// or unreadable, hwloc if the `hwloc` feature is on; else a flat machine
    /// of [`std::thread::available_parallelism`] PUs. The reason for a
    /// fallback is in [`Topology::source`] and [`Topology::notes`]. Never fails.
    pub fn detect() -> Topology {
        Self::detect_with(true)
    }

    /// [`Topology::detect`]; the sysfs reading applies this thread's
    /// affinity mask only with `affinity`.
    fn detect_with(affinity: bool) -> Topology {
        let mut why = String::from("not Linux");
        if cfg!(target_os = "linux") {
            match sysfs::read(Path::new("/"), affinity) {
                Ok(t) => return t,
                Err(e) => why = format!("sysfs unreadable: {e}"),
            }
        }
        #[cfg(feature = "hwloc")]
        match Topology::from_hwloc() {
            Ok(mut t) => {
                t.notes.push(format!("hwloc used because {why}"));
                return t;
            }
            Err(e) => why = format!("{why}; {e}"),
        }
        Topology::flat(why)
    }

    /// The running machine for a new pool, as [`Topology::detect`] sees it
    /// from this thread, at the cost of one system call: the machine is
    /// read once per process (the sysfs tree, and the cgroup's cpuset and
    /// CPU quota), and each call only applies the affinity mask again. So
    /// changes of the cgroup after the first pool are not seen; changes of
    /// the affinity mask are.
    ///
    /// The mask is the calling thread's, unless `on_worker`: a worker's
    /// mask is the one locus pinned it to (also the thread adopted by
    /// `use_current_thread`), which must not confine the pools built on
    /// it, so these see the mask of the thread that built the process's
    /// first pool (which was no worker then).
    pub(crate) fn detect_for_pool(on_worker: bool) -> std::borrow::Cow<'static, Topology> {
        use std::borrow::Cow;
        static MACHINE: std::sync::OnceLock<(Topology, Option<CpuSet>)> =
            std::sync::OnceLock::new();
        let (t, first_mask) =
            MACHINE.get_or_init(|| (Self::detect_with(false), sysfs::allowed::affinity()));
        if !matches!(t.source, Source::Sysfs(_)) {
            return Cow::Borrowed(t);
        }
        let mask = if on_worker {
            first_mask.clone()
        } else {
            sysfs::allowed::affinity()
        };
        let Some(mask) = mask else {
            return Cow::Borrowed(t);
        };
        let allowed = t.allowed.intersection(&mask);
        if allowed == t.allowed || allowed.is_empty() {
            return Cow::Borrowed(t);
        }
        let mut t = t.clone();
        t.notes.push(format!("affinity mask allows CPUs {allowed}"));
        t.allowed = allowed;
        Cow::Owned(t)
    }

    /// A flat machine of `available_parallelism` PUs (one core, cluster and
    /// LLC each), recording `why`.
    pub(crate) fn flat(why: String) -> Topology {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pus = (0..n)
            .map(|os| PuFacts {
                os,
                ..Default::default()
            })
            .collect();
        let facts = Facts {
            pus,
            notes: vec![format!("flat topology: {why}")],
            ..Default::default()
        };
        build::build(facts, Source::Flat(why)).unwrap_or_else(|_| unreachable!("n >= 1 PUs"))
    }
}
