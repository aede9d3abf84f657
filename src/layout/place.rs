//! Where one worker runs and where it steals from: [`WorkerPlace`], its
//! steal [`Tier`]s, their [`TierKind`] and their class for the runtime's
//! batch rule ([`TierBatch`]). Plain data; the layout builds them
//! (`build`, `tiers`) and its text form prints them (`display`).
//!
//! Invariants (of a [`Tier`] in a [`Layout`](super::Layout), kept by
//! `tiers`): non-empty, never containing its worker, maximal contiguous
//! ranges in ascending order; a worker's tiers are disjoint and together
//! cover every other worker. A [`TierKind`] orders by distance (`Smt`
//! nearest, `Remote` farthest), which the passes and the statistics rely
//! on ([`TierKind::crosses_llc`] is where a near pass stops).

use std::fmt;
use std::ops::Range;

use crate::topology::CpuSet;

/// The kind of a steal [`Tier`]: the smallest domain its workers share with
/// the thief, which is where the victim is. The [names](TierKind::name)
/// say so (`same-llc`: another worker of the thief's LLC, not of its
/// cluster); the variants are named after the domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TierKind {
    /// `same-core`: the other workers of its core, its SMT siblings or,
    /// in a pool with more workers than PUs, workers sharing its PU (the
    /// name says only what both share).
    Smt,
    /// `same-cluster`: the rest of its cluster.
    Cluster,
    /// `same-llc`: the rest of its LLC (other clusters).
    Llc,
    /// `same-node`: the rest of its NUMA node (other LLCs).
    Numa,
    /// `same-package`: the rest of its package (other NUMA nodes, or other
    /// LLCs when NUMA nodes enclose packages).
    Package,
    /// `other-node`: workers of other NUMA nodes at one distance, or for
    /// [`StealOrder::Flat`](super::StealOrder::Flat) all other workers (that tier shows as
    /// `all-others` in a [`Tier`]'s text).
    Remote,
}

impl TierKind {
    /// Whether victims of this tier are in other LLCs (`same-node`,
    /// `same-package`, `other-node`): where a steal takes a batch and where
    /// a near pass stops.
    #[inline]
    pub(crate) fn crosses_llc(self) -> bool {
        matches!(self, TierKind::Numa | TierKind::Package | TierKind::Remote)
    }

    /// Where the victim is: `same-core`, `same-cluster`, `same-llc`,
    /// `same-node`, `same-package`, `other-node`. Used by `Display`, the
    /// layout table, and the `st:*` columns of the stats table.
    pub fn name(self) -> &'static str {
        match self {
            TierKind::Smt => "same-core",
            TierKind::Cluster => "same-cluster",
            TierKind::Llc => "same-llc",
            TierKind::Numa => "same-node",
            TierKind::Package => "same-package",
            TierKind::Remote => "other-node",
        }
    }
}

impl fmt::Display for TierKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a [`Tier`]'s victims are, as the runtime's batch rule
/// (`runtime::pass::tiers::steal_batch`, which maps each class to its
/// bounds) asks it: in the thief's LLC or across it, and, inside it,
/// whether that LLC is the pool's only one.
///
/// Rule: the one tier of the `Flat` order is [`Far`](Self::Far); in the
/// hierarchical order a tier of a kind that crosses the LLC is
/// [`Cross`](Self::Cross) in a layout of several LLCs ([`Far`](Self::Far)
/// in one of one LLC), and any other tier is
/// [`WholePool`](Self::WholePool) in a layout of one LLC and
/// [`Near`](Self::Near) in a layout of several. Why here: the rule
/// takes a bigger batch from a long deque inside the LLC when there is no
/// other LLC to feed, and whether there is one is a fact of the layout,
/// fixed when it is built; a steal reads the class from its tier instead
/// of every pass working it out from the worker's tier list. The layout
/// names the class, not the bounds: the batch sizes are the runtime's
/// policy, with their reasons (`docs/spawn-long-batch.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TierBatch {
    /// Victims in the thief's LLC, in a pool of several LLCs.
    Near,
    /// Victims in the thief's LLC, the only LLC of the pool.
    WholePool,
    /// Victims anywhere: the `Flat` order's one tier, which does not know
    /// LLCs (and a crossing tier in a layout of one LLC).
    Far,
    /// Victims in other LLCs ([`TierKind::crosses_llc`]), reached by the
    /// hierarchical order in a layout of several LLCs: the only steals that
    /// feed another LLC's idle workers.
    Cross,
}

