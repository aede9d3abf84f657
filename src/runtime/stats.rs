//! Per-worker counters and the [`PoolStats`] snapshot.
//!
//! Each worker owns one cache-padded block of relaxed counters and is its
//! only writer, so an increment is a plain load and store (no locked
//! instruction). Wakeups sent by threads outside the pool go to one shared
//! block with `fetch_add`. Counters are statistics, not protocol state, so
//! they use `std` atomics directly (not the `crate::sync` facade).
//! A snapshot taken while the pool runs is not atomic across counters.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::layout::TierKind;
use crate::runtime::idle::Distance;

/// Number of steal tier kinds.
const TIERS: usize = 6;
/// Number of wakeup distances.
const DISTANCES: usize = 3;

/// The tier kinds in display order.
pub const TIER_KINDS: [TierKind; TIERS] = [
    TierKind::Smt,
    TierKind::Cluster,
    TierKind::Llc,
    TierKind::Numa,
    TierKind::Package,
    TierKind::Remote,
];

/// A tier kind's slot in the per-tier arrays: its declaration order, which
/// is also the order of [`TIER_KINDS`] (checked by a test).
fn tier_slot(k: TierKind) -> usize {
    k as usize
}

/// A distance's slot in the per-distance arrays (declaration order).
fn distance_slot(d: Distance) -> usize {
    d as usize
}

/// The live counters of one worker.
#[derive(Default)]
pub(crate) struct Counters {
    jobs_run: AtomicU64,
    local_pops: AtomicU64,
    promoted: AtomicU64,
    claimed: AtomicU64,
    steals: [AtomicU64; TIERS],
    injector_pulls: AtomicU64,
    wakeups: [AtomicU64; DISTANCES],
    parks: AtomicU64,
    failed_searches: AtomicU64,
    panics: AtomicU64,
}

/// Single-writer increment.
#[inline]
fn bump(c: &AtomicU64) {
    add(c, 1)
}

/// Single-writer add (a plain load and store, no locked instruction).
#[inline]
fn add(c: &AtomicU64, n: u64) {
    c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
}

impl Counters {
    #[inline]
    pub(crate) fn add_jobs_run(&self, n: u64) {
        add(&self.jobs_run, n)
    }
    #[inline]
    pub(crate) fn add_local_pops(&self, n: u64) {
        add(&self.local_pops, n)
    }
    #[inline]
    pub(crate) fn promotion(&self) {
        bump(&self.promoted)
    }
    #[inline]
    pub(crate) fn claim(&self) {
        bump(&self.claimed)
    }
    #[inline]
    pub(crate) fn steal(&self, kind: TierKind) {
        bump(&self.steals[tier_slot(kind)])
    }
    #[inline]
    pub(crate) fn injector_pull(&self) {
        bump(&self.injector_pulls)
    }
    #[inline]
    pub(crate) fn wakeup(&self, d: Distance) {
        bump(&self.wakeups[distance_slot(d)])
    }
    #[inline]
    pub(crate) fn park(&self) {
        bump(&self.parks)
    }
    #[inline]
    pub(crate) fn failed_search(&self) {
        bump(&self.failed_searches)
    }
    #[inline]
    pub(crate) fn panic(&self) {
        bump(&self.panics)
    }

    fn snapshot(&self) -> WorkerStats {
        WorkerStats {
            jobs_run: self.jobs_run.load(Relaxed),
            local_pops: self.local_pops.load(Relaxed),
            promoted: self.promoted.load(Relaxed),
            claimed: self.claimed.load(Relaxed),
            steals: std::array::from_fn(|i| self.steals[i].load(Relaxed)),
            injector_pulls: self.injector_pulls.load(Relaxed),
            wakeups: std::array::from_fn(|i| self.wakeups[i].load(Relaxed)),
            parks: self.parks.load(Relaxed),
            failed_searches: self.failed_searches.load(Relaxed),
            detached_panics: self.panics.load(Relaxed),
        }
    }
}

/// Counters written by threads outside the pool (many writers).
#[derive(Default)]
pub(crate) struct ExternalCounters {
    injected: AtomicU64,
    wakeups: [AtomicU64; DISTANCES],
    panics: AtomicU64,
}

impl ExternalCounters {
    pub(crate) fn injected(&self) {
        self.injected.fetch_add(1, Relaxed);
    }
    pub(crate) fn wakeup(&self, d: Distance) {
        self.wakeups[distance_slot(d)].fetch_add(1, Relaxed);
    }
    pub(crate) fn panic(&self) {
        self.panics.fetch_add(1, Relaxed);
    }
}

