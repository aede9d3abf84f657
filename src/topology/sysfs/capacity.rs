//! Relative PU capacity (big and little cores).
//!
//! Sources, first one present for every online PU wins:
//! 1. `cpuN/cpu_capacity` (arm64; 1024 = biggest core);
//! 2. Intel hybrid PMU devices `sys/devices/cpu_core/cpus` and
//!    `sys/devices/cpu_atom/cpus`: P-cores get 1024 and E-cores
//!    [`ATOM_CAPACITY`];
//! 3. `cpuN/cpufreq/base_frequency` (Intel: 1.9 GHz P vs 1.4 GHz E on the
//!    Raptor Lake snapshot);
//! 4. `cpuN/acpi_cppc/highest_perf`;
//! 5. `cpuN/cpufreq/cpuinfo_max_freq`.
//!
//! The winning source decides alone: if its values are all within
//! [`UNIFORM_SPREAD_PERCENT`] of each other the machine is uniform and no
//! capacity is set (Kunpeng's `cpu_capacity` is 1024 everywhere; Intel
//! Turbo Boost Max 3.0 makes `highest_perf` 64 vs 67 on equal P-cores, which
//! is not a different kind of core). Otherwise every PU gets the raw figure,
//! which the builder scales to 1024 = the largest. Raw figures are kept
//! (GB10 has 718/731 and 997/1017/1024, not just two kinds).

use super::cpus::cpu_dir;
use super::{SetFormat, Tree};
use crate::topology::build::PuFacts;

/// Capacity given to Intel E-cores (`cpu_atom`) when only the hybrid PMU
/// devices tell the kinds apart: 640/1024 = 62.5%, the middle of the
/// 50-70% range of single-thread performance of Gracemont/Crestmont E-cores
/// relative to Golden Cove/Redwood Cove P-cores in Intel's and reviewers'
/// figures. Only the order (P above E) matters to the scheduler.
pub(crate) const ATOM_CAPACITY: u32 = 640;

/// Figures whose largest is less than this many percent above the smallest
/// are taken as uniform.
pub(crate) const UNIFORM_SPREAD_PERCENT: u64 = 15;

/// Whether figures differ enough to tell kinds of cores apart.
pub(crate) fn differentiates(values: &[u32]) -> bool {
    let (Some(&lo), Some(&hi)) = (values.iter().min(), values.iter().max()) else {
        return false;
    };
    (hi as u64) * 100 >= (lo as u64) * (100 + UNIFORM_SPREAD_PERCENT)
}

/// A per-PU figure from a file under each `cpuN`, if every PU has a positive one.
fn per_pu(tree: &mut Tree<'_>, pus: &[PuFacts], file: &str) -> Option<Vec<u32>> {
    pus.iter()
        .map(|p| {
            tree.int(cpu_dir(p.os).join(file))
                .and_then(|v| u32::try_from(v).ok())
                .filter(|&v| v > 0)
        })
        .collect()
}

/// Intel hybrid kinds from the PMU devices, if they cover every PU.
fn hybrid(tree: &mut Tree<'_>, pus: &[PuFacts]) -> Option<Vec<u32>> {
    let core = tree.set("sys/devices/cpu_core/cpus", SetFormat::List);
    let atom = tree.set("sys/devices/cpu_atom/cpus", SetFormat::List);
    if core.is_none() && atom.is_none() {
        return None;
    }
    let (core, atom) = (core.unwrap_or_default(), atom.unwrap_or_default());
    pus.iter()
        .map(|p| {
            if core.contains(p.os) {
                Some(1024)
            } else if atom.contains(p.os) {
                Some(ATOM_CAPACITY)
            } else {
                None
            }
        })
        .collect()
}

/// Reads one capacity source: a figure per PU, or `None`.
type Reader = fn(&mut Tree<'_>, &[PuFacts]) -> Option<Vec<u32>>;

/// Sets `capacity` of every PU when the machine differentiates.
pub(crate) fn read(tree: &mut Tree<'_>, pus: &mut [PuFacts]) {
    if pus.is_empty() {
        return;
    }
    let sources: [(&str, Reader); 5] = [
        ("cpu_capacity", |t, p| per_pu(t, p, "cpu_capacity")),
        ("cpu_core/cpu_atom", hybrid),
        ("cpufreq/base_frequency", |t, p| {
            per_pu(t, p, "cpufreq/base_frequency")
        }),
        ("acpi_cppc/highest_perf", |t, p| {
            per_pu(t, p, "acpi_cppc/highest_perf")
        }),
        ("cpufreq/cpuinfo_max_freq", |t, p| {
            per_pu(t, p, "cpufreq/cpuinfo_max_freq")
        }),
    ];
    for (name, f) in sources {
        let Some(values) = f(tree, pus) else { continue };
        if differentiates(&values) {
            for (p, v) in pus.iter_mut().zip(values) {
                p.capacity = Some(v);
            }
            tree.note(format!("PU capacities from {name}"));
        } else if values.iter().any(|&v| v != values[0]) {
            tree.note(format!(
                "{name} differs by less than {UNIFORM_SPREAD_PERCENT}% between PUs: taken as uniform"
            ));
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread() {
        assert!(!differentiates(&[]));
        assert!(!differentiates(&[1024, 1024]));
        assert!(!differentiates(&[64, 67]));
        assert!(differentiates(&[1_900_000, 1_400_000]));
        assert!(differentiates(&[718, 1024]));
        assert!(differentiates(&[ATOM_CAPACITY, 1024]));
    }
}
