//! The CPUs each worker is pinned to: its [`Pinning`] domain, widened where
//! that domain holds more workers than allowed CPUs.
//!
//! # Rule (decision: `docs/oversubscribed-pinning.md`)
//! A worker is pinned to the smallest domain that contains its PU, is at
//! least as wide as its pinning granularity (the PU for [`Pinning::Cpu`],
//! its core for [`Pinning::Core`], its cluster for [`Pinning::Cluster`]),
//! and holds no more of the pool's workers than allowed CPUs; the domains
//! considered, inner to outer: PU, core, cluster, LLC, then NUMA node and
//! package in the topology's nesting order. If none does (the whole pool
//! has more workers than allowed CPUs, and so has every domain around the
//! worker), its pin set is every allowed CPU: the kernel places it.
//!
//! Consequences:
//! - a pool with at most one worker per allowed PU (every pool without
//!   an explicit larger count) is pinned exactly as its [`Pinning`] says:
//!   every domain holds at most as many workers as CPUs;
//! - no pin set holds more workers than CPUs, except the set of all
//!   allowed CPUs, which only a pool with more workers than allowed CPUs
//!   hands out: two workers are never confined to one CPU while the
//!   kernel could spread them (`num_threads(3)` on 2 CPUs pinned workers 0
//!   and 1 both to CPU 0 before);
//! - the workers of a domain that is not oversubscribed keep their pins
//!   when another part of the machine is: 9 workers pinned per CPU on
//!   `numa:2 core:4` put two on PU 0, which fit in no domain (its core, node
//!   0 and the machine each hold more workers than CPUs) and may run on
//!   any CPU; the seven others keep their own CPU. With cluster pinning on
//!   `llc:2 cluster:2 core:2` and 9 workers, the first cluster holds three
//!   (two on PU 0) and its LLC five, on two and four CPUs: those three
//!   may run anywhere, and the other clusters' workers keep their cluster.

use crate::topology::{CpuSet, Level, Topology};

use super::Pinning;

/// The pin set of the workers of each allowed PU, for the positions
/// `allowed` (in [`Topology::pus`]) with `mult[i]` workers on
/// `allowed[i]`; empty sets for [`Pinning::None`]. PUs without workers get
/// an empty set.
pub(super) fn pin_sets(
    topo: &Topology,
    allowed: &[usize],
    mult: &[usize],
    pinning: Pinning,
) -> Vec<CpuSet> {
    // The first domain level to try, in `levels` below (a PU with one
    // worker is tried before them for `Cpu`).
    let (own_pu, first) = match pinning {
        Pinning::None => return vec![CpuSet::default(); allowed.len()],
        Pinning::Cpu => (true, 0),
        Pinning::Core => (false, 0),
        Pinning::Cluster => (false, 1),
    };
    let allowed_set = topo.allowed();
    let outer: [Level; 2] = if topo.package_inside_numa() {
        [Level::Package, Level::Numa]
    } else {
        [Level::Numa, Level::Package]
    };
    let levels = [Level::Core, Level::Cluster, Level::Llc, outer[0], outer[1]];
    let pus = topo.pus();
    let domain_of = |pos: usize, level: Level| {
        let pu = &pus[pos];
        match level {
            Level::Core => pu.core,
            Level::Cluster => pu.cluster,
            Level::Llc => pu.llc,
            Level::Numa => pu.numa,
            _ => pu.package,
        }
    };
    // Workers and allowed CPUs of every domain of every level.
    let counts: Vec<(Vec<usize>, Vec<usize>)> = levels
        .iter()
        .map(|&level| {
            let n = topo.domains(level).len();
            let (mut workers, mut cpus) = (vec![0; n], vec![0; n]);
            for (&pos, &k) in allowed.iter().zip(mult) {
                let d = domain_of(pos, level);
                workers[d] += k;
                cpus[d] += 1;
            }
            (workers, cpus)
        })
        .collect();
    allowed
        .iter()
        .zip(mult)
        .map(|(&pos, &k)| {
            if k == 0 {
                return CpuSet::default();
            }
            if own_pu && k == 1 {
                return CpuSet::from_ids([pus[pos].os_index]);
            }
            let fits = (first..levels.len()).find(|&i| {
                let d = domain_of(pos, levels[i]);
                counts[i].0[d] <= counts[i].1[d]
            });
            match fits {
                Some(i) => {
                    let d = domain_of(pos, levels[i]);
                    topo.domains(levels[i])[d].cpuset.intersection(allowed_set)
                }
                None => allowed_set.clone(),
            }
        })
        .collect()
}