/// Counts of one worker (or a total), as read by [`crate::ThreadPool::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Jobs executed (including `join` halves taken back and run inline).
    /// This and `local_pops` are counted in the worker's own fast path and
    /// published before a job sets a latch and when the worker next looks
    /// for work beyond its deque: they may lag a busy worker, but are exact
    /// for the jobs of a blocking call that returned (see
    /// [`ThreadPool::stats`](crate::ThreadPool::stats)).
    pub jobs_run: u64,
    /// Jobs taken from the worker's own deque (`join` halves that were
    /// never promoted are not in the deque and not counted here).
    pub local_pops: u64,
    /// `join` halves this worker made stealable (promoted from its private
    /// list to its deque, which it does while the deque runs low, while
    /// some worker is idle, and before it waits).
    pub promoted: u64,
    /// `join` halves this worker took from another worker's private list
    /// (not promoted: the owner was busy in long serial code or blocked),
    /// just before it would have parked. Also counted in `steals`.
    pub claimed: u64,
    /// Successful steals by how near the victim was (the tier kind it has
    /// in a hierarchical order, see [`Layout::relation`](crate::Layout::relation),
    /// also for `Flat` pools), indexed like [`TIER_KINDS`]; use
    /// [`WorkerStats::steals`].
    pub steals: [u64; TIERS],
    /// Jobs taken from LLC injectors (jobs from outside the pool).
    pub injector_pulls: u64,
    /// Wakeups sent, per distance (cluster, LLC, remote); use
    /// [`WorkerStats::wakeups`].
    pub wakeups: [u64; DISTANCES],
    /// Times the worker parked.
    pub parks: u64,
    /// Searches that found nothing after spinning (each precedes a park
    /// attempt).
    pub failed_searches: u64,
    /// Detached jobs ([`crate::spawn`], [`crate::ThreadPool::spawn`],
    /// [`crate::JobGroup::spawn`]) that panicked on this worker (column
    /// `panics` of the stats table), each handed to the pool's panic
    /// handler, the pool working on. Without a panic handler such a panic
    /// aborts the process, as in rayon (see
    /// [`crate::ThreadPoolBuilder::panic_handler`]), so this counts only
    /// in pools that have one.
    pub detached_panics: u64,
}

impl WorkerStats {
    /// Successful steals from a tier of this kind.
    pub fn steals(&self, kind: TierKind) -> u64 {
        self.steals[tier_slot(kind)]
    }

    /// Wakeups sent to a worker at this distance.
    pub fn wakeups(&self, d: Distance) -> u64 {
        self.wakeups[distance_slot(d)]
    }

    /// All successful steals.
    pub fn total_steals(&self) -> u64 {
        self.steals.iter().sum()
    }

    fn add(&mut self, o: &WorkerStats) {
        self.jobs_run += o.jobs_run;
        self.local_pops += o.local_pops;
        self.promoted += o.promoted;
        self.claimed += o.claimed;
        for i in 0..TIERS {
            self.steals[i] += o.steals[i];
        }
        self.injector_pulls += o.injector_pulls;
        for i in 0..DISTANCES {
            self.wakeups[i] += o.wakeups[i];
        }
        self.parks += o.parks;
        self.failed_searches += o.failed_searches;
        self.detached_panics += o.detached_panics;
    }
}

/// A snapshot of a pool's counters: per worker, plus what threads outside
/// the pool did.
///
/// Its `Display` is a table with one row per worker and a total row, then
/// the jobs injected from outside and the current number of searching
/// workers, then one line per job group. The alternate form (`{:#}`) adds
/// this legend of the columns below the table:
///
/// ```text
#[doc = include_str!("stats_legend.txt")]
/// ```
///
/// The columns are the fields of [`WorkerStats`]: `panics` is
/// [`WorkerStats::detached_panics`], `st:*` are [`WorkerStats::steals`] by
/// [`TierKind`] and `wk:*` are [`WorkerStats::wakeups`] by distance.
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// pool.install(|| locus::join(|| 1, || 2));
/// let table = format!("{:#}", pool.stats());
/// assert!(table.lines().next().unwrap().ends_with("panics"));
/// assert!(table.contains("st:same-cluster  steals from the rest of the thief's cluster"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// One entry per worker, by worker index.
    pub workers: Vec<WorkerStats>,
    /// Jobs injected by threads outside the pool.
    pub injected: u64,
    /// Wakeups sent by threads outside the pool, per distance.
    pub external_wakeups: [u64; DISTANCES],
    /// Detached jobs whose panic was handled outside a worker (not used
    /// today; workers run all jobs).
    pub external_panics: u64,
    /// Workers counted as searching when the snapshot was taken (0 when the
    /// pool is quiet; transiently off by wakeups in flight).
    pub searching: isize,
    /// One entry per live job group of the pool (one with a
    /// [`crate::JobGroup`] handle or a job not yet finished), by group id.
    pub groups: Vec<crate::groups::GroupStats>,
    /// The freed groups' counters, added up (a group moves from `groups`
    /// to here once its last handle and its last job are gone).
    pub retired_groups: crate::groups::RetiredGroups,
}

