//! The plain-data input of [`IdleMasks`](super::IdleMasks): which workers
//! form each LLC and cluster, their capacities and the LLC search orders,
//! with its validation.

use std::fmt;
use std::ops::Range;

/// The plain-data shape of the pool that [`IdleMasks`](super::IdleMasks) needs.
///
/// Worker indices run over `0..capacity.len()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleShape {
    /// The workers of each LLC: non-empty ranges, in order, contiguous,
    /// starting at 0 and ending at the number of workers.
    pub llc_ranges: Vec<Range<usize>>,
    /// The workers of each cluster: non-empty, disjoint ranges, each inside
    /// one LLC. Workers outside every cluster are allowed; an empty list
    /// means "no clusters" (cluster awareness off): each LLC is one domain.
    pub cluster_ranges: Vec<Range<usize>>,
    /// The workers of each core (SMT siblings, or workers sharing a PU):
    /// non-empty, disjoint ranges, each inside one LLC; an empty list means
    /// "no core information" (no preference for fully idle cores).
    pub core_ranges: Vec<Range<usize>>,
    /// Capacity of each worker (its core's relative speed); larger is woken
    /// first within a domain. Capacities within 7/8 of each other count as
    /// one class (no preference between them).
    pub capacity: Vec<u32>,
    /// For each LLC, the other LLCs, nearest first, as runs of consecutive
    /// LLC ids (a layout's order is a few runs per LLC:
    /// [`Layout::llc_order_runs`](crate::Layout::llc_order_runs), so the
    /// orders take memory linear in the number of LLCs). LLCs left out are
    /// never searched from that LLC.
    pub llc_order: Vec<Vec<Range<usize>>>,
}

impl IdleShape {
    /// A shape of `workers` workers in LLCs of `per_llc` (the last one may be
    /// smaller), clusters of `per_cluster` inside each LLC (0: no clusters),
    /// equal capacities, and each LLC's order by index distance (nearer
    /// index first, lower first on ties), as maximal ascending runs: one
    /// run from the first and the last LLC, but one per LLC where the
    /// order alternates sides, so quadratic in LLCs: for tests and the loom
    /// models).
    #[cfg(any(test, loom))]
    pub fn uniform(workers: usize, per_llc: usize, per_cluster: usize) -> IdleShape {
        let mut shape = IdleShape::uniform_ring(workers, per_llc, per_cluster);
        let n = shape.llc_ranges.len();
        shape.llc_order = (0..n)
            .map(|l| {
                let mut o: Vec<usize> = (0..n).filter(|&m| m != l).collect();
                o.sort_by_key(|&m| (m.abs_diff(l), m));
                let mut runs: Vec<Range<usize>> = Vec::new();
                for m in o {
                    match runs.last_mut() {
                        Some(r) if r.end == m => r.end += 1,
                        _ => runs.push(m..m + 1),
                    }
                }
                runs
            })
            .collect();
        shape
    }

    /// The shape of `uniform` (tests and loom models), but each LLC's order is the
    /// LLCs after it in index order, then those before it: two runs per
    /// LLC, so memory linear in the LLCs at any size.
    pub fn uniform_ring(workers: usize, per_llc: usize, per_cluster: usize) -> IdleShape {
        let per_llc = per_llc.max(1);
        let mut llc_ranges = Vec::new();
        let mut cluster_ranges = Vec::new();
        let mut start = 0;
        while start < workers {
            let end = (start + per_llc).min(workers);
            llc_ranges.push(start..end);
            if per_cluster > 0 {
                let mut c = start;
                while c < end {
                    let ce = (c + per_cluster).min(end);
                    cluster_ranges.push(c..ce);
                    c = ce;
                }
            }
            start = end;
        }
        let n = llc_ranges.len();
        let llc_order = (0..n)
            .map(|l| {
                [l + 1..n, 0..l]
                    .into_iter()
                    .filter(|r| !r.is_empty())
                    .collect()
            })
            .collect();
        IdleShape {
            llc_ranges,
            cluster_ranges,
            core_ranges: Vec::new(),
            capacity: vec![1024; workers],
            llc_order,
        }
    }

