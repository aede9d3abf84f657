//! What the machine is: PUs grouped into cores, clusters, LLCs, NUMA nodes and
//! packages.
//!
//! # Invariants of a [`Topology`]
//! - [`Topology::pus`] lists the online PUs in depth-first order through the
//!   tree (package, NUMA node, LLC, cluster, core; NUMA and package swap when
//!   nodes hold whole packages).
//! - Every level nests in the next one out, and every [`Domain`] covers a
//!   contiguous range of [`Topology::pus`]: `domain.pus` is that range and
//!   `domain.cpuset` is exactly the OS indexes in it.
//! - Levels a source did not report collapse into a neighbour;
//!   [`Topology::levels_seen`] says which were actually seen.
//! - [`Topology::allowed`] is a non-empty subset of the online PUs.
//!
//! # Machines that do not nest
//! - An L3 larger than its NUMA node (Intel sub-NUMA clustering): the LLC
//!   domain is the L3 clipped to the node, as the Linux scheduler does; the
//!   raw L3 sets stay available in [`Topology::l3_cpusets`].
//! - NUMA nodes that hold whole packages: NUMA becomes the outer level
//!   ([`Topology::package_inside_numa`]).
//! - Files that contradict each other (a cache list that disagrees with its
//!   mask, overlapping NUMA node lists): PUs are grouped by what they agree
//!   on, each PU belongs to exactly one domain per level, and
//!   [`Topology::notes`] records the decision.
//! - A missing level collapses: no cluster files, a cluster is an L2 shared
//!   by several cores, else a core; no cache information, the LLC is the NUMA
//!   node's part of the package; no NUMA, one node.
//!
//! # Cost
//! Building a topology of N PUs takes time and memory linear in N times the
//! number of levels (the `build` module says how), plus what the source
//! reports: the NUMA distance matrix is quadratic in nodes, so
//! [`Topology::synthetic`] accepts at most 1024 nodes (Linux's limit).
//! A [`CpuSet`] stores the words between its smallest and largest member
//! only, so the domains' sets together are linear in N.
//!
//! Sources: [`Topology::detect`] (Linux sysfs, else hwloc with the `hwloc`
//! feature, else a flat machine), [`Topology::from_sysfs`] (a snapshot
//! directory), [`Topology::synthetic`] (a spec such as
//! `"numa:2 llc:2 cluster:2 core:4 smt:2"`), and with the `hwloc` feature
//! `Topology::from_hwloc` and `Topology::from_hwloc_xml`.

mod build;
mod cpuset;
mod detect;
mod display;
#[cfg(feature = "hwloc")]
mod hwloc;
mod restrict;
mod synthetic;
mod sysfs;

/// The calling thread's CPU affinity mask (Linux), `None` if it cannot be
/// read. For the pinning tests, which check what a binding did.
#[cfg(all(test, target_os = "linux"))]
pub(crate) fn thread_affinity() -> Option<CpuSet> {
    sysfs::allowed::affinity()
}

pub use cpuset::{CpuSet, Iter as CpuSetIter, ParseCpuSetError};

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

/// A level of the topology tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// A core: its SMT siblings (hardware threads).
    Core,
    /// A cluster: cores sharing an L2 or an L3 tag (Kunpeng, Intel E-cores).
    Cluster,
    /// The last-level cache (L3, else L2), clipped to the NUMA node.
    Llc,
    /// A NUMA node.
    Numa,
    /// A package (socket).
    Package,
    /// The whole machine (not stored as domains).
    Machine,
}

impl Level {
    /// Lower-case name used in output (`core`, `cluster`, `llc`, `numa`, `package`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Core => "core",
            Level::Cluster => "cluster",
            Level::Llc => "llc",
            Level::Numa => "numa",
            Level::Package => "package",
            Level::Machine => "machine",
        }
    }
}

/// The stored levels in refinement order, outermost first: NUMA outside
/// package when nodes hold whole packages (see the module docs).
pub(crate) fn level_order(package_inside_numa: bool) -> [Level; 5] {
    if package_inside_numa {
        [
            Level::Numa,
            Level::Package,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    } else {
        [
            Level::Package,
            Level::Numa,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    }
}

/// One PU (hardware thread) and the domains it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pu {
    /// OS index (Linux CPU number, hwloc PU OS index).
    pub os_index: usize,
    /// Index into [`Topology::cores`].
    pub core: usize,
    /// Index into [`Topology::clusters`].
    pub cluster: usize,
    /// Index into [`Topology::llcs`].
    pub llc: usize,
    /// Index into [`Topology::numa_domains`].
    pub numa: usize,
    /// Index into [`Topology::packages`].
    pub package: usize,
    /// Relative capacity, 1024 for the biggest cores (arm64 convention).
    /// All PUs have 1024 when the machine reports no differences.
    pub capacity: u32,
}

/// A domain of one level: a contiguous range of [`Topology::pus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    /// The OS indexes of its PUs.
    pub cpuset: CpuSet,
    /// Its PUs, as a range of positions in [`Topology::pus`].
    pub pus: Range<usize>,
    /// Index of the enclosing domain one level out (0 at the outermost level).
    pub parent: usize,
    /// OS index where the level has one (NUMA node number, package id).
    pub os_index: Option<usize>,
}

