//! What a simulation reports: raw counts ([`Counts`]), one run's summary
//! ([`Run`]), a workload over several runs ([`Report`]) as a table or JSON
//! (written by hand: one fixed schema, no dependency needed).

use std::fmt::Write as _;

use crate::layout::TierKind;
use crate::runtime::idle::Distance;

use super::policy::Policy;
use super::spread::{self, Repeat};

/// The names of [`Counts::bytes_by_tier`]'s entries: a cache at each
/// relation ([`TierKind`] as `usize`: `same-core` to `other-node`), DRAM
/// of the own node, DRAM of another node, and bytes found in the worker's
/// own caches (nothing moved). The cache model (`sim::cache`) fills
/// them.
///
/// [`Counts::bytes_by_tier`]: Counts::bytes_by_tier
pub const BYTE_TIERS: [&str; 9] = [
    "same-core",
    "same-cluster",
    "same-llc",
    "same-node",
    "same-package",
    "other-node",
    "dram-local",
    "dram-remote",
    "own-cache",
];

/// One feed of an `Auto` group's tracker: (group, the tracker's counts by
/// LLC after the feed, preference before, after).
pub type Feed = (u32, Vec<u64>, Option<usize>, Option<usize>);

/// Raw counts of one simulation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Simulated time when the last root finished.
    pub makespan_ns: u64,
    /// Time workers spent on tasks' work and refills.
    pub busy_ns: u64,
    /// Events handled.
    pub events: u64,
    /// Jobs run (taken from a queue, or a `join` half taken back).
    pub jobs: u64,
    /// Steals (and private-half claims) by the thief's relation to the
    /// victim, indexed by [`TierKind`] as `usize`.
    pub steals: [u64; 6],
    /// Wakeups by distance, indexed by [`Distance`] as `usize`.
    pub wakeups: [u64; 3],
    /// Jobs taken from injectors and group queues.
    pub injector_pulls: u64,
    /// Idle-mask words touched by claims, wakeups and idle transitions
    /// (counted in the `IdleMasks` code).
    pub claim_words: u64,
    /// Calls that touched idle masks.
    pub claim_calls: u64,
    /// Reads and writes of task data served from another LLC's cache.
    pub llc_moves: u64,
    /// Bytes of task data by where they came from, indexed as
    /// [`BYTE_TIERS`]: a cache at each relation, DRAM
    /// of the own node or another, or the worker's own caches (the cache
    /// model, `sim::cache`). The entries add up to every byte touched.
    pub bytes_by_tier: [u64; 9],
    /// Time transfers waited for shared bandwidth (an LLC's link, a
    /// node's DRAM, a socket link: `sim::bandwidth`), beyond what one
    /// core alone would have taken, summed over all transfers (ns).
    pub bw_wait_ns: u64,
    /// [`Counts::bw_wait_ns`] by the resource that decided each wait (the
    /// last of its path to move the bytes): an LLC's link, a node's DRAM,
    /// a socket link.
    pub bw_wait_by_resource: [u64; 3],
    /// Private `join` halves promoted to the deque.
    pub promotions: u64,
    /// Tasks that ended without a body (an iterator's leaves, fib's
    /// `n < 2` calls).
    pub leaves: u64,
    /// Private halves claimed by a worker about to park.
    pub private_claims: u64,
    /// Searches that found nothing and went idle.
    pub failed_searches: u64,
    /// Parks.
    pub parks: u64,
    /// Search passes (rayon-like: `find_work` rounds).
    pub passes: u64,
    /// Workers that ran at least one job taken from a queue.
    pub workers_ran: u64,
    /// Each run of a group job: (group, worker).
    pub group_runs: Vec<(u32, u32)>,
    /// Each feed of an `Auto` group's tracker: (group, the tracker's
    /// counts by LLC after the feed, preference before, after).
    pub group_feeds: Vec<Feed>,
    /// Each indexed iterator's run, in order of start ([`IterStats`]).
    pub iters: Vec<IterStats>,
}

/// One run of an indexed iterator (`Body::Iter`): its first split's
/// pieces and where their work ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IterStats {
    /// The pieces (empty when the iterator was not cut: one LLC without
    /// replay, or too few items).
    pub pieces: Vec<PieceStats>,
    /// With replay: the replay record's comparison with the run before
    /// (`Replay::stats` after this run).
    pub replay: Option<crate::iter::ReplayStats>,
}