impl TierBatch {
    /// The class of a hierarchical order's tier of kind `kind` in a layout
    /// of `llcs` LLCs (the rule of the type's docs).
    pub(crate) fn of(kind: TierKind, llcs: usize) -> TierBatch {
        if kind.crosses_llc() {
            if llcs == 1 {
                TierBatch::Far
            } else {
                TierBatch::Cross
            }
        } else if llcs == 1 {
            TierBatch::WholePool
        } else {
            TierBatch::Near
        }
    }
}

/// One step of a worker's steal order: workers at the same distance from it.
///
/// Made by the layout only (it carries a crate-private field, its batch
/// class): read a worker's tiers from [`WorkerPlace::tiers`] or
/// [`Layout::tiers_for`](super::Layout::tiers_for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tier {
    /// Which domain these workers share with the thief.
    pub kind: TierKind,
    /// Worker indices: maximal contiguous ranges, ascending, non-empty,
    /// never containing the thief itself.
    pub ranges: Vec<Range<usize>>,
    /// NUMA distance (10 = local) for a [`TierKind::Remote`] tier of the
    /// hierarchical order; 0 for other tiers and for the flat order.
    pub distance: u32,
    /// Its class for the batch rule, computed once with the layout
    /// ([`TierBatch::of`]).
    pub(crate) batch: TierBatch,
}

impl Tier {
    /// The `Flat` order's one tier: every worker in `ranges`, class
    /// [`TierBatch::Far`].
    pub(crate) fn flat(ranges: Vec<Range<usize>>) -> Tier {
        Tier {
            kind: TierKind::Remote,
            ranges,
            distance: 0,
            batch: TierBatch::Far,
        }
    }

    /// A hierarchical order's tier of kind `kind` over `ranges` at NUMA
    /// distance `distance`, in a layout of `llcs` LLCs (which gives its
    /// [`TierBatch`]).
    pub(crate) fn new(
        kind: TierKind,
        ranges: Vec<Range<usize>>,
        distance: u32,
        llcs: usize,
    ) -> Tier {
        Tier {
            kind,
            ranges,
            distance,
            batch: TierBatch::of(kind, llcs),
        }
    }

    /// Number of workers in the tier.
    pub fn len(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).sum()
    }

    /// Whether the tier has no worker (never true for a tier of a
    /// [`Layout`](super::Layout)).
    pub fn is_empty(&self) -> bool {
        self.ranges.iter().all(|r| r.is_empty())
    }

    /// Whether worker `w` is in the tier.
    pub fn contains(&self, w: usize) -> bool {
        self.ranges.iter().any(|r| r.contains(&w))
    }

    /// The worker indices, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.ranges.iter().flat_map(|r| r.clone())
    }
}

/// Where one worker runs and where it steals from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerPlace {
    /// Its index (position in [`Layout::workers`](super::Layout::workers)).
    pub index: usize,
    /// OS index of its PU.
    pub pu: usize,
    /// The CPUs to pin the thread to (see [`Pinning`](super::Pinning)); empty: do not pin.
    pub cpus: CpuSet,
    /// Dense id of its core in the layout.
    pub core: usize,
    /// Dense id of its cluster (index into [`Layout::cluster_ranges`](super::Layout::cluster_ranges)).
    pub cluster: usize,
    /// Dense id of its LLC (index into [`Layout::llc_ranges`](super::Layout::llc_ranges)).
    pub llc: usize,
    /// Dense id of its NUMA node (index into [`Layout::numa_ranges`](super::Layout::numa_ranges)).
    pub numa: usize,
    /// Dense id of its package (index into [`Layout::package_ranges`](super::Layout::package_ranges)).
    pub package: usize,
    /// Capacity of its PU (1024 for the biggest cores).
    pub capacity: u32,
    /// Where it steals, nearest first (see the [module docs](super)).
    pub tiers: Vec<Tier>,
}
