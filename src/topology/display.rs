//! Text forms of a [`Topology`]: an indented tree (`Display`, compact like
//! `lstopo`: one line per domain down to clusters, cores summarized) and a
//! JSON object ([`Topology::to_json`]).

use super::{CpuSet, Domain, Level, Topology};
use std::fmt::{self, Write as _};

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Topology {
    /// Capacity summary of a domain: `""` when uniform, else ` [capacity 512]`
    /// or ` [capacity 512-1024]`.
    fn capacity_note(&self, d: &Domain) -> String {
        if !self.levels_seen().capacity {
            return String::new();
        }
        let caps = d.pus.clone().map(|i| self.pus()[i].capacity);
        let (lo, hi) = caps.fold((u32::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)));
        if lo == hi {
            format!(" [capacity {lo}]")
        } else {
            format!(" [capacity {lo}-{hi}]")
        }
    }

    fn cores_summary(&self, d: &Domain) -> String {
        // Cores nest in every domain: those inside `d` are its cores.
        let cores: Vec<&Domain> = self.children(d, Level::Core).map(|(_, c)| c).collect();
        let widths: Vec<usize> = cores.iter().map(|c| c.cpuset.len()).collect();
        let (lo, hi) = (
            widths.iter().min().copied().unwrap_or(1),
            widths.iter().max().copied().unwrap_or(1),
        );
        let smt = if hi == 1 {
            String::new()
        } else if lo == hi {
            format!(" x {hi} PUs")
        } else {
            format!(" x {lo}-{hi} PUs")
        };
        format!(
            "{} core{}{smt}",
            cores.len(),
            if cores.len() == 1 { "" } else { "s" }
        )
    }

    /// The domains of `inner` level nested in `outer` domain. A level's
    /// domains are ascending, disjoint ranges of PUs, so those inside
    /// `outer` are found by binary search, not by a pass over the level
    /// (which made printing quadratic in the number of domains).
    fn children<'a>(
        &'a self,
        outer: &'a Domain,
        inner: Level,
    ) -> impl Iterator<Item = (usize, &'a Domain)> + 'a {
        let doms = self.domains(inner);
        let first = doms.partition_point(|d| d.pus.start < outer.pus.start);
        doms[first..]
            .iter()
            .enumerate()
            .map(move |(k, d)| (first + k, d))
            .take_while(move |(_, d)| d.pus.start < outer.pus.end)
            .filter(move |(_, d)| d.pus.end <= outer.pus.end)
    }

    /// One JSON object describing the topology (see the `topology` example):
    /// `source`, `pus`, `cores`, `clusters`, `l2`, `l3`, `llcs`,
    /// `numa_nodes`, `packages`, `smt_width`, `allowed`, `levels_seen`,
    /// `llc_cpusets`, `numa_cpusets`, `kinds`, `notes`.
    pub fn to_json(&self) -> String {
        let list = |sets: &mut dyn Iterator<Item = &CpuSet>| -> String {
            let v: Vec<String> = sets.map(|s| json_str(&s.to_string())).collect();
            format!("[{}]", v.join(","))
        };
        let kinds: Vec<String> = self
            .kinds()
            .iter()
            .map(|(s, c)| format!("{{\"cpus\":{},\"capacity\":{c}}}", json_str(&s.to_string())))
            .collect();
        let seen: Vec<String> = self
            .levels_seen()
            .names()
            .iter()
            .map(|n| json_str(n))
            .collect();
        let notes: Vec<String> = self.notes().iter().map(|n| json_str(n)).collect();
        let numa_count = if self.numa_nodes().is_empty() {
            self.numa_domains().len()
        } else {
            self.numa_nodes().len()
        };
        let mut o = String::from("{");
        let _ = write!(
            o,
            "\"source\":{},\"pus\":{},\"cores\":{},\"clusters\":{},\"l2\":{},\"l3\":{},\"llcs\":{},\
             \"numa_nodes\":{},\"packages\":{},\"smt_width\":{},\"allowed\":{},\"levels_seen\":[{}],\
             \"llc_cpusets\":{},\"numa_cpusets\":{},\"kinds\":[{}],\"notes\":[{}]",
            json_str(&self.source().to_string()),
            self.pus().len(),
            self.cores().len(),
            self.clusters().len(),
            self.l2_cpusets().len(),
            self.l3_cpusets().len(),
            self.llcs().len(),
            numa_count,
            self.packages().len(),
            self.smt_width(),
            json_str(&self.allowed().to_string()),
            seen.join(","),
            list(&mut self.llcs().iter().map(|d| &d.cpuset)),
            list(&mut self.numa_nodes().iter().map(|(_, s)| s)),
            kinds.join(","),
            notes.join(","),
        );
        o.push('}');
        o
    }
}

