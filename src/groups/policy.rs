//! The decisions of job groups as pure code, testable without threads:
//! [`AffinityTracker`] (learned LLC preference with hysteresis),
//! [`overloaded_by`] and [`may_help_by`] (when other LLCs may help a packed LLC),
//! [`SpreadDealer`]
//! (capacity-weighted smooth round robin) and [`spread_units`] (what the
//! dealer deals over on a [`Layout`]).
//!
//! The runtime calls exactly these functions; the tests in
//! in `groups::tests` drive them on synthetic and real topologies.

use crate::layout::Layout;

/// Fixed-point scale of one recorded job in an [`AffinityTracker`], so that
/// decay keeps fractions of small counts.
pub(crate) const JOB_WEIGHT: u64 = 256;

/// Recent activity (in jobs, decayed) below which a group has no preferred
/// LLC.
pub(crate) const MIN_ACTIVITY: u64 = 8;

/// A group's learned LLC preference, the way the kernel's cache-aware
/// scheduling picks a process's preferred LLC.
///
/// - [`record_all`](Self::record_all) counts the jobs that ran in each LLC;
/// - [`decay`](Self::decay) halves every count (the runtime calls it once per
///   elapsed decay period), so old activity fades;
/// - the preference is re-evaluated after each call: with less than
///   [`MIN_ACTIVITY`] jobs of (decayed) activity there is none; without a
///   current preference the LLC with the most jobs wins (lowest index on
///   ties); with one, it moves only to an LLC with **more than twice** the
///   current LLC's count (hysteresis: 60/40 stays, 20/80 moves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AffinityTracker {
    counts: Vec<u64>,
    preferred: Option<usize>,
    changes: u64,
}

impl AffinityTracker {
    /// A tracker for `llcs` LLCs, with no activity and no preference.
    pub(crate) fn new(llcs: usize) -> Self {
        AffinityTracker {
            counts: vec![0; llcs],
            preferred: None,
            changes: 0,
        }
    }

    #[cfg(test)]
    /// Counts one job that ran in `llc` (ignored if out of range).
    pub(crate) fn record(&mut self, llc: usize) {
        self.record_n(llc, 1);
    }

    #[cfg(test)]
    /// Counts `n` jobs that ran in `llc` (ignored if out of range).
    pub(crate) fn record_n(&mut self, llc: usize, n: u64) {
        if let Some(c) = self.counts.get_mut(llc) {
            *c = c.saturating_add(n.saturating_mul(JOB_WEIGHT));
            self.evaluate();
        }
    }

    /// Counts `jobs[l]` jobs in each LLC `l` at once (extra entries are
    /// ignored), then re-evaluates once: the outcome does not depend on the
    /// order of the LLCs, as it would with one `record_n`
    /// per LLC.
    pub(crate) fn record_all(&mut self, jobs: &[u64]) {
        for (c, &n) in self.counts.iter_mut().zip(jobs) {
            *c = c.saturating_add(n.saturating_mul(JOB_WEIGHT));
        }
        self.evaluate();
    }

    /// Halves every count `steps` times (one step per elapsed decay period).
    pub(crate) fn decay(&mut self, steps: u32) {
        if steps == 0 {
            return;
        }
        for c in &mut self.counts {
            *c = if steps >= 64 { 0 } else { *c >> steps };
        }
        self.evaluate();
    }

    /// The preferred LLC, if there is enough recent activity.
    pub(crate) fn preferred(&self) -> Option<usize> {
        self.preferred
    }

    /// How often the preference moved from one LLC to another (gaining or
    /// losing a preference for lack of activity is not counted).
    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }

    #[cfg(any(test, feature = "sim"))]
    /// The decayed counts, in jobs (rounded down), by LLC.
    pub(crate) fn counts(&self) -> Vec<u64> {
        self.counts.iter().map(|c| c / JOB_WEIGHT).collect()
    }

    fn evaluate(&mut self) {
        let total: u64 = self.counts.iter().sum();
        if total < MIN_ACTIVITY * JOB_WEIGHT {
            self.preferred = None;
            return;
        }
        // Most jobs, lowest index on ties.
        let best = (0..self.counts.len())
            .max_by_key(|&l| (self.counts[l], std::cmp::Reverse(l)))
            .expect("total > 0 implies an LLC");
        match self.preferred {
            None => self.preferred = Some(best),
            Some(p) if p != best && self.counts[best] > 2 * self.counts[p] => {
                self.preferred = Some(best);
                self.changes += 1;
            }
            Some(_) => {}
        }
    }
}

