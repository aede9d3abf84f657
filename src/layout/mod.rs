//! What the pool makes of a [`Topology`]: its workers, where each runs, and
//! in which order each looks for work to steal. Pure data, no threads.
//!
//! # Invariants of a [`Layout`]
//! - Workers are numbered depth-first through the topology (the order of
//!   [`Topology::pus`]), over allowed PUs only. So every core, cluster, LLC,
//!   NUMA node and package is a contiguous range of worker indices
//!   ([`Layout::llc_ranges`] and friends).
//! - Domain ids in the layout are dense: only domains with workers count,
//!   numbered in worker order (worker 0 is in core 0, cluster 0, LLC 0, node
//!   0, package 0, and ids never decrease with the worker index). They are
//!   not the indexes of [`Topology`]'s domains.
//! - Every pin set ([`WorkerPlace::cpus`]) is a subset of
//!   [`Topology::allowed`]; it is empty for [`Pinning::None`] and for a
//!   virtual topology.
//! - No pin set other than the whole allowed set holds more workers than
//!   CPUs: see "Pinning more workers than CPUs".
//! - The tiers of a worker are disjoint, never contain the worker, are
//!   never empty, consist of maximal contiguous ranges in ascending order,
//!   and together cover every other worker.
//! - [`Layout::llc_order`] of an LLC lists every other LLC exactly once.
//!
//! # Pinning more workers than CPUs
//! With more workers than allowed PUs, some PUs carry several workers (see
//! [`Layout::new`]). Pinned each to its PU, core or cluster as
//! [`Pinning`] says, they would share that CPU while others have fewer
//! workers: `num_threads(3)` on 2 CPUs put workers 0 and 1 on CPU 0 and
//! worker 2 alone on CPU 1. Instead, a worker is pinned to the smallest
//! domain, at least as wide as its granularity, that holds no more of the
//! pool's workers than allowed CPUs, and to every allowed CPU if no domain
//! does (then the kernel spreads the workers, as it does rayon's, which
//! never pins). A pool with at most one worker per allowed PU is pinned as
//! before. The rule and its reasons: `docs/oversubscribed-pinning.md`;
//! the code: `pinsets`.
//!
//! Workers that share a PU are in one core, and the layout says no more
//! than that: their steal tier and [`Layout::relation`] are
//! [`TierKind::Smt`], named `same-core`, which is what they share whether
//! or not the core has SMT siblings.
//!
//! # Steal tiers ([`StealOrder::Hierarchical`])
//! Nearest first: the other workers of its core (SMT siblings, or workers
//! sharing its PU), the rest of
//! its cluster, the rest of its LLC, the rest of its NUMA node, the rest of
//! its package (these two swap when NUMA nodes enclose packages,
//! [`Topology::package_inside_numa`]), then the workers of the NUMA nodes
//! outside that, one [`TierKind::Remote`] tier per distinct NUMA distance,
//! nearest first. Empty tiers are left out. Without
//! [`cluster_aware`](LayoutOptions::cluster_aware) there is no cluster tier:
//! its workers are in the LLC tier. [`StealOrder::Flat`] gives a single
//! `Remote` tier of distance 0 with every other worker.
//!
//! # Cost
//! [`Layout::new`] on N PUs takes time and memory linear in N times the
//! number of levels when the topology has no NUMA distance matrix: each
//! worker's tiers are at most one per level plus one remote tier, each of
//! at most two ranges, and each LLC's order ([`Layout::llc_order_runs`]) is
//! at most six runs. With a matrix, a worker's remote tiers and an LLC's
//! order may need a run per NUMA node (nodes at alternating distances), so
//! the bound is N × nodes: accepted, since the matrix itself is nodes² and
//! real machines have few nodes (synthetic specs at most 1024). Nothing is
//! stored per pair of workers or of LLCs; [`Layout::llc_order`] makes an
//! LLC's list (O(LLCs)) only when asked.
//!
//! ```
//! use locus::{Layout, LayoutOptions, Topology, TierKind};
//! let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:4 smt:2").unwrap();
//! let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
//! assert_eq!(l.workers().len(), 64);
//! let w0 = &l.workers()[0];
//! let kinds: Vec<TierKind> = w0.tiers.iter().map(|t| t.kind).collect();
//! use TierKind::*;
//! // One package holding both nodes: the other node is the package tier.
//! assert_eq!(kinds, [Smt, Cluster, Llc, Numa, Package]);
//! assert_eq!(w0.tiers[1].ranges, [2..8]);
//! assert_eq!(w0.tiers[4].ranges, [32..64]);
//! assert_eq!(l.llc_ranges()[1], 16..32);
//! ```
//!
//! # Submodules
//! `build` makes a layout ([`Layout::new`]) with `select` (how many
//! workers on each PU), `pinsets`, `tiers` and `order`; `place` holds the
//! per-worker data ([`WorkerPlace`], [`Tier`], [`TierKind`]); `options`
//! the knobs; `display` the text form.

