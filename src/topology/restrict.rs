//! Part of a machine: [`Topology::restrict`], and the CPU sets to pass it
//! or [`crate::ThreadPoolBuilder::cpus`] ([`Topology::numa_cpus`],
//! [`Topology::llc_cpus`], [`Topology::kind_cpus`],
//! [`Topology::one_per_core`]).
//!
//! # Invariants of a restricted topology
//! Those of every [`Topology`] (see the module docs of `topology`), since
//! the PUs kept stay in depth-first order: a domain's kept PUs are a
//! sub-run of its run, so it stays contiguous. Domains left without a PU
//! are dropped and the rest renumbered densely in order, with their
//! parents renumbered the same way. Capacities are rescaled so that the
//! biggest kept PU has 1024 (the convention of [`super::Pu::capacity`]).
//! The source stays the original one: a restricted view of the running
//! machine still pins its workers.

use std::collections::BTreeMap;

use super::{CpuSet, Domain, Level, Pu, Topology, TopologyError, level_order};

impl Topology {
    /// This topology limited to the PUs of `cpus`: PUs outside it, and
    /// domains left without any PU, disappear; the domains kept are
    /// numbered densely in the same order; [`Topology::notes`] says what
    /// was dropped. The allowed set becomes its intersection with `cpus`.
    /// NUMA distances, the reported L2/L3 sets (clipped to `cpus`) and the
    /// CPU quota are kept.
    ///
    /// Fails with [`TopologyError::Restrict`] if `cpus` is empty, holds no
    /// online PU of the topology, or none that the process is allowed to
    /// use. CPUs of `cpus` that are not PUs of the topology are ignored
    /// (and noted).
    ///
    /// ```
    /// use locus::{CpuSet, Topology};
    /// let t = Topology::synthetic("numa:2 llc:2 core:4").unwrap();
    /// // The second NUMA node: CPUs 8-15.
    /// let r = t.restrict(&"8-15".parse::<CpuSet>().unwrap()).unwrap();
    /// assert_eq!((r.pus().len(), r.numa_domains().len(), r.llcs().len()), (8, 1, 2));
    /// assert_eq!(r.llcs()[1].pus, 4..8);
    /// assert!(t.restrict(&CpuSet::new()).is_err());
    /// ```
    pub fn restrict(&self, cpus: &CpuSet) -> Result<Topology, TopologyError> {
        let (kept_set, allowed) = self.kept_and_allowed(cpus)?;
        let order = level_order(self.package_inside_numa);
        let Renumbered {
            mut pus,
            domains,
            new_idx,
        } = self.renumber(&kept_set, &order);
        rescale_capacities(&mut pus);
        let clip = |sets: &[CpuSet]| -> Vec<CpuSet> {
            sets.iter()
                .map(|s| s.intersection(&kept_set))
                .filter(|s| !s.is_empty())
                .collect()
        };
        let numa_rows = new_idx[&Level::Numa]
            .iter()
            .zip(&self.numa_rows)
            .filter(|(n, _)| n.is_some())
            .map(|(_, r)| *r)
            .collect();
        let mut seen = self.seen;
        let cores = &domains[&Level::Core];
        seen.smt = cores.iter().any(|c| c.cpuset.len() > 1);
        seen.capacity = pus.iter().any(|p| p.capacity != pus[0].capacity);
        let notes = self.restrict_notes(cpus, &kept_set, &order, &domains);
        Ok(Topology {
            source: self.source.clone(),
            pus,
            domains,
            package_inside_numa: self.package_inside_numa,
            l2_sets: clip(&self.l2_sets),
            l3_sets: clip(&self.l3_sets),
            numa_nodes: self
                .numa_nodes
                .iter()
                .map(|(id, s)| (*id, s.intersection(&kept_set)))
                .collect(),
            numa_rows,
            distances: self.distances.clone(),
            allowed,
            cpu_quota: self.cpu_quota,
            seen,
            notes,
        })
    }

