//! Error bars: each simulation repeated with other seeds and perturbed
//! costs ([`Repeat`]), and the report's columns as the median and range
//! of the repeats ([`Spread`]).
//!
//! A repeat changes two things, both drawn from its seed: the policies'
//! random choices (locus's steal start, `pass::tiers::worker_seed` mixed with the
//! seed; rayon-like's xorshift* start) and, with `perturb_pct > 0`, every
//! parameter of the cost model, each scaled by its own factor drawn
//! uniformly from `1 ± perturb_pct / 100` ([`CostModel::perturbed`]). Every
//! policy and worker count of one repeat sees the same seed and the same
//! costs, so their ratio within a repeat is a paired comparison; the
//! ratio column (`÷rayon`) is that ratio, repeat by repeat.
//!
//! Seed 0 without perturbation is the pool's own seeds and the given
//! costs: the single-run report of before.

use std::fmt::Write as _;

use super::cost::CostModel;
use super::counts::{Counts, Run};
use super::policy::Policy;

/// How often to simulate each policy and worker count: `runs` repeats
/// with seeds `seed`, `seed + 1`, …, each with the costs perturbed by up
/// to `perturb_pct` percent (see the module docs of `src/sim/spread.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Repeat {
    /// Repeats (at least 1).
    pub runs: usize,
    /// The first repeat's seed.
    pub seed: u64,
    /// Each cost parameter's largest change, in percent (0 to under 100).
    pub perturb_pct: f64,
}

impl Repeat {
    /// One run, seed 0, the costs as given.
    pub const ONCE: Repeat = Repeat {
        runs: 1,
        seed: 0,
        perturb_pct: 0.0,
    };

    /// Each repeat's seed and cost model.
    pub fn costs(&self, cost: &CostModel) -> Vec<(u64, CostModel)> {
        (0..self.runs.max(1) as u64)
            .map(|i| {
                let seed = self.seed.wrapping_add(i);
                (seed, cost.perturbed(self.perturb_pct, seed))
            })
            .collect()
    }
}

/// The median and range (min to max) of a column over the repeats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The median (the mean of the middle two for an even count).
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (`None` if empty).
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = values.to_vec();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
        })
    }
}

/// A column of the table: its heading, its JSON key and what it shows.
struct Column {
    head: &'static str,
    key: &'static str,
    value: Value,
}

/// What a column shows of a run.
enum Value {
    /// A count, as a whole number.
    Count(fn(&Counts) -> u64),
    /// The percentage `part / total` of two counts (none when `total` is 0).
    Share(fn(&Counts) -> u64, fn(&Counts) -> u64),
    /// A value of the run (given the rayon-like run of the same seed and
    /// worker count), and how it is printed.
    Other(fn(&Run, Option<&Run>) -> Option<f64>, fn(f64) -> String),
}

impl Column {
    /// The column's value for run `r`, `ray` the rayon-like run of its
    /// seed and worker count.
    fn value(&self, r: &Run, ray: Option<&Run>) -> Option<f64> {
        match self.value {
            Value::Count(count) => Some(count(&r.counts) as f64),
            Value::Share(part, total) => {
                let total = total(&r.counts);
                (total > 0).then(|| 100.0 * part(&r.counts) as f64 / total as f64)
            }
            Value::Other(value, _) => value(r, ray),
        }
    }

    /// A value of the column, printed.
    fn show(&self, v: f64) -> String {
        match self.value {
            Value::Count(_) => format!("{v:.0}"),
            Value::Share(..) => format!("{v:.1}%"),
            Value::Other(_, show) => show(v),
        }
    }
}

const COLUMNS: &[Column] = &[
    Column {
        head: "makespan ms",
        key: "makespan_ms",
        value: Value::Other(
            |r, _| Some(r.counts.makespan_ns as f64 / 1e6),
            |v| format!("{v:.3}"),
        ),
    },
    Column {
        head: "÷rayon",
        key: "makespan_over_rayon_like",
        value: Value::Other(
            |r, ray| ray.map(|y| r.counts.makespan_ns as f64 / y.counts.makespan_ns.max(1) as f64),
            |v| format!("{v:.2}"),
        ),
    },
    Column {
        head: "util",
        key: "utilisation_pct",
        value: Value::Other(|r, _| Some(100.0 * r.utilisation()), |v| format!("{v:.0}%")),
    },
    Column {
        head: "steals",
        key: "steals",
        value: Value::Count(Counts::steals_total),
    },
    Column {
        head: "in-LLC",
        key: "steals_within_llc_pct",
        value: Value::Share(Counts::steals_within_llc, Counts::steals_total),
    },
    Column {
        head: "wakeups",
        key: "wakeups",
        value: Value::Count(Counts::wakeups_total),
    },
    Column {
        head: "in-LLC",
        key: "wakeups_within_llc_pct",
        value: Value::Share(Counts::wakeups_within_llc, Counts::wakeups_total),
    },
    Column {
        head: "ran",
        key: "workers_ran",
        value: Value::Count(|c| c.workers_ran),
    },
    Column {
        head: "LLC moves",
        key: "llc_moves",
        value: Value::Count(|c| c.llc_moves),
    },
    Column {
        head: "x-LLC MB",
        key: "bytes_across_llc_mb",
        value: Value::Other(
            |r, _| Some(r.counts.bytes_across_llc() as f64 / 1e6),
            |v| format!("{v:.1}"),
        ),
    },
    Column {
        head: "DRAM MB",
        key: "bytes_from_dram_mb",
        value: Value::Other(
            |r, _| Some(r.counts.bytes_from_dram() as f64 / 1e6),
            |v| format!("{v:.1}"),
        ),
    },
    Column {
        head: "words/job",
        key: "words_per_job",
        value: Value::Other(
            |r, _| Some(r.counts.claim_words as f64 / r.counts.jobs.max(1) as f64),
            |v| format!("{v:.1}"),
        ),
    },
];