impl IterStats {
    /// Work of all pieces run in the piece's own LLC, and all work.
    pub fn in_llc(&self) -> (u64, u64) {
        self.pieces
            .iter()
            .fold((0, 0), |(a, b), p| (a + p.in_llc_ns, b + p.work_ns))
    }
}

/// One piece of a first split.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PieceStats {
    /// Its items.
    pub items: std::ops::Range<usize>,
    /// The LLC of its domain.
    pub llc: usize,
    /// The worker it was aimed at (with replay), else `None`.
    pub aimed_at: Option<usize>,
    /// The worker that started it.
    pub ran_on: usize,
    /// When it started (simulated ns).
    pub started_ns: u64,
    /// Work of its tasks (ns).
    pub work_ns: u64,
    /// Of which run by workers of `llc`.
    pub in_llc_ns: u64,
}

impl Counts {
    /// Bytes of task data read from another LLC's cache (`same-node`,
    /// `same-package`, `other-node` of [`Counts::bytes_by_tier`]).
    pub fn bytes_across_llc(&self) -> u64 {
        self.bytes_by_tier[3..6].iter().sum()
    }

    /// Bytes of task data read from DRAM (the own node's or another's).
    pub fn bytes_from_dram(&self) -> u64 {
        self.bytes_by_tier[6..8].iter().sum()
    }

    /// All steals.
    pub fn steals_total(&self) -> u64 {
        self.steals.iter().sum()
    }

    /// Steals from a victim in the thief's LLC.
    pub fn steals_within_llc(&self) -> u64 {
        [TierKind::Smt, TierKind::Cluster, TierKind::Llc]
            .iter()
            .map(|&k| self.steals[k as usize])
            .sum()
    }

    /// All wakeups.
    pub fn wakeups_total(&self) -> u64 {
        self.wakeups.iter().sum()
    }

    /// Wakeups of a worker in the waker's LLC.
    pub fn wakeups_within_llc(&self) -> u64 {
        self.wakeups[Distance::Cluster as usize] + self.wakeups[Distance::Llc as usize]
    }
}

/// One simulated run: a policy on a number of workers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The policy.
    pub policy: Policy,
    /// Workers.
    pub workers: usize,
    /// The seed of its random choices and perturbed costs ([`Repeat`]).
    pub seed: u64,
    /// Everything counted.
    pub counts: Counts,
}

impl Run {
    pub(super) fn new(policy: Policy, workers: usize, counts: &Counts) -> Run {
        Run {
            policy,
            workers,
            seed: 0,
            counts: counts.clone(),
        }
    }

    /// Busy time over workers × makespan.
    pub fn utilisation(&self) -> f64 {
        let span = self.counts.makespan_ns.max(1) as f64 * self.workers as f64;
        self.counts.busy_ns as f64 / span
    }
}

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
        spread::table_lines(self, &mut s);
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
                "{}\n    {{\"policy\": {}, \"workers\": {}, \"seed\": {}, \"makespan_ns\": {}, \"utilisation\": {:.4}, \
                 \"jobs\": {}, \"steals\": {{\"total\": {}, \"within_llc\": {}, \"by_relation\": {{{}}}}}, \
                 \"wakeups\": {{\"total\": {}, \"within_llc\": {}}}, \"llc_moves\": {}, \"bytes_by_tier\": {{{}}}, \"bw_wait_ns\": {}, \
                 \"bw_wait_by_resource\": {{\"llc-link\": {}, \"dram\": {}, \"socket-link\": {}}}, \
                 \"idle_words\": {}, \"idle_calls\": {}, \"parks\": {}, \"workers_ran\": {}, \"events\": {}, \
                 \"promotions\": {}, \"private_claims\": {}, \"failed_searches\": {}, \"leaves\": {}}}",
                if i == 0 { "" } else { "," },
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
                k.claim_words,
                k.claim_calls,
                k.parks,
                k.workers_ran,
                k.events,
                k.promotions,
                k.private_claims,
                k.failed_searches,
                k.leaves,
            );
        }
        s.push_str("\n  ],\n");
        spread::json_summary(self, &mut s);
        s.push_str("\n}\n");
        s
    }
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
