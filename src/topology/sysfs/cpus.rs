//! Online PUs and the per-PU topology files: core (SMT siblings), cluster
//! and package.
//!
//! - Core: `topology/thread_siblings_list`, else `thread_siblings` (mask),
//!   else `core_cpus_list` / `core_cpus`. AMD Bulldozer modules are reported
//!   by Linux as thread siblings and stay one core here (the kernel's
//!   scheduler treats them as SMT siblings; hwloc splits them by `core_id`).
//! - Cluster: `topology/cluster_cpus_list`, else `cluster_cpus` (mask); any
//!   PU having one means the machine reports clusters.
//! - Package: `physical_package_id` when it is a number `>= 0`. When it is
//!   `-1` or missing (POWER LPARs, s390) but the kernel gives the package's
//!   CPUs (`package_cpus_list`, `core_siblings_list`, or their masks), PUs
//!   are grouped by that set, and the package is numbered by the smallest CPU
//!   in it (the kernel gives no number): hwloc groups them the same way.

use super::{CPU_DIR, SetFormat, Tree};
use crate::topology::build::PuFacts;
use crate::topology::{CpuSet, Source, TopologyError};
use std::path::PathBuf;
use std::sync::Arc;

/// More online CPUs than this, with no `cpuN` directory to confirm them,
/// is taken as a corrupt `online` file (Linux's `NR_CPUS` tops out at 8192).
const MAX_PLAUSIBLE_CPUS: usize = 1 << 16;

/// The directory of CPU `os`, relative to the root.
pub(crate) fn cpu_dir(os: usize) -> PathBuf {
    PathBuf::from(format!("{CPU_DIR}/cpu{os}"))
}

/// Whether a `cpuN` directory describes an online CPU: its `online` file
/// (`1`/`0`) when present, else whether it has a `topology/` directory.
/// `None` when neither tells.
fn dir_says_online(tree: &mut Tree<'_>, os: usize) -> Option<bool> {
    let dir = cpu_dir(os);
    if let Some(v) = tree.int(dir.join("online")) {
        return Some(v != 0);
    }
    if tree.is_dir(dir.join("topology")) {
        Some(true)
    } else {
        None
    }
}

/// The online PUs. See the [module docs](super) for the rules.
pub(crate) fn online(tree: &mut Tree<'_>, source: &Source) -> Result<CpuSet, TopologyError> {
    let dirs: CpuSet = tree.numbered_entries(CPU_DIR, "cpu").into_iter().collect();
    let online_rel = PathBuf::from(CPU_DIR).join("online");
    let mut garbage: Option<String> = None;
    if let Some(text) = tree.read(&online_rel) {
        match CpuSet::from_cpulist(&text) {
            Ok(s) if !s.is_empty() => {
                if dirs.is_empty() {
                    if s.len() > MAX_PLAUSIBLE_CPUS {
                        return Err(TopologyError::Parse {
                            path: tree.path(&online_rel),
                            message: format!(
                                "{} CPUs, more than any Linux kernel supports, and no cpuN directory",
                                s.len()
                            ),
                        });
                    }
                    return Ok(s);
                }
                let kept = s.intersection(&dirs);
                if kept != s {
                    tree.note(format!(
                        "{} lists CPUs {} that have no cpuN directory: dropped",
                        tree.path(&online_rel).display(),
                        s.difference(&dirs)
                    ));
                }
                if !kept.is_empty() {
                    return Ok(kept);
                }
            }
            Ok(_) => tree.note(format!(
                "{} is empty: using the cpuN directories",
                tree.path(&online_rel).display()
            )),
            Err(e) => {
                tree.note(format!(
                    "malformed {}: {e}; using the cpuN directories",
                    tree.path(&online_rel).display()
                ));
                garbage = Some(e.to_string());
            }
        }
    }
    // From the cpuN directories.
    let verdicts: Vec<(usize, Option<bool>)> = dirs
        .iter()
        .map(|os| (os, dir_says_online(tree, os)))
        .collect();
    let mut set: CpuSet = verdicts
        .iter()
        .filter(|(_, v)| *v == Some(true))
        .map(|(os, _)| *os)
        .collect();
    if set.is_empty() && !dirs.is_empty() && verdicts.iter().all(|(_, v)| v.is_none()) {
        // No online file and no topology directory anywhere: a tree with
        // only cpuN directories. Take them all.
        tree.note("no cpuN directory says whether it is online: all are taken as online".into());
        set = dirs;
    }
    if !set.is_empty() {
        return Ok(set);
    }
    match garbage {
        Some(message) => Err(TopologyError::Parse {
            path: tree.path(&online_rel),
            message,
        }),
        None => Err(TopologyError::NoPus {
            source: source.to_string(),
        }),
    }
}

/// Fills `core`, `cluster` and `package` of every PU. Returns whether any PU
/// reported a cluster.
pub(crate) fn read_topology(tree: &mut Tree<'_>, pus: &mut [PuFacts]) -> bool {
    use SetFormat::{List, Mask};
    let mut saw_cluster = false;
    let mut grouped_packages = false;
    for p in pus.iter_mut() {
        let topo = cpu_dir(p.os).join("topology");
        p.core = tree
            .first_set(
                &topo,
                &[
                    ("thread_siblings_list", List),
                    ("thread_siblings", Mask),
                    ("core_cpus_list", List),
                    ("core_cpus", Mask),
                ],
            )
            .map(Arc::new);
        p.cluster = tree
            .first_set(
                &topo,
                &[("cluster_cpus_list", List), ("cluster_cpus", Mask)],
            )
            .map(Arc::new);
        saw_cluster |= p.cluster.is_some();
        match tree.int(topo.join("physical_package_id")) {
            Some(id) if id >= 0 => p.package = usize::try_from(id).ok(),
            _ => {
                let set = tree.first_set(
                    &topo,
                    &[
                        ("package_cpus_list", List),
                        ("core_siblings_list", List),
                        ("package_cpus", Mask),
                        ("core_siblings", Mask),
                    ],
                );
                // Numbered by the smallest CPU of the set, the PU itself
                // included (a PU belongs to its own package).
                if let Some(s) = set {
                    p.package = Some(s.min().map_or(p.os, |m| m.min(p.os)));
                    grouped_packages = true;
                }
            }
        }
    }
    if grouped_packages {
        tree.note(
            "physical_package_id is -1 or missing: packages grouped by the kernel's package CPU sets, numbered by their first CPU"
                .into(),
        );
    }
    saw_cluster
}
