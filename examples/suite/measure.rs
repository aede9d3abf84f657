//! Running configurations in alternation until their medians are stable.
//!
//! A case has one runner per configuration; each call of a runner is one
//! sample, already in the scenario's unit. After one warm-up call each,
//! rounds call every runner once, the order rotating by one each round (so
//! no configuration always runs right after the same other one). Stop when
//! every median moved by at most [`STABLE`] in the last round (after
//! `min_rounds`), when the case's time budget is spent (after 3 rounds), or
//! after `max_rounds`. Each run reports its median, its spread (min, max,
//! and the half-width of the middle half relative to the median) and its
//! ratio to rayon's median from the same rounds.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

/// A median that moved by at most this fraction in the last round is stable.
pub const STABLE: f64 = 0.02;

/// The configurations (names as in the JSON, the tables and the charts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Config {
    /// locus with its defaults (hierarchical steals, cluster aware).
    Locus,
    /// locus with `cluster_aware(false)`.
    ClusterOff,
    /// locus with `StealOrder::Flat` (random victims, like rayon).
    Flat,
    /// locus with the scenario's job-group option.
    Group,
    /// rayon, same thread count.
    Rayon,
    /// chili (fork-join only).
    Chili,
}

impl Config {
    /// The name used everywhere in the output.
    pub fn name(self) -> &'static str {
        match self {
            Config::Locus => "locus",
            Config::ClusterOff => "locus-cluster-off",
            Config::Flat => "locus-flat",
            Config::Group => "locus-group",
            Config::Rayon => "rayon",
            Config::Chili => "chili",
        }
    }
}

/// Whether bigger numbers are better (rates) or smaller ones (times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// A rate: GB/s, jobs/s, ...
    Higher,
    /// A time: ns.
    Lower,
}

/// One configuration's result in one case.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// Configuration name.
    pub config: &'static str,
    /// Which workload of the scenario.
    pub case: String,
    /// Median of the samples, in the scenario's unit.
    pub median: f64,
    /// How much better than rayon's median in the same rounds (above 1:
    /// better; for times, rayon's time over this one); `null` without rayon.
    pub ratio_vs_rayon: Option<f64>,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Half the interquartile range over the median, in percent.
    pub spread_pct: f64,
    /// Samples taken (warm-up excluded).
    pub samples: usize,
    /// Whether the median was stable when the rounds stopped (else the
    /// budget or the round limit stopped them).
    pub stable: bool,
}

/// How long and how often to measure.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Time for one case (all its configurations together).
    pub per_case: Duration,
    /// Rounds before the stability test applies.
    pub min_rounds: usize,
    /// Rounds at most.
    pub max_rounds: usize,
}

/// A runner: one call, one sample in the scenario's unit.
pub type Runner<'a> = Box<dyn FnMut() -> f64 + 'a>;

/// The median of a sorted slice.
fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The median of unsorted samples.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    median_sorted(&s)
}

fn summary(config: Config, case: &str, samples: &[f64], stable: bool) -> Run {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let m = median_sorted(&s);
    let q = |f: f64| s[((s.len() - 1) as f64 * f).round() as usize];
    let spread = if m != 0.0 {
        (q(0.75) - q(0.25)) / 2.0 / m.abs() * 100.0
    } else {
        0.0
    };
    Run {
        config: config.name(),
        case: case.to_string(),
        median: m,
        ratio_vs_rayon: None,
        min: s[0],
        max: s[s.len() - 1],
        spread_pct: spread,
        samples: s.len(),
        stable,
    }
}

/// Measures one case: `runners` in alternation, as described in the module
/// docs. Returns one [`Run`] per runner, in the given order, with ratios
/// against the rayon runner if there is one.
pub fn measure(
    case: &str,
    better: Better,
    budget: Budget,
    progress: &ProgressBar,
    mut runners: Vec<(Config, Runner<'_>)>,
) -> Vec<Run> {
    let n = runners.len();
    for (_, r) in runners.iter_mut() {
        r(); // warm-up: page faults, thread start, first steals
    }
    let start = Instant::now();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut stable = false;
    let mut round = 0;
    while round < budget.max_rounds {
        let before: Vec<f64> = samples.iter().map(|s| median(s)).collect();
        for k in 0..n {
            let i = (k + round) % n;
            progress.set_message(format!(
                "{case}: {} (round {})",
                runners[i].0.name(),
                round + 1
            ));
            let v = (runners[i].1)();
            samples[i].push(v);
        }
        round += 1;
        if round >= budget.min_rounds {
            stable = samples.iter().zip(&before).all(|(s, b)| {
                let m = median(s);
                (m - b).abs() <= STABLE * m.abs()
            });
            if stable || (round >= budget.min_rounds.min(3) && start.elapsed() >= budget.per_case) {
                break;
            }
        }
    }
    let mut runs: Vec<Run> = runners
        .iter()
        .zip(&samples)
        .map(|((c, _), s)| summary(*c, case, s, stable))
        .collect();
    set_ratios(&mut runs, better);
    runs
}

/// Fills `ratio_vs_rayon` from the rayon run of the same case.
pub fn set_ratios(runs: &mut [Run], better: Better) {
    let rayon = runs
        .iter()
        .find(|r| r.config == Config::Rayon.name())
        .map(|r| r.median);
    for r in runs.iter_mut() {
        r.ratio_vs_rayon = rayon
            .filter(|m| *m > 0.0 && r.median > 0.0)
            .map(|m| match better {
                Better::Higher => r.median / m,
                Better::Lower => m / r.median,
            });
    }
}

/// The progress bar: on stderr, drawn only when stderr is a terminal
/// (indicatif hides it otherwise), one step per scenario.
pub fn progress(scenarios: usize) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(scenarios as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("[{elapsed_precise}] {bar:20} {pos}/{len} {msg}")
    {
        pb.set_style(style);
    }
    pb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let r = summary(Config::Locus, "c", &[10.0, 10.0, 10.0, 10.0], true);
        assert_eq!(
            (r.median, r.spread_pct, r.min, r.max),
            (10.0, 0.0, 10.0, 10.0)
        );
    }

    #[test]
    fn alternation_stops_and_ratios_follow_the_unit() {
        let budget = Budget {
            per_case: Duration::from_secs(5),
            min_rounds: 3,
            max_rounds: 6,
        };
        let pb = ProgressBar::hidden();
        let mut order = Vec::new();
        let log = std::cell::RefCell::new(&mut order);
        let runs = measure(
            "case",
            Better::Lower,
            budget,
            &pb,
            vec![
                (
                    Config::Locus,
                    Box::new(|| {
                        log.borrow_mut().push('l');
                        50.0
                    }),
                ),
                (
                    Config::Rayon,
                    Box::new(|| {
                        log.borrow_mut().push('r');
                        100.0
                    }),
                ),
            ],
        );
        // Constant samples: stable after the minimum, 1 warm-up + 3 rounds each.
        assert_eq!(runs[0].samples, 3);
        assert!(runs[0].stable);
        assert_eq!(runs[0].ratio_vs_rayon, Some(2.0)); // half rayon's time
        assert_eq!(runs[1].ratio_vs_rayon, Some(1.0));
        // The order rotates: warm-up l r, then l r, r l, l r.
        assert_eq!(order.iter().collect::<String>(), "lrlrrllr");
    }
}