    /// Checks the rules documented on the fields.
    pub fn validate(&self) -> Result<(), IdleShapeError> {
        let n = self.capacity.len();
        if n == 0 || self.llc_ranges.is_empty() {
            return Err(IdleShapeError::NoWorkers);
        }
        let mut next = 0;
        for (llc, r) in self.llc_ranges.iter().enumerate() {
            if r.start != next || r.end <= r.start {
                return Err(IdleShapeError::LlcRange {
                    llc,
                    range: r.clone(),
                    expected_start: next,
                });
            }
            next = r.end;
        }
        if next != n {
            return Err(IdleShapeError::WorkerCount {
                llc_end: next,
                capacities: n,
            });
        }
        if let Some((cluster, range)) = self.outside_llcs(&self.cluster_ranges) {
            return Err(IdleShapeError::ClusterRange { cluster, range });
        }
        if let Some((core, range)) = self.outside_llcs(&self.core_ranges) {
            return Err(IdleShapeError::CoreRange { core, range });
        }
        let llcs = self.llc_ranges.len();
        if self.llc_order.len() != llcs {
            return Err(IdleShapeError::LlcOrderLen {
                got: self.llc_order.len(),
                llcs,
            });
        }
        for (llc, order) in self.llc_order.iter().enumerate() {
            for run in order.iter().filter(|r| !r.is_empty()) {
                let entry = if run.contains(&llc) {
                    llc
                } else if run.end > llcs {
                    run.start.max(llcs)
                } else {
                    continue;
                };
                return Err(IdleShapeError::LlcOrderEntry { llc, entry });
            }
        }
        Ok(())
    }
}

impl IdleShape {
    /// The first of `ranges` (by start) that is empty, overlaps another, or
    /// straddles LLCs, with its index. Needs the LLC ranges checked.
    fn outside_llcs(&self, ranges: &[Range<usize>]) -> Option<(usize, Range<usize>)> {
        let mut sorted: Vec<(usize, &Range<usize>)> = ranges.iter().enumerate().collect();
        sorted.sort_by_key(|(_, r)| r.start);
        let mut prev_end = 0;
        for (i, r) in sorted {
            // LLC ranges are contiguous and ascending (checked first): the
            // only candidate is the last one starting at or before `r`.
            let k = self.llc_ranges.partition_point(|l| l.start <= r.start);
            let inside = k
                .checked_sub(1)
                .is_some_and(|k| r.end <= self.llc_ranges[k].end);
            if r.end <= r.start || r.start < prev_end || !inside {
                return Some((i, r.clone()));
            }
            prev_end = r.end;
        }
        None
    }
}

/// Why an [`IdleShape`] is unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdleShapeError {
    /// There are no workers or no LLCs.
    NoWorkers,
    /// An LLC range is empty or does not start where the previous one ended.
    LlcRange {
        /// Index of the offending LLC.
        llc: usize,
        /// Its range.
        range: Range<usize>,
        /// Where it should have started.
        expected_start: usize,
    },
    /// The LLC ranges do not end at the number of capacities given.
    WorkerCount {
        /// End of the last LLC range.
        llc_end: usize,
        /// Length of `capacity`.
        capacities: usize,
    },
    /// A cluster range is empty, overlaps another, or straddles LLCs.
    ClusterRange {
        /// Index of the offending cluster.
        cluster: usize,
        /// Its range.
        range: Range<usize>,
    },
    /// A core range is empty, overlaps another, or straddles LLCs.
    CoreRange {
        /// Index of the offending core.
        core: usize,
        /// Its range.
        range: Range<usize>,
    },
    /// `llc_order` does not have one entry per LLC.
    LlcOrderLen {
        /// Its length.
        got: usize,
        /// Number of LLCs.
        llcs: usize,
    },
    /// An `llc_order` list names a missing LLC or the LLC itself.
    LlcOrderEntry {
        /// The LLC whose list is wrong.
        llc: usize,
        /// The bad entry.
        entry: usize,
    },
}

impl fmt::Display for IdleShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdleShapeError::NoWorkers => write!(
                f,
                "idle shape has no workers: give at least one LLC range and capacity"
            ),
            IdleShapeError::LlcRange {
                llc,
                range,
                expected_start,
            } => write!(
                f,
                "LLC {llc} has worker range {range:?}; LLC ranges must be non-empty and contiguous, this one should start at {expected_start}"
            ),
            IdleShapeError::WorkerCount {
                llc_end,
                capacities,
            } => write!(
                f,
                "LLC ranges cover workers 0..{llc_end} but {capacities} capacities were given; give one capacity per worker"
            ),
            IdleShapeError::ClusterRange { cluster, range } => write!(
                f,
                "cluster {cluster} has worker range {range:?}; clusters must be non-empty, disjoint and inside one LLC"
            ),
            IdleShapeError::CoreRange { core, range } => write!(
                f,
                "core {core} has worker range {range:?}; cores must be non-empty, disjoint and inside one LLC"
            ),
            IdleShapeError::LlcOrderLen { got, llcs } => {
                write!(
                    f,
                    "llc_order has {got} entries for {llcs} LLCs; give one list per LLC"
                )
            }
            IdleShapeError::LlcOrderEntry { llc, entry } => write!(
                f,
                "llc_order[{llc}] contains {entry}, which is not another LLC's index"
            ),
        }
    }
}

impl std::error::Error for IdleShapeError {}