/// [`overloaded_by`] over slices: `busy[l]` and `size[l]` for every LLC
/// `l`. For the unit tests and the loom models (the runtime reads the
/// counts in place).
#[cfg(any(test, loom))]
pub fn overloaded(busy: &[usize], size: &[usize], preferred: usize) -> bool {
    if preferred >= size.len() {
        return false;
    }
    overloaded_by(busy.len(), |l| busy[l], size[preferred], preferred)
}

/// The overload rule of packing: may workers of other LLCs take jobs aimed
/// at LLC `preferred`?
///
/// There are `llcs` LLCs; `busy(l)` is the number of busy (not idle)
/// workers of LLC `l` and `size` the preferred LLC's number of workers
/// (the runtime reads the counts straight from its idle masks, without
/// collecting them). True when the preferred LLC's busy
/// workers exceed the least busy LLC's by more than 20% of the preferred
/// LLC's size (the kernel's imbalance margin). Out-of-range input: false.
pub(crate) fn overloaded_by(
    llcs: usize,
    busy: impl Fn(usize) -> usize,
    size: usize,
    preferred: usize,
) -> bool {
    if preferred >= llcs {
        return false;
    }
    let b = busy(preferred);
    let least = (0..llcs).map(&busy).min().unwrap_or(b);
    // (b - least) > 0.2 * s, in integers.
    b.saturating_sub(least) * 5 > size
}

/// Whether an LLC with `busy` busy workers of `size` is saturated: none of
/// its workers idle (a searching worker counts as busy, as in
/// [`overloaded_by`]). A packed job pushed there waits for one of them to
/// finish, or for the help rule's idle helpers ([`may_help_by`]).
#[inline]
pub(crate) fn saturated(busy: usize, size: usize) -> bool {
    busy >= size
}

/// [`saturated`] of a `(busy, size)` pair.
#[inline]
pub(crate) fn saturated_by((busy, size): (usize, usize)) -> bool {
    saturated(busy, size)
}

/// [`may_help_by`] over slices, as [`overloaded`]. For the unit tests.
#[cfg(test)]
pub(crate) fn may_help(
    busy: &[usize],
    size: &[usize],
    preferred: usize,
    helper_idle: bool,
) -> bool {
    if preferred >= size.len() || preferred >= busy.len() {
        return false;
    }
    may_help_by(
        busy.len(),
        |l| busy[l],
        size[preferred],
        preferred,
        || helper_idle,
    )
}

/// The help rule of packing: may an idle worker of another LLC take a job
/// from LLC `preferred`'s pack queue (a queue that is not empty)?
///
/// `llcs`, `busy` and `size` are as for [`overloaded_by`]; `helper_idle`
/// (asked only when the answer depends on it) says whether the asking
/// worker has nothing else to do (in the runtime: its
/// idle bit is set, i.e. it searched every other source, spun, announced
/// itself idle and is re-checking before it parks). Yes when:
///
/// - `preferred` is overloaded ([`overloaded_by`], the kernel's imbalance rule), or
/// - `preferred` is **saturated** (every one of its workers busy, none
///   idle, while jobs wait in its queue) and the helper is idle. Packing is
///   a preference, not a cap on parallelism: a queued job would otherwise
///   wait for one of `preferred`'s workers to finish, and if those block
///   (on a barrier, a channel, a lock) until the queued jobs run too, it
///   would wait forever. The idle condition keeps the preference where it
///   matters: a worker that still finds other work, or that is merely
///   searching between two jobs, leaves the job to `preferred`'s own
///   workers, which look at their queue right after their own deque.
///
/// Out-of-range input: false.
pub(crate) fn may_help_by(
    llcs: usize,
    busy: impl Fn(usize) -> usize,
    size: usize,
    preferred: usize,
    helper_idle: impl FnOnce() -> bool,
) -> bool {
    if preferred >= llcs {
        return false;
    }
    let saturated = saturated(busy(preferred), size);
    (saturated && helper_idle()) || overloaded_by(llcs, busy, size, preferred)
}

/// One target of spreading: a cluster (cluster-aware) or an LLC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpreadUnit {
    /// Dense cluster id ([`Layout::cluster_ranges`]) when dealing over
    /// clusters, `None` when dealing over LLCs.
    pub(crate) cluster: Option<usize>,
    /// Dense LLC id of the unit.
    pub(crate) llc: usize,
    /// Its workers.
    pub(crate) workers: std::ops::Range<usize>,
    /// Sum of its workers' capacities.
    pub(crate) weight: u64,
}

