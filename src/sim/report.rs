//! A workload simulated on one machine over several runs ([`Report`]), as
//! a table or JSON (written by hand: one fixed schema, no dependency
//! needed), with the median and range of repeated runs (`spread`).
//!
//! Invariants: the JSON's keys are stable (`scripts/sim_results.py` and
//! the docs read them); the same runs give the same text, byte for byte.

use std::fmt::Write as _;

use super::counts::{BYTE_TIERS, Run};
use super::spread::{self, Repeat};

/// A workload simulated on one machine, run by run.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The machine's name (its argument).
    pub machine: String,
    /// Its shape: (workers, LLCs, NUMA nodes, clusters).
    pub shape: (usize, usize, usize, usize),
    /// The workload's name.
    pub workload: String,
    /// The runs: per worker count, per policy, per repeat.
    pub runs: Vec<Run>,
    /// How each simulation was repeated.
    pub repeat: Repeat,
}

fn pct(part: u64, total: u64) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / total as f64)
    }
}

impl Report {
    /// A plain-text table, one line per run.
    pub fn table(&self) -> String {
        let (w, l, n, c) = self.shape;
        let mut s = format!(
            "{} on {} ({w} PUs, {l} LLCs, {n} NUMA nodes, {c} clusters)\n",
            self.workload, self.machine
        );
        let rp = self.repeat;
        if rp.runs > 1 {
            let _ = writeln!(
                s,
                "median [min-max] of {} runs: seeds {}..={}, each cost within ±{}%",
                rp.runs,
                rp.seed,
                rp.seed.wrapping_add(rp.runs as u64 - 1),
                rp.perturb_pct
            );
        }
        spread::table_lines(&self.runs, &mut s);
        // Iterator lines: the first repeat's runs.
        let first = self.runs.first().map_or(0, |r| r.seed);
        for r in self
            .runs
            .iter()
            .filter(|r| r.seed == first && !r.counts.iters.is_empty())
        {
            for (i, it) in r.counts.iters.iter().enumerate() {
                let _ = write!(s, "{} {} iterator run {i}: ", r.policy.name(), r.workers);
                if it.pieces.is_empty() {
                    let _ = write!(s, "not cut");
                } else {
                    let (a, b) = it.in_llc();
                    let _ = write!(
                        s,
                        "{} pieces, {} of their work in their LLC (worst piece {})",
                        it.pieces.len(),
                        pct(a, b),
                        it.pieces
                            .iter()
                            .map(|p| (p.in_llc_ns, p.work_ns))
                            .min_by(|x, y| (x.0 * y.1.max(1)).cmp(&(y.0 * x.1.max(1))))
                            .map_or_else(|| "-".into(), |(a, b)| pct(a, b)),
                    );
                }
                if let Some(st) = it.replay {
                    let _ = write!(s, "; replay: {st}");
                }
                s.push('\n');
            }
        }
        s
    }

    /// The report as JSON: `{"machine": {...}, "workload", "runs": [...]}`.
    pub fn json(&self) -> String {
        let (w, l, n, c) = self.shape;
        let mut s = String::from("{\n");
        let _ = writeln!(
            s,
            "  \"machine\": {{\"name\": {}, \"pus\": {w}, \"llcs\": {l}, \"numa_nodes\": {n}, \"clusters\": {c}}},",
            json_str(&self.machine)
        );
        let _ = writeln!(s, "  \"workload\": {},", json_str(&self.workload));
        let rp = self.repeat;
        let _ = writeln!(
            s,
            "  \"repeat\": {{\"runs\": {}, \"seed\": {}, \"perturb_pct\": {}}},",
            rp.runs, rp.seed, rp.perturb_pct
        );
        s.push_str("  \"runs\": [");
        for (i, r) in self.runs.iter().enumerate() {
            s.push_str(if i == 0 { "\n    " } else { ",\n    " });
            run_json(r, &mut s);
        }
        s.push_str("\n  ],\n");
        spread::json_summary(&self.runs, &mut s);
        s.push_str("\n}\n");
        s
    }
}

/// Run `r` as a JSON object on one line, appended to `s`.
fn run_json(r: &Run, s: &mut String) {
    let k = &r.counts;
    let by_kind: Vec<String> = crate::TIER_KINDS
        .iter()
        .map(|&t| format!("\"{}\": {}", t.name(), k.steals[t as usize]))
        .collect();
    let bytes: Vec<String> = BYTE_TIERS
        .iter()
        .zip(k.bytes_by_tier)
        .map(|(t, b)| format!("\"{t}\": {b}"))
        .collect();
    let _ = write!(
        s,
        "{{\"policy\": {}, \"workers\": {}, \"seed\": {}, \"makespan_ns\": {}, \"utilisation\": {:.4}, \
             \"jobs\": {}, \"steals\": {{\"total\": {}, \"within_llc\": {}, \"by_relation\": {{{}}}}}, \
             \"wakeups\": {{\"total\": {}, \"within_llc\": {}}}, \"llc_moves\": {}, \"bytes_by_tier\": {{{}}}, \"bw_wait_ns\": {}, \
             \"bw_wait_by_resource\": {{\"llc-link\": {}, \"dram\": {}, \"socket-link\": {}}}, \"arrival_wait_ns\": {}, \"dram_bytes_by_node\": [{}], \
             \"idle_words\": {}, \"idle_calls\": {}, \"parks\": {}, \"lazy_parks\": {}, \"lazy_expired\": {}, \"heavy_fences\": {}, \"fence_interrupts\": {}, \"workers_ran\": {}, \"events\": {}, \
             \"promotions\": {}, \"deals\": {}, \"dealt_taken_back\": {}, \"asleep_takes\": {}, \"claim_passes\": {}, \"receiver_takes\": {}, \"private_claims\": {}, \"failed_searches\": {}, \"leaves\": {}}}",
        json_str(r.policy.name()),
        r.workers,
        r.seed,
        k.makespan_ns,
        r.utilisation(),
        k.jobs,
        k.steals_total(),
        k.steals_within_llc(),
        by_kind.join(", "),
        k.wakeups_total(),
        k.wakeups_within_llc(),
        k.llc_moves,
        bytes.join(", "),
        k.bw_wait_ns,
        k.bw_wait_by_resource[0],
        k.bw_wait_by_resource[1],
        k.bw_wait_by_resource[2],
        k.arrival_wait_ns,
        k.dram_bytes_by_node
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        k.claim_words,
        k.claim_calls,
        k.parks,
        k.lazy_parks,
        k.lazy_expired,
        k.heavy_fences,
        k.fence_interrupts,
        k.workers_ran,
        k.events,
        k.promotions,
        k.deals,
        k.dealt_taken_back,
        k.asleep_takes,
        k.claim_passes,
        k.receiver_takes,
        k.private_claims,
        k.failed_searches,
        k.leaves,
    );
}

/// A JSON string literal.
fn json_str(v: &str) -> String {
    let mut s = String::from("\"");
    for ch in v.chars() {
        match ch {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(super::json_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