mod build;
mod display;
mod options;
mod order;
mod pinsets;
mod place;
mod select;
mod tiers;

pub use options::{LayoutOptions, ParseOptionError, Pinning, StealOrder};
pub(crate) use place::TierBatch;
pub use place::{Tier, TierKind, WorkerPlace};

use crate::topology::Topology;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// The largest number of workers a layout accepts.
pub const MAX_WORKERS: usize = 1 << 16;

/// Why a layout could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// `num_threads` was 0.
    ZeroThreads {
        /// Number of allowed PUs, the default thread count.
        allowed: usize,
    },
    /// `num_threads` exceeds [`MAX_WORKERS`].
    TooManyThreads {
        /// The requested count.
        requested: usize,
    },
    /// No online PU of the topology is allowed (cannot happen with a
    /// [`Topology`] built by this crate).
    NoAllowedCpu {
        /// The topology's source.
        source: String,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::ZeroThreads { allowed } => write!(
                f,
                "num_threads is 0: ask for at least 1 thread, or leave it unset for one per allowed CPU ({allowed} here)"
            ),
            LayoutError::TooManyThreads { requested } => write!(
                f,
                "num_threads is {requested}: at most {MAX_WORKERS} threads are supported; ask for fewer"
            ),
            LayoutError::NoAllowedCpu { source } => write!(
                f,
                "no online CPU of the topology ({source}) is allowed: check the affinity mask or cpuset of the process"
            ),
        }
    }
}

impl std::error::Error for LayoutError {}

/// The pool's workers on a [`Topology`]: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Layout {
    /// The topology: borrowed when it is the process's detected machine
    /// (read once per process), so that a build does not copy it.
    topology: std::borrow::Cow<'static, Topology>,
    options: LayoutOptions,
    workers: Vec<WorkerPlace>,
    core_ranges: Vec<Range<usize>>,
    cluster_ranges: Vec<Range<usize>>,
    llc_ranges: Vec<Range<usize>>,
    numa_ranges: Vec<Range<usize>>,
    package_ranges: Vec<Range<usize>>,
    /// Topology index of each dense NUMA node.
    numa_topo: Vec<usize>,
    /// Each LLC's [`Layout::llc_order_runs`].
    llc_runs: Vec<Box<[Range<usize>]>>,
    /// Each LLC's [`Layout::llc_order`], made on first use.
    llc_lists: Vec<OnceLock<Box<[usize]>>>,
    /// The tiers of each worker for the opposite of `options.cluster_aware`
    /// (for the run-time switch, [`Layout::tiers_for`]).
    other_tiers: Vec<Vec<Tier>>,
    /// Dense LLC per OS CPU index (`usize::MAX`: not an online CPU).
    llc_by_cpu: Vec<usize>,
}

impl Layout {
    /// How near worker `b` is to worker `a`, as the tier kind it would have
    /// in `a`'s hierarchical steal order (whatever the configured order):
    /// `Smt` for the same core, `Cluster` for the same cluster (whether or
    /// not the pool is cluster-aware: this is where the victim is, not
    /// which tier found it), `Llc`, then NUMA node and package (in the
    /// topology's nesting order), else `Remote`. Statistics use it, so that steals of a
    /// `Flat` pool are classified by distance too and the two orders can be
    /// compared.
    ///
    /// ```
    /// use locus::{Layout, LayoutOptions, TierKind, Topology};
    /// let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:2").unwrap();
    /// let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    /// assert_eq!(l.relation(0, 1), TierKind::Cluster);
    /// assert_eq!(l.relation(0, 2), TierKind::Llc);
    /// assert_eq!(l.relation(0, 4), TierKind::Numa);
    /// assert_eq!(l.relation(0, 8), TierKind::Package);
    /// ```
    pub fn relation(&self, a: usize, b: usize) -> TierKind {
        let (x, y) = (&self.workers[a], &self.workers[b]);
        let (inner, outer) = if self.topology.package_inside_numa() {
            (
                (x.package == y.package, TierKind::Package),
                (x.numa == y.numa, TierKind::Numa),
            )
        } else {
            (
                (x.numa == y.numa, TierKind::Numa),
                (x.package == y.package, TierKind::Package),
            )
        };
        if x.core == y.core {
            TierKind::Smt
        } else if x.cluster == y.cluster {
            TierKind::Cluster
        } else if x.llc == y.llc {
            TierKind::Llc
        } else if inner.0 {
            inner.1
        } else if outer.0 {
            outer.1
        } else {
            TierKind::Remote
        }
    }

