//! Synthetic topologies from a spec such as `"numa:2 llc:2 cluster:2 core:4 smt:2"`.
//!
//! Grammar: space-separated `level:count` items; levels are optional but must
//! come in the order `package numa llc cluster core smt` (outermost first);
//! each count is per enclosing level and at least 1. `big:N` (N ≤ cores per
//! cluster) makes the first N cores of each cluster big (capacity 1024) and
//! the rest little (512), like a DynamiQ cluster; it may stand anywhere.
//! The total is limited to 65536 PUs, and NUMA nodes (`package` times
//! `numa`, when `numa` is given) to 1024, Linux's limit (`MAX_NUMNODES`):
//! the distance matrix has a row and a column per node. Counts multiply,
//! so OS indexes are assigned depth-first: the PUs of the first core are
//! 0..smt, and so on.
//!
//! Every PU of a domain shares one set (`Arc`), so a spec of N PUs costs
//! memory linear in N.

use super::build::{Facts, PuFacts};
use super::{CpuSet, Source, Topology, TopologyError};
use std::sync::Arc;

impl Topology {
    /// A synthetic topology from a spec: space-separated `level:count`, levels
    /// optional but in this order, outermost first: `package`, `numa`, `llc`,
    /// `cluster`, `core`, `smt`. Counts are per enclosing level; `core` is the
    /// number of cores per cluster (or per LLC without `cluster`). An optional
    /// `big:N` (N cores of each cluster are big: capacity 1024, the rest 512)
    /// may follow.
    ///
    /// ```
    /// let t = locus::Topology::synthetic("llc:2 core:4").unwrap();
    /// assert_eq!((t.pus().len(), t.llcs().len()), (8, 2));
    /// assert!(locus::Topology::synthetic("core:0").is_err());
    /// ```
    pub fn synthetic(spec: &str) -> Result<Topology, TopologyError> {
        parse(spec)
    }
}

const LEVELS: [&str; 6] = ["package", "numa", "llc", "cluster", "core", "smt"];
const MAX_PUS: usize = 1 << 16;
/// Linux's largest `MAX_NUMNODES` (`CONFIG_NODES_SHIFT` = 10).
const MAX_NODES: usize = 1 << 10;

pub(super) fn parse(spec: &str) -> Result<Topology, TopologyError> {
    let shape = Shape::read(spec)?;
    let facts = Facts {
        pus: shape.pus(),
        nodes: shape.nodes(),
        distances: shape.distances(),
        allowed: None,
        saw_cluster: shape.given[3],
        notes: Vec::new(),
    };
    super::build::build(facts, Source::Synthetic(spec.to_string()))
}

/// A spec read and checked: the count of each level of [`LEVELS`] per
/// enclosing level (1 where not given), which were given, and `big`.
struct Shape {
    counts: [usize; 6],
    given: [bool; 6],
    big: Option<usize>,
    /// The number of PUs, the product of the counts.
    total: usize,
}

impl Shape {
    /// Reads `spec`, or says what is wrong with it.
    fn read(spec: &str) -> Result<Shape, TopologyError> {
        let err = |message: String| TopologyError::Spec {
            spec: spec.to_string(),
            message,
        };
        let mut counts = [1usize; 6];
        let mut given = [false; 6];
        let mut last = None;
        let mut big: Option<usize> = None;
        for item in spec.split_whitespace() {
            let (name, count) = item
                .split_once(':')
                .ok_or_else(|| err(format!("{item:?} is not of the form level:count")))?;
            let n: usize = count
                .parse()
                .map_err(|_| err(format!("{count:?} in {item:?} is not a number")))?;
            if name == "big" {
                big = Some(n);
                continue;
            }
            let k = LEVELS.iter().position(|l| *l == name).ok_or_else(|| {
                err(format!(
                    "unknown level {name:?}; accepted: {} and big",
                    LEVELS.join(", ")
                ))
            })?;
            if n == 0 {
                return Err(err(format!("{item:?}: a count must be at least 1")));
            }
            if given[k] || last.is_some_and(|l| l > k) {
                return Err(err(format!(
                    "{name:?} is repeated or out of order; order is {}",
                    LEVELS.join(" ")
                )));
            }
            given[k] = true;
            last = Some(k);
            counts[k] = n;
        }
        if !given.iter().any(|g| *g) {
            return Err(err(
                "empty spec; example: \"numa:2 llc:2 cluster:2 core:4 smt:2\"".into(),
            ));
        }
        let total = counts
            .iter()
            .try_fold(1usize, |a, &c| a.checked_mul(c))
            .filter(|&t| t <= MAX_PUS);
        let total = total.ok_or_else(|| err(format!("more than {MAX_PUS} PUs")))?;
        let [packages, numa, _, _, core, _] = counts;
        if given[1] && packages * numa > MAX_NODES {
            return Err(err(format!(
                "{} NUMA nodes; at most {MAX_NODES} (Linux's limit) are accepted",
                packages * numa
            )));
        }
        if let Some(b) = big {
            if b > core {
                return Err(err(format!("big:{b} exceeds the {core} cores per cluster")));
            }
        }
        Ok(Shape {
            counts,
            given,
            big,
            total,
        })
    }