/// A report's `runs` by (policy, workers), in order of first appearance,
/// each with the rayon-like run of its seed and worker count.
fn groups(runs: &[Run]) -> Vec<Vec<(&Run, Option<&Run>)>> {
    let mut out: Vec<Vec<(&Run, Option<&Run>)>> = Vec::new();
    for r in runs {
        let ray = runs
            .iter()
            .find(|y| y.policy == Policy::RayonLike && y.workers == r.workers && y.seed == r.seed);
        match out
            .iter_mut()
            .find(|g| g[0].0.policy == r.policy && g[0].0.workers == r.workers)
        {
            Some(g) => g.push((r, ray)),
            None => out.push(vec![(r, ray)]),
        }
    }
    out
}

/// Column `c`'s spread over one group.
fn spread(c: &Column, g: &[(&Run, Option<&Run>)]) -> Option<Spread> {
    let v: Vec<f64> = g.iter().filter_map(|(r, y)| c.value(r, *y)).collect();
    Spread::of(&v)
}

/// Whether column `c` has a value in any run (the ratio column only when
/// the report has rayon-like runs).
fn shown(c: &Column, gs: &[Vec<(&Run, Option<&Run>)>]) -> bool {
    gs.iter().flatten().any(|(r, y)| c.value(r, *y).is_some())
}

/// The table's lines: a heading and one line per policy and worker
/// count; over several repeats each cell is `median [min-max]`.
pub(super) fn table_lines(runs: &[Run], s: &mut String) {
    let gs = groups(runs);
    let cols: Vec<&Column> = COLUMNS.iter().filter(|c| shown(c, &gs)).collect();
    let mut rows: Vec<Vec<String>> = vec![
        ["policy", "workers"]
            .into_iter()
            .map(String::from)
            .chain(cols.iter().map(|c| c.head.to_string()))
            .collect(),
    ];
    for g in &gs {
        let mut row = vec![g[0].0.policy.name().to_string(), g[0].0.workers.to_string()];
        for c in &cols {
            row.push(match spread(c, g) {
                None => "-".into(),
                Some(sp) if g.len() == 1 => c.show(sp.median),
                Some(sp) => format!(
                    "{} [{}-{}]",
                    c.show(sp.median),
                    c.show(sp.min),
                    c.show(sp.max)
                ),
            });
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                let _ = write!(s, "{cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(s, "  {}{cell}", " ".repeat(pad));
            }
        }
        s.push('\n');
    }
}

/// The JSON `"summary"` array: per policy and worker count, the seeds
/// and each column's median, min and max.
pub(super) fn json_summary(runs: &[Run], s: &mut String) {
    let gs = groups(runs);
    s.push_str("  \"summary\": [");
    for (i, g) in gs.iter().enumerate() {
        let seeds: Vec<String> = g.iter().map(|(r, _)| r.seed.to_string()).collect();
        let _ = write!(
            s,
            "{}\n    {{\"policy\": \"{}\", \"workers\": {}, \"seeds\": [{}]",
            if i == 0 { "" } else { "," },
            g[0].0.policy.name(),
            g[0].0.workers,
            seeds.join(", ")
        );
        for c in COLUMNS {
            if let Some(sp) = spread(c, g) {
                let _ = write!(
                    s,
                    ", \"{}\": {{\"median\": {}, \"min\": {}, \"max\": {}}}",
                    c.key,
                    json_num(sp.median),
                    json_num(sp.min),
                    json_num(sp.max)
                );
            }
        }
        s.push('}');
    }
    s.push_str("\n  ]");
}

/// A finite number as JSON (six significant decimals are plenty).
fn json_num(v: f64) -> String {
    let t = format!("{v:.6}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    if t.is_empty() || t == "-" {
        "0".into()
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_range() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        let s = Spread::of(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
        assert!(Spread::of(&[]).is_none());
    }

    #[test]
    fn repeats_have_their_own_seeds_and_costs() {
        let base = CostModel::default();
        let r = Repeat {
            runs: 3,
            seed: 5,
            perturb_pct: 10.0,
        };
        let c = r.costs(&base);
        assert_eq!(c.iter().map(|x| x.0).collect::<Vec<_>>(), [5, 6, 7]);
        assert_ne!(c[0].1, c[1].1);
        assert_eq!(Repeat::ONCE.costs(&base), vec![(0, base)]);
    }

    #[test]
    fn json_numbers() {
        assert_eq!(json_num(1.5), "1.5");
        assert_eq!(json_num(2.0), "2");
        assert_eq!(json_num(0.0), "0");
    }
}