impl PoolStats {
    pub(crate) fn collect<'a>(
        workers: impl Iterator<Item = &'a Counters>,
        external: &ExternalCounters,
        searching: isize,
    ) -> PoolStats {
        PoolStats {
            workers: workers.map(Counters::snapshot).collect(),
            injected: external.injected.load(Relaxed),
            external_wakeups: std::array::from_fn(|i| external.wakeups[i].load(Relaxed)),
            external_panics: external.panics.load(Relaxed),
            searching,
            groups: Vec::new(),
            retired_groups: crate::groups::RetiredGroups::default(),
        }
    }

    /// The sum over all workers (external wakeups included in `wakeups`).
    pub fn total(&self) -> WorkerStats {
        let mut t = WorkerStats::default();
        for w in &self.workers {
            t.add(w);
        }
        for i in 0..DISTANCES {
            t.wakeups[i] += self.external_wakeups[i];
        }
        t
    }
}

/// The columns of the table, in order; `stats_legend.txt` explains each.
/// The steal columns are `st:` and the [`TierKind`] names, in the order of
/// [`TIER_KINDS`] (checked by a test).
const COLUMNS: [&str; 18] = [
    "worker",
    "jobs",
    "local",
    "promo",
    "claim",
    "st:same-core",
    "st:same-cluster",
    "st:same-llc",
    "st:same-node",
    "st:same-package",
    "st:other-node",
    "inject",
    "wk:clu",
    "wk:llc",
    "wk:rem",
    "parks",
    "failed",
    "panics",
];

/// The width of column `i`: room for its name, at least 6 for the worker
/// column, 9 for the two job counts and 7 for the others.
fn width(i: usize) -> usize {
    let least = match i {
        0 => 6,
        1 | 2 => 9,
        _ => 7,
    };
    COLUMNS[i].len().max(least)
}

/// What each column means, printed by `{:#}`.
const LEGEND: &str = include_str!("stats_legend.txt");

fn row(f: &mut fmt::Formatter<'_>, name: &str, s: &WorkerStats) -> fmt::Result {
    let values = [s.jobs_run, s.local_pops, s.promoted, s.claimed]
        .into_iter()
        .chain(s.steals)
        .chain([s.injector_pulls])
        .chain(s.wakeups)
        .chain([s.parks, s.failed_searches, s.detached_panics]);
    write!(f, "{name:>w$}", w = width(0))?;
    for (i, v) in values.enumerate() {
        write!(f, " {v:>w$}", w = width(i + 1))?;
    }
    writeln!(f)
}

impl fmt::Display for PoolStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in COLUMNS.iter().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            write!(f, "{sep}{name:>w$}", w = width(i))?;
        }
        writeln!(f)?;
        for (i, w) in self.workers.iter().enumerate() {
            row(f, &i.to_string(), w)?;
        }
        row(f, "total", &self.total())?;
        write!(
            f,
            "injected from outside: {}, searching now: {}",
            self.injected, self.searching
        )?;
        if f.alternate() {
            write!(f, "\n\n{}", LEGEND.trim_end())?;
        }
        for g in &self.groups {
            write!(f, "\n{g}")?;
        }
        let r = &self.retired_groups;
        if r.count > 0 {
            write!(
                f,
                "\nfreed groups: {}, jobs per LLC {:?}, changes {}",
                r.count, r.jobs_per_llc, r.preference_changes
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_explains_every_column_in_order() {
        let named: Vec<&str> = LEGEND
            .lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(named, COLUMNS);
        let stats = PoolStats {
            workers: vec![WorkerStats::default(); 2],
            ..PoolStats::default()
        };
        let plain = stats.to_string();
        let header: Vec<&str> = plain.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(header, COLUMNS);
        let total: Vec<&str> = plain.lines().nth(3).unwrap().split_whitespace().collect();
        assert_eq!(total.len(), COLUMNS.len(), "{plain}");
        assert!(
            !plain.contains(LEGEND.lines().next().unwrap()),
            "legend only with {{:#}}"
        );
        let alt = format!("{stats:#}");
        assert!(
            alt.starts_with(&plain) && alt.ends_with(LEGEND.trim_end()),
            "{alt}"
        );
    }

    #[test]
    fn steal_columns_are_the_tier_names() {
        let steal_columns: Vec<String> = TIER_KINDS.iter().map(|k| format!("st:{k}")).collect();
        assert_eq!(COLUMNS[5..5 + TIERS], steal_columns);
    }

    #[test]
    fn tier_slots_follow_tier_kinds() {
        for (i, k) in TIER_KINDS.iter().enumerate() {
            assert_eq!(tier_slot(*k), i);
        }
        let d = [Distance::Cluster, Distance::Llc, Distance::Remote];
        for (i, d) in d.iter().enumerate() {
            assert_eq!(distance_slot(*d), i);
        }
    }
}