/// The units a spreading group deals over, in dealing order, limited to the
/// LLCs `llcs` (all when empty): every cluster of them when `cluster_aware`,
/// else every LLC. Units are interleaved across LLCs (first cluster of each
/// LLC, then the second of each, ...) so that consecutive jobs of equal
/// weight land in different LLCs.
pub(crate) fn spread_units(
    layout: &Layout,
    cluster_aware: bool,
    llcs: &[usize],
) -> Vec<SpreadUnit> {
    let all: Vec<usize> = (0..layout.llc_ranges().len()).collect();
    let llcs = if llcs.is_empty() { &all[..] } else { llcs };
    let cap = |r: &std::ops::Range<usize>| -> u64 {
        layout.workers()[r.clone()]
            .iter()
            .map(|w| u64::from(w.capacity.max(1)))
            .sum()
    };
    if !cluster_aware {
        return llcs
            .iter()
            .map(|&l| {
                let r = layout.llc_ranges()[l].clone();
                SpreadUnit {
                    cluster: None,
                    llc: l,
                    weight: cap(&r),
                    workers: r,
                }
            })
            .collect();
    }
    let per_llc: Vec<Vec<usize>> = llcs
        .iter()
        .map(|&l| {
            let r = &layout.llc_ranges()[l];
            let first = layout.workers()[r.start].cluster;
            let last = layout.workers()[r.end - 1].cluster;
            (first..=last).collect()
        })
        .collect();
    let rounds = per_llc.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for k in 0..rounds {
        for (i, cs) in per_llc.iter().enumerate() {
            if let Some(&c) = cs.get(k) {
                let r = layout.cluster_ranges()[c].clone();
                out.push(SpreadUnit {
                    cluster: Some(c),
                    llc: llcs[i],
                    weight: cap(&r),
                    workers: r,
                });
            }
        }
    }
    out
}

/// Smooth weighted round robin: over any window of `sum(weights)` deals,
/// unit `i` gets exactly `weights[i]` of them, and its deals are spread out
/// evenly rather than bunched. Equal weights deal in index order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpreadDealer {
    weights: Vec<i64>,
    current: Vec<i64>,
    total: i64,
}

impl SpreadDealer {
    /// A dealer over units of these weights (zero weights are raised to 1;
    /// weights are reduced by their greatest common divisor). An empty list
    /// gives a dealer that always answers 0.
    pub(crate) fn new(weights: &[u64]) -> Self {
        let g = weights.iter().fold(0u64, |g, &w| gcd(g, w.max(1)));
        let weights: Vec<i64> = weights
            .iter()
            .map(|&w| (w.max(1) / g.max(1)).min(i64::MAX as u64 / 1024) as i64)
            .collect();
        let total = weights.iter().sum();
        SpreadDealer {
            current: vec![0; weights.len()],
            weights,
            total,
        }
    }

    /// The unit of the next job.
    pub(crate) fn next_unit(&mut self) -> usize {
        if self.weights.is_empty() {
            return 0;
        }
        let mut best = 0;
        for i in 0..self.weights.len() {
            self.current[i] += self.weights[i];
            if self.current[i] > self.current[best] {
                best = i;
            }
        }
        self.current[best] -= self.total;
        best
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LayoutOptions, Topology};

    fn prefer(t: &mut AffinityTracker, a: u64, b: u64, periods: usize) {
        for _ in 0..periods {
            t.record_n(0, a);
            t.record_n(1, b);
            t.decay(1);
        }
    }

    #[test]
    fn hysteresis_60_40_stays_20_80_moves() {
        let mut t = AffinityTracker::new(2);
        assert_eq!(t.preferred(), None);
        // 6 jobs against 4, one by one: enough activity, the most jobs win.
        let mut first = AffinityTracker::new(2);
        for _ in 0..6 {
            first.record(0);
        }
        for _ in 0..4 {
            first.record(1);
        }
        assert_eq!(first.preferred(), Some(0));
        prefer(&mut t, 10, 0, 3);
        assert_eq!(t.preferred(), Some(0));
        prefer(&mut t, 6, 4, 20);
        assert_eq!(t.preferred(), Some(0));
        prefer(&mut t, 4, 6, 20);
        assert_eq!(t.preferred(), Some(0), "40/60 is not more than twice");
        assert_eq!(t.changes(), 0);
        prefer(&mut t, 2, 8, 20);
        assert_eq!(t.preferred(), Some(1));
        assert_eq!(t.changes(), 1);
    }