    /// The workers, by index.
    pub fn workers(&self) -> &[WorkerPlace] {
        &self.workers
    }

    /// Number of workers.
    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Always false: a layout has at least one worker.
    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// Worker index range of each core with workers (dense core ids 0..).
    pub fn core_ranges(&self) -> &[Range<usize>] {
        &self.core_ranges
    }

    /// Worker index range of each cluster with workers (dense cluster ids 0..).
    pub fn cluster_ranges(&self) -> &[Range<usize>] {
        &self.cluster_ranges
    }

    /// Worker index range of each LLC with workers (dense LLC ids 0..).
    pub fn llc_ranges(&self) -> &[Range<usize>] {
        &self.llc_ranges
    }

    /// Worker index range of each NUMA node with workers (dense ids 0..).
    pub fn numa_ranges(&self) -> &[Range<usize>] {
        &self.numa_ranges
    }

    /// Worker index range of each package with workers (dense ids 0..).
    pub fn package_ranges(&self) -> &[Range<usize>] {
        &self.package_ranges
    }

    /// The dense NUMA node of an LLC. Panics if `llc` is out of range.
    pub fn llc_numa(&self, llc: usize) -> usize {
        self.workers[self.llc_ranges[llc].start].numa
    }

    /// The other LLCs, nearest first: those of the same NUMA node, then of
    /// the same package (node and package swap when nodes enclose
    /// packages), then the rest by NUMA distance; ties by index. Panics if
    /// `llc` is out of range.
    ///
    /// The list is made from [`Layout::llc_order_runs`] on its first call
    /// (O(LLCs)) and kept: a layout with many LLCs holds LLCs² entries only
    /// once every list was asked for. Walk the runs to avoid that.
    pub fn llc_order(&self, llc: usize) -> &[usize] {
        self.llc_lists[llc]
            .get_or_init(|| self.llc_runs[llc].iter().flat_map(|r| r.clone()).collect())
    }

    /// [`Layout::llc_order`] as runs of consecutive LLC ids, in order: a few
    /// per LLC (at most six without a NUMA distance matrix), so every LLC's
    /// order together takes memory linear in the number of LLCs. Panics if
    /// `llc` is out of range.
    ///
    /// ```
    /// use locus::{Layout, LayoutOptions, Topology};
    /// let t = Topology::synthetic("numa:2 llc:4 core:1").unwrap();
    /// let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    /// // From LLC 5: the rest of its node, then the other node.
    /// assert_eq!(l.llc_order_runs(5), [4..5, 6..8, 0..4]);
    /// assert_eq!(l.llc_order(5), [4, 6, 7, 0, 1, 2, 3]);
    /// ```
    pub fn llc_order_runs(&self, llc: usize) -> &[Range<usize>] {
        &self.llc_runs[llc]
    }

    /// The dense LLC of an OS CPU, for placing jobs from outside the pool
    /// near their caller. A CPU whose LLC has no worker (not allowed, or
    /// left out by `num_threads`) maps to the nearest LLC that has, in the
    /// order of [`Layout::llc_order`]. `None` for a CPU the topology does not
    /// list, and always for a virtual topology (the caller's CPU says nothing
    /// about it).
    pub fn llc_of_cpu(&self, os_cpu: usize) -> Option<usize> {
        if self.options.virtual_topology {
            return None;
        }
        self.llc_by_cpu
            .get(os_cpu)
            .copied()
            .filter(|&l| l != usize::MAX)
    }

    /// The steal tiers of worker `w` with cluster awareness on or off,
    /// whatever the layout's option: for the option's own value these are
    /// [`WorkerPlace::tiers`], for the other the tiers a layout built with
    /// it would have (the run-time switch,
    /// [`ThreadPool::set_cluster_aware`](crate::ThreadPool::set_cluster_aware)).
    /// Panics if `w` is out of range.
    ///
    /// ```
    /// use locus::{Layout, LayoutOptions, Topology, TierKind};
    /// let t = Topology::synthetic("cluster:2 core:2").unwrap();
    /// let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    /// assert_eq!(l.tiers_for(0, true)[0].kind, TierKind::Cluster);
    /// assert_eq!(l.tiers_for(0, false)[0].kind, TierKind::Llc);
    /// ```
    pub fn tiers_for(&self, w: usize, cluster_aware: bool) -> &[Tier] {
        if cluster_aware == self.options.cluster_aware {
            &self.workers[w].tiers
        } else {
            &self.other_tiers[w]
        }
    }

    /// The topology this layout was made from.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The options this layout was made with.
    pub fn options(&self) -> &LayoutOptions {
        &self.options
    }
}