impl fmt::Display for Topology {
    /// An indented tree, e.g. for `"numa:2 llc:2 cluster:2 core:4"`:
    ///
    /// ```text
    /// Machine: 32 PUs (synthetic:numa:2 llc:2 cluster:2 core:4), allowed 0-31
    ///   Package #0: PUs 0-31
    ///     NUMA #0: PUs 0-15
    ///       LLC #0: PUs 0-7, 2 clusters
    ///         Cluster #0: PUs 0-3, 4 cores
    /// ...
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Machine: {} PUs ({}), allowed {}",
            self.pus().len(),
            self.source(),
            self.allowed()
        )?;
        let (outer, middle) = if self.package_inside_numa() {
            (Level::Numa, Level::Package)
        } else {
            (Level::Package, Level::Numa)
        };
        let label = |l: Level, d: &Domain, i: usize| -> String {
            let name = match l {
                Level::Package => "Package",
                Level::Numa => "NUMA",
                Level::Llc => "LLC",
                Level::Cluster => "Cluster",
                _ => "Core",
            };
            match d.os_index {
                Some(os) if os != i => format!("{name} #{i} (OS {os})"),
                _ => format!("{name} #{i}"),
            }
        };
        let show_clusters = self.clusters().len() != self.cores().len();
        for (pi, p) in self.domains(outer).iter().enumerate() {
            writeln!(f, "  {}: PUs {}", label(outer, p, pi), p.cpuset)?;
            for (ni, n) in self.children(p, middle) {
                writeln!(f, "    {}: PUs {}", label(middle, n, ni), n.cpuset)?;
                for (li, l) in self.children(n, Level::Llc) {
                    if show_clusters {
                        let k = self.children(l, Level::Cluster).count();
                        writeln!(
                            f,
                            "      {}: PUs {}, {k} cluster{}",
                            label(Level::Llc, l, li),
                            l.cpuset,
                            if k == 1 { "" } else { "s" }
                        )?;
                        for (ci, c) in self.children(l, Level::Cluster) {
                            writeln!(
                                f,
                                "        {}: PUs {}, {}{}",
                                label(Level::Cluster, c, ci),
                                c.cpuset,
                                self.cores_summary(c),
                                self.capacity_note(c)
                            )?;
                        }
                    } else {
                        writeln!(
                            f,
                            "      {}: PUs {}, {}{}",
                            label(Level::Llc, l, li),
                            l.cpuset,
                            self.cores_summary(l),
                            self.capacity_note(l)
                        )?;
                    }
                }
            }
        }
        if let Some(m) = self.distance_matrix() {
            if m.len() > 1 && m.len() <= 16 {
                writeln!(f, "  NUMA distances:")?;
                for row in m {
                    let r: Vec<String> = row.iter().map(|d| format!("{d:>3}")).collect();
                    writeln!(f, "    {}", r.join(" "))?;
                }
            }
        }
        for n in self.notes() {
            writeln!(f, "  note: {n}")?;
        }
        Ok(())
    }
}
