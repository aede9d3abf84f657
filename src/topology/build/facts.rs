//! What sources hand the builder: for each online PU the raw sets it
//! belongs to, as reported, and the machine-wide facts (NUMA nodes and their
//! distances, allowed CPUs, notes).
//!
//! Invariants a source must keep: `None` means "not reported" (never a
//! guess); a PU's sets are the source's raw reading, however inconsistent
//! (the builder repairs and notes); PUs of one domain share one `Arc` where
//! the source can, so that facts about N PUs take memory linear in N.

use crate::topology::CpuSet;
use std::sync::Arc;

/// What a source knows about one online PU. `None` means "not reported".
/// The sets are shared: a source gives the PUs of one domain clones of one
/// `Arc`, so that facts about N PUs take memory linear in N.
#[derive(Debug, Clone, Default)]
pub(crate) struct PuFacts {
    /// OS index (Linux CPU number).
    pub os: usize,
    /// The PU's SMT siblings, itself included.
    pub core: Option<Arc<CpuSet>>,
    /// CPUs sharing the cluster (L2 or L3 tag) with it.
    pub cluster: Option<Arc<CpuSet>>,
    /// CPUs sharing its L2 (unified or data) cache.
    pub l2: Option<Arc<CpuSet>>,
    /// CPUs sharing its L3 cache.
    pub l3: Option<Arc<CpuSet>>,
    /// OS index of its NUMA node.
    pub node: Option<usize>,
    /// Package id.
    pub package: Option<usize>,
    /// Capacity on the arm64 scale (1024 = biggest core) or any relative
    /// performance figure; normalized to 1024 = max by the builder.
    pub capacity: Option<u32>,
}

/// Everything a source gathered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Online PUs (order does not matter).
    pub pus: Vec<PuFacts>,
    /// NUMA nodes by OS index with the CPUs they list (possibly empty:
    /// memory-only nodes). May be empty when the machine reports no NUMA.
    pub nodes: Vec<(usize, CpuSet)>,
    /// Distance matrix between the nodes of `nodes`, same order, if known.
    pub distances: Option<Vec<Vec<u32>>>,
    /// CPUs this process may use; `None` means all PUs.
    pub allowed: Option<CpuSet>,
    /// Whether the source saw cluster information (`cluster_cpus_list`).
    pub saw_cluster: bool,
    /// Remarks about decisions and fallbacks, shown to the user.
    pub notes: Vec<String>,
}