    /// The online PUs of `cpus` and the allowed ones among them, or why
    /// `cpus` cannot restrict this topology.
    fn kept_and_allowed(&self, cpus: &CpuSet) -> Result<(CpuSet, CpuSet), TopologyError> {
        let err = |message: String| TopologyError::Restrict {
            cpus: cpus.clone(),
            message,
        };
        if cpus.is_empty() {
            return Err(err("the CPU set is empty; give at least one CPU".into()));
        }
        let online = self.online();
        let kept_set = online.intersection(cpus);
        if kept_set.is_empty() {
            return Err(err(format!(
                "no CPU of it is an online PU of this topology (online: {online})"
            )));
        }
        let allowed = self.allowed.intersection(&kept_set);
        if allowed.is_empty() {
            return Err(err(format!(
                "none of its online CPUs is allowed to this process (allowed: {})",
                self.allowed
            )));
        }
        Ok((kept_set, allowed))
    }

    /// The PUs of `kept_set` in depth-first order with their domains
    /// renumbered densely, level by level in `order` (outermost first, so a
    /// domain's parent is numbered before it).
    fn renumber(&self, kept_set: &CpuSet, order: &[Level]) -> Renumbered {
        let mut new_idx: BTreeMap<Level, Vec<Option<usize>>> = BTreeMap::new();
        let mut domains: BTreeMap<Level, Vec<Domain>> = BTreeMap::new();
        for &l in order {
            new_idx.insert(l, vec![None; self.domains(l).len()]);
            domains.insert(l, Vec::new());
        }
        let mut pus = Vec::with_capacity(kept_set.len());
        for p in self.pus.iter().filter(|p| kept_set.contains(p.os_index)) {
            let pos = pus.len();
            let mut q = p.clone();
            for (k, &l) in order.iter().enumerate() {
                let old = domain_of(p, l);
                let d = match new_idx[&l][old] {
                    Some(d) => d,
                    None => {
                        let parent = if k == 0 {
                            0
                        } else {
                            let pl = order[k - 1];
                            let old_parent = self.domains(l)[old].parent;
                            new_idx[&pl][old_parent].expect("the parent holds this PU too")
                        };
                        let src = &self.domains(l)[old];
                        let list = domains.get_mut(&l).expect("every level");
                        list.push(Domain {
                            cpuset: src.cpuset.intersection(kept_set),
                            pus: pos..pos,
                            parent,
                            os_index: src.os_index,
                        });
                        new_idx.get_mut(&l).expect("every level")[old] = Some(list.len() - 1);
                        list.len() - 1
                    }
                };
                domains.get_mut(&l).expect("every level")[d].pus.end = pos + 1;
                set_domain(&mut q, l, d);
            }
            pus.push(q);
        }
        Renumbered {
            pus,
            domains,
            new_idx,
        }
    }

    /// This topology's notes, then what restricting it to `cpus` kept,
    /// ignored and dropped.
    fn restrict_notes(
        &self,
        cpus: &CpuSet,
        kept_set: &CpuSet,
        order: &[Level],
        domains: &BTreeMap<Level, Vec<Domain>>,
    ) -> Vec<String> {
        let mut notes = self.notes.clone();
        notes.push(format!("restricted to CPUs {kept_set}"));
        let ignored = cpus.difference(&self.online());
        if !ignored.is_empty() {
            notes.push(format!(
                "CPUs {ignored} asked for are not online PUs of the topology: ignored"
            ));
        }
        for &l in order.iter().rev() {
            let dropped = self.domains(l).len() - domains[&l].len();
            if dropped > 0 {
                notes.push(format!(
                    "restriction left {dropped} {} domain(s) without CPUs: dropped",
                    l.name()
                ));
            }
        }
        notes
    }

    /// The allowed CPUs of NUMA domain `node` (an index into
    /// [`Topology::numa_domains`]), `None` if there is no such domain. A
    /// set to pass [`crate::ThreadPoolBuilder::cpus`] to run a pool on one
    /// node.
    ///
    /// ```
    /// let t = locus::Topology::synthetic("numa:2 core:4 smt:2").unwrap();
    /// assert_eq!(t.numa_cpus(1).unwrap().to_string(), "8-15");
    /// assert!(t.numa_cpus(2).is_none());
    /// ```
    pub fn numa_cpus(&self, node: usize) -> Option<CpuSet> {
        self.domain_cpus(Level::Numa, node)
    }