/// Which levels the source actually reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelsSeen {
    /// Some core has more than one hardware thread.
    pub smt: bool,
    /// Cluster files (`topology/cluster_cpus_list`) were present.
    pub cluster: bool,
    /// L2 cache information was present.
    pub l2: bool,
    /// L3 cache information was present.
    pub l3: bool,
    /// NUMA nodes were reported.
    pub numa: bool,
    /// Package ids were reported.
    pub package: bool,
    /// PU capacities (or performance figures) differ between PUs.
    pub capacity: bool,
}

impl LevelsSeen {
    /// Names of the levels seen, e.g. `["smt", "l2", "l3", "numa", "package"]`.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.smt, "smt"),
            (self.cluster, "cluster"),
            (self.l2, "l2"),
            (self.l3, "l3"),
            (self.numa, "numa"),
            (self.package, "package"),
            (self.capacity, "capacity"),
        ];
        all.iter().filter(|(b, _)| *b).map(|(_, n)| *n).collect()
    }
}

/// Where a topology came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Linux sysfs under this root (`/` for the running machine).
    Sysfs(PathBuf),
    /// A synthetic spec.
    Synthetic(String),
    /// hwloc (the running machine, or an XML file).
    Hwloc(Option<PathBuf>),
    /// A flat machine of `available_parallelism` PUs; the reason why.
    Flat(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Sysfs(p) => write!(f, "sysfs:{}", p.display()),
            Source::Synthetic(s) => write!(f, "synthetic:{s}"),
            Source::Hwloc(None) => write!(f, "hwloc"),
            Source::Hwloc(Some(p)) => write!(f, "hwloc-xml:{}", p.display()),
            Source::Flat(why) => write!(f, "flat ({why})"),
        }
    }
}

/// Why a topology could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum TopologyError {
    /// A file that must exist could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A file held text that does not parse.
    Parse {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// The source described no online PU.
    NoPus {
        /// The source, as displayed by [`Source`].
        source: String,
    },
    /// A synthetic spec is malformed.
    Spec {
        /// The spec.
        spec: String,
        /// What was wrong, and what is accepted.
        message: String,
    },
    /// hwloc failed.
    Hwloc(String),
    /// [`Topology::restrict`] was given a set it cannot restrict to.
    Restrict {
        /// The set given.
        cpus: CpuSet,
        /// What was wrong, and what to give instead.
        message: String,
    },
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopologyError::Io { path, error } => {
                write!(f, "cannot read {}: {error}", path.display())
            }
            TopologyError::Parse { path, message } => {
                write!(f, "malformed {}: {message}", path.display())
            }
            TopologyError::NoPus { source } => write!(f, "no online CPU found in {source}"),
            TopologyError::Spec { spec, message } => {
                write!(f, "invalid topology spec {spec:?}: {message}")
            }
            TopologyError::Hwloc(m) => write!(f, "hwloc: {m}"),
            TopologyError::Restrict { cpus, message } => {
                write!(
                    f,
                    "cannot restrict the topology to CPUs \"{cpus}\": {message}"
                )
            }
        }
    }
}

impl std::error::Error for TopologyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TopologyError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// A machine's CPU topology. See the [module docs](self) for its invariants.
///
/// ```
/// use locus::Topology;
/// let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:4 smt:2").unwrap();
/// assert_eq!(t.pus().len(), 64);
/// assert_eq!(t.llcs().len(), 4);
/// assert_eq!(t.clusters().len(), 8);
/// // Every domain is a contiguous range of PUs:
/// assert_eq!(t.llcs()[1].pus, 16..32);
/// ```
#[derive(Debug, Clone)]
pub struct Topology {
    source: Source,
    pus: Vec<Pu>,
    domains: BTreeMap<Level, Vec<Domain>>,
    package_inside_numa: bool,
    l2_sets: Vec<CpuSet>,
    l3_sets: Vec<CpuSet>,
    numa_nodes: Vec<(usize, CpuSet)>,
    /// Row of each NUMA domain in `distances` (the position of its node in
    /// `numa_nodes`), so that a distance is one lookup.
    numa_rows: Vec<Option<usize>>,
    distances: Option<Vec<Vec<u32>>>,
    allowed: CpuSet,
    /// The cgroup's CPU bandwidth limit, in CPUs (see `cpu_quota`).
    cpu_quota: Option<f64>,
    seen: LevelsSeen,
    notes: Vec<String>,
}

/// The default worker count under a CPU bandwidth limit of `quota` CPUs:
/// one worker per CPU of bandwidth, rounded up (a limit of 1.5 CPUs runs
/// 2 workers, each busy three quarters of the time at most).
pub(crate) fn quota_workers(quota: f64) -> usize {
    (quota.ceil() as usize).max(1)
}

