//! The report: its JSON shape (documented in `main.rs` and `docs/benchmark-suite.md`), the
//! table on stdout and the Markdown file.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::measure::{Better, Run};

/// The whole report (the JSON document).
#[derive(Debug, Serialize)]
pub struct Report {
    /// The machine or virtual topology, from `Topology` and sysfs.
    pub machine: Value,
    /// One entry per scenario run, in the suite's order.
    pub scenarios: Vec<Scenario>,
}

/// A locus-versus-baseline comparison that is not a pool configuration
/// (the idle search of `wake`: locus's masks against a scan of all workers).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// What was compared.
    pub case: String,
    /// The unit of both numbers.
    pub unit: &'static str,
    /// locus's median.
    pub locus: f64,
    /// The baseline's median.
    pub baseline: f64,
    /// What the baseline is.
    pub baseline_name: &'static str,
    /// How much better locus is (above 1: better).
    pub ratio: f64,
}

/// One scenario's results.
#[derive(Debug, Serialize)]
pub struct Scenario {
    /// `stream`, `working-set`, `pingpong`, `partitions`, `wake`, `asym`, `forkjoin`.
    pub name: &'static str,
    /// The kernel patch result the scenario reproduces.
    pub seed: &'static str,
    /// Unit of every median.
    pub unit: &'static str,
    /// Whether higher or lower numbers are better.
    pub better: Better,
    /// One per (case, configuration).
    pub runs: Vec<Run>,
    /// Counters per locus configuration (`locus`, `locus-cluster-off`, ...).
    pub counters: serde_json::Map<String, Value>,
    /// Comparisons that are not pool configurations (may be empty).
    pub comparisons: Vec<Comparison>,
    /// What the workload is and what this machine can and cannot show.
    pub note: String,
    /// One line per counter group, each saying what it cannot show here.
    pub counter_notes: Vec<String>,
}

impl Scenario {
    /// An empty scenario report.
    pub fn new(name: &'static str, seed: &'static str, unit: &'static str, better: Better) -> Self {
        Scenario {
            name,
            seed,
            unit,
            better,
            runs: Vec::new(),
            counters: serde_json::Map::new(),
            comparisons: Vec::new(),
            note: String::new(),
            counter_notes: Vec::new(),
        }
    }

    /// Records a locus pool's counters under its configuration's name.
    pub fn counters(&mut self, config: &str, c: Value) {
        self.counters.insert(config.to_string(), c);
    }
}

/// A number with 3 significant digits, `k`/`M`/`G` above 10 000.
pub fn num(v: f64) -> String {
    let (v, suffix) = match v.abs() {
        a if a >= 1e10 => (v / 1e9, "G"),
        a if a >= 1e7 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = match v.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 2,
    };
    format!("{v:.digits$}{suffix}")
}

const HEAD: [&str; 7] = [
    "scenario", "case", "config", "median", "spread", "samples", "vs rayon",
];

fn rows(r: &Report) -> Vec<[String; 7]> {
    let mut out = Vec::new();
    for s in &r.scenarios {
        for run in &s.runs {
            out.push([
                s.name.to_string(),
                run.case.clone(),
                run.config.to_string(),
                format!("{} {}", num(run.median), s.unit),
                format!("±{:.1}%", run.spread_pct),
                format!("{}{}", run.samples, if run.stable { "" } else { "*" }),
                run.ratio_vs_rayon
                    .map_or("-".into(), |x| format!("{x:.2}x")),
            ]);
        }
        for c in &s.comparisons {
            out.push([
                s.name.to_string(),
                c.case.clone(),
                format!("locus vs {}", c.baseline_name),
                format!("{} vs {} {}", num(c.locus), num(c.baseline), c.unit),
                "-".into(),
                "-".into(),
                format!("{:.2}x", c.ratio),
            ]);
        }
    }
    out
}

fn notes(r: &Report, out: &mut String, bullet: &str) {
    for s in &r.scenarios {
        let _ = writeln!(out, "{bullet}{} ({}): {}", s.name, s.seed, s.note);
        for c in &s.counter_notes {
            let _ = writeln!(out, "  {bullet}{c}");
        }
    }
}

const LEGEND: &str = "vs rayon: above 1.00x is better than rayon measured in the same rounds \
(rates: this/rayon; times: rayon/this). spread: half the interquartile range. samples: * = \
the median was still moving when the rounds stopped: at the round limit where samples is 7 \
(--quick) or 40 (full run), else at the time budget (3.5 s per scenario with --quick, 30 s in a \
full run).";

/// The plain-text table and notes printed on stdout.
pub fn text(r: &Report) -> String {
    let rows = rows(r);
    let mut w: Vec<usize> = HEAD.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String], out: &mut String| {
        let cols: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<0$}", w[i]))
            .collect();
        let _ = writeln!(out, "{}", cols.join("  ").trim_end());
    };
    line(&HEAD.map(String::from), &mut out);
    for row in &rows {
        line(row, &mut out);
    }
    let _ = writeln!(out, "\n{LEGEND}\n");
    notes(r, &mut out, "- ");
    out
}

/// The Markdown report: the table, the legend, the notes with counters.
pub fn markdown(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", HEAD.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEAD.len()));
    for row in rows(r) {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(out, "\n{LEGEND}\n");
    notes(r, &mut out, "- ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_three_digits() {
        assert_eq!(num(1.234), "1.23");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(123.4), "123");
        assert_eq!(num(12_345.0), "12.3k");
        assert_eq!(num(2.5e7), "25.0M");
    }
}