    /// The allowed CPUs of LLC domain `llc` (an index into
    /// [`Topology::llcs`]), `None` if there is no such domain.
    ///
    /// ```
    /// let t = locus::Topology::synthetic("llc:4 core:2").unwrap();
    /// assert_eq!(t.llc_cpus(3).unwrap().to_string(), "6-7");
    /// assert!(t.llc_cpus(4).is_none());
    /// ```
    pub fn llc_cpus(&self, llc: usize) -> Option<CpuSet> {
        self.domain_cpus(Level::Llc, llc)
    }

    /// The allowed CPUs of core kind `kind`, an index into
    /// [`Topology::kinds`]: `0` is the biggest cores (the P-cores of a
    /// hybrid Intel part, the big cores of a big.LITTLE one), `1` the next
    /// kind. `None` if the machine has no such kind (a machine whose PUs
    /// all have the same capacity has only kind 0).
    ///
    /// ```
    /// // 2 clusters of 4 cores, the first 2 of each big.
    /// let t = locus::Topology::synthetic("cluster:2 core:4 big:2").unwrap();
    /// assert_eq!(t.kind_cpus(0).unwrap().to_string(), "0-1,4-5");
    /// assert_eq!(t.kind_cpus(1).unwrap().to_string(), "2-3,6-7");
    /// assert!(t.kind_cpus(2).is_none());
    /// ```
    pub fn kind_cpus(&self, kind: usize) -> Option<CpuSet> {
        let (set, _) = self.kinds().into_iter().nth(kind)?;
        Some(set.intersection(&self.allowed))
    }

    /// One allowed PU per core (the first allowed one in
    /// [`Topology::pus`] order): the SMT siblings left out, for one worker
    /// per physical core.
    ///
    /// ```
    /// let t = locus::Topology::synthetic("core:4 smt:2").unwrap();
    /// assert_eq!(t.one_per_core().to_string(), "0,2,4,6");
    /// ```
    pub fn one_per_core(&self) -> CpuSet {
        self.cores()
            .iter()
            .filter_map(|c| {
                self.pus[c.pus.clone()]
                    .iter()
                    .map(|p| p.os_index)
                    .find(|&os| self.allowed.contains(os))
            })
            .collect()
    }

    /// The allowed CPUs of domain `i` of level `l`.
    fn domain_cpus(&self, l: Level, i: usize) -> Option<CpuSet> {
        Some(self.domains(l).get(i)?.cpuset.intersection(&self.allowed))
    }

    /// Confines the allowed set to `cpus` (a non-empty subset of it, as
    /// the builder checked), with a note.
    pub(crate) fn confine(&mut self, cpus: CpuSet, why: &str) {
        debug_assert!(!cpus.is_empty() && cpus.is_subset(&self.allowed));
        self.notes
            .push(format!("{why}: workers confined to CPUs {cpus}"));
        self.allowed = cpus;
    }
}

/// The kept PUs of a restriction, their domains per level and, per level,
/// the new index of each old domain (`None`: dropped).
struct Renumbered {
    pus: Vec<Pu>,
    domains: BTreeMap<Level, Vec<Domain>>,
    new_idx: BTreeMap<Level, Vec<Option<usize>>>,
}

/// The index of `p`'s domain at level `l`.
fn domain_of(p: &Pu, l: Level) -> usize {
    match l {
        Level::Core => p.core,
        Level::Cluster => p.cluster,
        Level::Llc => p.llc,
        Level::Numa => p.numa,
        Level::Package => p.package,
        Level::Machine => 0,
    }
}

/// Sets the index of `p`'s domain at level `l` to `d`.
fn set_domain(p: &mut Pu, l: Level, d: usize) {
    match l {
        Level::Core => p.core = d,
        Level::Cluster => p.cluster = d,
        Level::Llc => p.llc = d,
        Level::Numa => p.numa = d,
        Level::Package => p.package = d,
        Level::Machine => {}
    }
}

/// Rescales capacities so that the biggest kept PU has 1024.
fn rescale_capacities(pus: &mut [Pu]) {
    let max_cap = pus.iter().map(|p| p.capacity).max().unwrap_or(1024).max(1);
    for p in pus {
        p.capacity = ((p.capacity as u64 * 1024) / max_cap as u64) as u32;
    }
}