impl Topology {
    /// Where this topology came from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The online PUs in depth-first order.
    pub fn pus(&self) -> &[Pu] {
        &self.pus
    }

    /// The domains of a level (empty for [`Level::Machine`]).
    pub fn domains(&self, level: Level) -> &[Domain] {
        self.domains.get(&level).map_or(&[], |v| v.as_slice())
    }

    /// Cores (SMT sibling groups).
    pub fn cores(&self) -> &[Domain] {
        self.domains(Level::Core)
    }

    /// Clusters (a core where the machine has none).
    pub fn clusters(&self) -> &[Domain] {
        self.domains(Level::Cluster)
    }

    /// Last-level-cache domains, clipped to NUMA nodes.
    pub fn llcs(&self) -> &[Domain] {
        self.domains(Level::Llc)
    }

    /// NUMA domains (nodes with at least one online PU).
    pub fn numa_domains(&self) -> &[Domain] {
        self.domains(Level::Numa)
    }

    /// Packages.
    pub fn packages(&self) -> &[Domain] {
        self.domains(Level::Package)
    }

    /// Whether NUMA nodes enclose packages (several packages per node).
    pub fn package_inside_numa(&self) -> bool {
        self.package_inside_numa
    }

    /// Distinct L2 caches (their online CPUs), as reported.
    pub fn l2_cpusets(&self) -> &[CpuSet] {
        &self.l2_sets
    }

    /// Distinct L3 caches (their online CPUs), as reported (not clipped).
    pub fn l3_cpusets(&self) -> &[CpuSet] {
        &self.l3_sets
    }

    /// All NUMA nodes the source reported, by OS index, with their online
    /// CPUs (empty for memory-only nodes). Empty when NUMA was not seen.
    pub fn numa_nodes(&self) -> &[(usize, CpuSet)] {
        &self.numa_nodes
    }

    /// Distance between two NUMA domains (indexes into
    /// [`Topology::numa_domains`]): the firmware's figure (10 = local) when
    /// known, else 10 for the same domain and 20 for others.
    pub fn numa_distance(&self, a: usize, b: usize) -> u32 {
        let row = |i: usize| self.numa_rows.get(i).copied().flatten();
        if let (Some(m), Some(ra), Some(rb)) = (&self.distances, row(a), row(b)) {
            if let Some(d) = m.get(ra).and_then(|r| r.get(rb)) {
                return *d;
            }
        }
        if a == b { 10 } else { 20 }
    }

    /// The raw distance matrix between [`Topology::numa_nodes`], if reported.
    pub fn distance_matrix(&self) -> Option<&[Vec<u32>]> {
        self.distances.as_deref()
    }

    /// CPUs this process may use (affinity mask and cpuset cgroup).
    pub fn allowed(&self) -> &CpuSet {
        &self.allowed
    }

    /// The CPU bandwidth limit of the process's cgroup, in CPUs (cgroup v2
    /// `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, the
    /// smallest along the cgroup's path), as read from a sysfs tree;
    /// `None` when there is no limit or the source does not say. A pool
    /// built without a thread count runs one worker per CPU of bandwidth,
    /// rounded up, if that is fewer than the allowed PUs (as
    /// `std::thread::available_parallelism` counts); [`Topology::notes`]
    /// says so.
    ///
    /// ```no_run
    /// // In a container started with `--cpus=1.5` on an 8-CPU machine:
    /// let t = locus::Topology::detect();
    /// assert_eq!(t.cpu_quota(), Some(1.5));
    /// let pool = locus::ThreadPoolBuilder::new().build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 2);
    /// ```
    pub fn cpu_quota(&self) -> Option<f64> {
        self.cpu_quota
    }

    /// All online PUs.
    pub fn online(&self) -> CpuSet {
        self.pus.iter().map(|p| p.os_index).collect()
    }

    /// Which levels the source reported.
    pub fn levels_seen(&self) -> LevelsSeen {
        self.seen
    }

    /// Decisions and fallbacks taken while reading (human-readable).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Largest number of hardware threads in one core.
    pub fn smt_width(&self) -> usize {
        self.cores()
            .iter()
            .map(|c| c.cpuset.len())
            .max()
            .unwrap_or(1)
    }

    /// PUs grouped by capacity, largest capacity first: the core kinds.
    pub fn kinds(&self) -> Vec<(CpuSet, u32)> {
        let mut m: BTreeMap<u32, CpuSet> = BTreeMap::new();
        for p in &self.pus {
            m.entry(p.capacity).or_default().insert(p.os_index);
        }
        m.into_iter().rev().map(|(c, s)| (s, c)).collect()
    }

    /// The position in [`Topology::pus`] of a PU by OS index.
    pub fn pu_position(&self, os_index: usize) -> Option<usize> {
        self.pus.iter().position(|p| p.os_index == os_index)
    }
}