    /// PUs per core, cluster, LLC, NUMA node and package.
    fn per(&self) -> [usize; 5] {
        let [_, numa, llc, cluster, core, smt] = self.counts;
        let per_core = smt;
        let per_cluster = core * per_core;
        let per_llc = cluster * per_cluster;
        let per_node = llc * per_llc;
        [per_core, per_cluster, per_llc, per_node, numa * per_node]
    }

    /// The PUs, numbered depth-first.
    fn pus(&self) -> Vec<PuFacts> {
        let [per_core, per_cluster, per_llc, per_node, per_package] = self.per();
        // One shared set per domain of each level, by domain index.
        let shared = |per: usize| -> Vec<Arc<CpuSet>> {
            (0..self.total / per)
                .map(|d| Arc::new(range(d * per, per)))
                .collect()
        };
        let (cores, clusters, llcs) = (shared(per_core), shared(per_cluster), shared(per_llc));
        let mut pus = Vec::with_capacity(self.total);
        for os in 0..self.total {
            let core_index_in_cluster = (os % per_cluster) / per_core;
            pus.push(PuFacts {
                os,
                core: Some(cores[os / per_core].clone()),
                cluster: self.given[3].then(|| clusters[os / per_cluster].clone()),
                l2: None,
                l3: Some(llcs[os / per_llc].clone()),
                node: Some(os / per_node),
                package: Some(os / per_package),
                capacity: self
                    .big
                    .map(|b| if core_index_in_cluster < b { 1024 } else { 512 }),
            });
        }
        pus
    }

    /// The NUMA nodes with their CPUs, only when the spec names NUMA nodes.
    fn nodes(&self) -> Vec<(usize, CpuSet)> {
        if !self.given[1] {
            return Vec::new();
        }
        let [packages, numa, ..] = self.counts;
        let per_node = self.per()[3];
        (0..packages * numa)
            .map(|n| (n, range(n * per_node, per_node)))
            .collect()
    }

    /// The NUMA distances, only when the spec names NUMA nodes (the matrix
    /// is quadratic in nodes, so not built for specs without them): 10
    /// local, 20 within a package, 30 across packages.
    fn distances(&self) -> Option<Vec<Vec<u32>>> {
        if !self.given[1] {
            return None;
        }
        let [packages, numa, ..] = self.counts;
        let nodes_total = packages * numa;
        let row = |a: usize| {
            (0..nodes_total)
                .map(|b| {
                    if a == b {
                        10
                    } else if a / numa == b / numa {
                        20
                    } else {
                        30
                    }
                })
                .collect()
        };
        Some((0..nodes_total).map(row).collect())
    }
}

/// The CPUs `start..start + len`.
fn range(start: usize, len: usize) -> CpuSet {
    let mut s = CpuSet::new();
    s.insert_range(start, start + len);
    s
}

#[cfg(test)]
mod tests {
    use super::super::{Level, Topology};

    #[test]
    fn full_spec() {
        let t = Topology::synthetic("package:2 numa:2 llc:2 cluster:2 core:4 smt:2").unwrap();
        assert_eq!(t.pus().len(), 128);
        assert_eq!(t.packages().len(), 2);
        assert_eq!(t.numa_domains().len(), 4);
        assert_eq!(t.llcs().len(), 8);
        assert_eq!(t.clusters().len(), 16);
        assert_eq!(t.cores().len(), 64);
        assert_eq!(t.smt_width(), 2);
        assert_eq!(t.numa_distance(0, 1), 20);
        assert_eq!(t.numa_distance(0, 2), 30);
        for l in [
            Level::Core,
            Level::Cluster,
            Level::Llc,
            Level::Numa,
            Level::Package,
        ] {
            for d in t.domains(l) {
                let ids: Vec<usize> = d.pus.clone().map(|i| t.pus()[i].os_index).collect();
                assert_eq!(ids, d.cpuset.iter().collect::<Vec<_>>());
            }
        }
        assert!(t.levels_seen().cluster && t.levels_seen().numa && t.levels_seen().smt);
    }

    #[test]
    fn missing_levels_collapse() {
        let t = Topology::synthetic("core:4").unwrap();
        assert_eq!(
            t.clusters().len(),
            4,
            "no cluster level: a cluster is a core"
        );
        assert_eq!(t.llcs().len(), 1);
        assert_eq!(t.numa_domains().len(), 1);
        assert!(!t.levels_seen().numa && !t.levels_seen().cluster);
    }

    #[test]
    fn big_little() {
        let t = Topology::synthetic("cluster:2 core:4 big:1").unwrap();
        let caps: Vec<u32> = t.pus().iter().map(|p| p.capacity).collect();
        assert_eq!(caps, [1024, 512, 512, 512, 1024, 512, 512, 512]);
        assert_eq!(t.kinds().len(), 2);
        assert!(t.levels_seen().capacity);
    }

    #[test]
    fn bad_specs() {
        for s in [
            "",
            "core",
            "core:x",
            "core:0",
            "foo:2",
            "core:2 llc:2",
            "llc:2 llc:2",
            "core:2 big:3",
            "numa:1000 core:1000",
            "package:2 numa:513",
        ] {
            let e = Topology::synthetic(s).unwrap_err().to_string();
            assert!(e.contains("invalid topology spec"), "{s}: {e}");
        }
    }
}