    #[test]
    fn batch_is_order_free() {
        let mut a = AffinityTracker::new(2);
        a.record_all(&[10, 0]);
        assert_eq!(a.preferred(), Some(0));
        // 30 in LLC 0 and 25 in LLC 1 together: 40 vs 25, no flip; fed one
        // LLC at a time, LLC 1 first, 10 vs 25 would flip on the way.
        a.record_all(&[30, 25]);
        assert_eq!(a.preferred(), Some(0));
        let mut b = AffinityTracker::new(2);
        b.record_all(&[10, 0]);
        b.record_n(1, 25);
        assert_eq!(b.preferred(), Some(1));
    }

    #[test]
    fn little_activity_no_preference() {
        let mut t = AffinityTracker::new(3);
        for _ in 0..(MIN_ACTIVITY - 1) {
            t.record(2);
        }
        assert_eq!(t.preferred(), None);
        t.record(2);
        assert_eq!(t.preferred(), Some(2));
        t.decay(1);
        assert_eq!(t.preferred(), None, "half the activity is too little");
        t.record(7); // out of range: ignored
        assert_eq!(t.counts(), [0, 0, 4]);
    }

    #[test]
    fn overload_margin() {
        assert!(overloaded(&[4, 0], &[4, 4], 0));
        assert!(!overloaded(&[0, 4], &[4, 4], 0));
        assert!(!overloaded(&[4, 4], &[4, 4], 0));
        // 20% of 10 is 2: a difference of 2 is not overload, 3 is.
        assert!(!overloaded(&[5, 3], &[10, 10], 0));
        assert!(overloaded(&[6, 3], &[10, 10], 0));
        assert!(!overloaded(&[1], &[1], 3));
        // 10 busy of 16 against 8 busy: 2 is not more than 3.2.
        assert!(!overloaded(&[10, 8], &[16, 16], 0));
    }

    #[test]
    fn saturated_llc_gets_help_from_idle_workers_only() {
        // The barrier case on `llc:2 core:8`: LLC 0 saturated, 7 workers of
        // LLC 1 blocked, the 8th idle and asking. Not overloaded (1 is not
        // more than 1.6), but saturated: the idle helper may take.
        assert!(!overloaded(&[8, 7], &[8, 8], 0));
        assert!(may_help(&[8, 7], &[8, 8], 0, true));
        assert!(!may_help(&[8, 7], &[8, 8], 0, false));
        // Both LLCs saturated (a fully loaded pool, everyone searching):
        // only a worker that found nothing else helps.
        assert!(!may_help(&[8, 8], &[8, 8], 0, false));
        assert!(may_help(&[8, 8], &[8, 8], 0, true));
        // Overloaded: anyone may help, idle or not.
        assert!(may_help(&[4, 0], &[4, 4], 0, false));
        // An idle worker left in the LLC: no help (that worker is woken).
        assert!(!may_help(&[7, 6], &[8, 8], 0, true));
        assert!(!may_help(&[1], &[1], 3, true));
        assert!(!may_help(&[1], &[1, 1], 1, true));
    }

    #[test]
    fn dealer_is_exact_per_period() {
        let w = [3u64, 1, 2];
        let mut d = SpreadDealer::new(&w);
        let mut n = [0u64; 3];
        for _ in 0..600 {
            n[d.next_unit()] += 1;
        }
        assert_eq!(n, [300, 100, 200]);
        let mut eq = SpreadDealer::new(&[5, 5, 5, 5]);
        let v: Vec<usize> = (0..8).map(|_| eq.next_unit()).collect();
        assert_eq!(v, [0, 1, 2, 3, 0, 1, 2, 3]);
        // Smooth: weight 2 against 1 alternates instead of bunching.
        let mut d = SpreadDealer::new(&[2, 1]);
        let v: Vec<usize> = (0..6).map(|_| d.next_unit()).collect();
        assert_eq!(v, [0, 1, 0, 0, 1, 0]);
    }

    #[test]
    fn units_interleave_llcs() {
        let t = Topology::synthetic("llc:2 cluster:2 core:2").unwrap();
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        let u = spread_units(&l, true, &[]);
        let cl: Vec<Option<usize>> = u.iter().map(|u| u.cluster).collect();
        assert_eq!(cl, [Some(0), Some(2), Some(1), Some(3)]);
        let u = spread_units(&l, false, &[]);
        assert_eq!(u.len(), 2);
        assert_eq!(u[1].workers, 4..8);
        let u = spread_units(&l, true, &[1]);
        assert_eq!(u.len(), 2);
        assert!(u.iter().all(|u| u.llc == 1));
    }
}
