//! Text form of a [`Layout`]: a header, a table of workers (one row per
//! worker, or per cluster from [`COMPACT_FROM`] workers on), and the steal
//! tiers of worker 0; a [`Tier`]'s text.

use super::Layout;
use super::place::{Tier, TierKind, WorkerPlace};
use crate::topology::CpuSet;
use std::fmt;
use std::ops::Range;

/// From this many workers on, the table has one row per cluster.
pub(crate) const COMPACT_FROM: usize = 128;

/// Worker ranges as a cpulist-like text: `0-3,8`; `-` when empty.
pub(super) fn ranges_text(ranges: &[Range<usize>]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            if r.len() == 1 {
                r.start.to_string()
            } else {
                format!("{}-{}", r.start, r.end - 1)
            }
        })
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(",")
    }
}

/// `a` or `a-b` for the ids of a group of workers.
fn span(ids: impl Iterator<Item = usize>) -> String {
    let v: Vec<usize> = ids.collect();
    let (lo, hi) = (
        v.iter().min().copied().unwrap_or(0),
        v.iter().max().copied().unwrap_or(0),
    );
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    }
}

fn row(ws: &[WorkerPlace]) -> [String; 8] {
    let pus: CpuSet = ws.iter().map(|w| w.pu).collect();
    let cpus = ws.iter().fold(CpuSet::default(), |a, w| a.union(&w.cpus));
    let cpus = if cpus.is_empty() {
        "-".to_string()
    } else {
        cpus.to_string()
    };
    [
        span(ws.iter().map(|w| w.index)),
        pus.to_string(),
        cpus,
        span(ws.iter().map(|w| w.core)),
        span(ws.iter().map(|w| w.cluster)),
        span(ws.iter().map(|w| w.llc)),
        span(ws.iter().map(|w| w.numa)),
        span(ws.iter().map(|w| w.capacity as usize)),
    ]
}

impl fmt::Display for Layout {
    /// A header, then a table with columns worker, PU, CPUs (pin set; `-`
    /// when not pinned), core, cluster, LLC, node, capacity (dense layout
    /// ids), then the steal tiers of worker 0. From 128 workers on, one
    /// row per cluster with id ranges.
    ///
    /// ```
    /// use locus::{Layout, LayoutOptions, Topology};
    /// let t = Topology::synthetic("llc:2 core:2").unwrap();
    /// let text = Layout::new(&t, &LayoutOptions::default()).unwrap().to_string();
    /// assert!(text.contains("worker  PU  CPUs  core  cluster  LLC  node  capacity"));
    /// assert!(text.contains("steal order of worker 0: same-llc 1 | same-node 2-3"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.options;
        writeln!(
            f,
            "layout: {} workers on {} of {} PUs ({}); pinning {}{}, steal order {}, cluster-aware {}",
            self.workers.len(),
            self.workers.iter().map(|w| w.pu).collect::<CpuSet>().len(),
            self.topology.pus().len(),
            self.topology.source(),
            o.pinning,
            if o.virtual_topology {
                " (off: virtual topology)"
            } else {
                ""
            },
            o.steal_order,
            if o.cluster_aware { "yes" } else { "no" },
        )?;
        let header = [
            "worker", "PU", "CPUs", "core", "cluster", "LLC", "node", "capacity",
        ]
        .map(String::from);
        let mut rows = vec![header];
        if self.workers.len() >= COMPACT_FROM {
            for r in &self.cluster_ranges {
                rows.push(row(&self.workers[r.clone()]));
            }
        } else {
            for w in &self.workers {
                rows.push(row(std::slice::from_ref(w)));
            }
        }
        let mut width = [0usize; 8];
        for r in &rows {
            for (k, c) in r.iter().enumerate() {
                width[k] = width[k].max(c.len());
            }
        }
        for r in &rows {
            let cells: Vec<String> = r
                .iter()
                .zip(width)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            writeln!(f, "{}", cells.join("  ").trim_end())?;
        }
        let tiers: Vec<String> = self.workers[0]
            .tiers
            .iter()
            .map(|t| t.to_string())
            .collect();
        let tiers = if tiers.is_empty() {
            "none (single worker)".to_string()
        } else {
            tiers.join(" | ")
        };
        write!(f, "steal order of worker 0: {tiers}")
    }
}

impl fmt::Display for Tier {
    /// `same-cluster 1-3`, `same-llc 0,4-15`, `other-node(20) 32-63`, and
    /// `all-others 1-63` for the one tier of [`StealOrder::Flat`](super::StealOrder::Flat).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind == TierKind::Remote && self.distance > 0 {
            write!(f, "{}({}) ", self.kind, self.distance)?;
        } else if self.kind == TierKind::Remote {
            f.write_str("all-others ")?;
        } else {
            write!(f, "{} ", self.kind)?;
        }
        write!(f, "{}", ranges_text(&self.ranges))
    }
}
