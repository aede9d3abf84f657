//! Parallel iterators against rayon in alternating pairs: the pipelines of
//! `benches/iter.rs` (`common/iter_cases.rs`), each timed as a batch of
//! locus calls next to a batch of rayon calls, many times over, so that a
//! disturbance of the machine (another process, a frequency change) falls
//! on both sides of a pair instead of on one library's whole group, as it
//! does in criterion's one-group-after-the-other runs.
//!
//! ```text
//! cargo bench --bench iter_paired [-- [FILTER] [--pairs N]]
//! ```
//!
//! The cases are the pipelines of `common/iter_cases.rs` and the repeated
//! stencil sweeps of `benches/iter.rs` (`stencil_sweeps!`), locus without
//! (`stencil_sweep/*`) and with `with_replay` (`stencil_replay/*`), each
//! against rayon's plain sweep.
//!
//! `FILTER` keeps the cases whose name contains it; `--pairs` sets the
//! number of pairs per case (default 60; an odd number is raised by one,
//! see below).
//!
//! How a pair is timed: a batch is as many calls as take about
//! [`BATCH`] (from the warm-up); the order inside a pair alternates
//! (locus first, then rayon first), so neither library always runs right
//! after the other's workers went idle. The batches therefore run
//! L R | R L | L R ..: in a pair where locus runs first (`A`) locus
//! follows its own batch (its workers still awake, its data in cache) and
//! rayon follows locus's; in the other (`B`) the reverse. The warm-up ends
//! with locus, so the first pair is an `A` like the others.
//!
//! The ratio: a library that follows the other's batch can pay for it (on
//! the 1M stencil sweep 3 to 8%, `docs/iter-paired.md`, Session 28), so
//! the per-pair ratios of a case can fall into two groups by order. That
//! is the harness's bias, not either library's, and it cancels to first
//! order in a balanced design: pairs `2k` (`A`) and `2k + 1` (`B`) form a
//! pair of pairs, each library in each position once, and its ratio is
//! the geometric mean of the two (an order penalty `f` multiplies one by
//! `f` and divides the other by it). Per case the bench prints the median
//! of those balanced ratios with their quartiles (`ratio`), each
//! library's median time per call, the same balanced median of the
//! process's CPU time (`cpu`: the machine's other load does not enter it,
//! the workers' spinning does), the median ratio of the `A` pairs and of
//! the `B` pairs (`order A/B`: far apart means the case depends on what
//! ran before it) and the lower middle value of the per-pair ratios
//! (`pairs`, the statistic before Session 30: with two groups by order it
//! lands at the top of the lower one). At the end: the geometric mean of
//! the case ratios and how many are above 1.0 and 1.10 (the goals of
//! issue 9: at most 1.0 each, none above 1.10, geometric mean at most
//! 0.95), and the same for the old statistic.
//!
//! The suite's `measure` (`examples/suite`) also alternates libraries, but
//! one call per sample and a ratio of medians, until the medians settle;
//! here a sample is a batch of calls (a 200 us pipeline is too short to
//! time alone) and the statistic is a median of per-pair ratios, which
//! cancels the load that both sides of a pair share.

use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common/cli.rs"]
mod cli;
#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/pools.rs"]
mod pools;
use pools::pools;
#[macro_use]
#[path = "common/iter_cases.rs"]
mod iter_cases;

/// The time one batch of calls should take.
const BATCH: Duration = Duration::from_millis(10);

/// The warm-up per case, alternating the two libraries.
const WARM_UP: Duration = Duration::from_millis(500);

/// One case, the form `iter_cases!` calls: both sides
/// ([`locus_and_rayon`]) timed in pairs ([`Paired::measure`]).
macro_rules! paired {
    ($p:expr, $name:expr, state: $state:expr, |$input:ident| $body:expr) => {
        if $p.wants($name) {
            locus_and_rayon!($name, state: $state, |$input| $body, |with_locus, with_rayon| {
                $p.measure($name, with_locus, with_rayon)
            })
        }
    };
}

/// Criterion's options that take a value (skipped with it).
const CRITERION_VALUE_OPTIONS: [&str; 15] = [
    "--warm-up-time",
    "--measurement-time",
    "--sample-size",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--save-baseline",
    "--baseline",
    "--load-baseline",
    "--color",
    "--output-format",
    "--plotting-backend",
    "--format",
];

/// What one case measured.
struct Case {
    name: &'static str,
    /// Median time per call, locus and rayon.
    locus: Duration,
    rayon: Duration,
    /// Quartiles of the order-balanced ratios locus/rayon (one per pair of
    /// pairs, [`balanced`]): first, median, third.
    ratio: [f64; 3],
    /// Median of the order-balanced ratios of process CPU time.
    cpu: f64,
    /// Median ratio of the pairs where locus ran first, and of those where
    /// rayon ran first.
    by_order: [f64; 2],
    /// The lower middle value of the per-pair ratios, both orders pooled
    /// (the statistic before Session 30, kept for comparison).
    per_pair: f64,
}

/// The run's options and the cases measured so far.
struct Paired {
    filter: Option<String>,
    /// Pairs per case, an even number (each order in half of them).
    pairs: usize,
    cases: Vec<Case>,
}

/// The median of `v` (the mean of the two middle values for an even
/// length, so that neither half of a two-group sample is favoured).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile(&v, 0.5)
}

/// The `q` quantile of the sorted `v`, interpolated between neighbours.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let at = q * (v.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
}

/// The order-balanced ratios of per-pair ratios `r` taken in alternating
/// order (even index: locus first; odd: rayon first): the geometric mean
/// of pairs `2k` and `2k + 1`. Rule: each library is first once in every
/// pair of pairs, so a cost that falls on whichever library runs second
/// (or first) multiplies one ratio and divides the other, and cancels to
/// first order; the two pairs are adjacent in time, so the machine's load
/// still falls on both sides. A trailing unpaired ratio is dropped.
fn balanced(r: &[f64]) -> Vec<f64> {
    r.chunks_exact(2).map(|p| (p[0] * p[1]).sqrt()).collect()
}

impl Paired {
    /// Reads `[FILTER] [--pairs N]`; cargo's own `--bench` and criterion's
    /// options are ignored.
    fn from_args() -> Result<Paired, String> {
        let mut p = Paired {
            filter: None,
            pairs: 60,
            cases: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--bench" => {}
                "--pairs" => {
                    let n = cli::pairs("iter_paired", args.next());
                    // Both orders in the same number of pairs ([`balanced`]).
                    p.pairs = n.next_multiple_of(2);
                    if p.pairs != n {
                        eprintln!("iter_paired: --pairs {n} raised to {}", p.pairs);
                    }
                }
                // `cargo bench -- OPTIONS` passes criterion's options to
                // every bench: skip them (and the value of those that take
                // one) instead of failing the whole `cargo bench`.
                o if CRITERION_VALUE_OPTIONS.contains(&o) => {
                    args.next();
                }
                o if o.starts_with('-') => eprintln!("iter_paired: ignoring {o}"),
                f if p.filter.is_none() => p.filter = Some(f.to_string()),
                other => {
                    return Err(format!(
                        "a second filter {other:?}; usage: [FILTER] [--pairs N]"
                    ));
                }
            }
        }
        Ok(p)
    }

    fn wants(&self, name: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    /// Times `locus` and `rayon` in [`Paired::pairs`] alternating pairs of
    /// batches and records the case.
    fn measure<A, B>(
        &mut self,
        name: &'static str,
        mut locus: impl FnMut() -> A,
        mut rayon: impl FnMut() -> B,
    ) {
        let batch_cpu = |f: &mut dyn FnMut(), n: u32| {
            let (t, c) = (Instant::now(), cpu::process_cpu());
            for _ in 0..n {
                f();
            }
            (t.elapsed(), cpu::process_cpu() - c)
        };
        let batch = |f: &mut dyn FnMut(), n: u32| batch_cpu(f, n).0;
        let mut l = || {
            black_box(locus());
        };
        let mut r = || {
            black_box(rayon());
        };
        // Warm-up, which also sizes the batches. It ends with locus, so
        // that in the first pair, as in every later locus-first pair,
        // locus follows its own call and rayon follows locus's.
        let start = Instant::now();
        let (mut calls, mut spent) = (0u32, Duration::ZERO);
        while start.elapsed() < WARM_UP || calls < 3 {
            spent += batch(&mut r, 1) + batch(&mut l, 1);
            calls += 1;
        }
        let per_call = spent / (2 * calls);
        let n = (BATCH.as_secs_f64() / per_call.as_secs_f64().max(1e-9)).ceil() as u32;
        let n = n.max(1);
        let (mut lt, mut rt, mut ratios, mut cpu) = (vec![], vec![], vec![], vec![]);
        for i in 0..self.pairs {
            let ((a, ac), (b, bc)) = if i % 2 == 0 {
                let a = batch_cpu(&mut l, n);
                (a, batch_cpu(&mut r, n))
            } else {
                let b = batch_cpu(&mut r, n);
                (batch_cpu(&mut l, n), b)
            };
            lt.push(a / n);
            rt.push(b / n);
            ratios.push(a.as_secs_f64() / b.as_secs_f64());
            cpu.push(ac.as_secs_f64() / bc.as_secs_f64().max(1e-9));
        }
        lt.sort();
        rt.sort();
        let case = Case {
            name,
            locus: lt[lt.len() / 2],
            rayon: rt[rt.len() / 2],
            ratio: {
                let mut b = balanced(&ratios);
                b.sort_by(f64::total_cmp);
                [0.25, 0.5, 0.75].map(|q| quantile(&b, q))
            },
            cpu: median(balanced(&cpu)),
            by_order: [0, 1].map(|o| median(ratios.iter().copied().skip(o).step_by(2).collect())),
            per_pair: {
                ratios.sort_by(f64::total_cmp);
                ratios[(ratios.len() - 1) / 2]
            },
        };
        self.print(&case, n);
        self.cases.push(case);
    }

    /// One case's line.
    fn print(&self, case: &Case, calls: u32) {
        println!(
            "{:<26} locus {:>10.1?} rayon {:>10.1?} ratio {:.2} (quartiles {:.2} to {:.2}, {} pairs of {} calls) cpu {:.2} order {:.2}/{:.2} pairs {:.2}",
            case.name,
            case.locus,
            case.rayon,
            case.ratio[1],
            case.ratio[0],
            case.ratio[2],
            self.pairs,
            calls,
            case.cpu,
            case.by_order[0],
            case.by_order[1],
            case.per_pair
        );
    }

    /// The geometric mean of the case ratios and the counts above 1.0
    /// and 1.10; the same for the plain per-pair medians.
    fn summary(&self) {
        if self.cases.is_empty() {
            println!("no case matches the filter");
            return;
        }
        let ratios: Vec<f64> = self.cases.iter().map(|c| c.ratio[1]).collect();
        let geo = |rs: &[f64]| (rs.iter().map(|r| r.ln()).sum::<f64>() / rs.len() as f64).exp();
        let above = |rs: &[f64], x: f64| rs.iter().filter(|&&r| r > x).count();
        let max = self
            .cases
            .iter()
            .max_by(|a, b| a.ratio[1].total_cmp(&b.ratio[1]))
            .expect("not empty");
        let rest: Vec<f64> = self
            .cases
            .iter()
            .filter(|c| !c.name.starts_with("par_bridge"))
            .map(|c| c.ratio[1])
            .collect();
        let cpus: Vec<f64> = self.cases.iter().map(|c| c.cpu).collect();
        let per_pair: Vec<f64> = self.cases.iter().map(|c| c.per_pair).collect();
        print!(
            "{} cases: geometric mean of the ratios {:.2} (cpu {:.2})",
            ratios.len(),
            geo(&ratios),
            geo(&cpus)
        );
        if !rest.is_empty() && rest.len() < ratios.len() {
            print!(" ({:.2} without par_bridge)", geo(&rest));
        }
        println!(
            "; highest {:.2} ({}); above 1.0: {}, above 1.10: {}",
            max.ratio[1],
            max.name,
            above(&ratios, 1.0),
            above(&ratios, 1.10)
        );
        println!(
            "plain per-pair medians: geometric mean {:.2}; above 1.0: {}, above 1.10: {}",
            geo(&per_pair),
            above(&per_pair, 1.0),
            above(&per_pair, 1.10)
        );
    }
}

fn main() {
    let mut p = match Paired::from_args() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("iter_paired: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "locus / rayon, {} threads each, alternating pairs of batches",
        pools::threads()
    );
    iter_cases!(paired, p);
    stencil_cases(&mut p);
    p.summary();
}

/// The repeated stencil sweeps of `benches/iter.rs` (`stencil_sweeps!`),
/// locus without and with `with_replay` each paired with rayon, on grids
/// of 128K and 1M cells.
fn stencil_cases(p: &mut Paired) {
    for (plain, replayed, cells) in [
        (
            "stencil_sweep/128Kx10",
            "stencil_replay/128Kx10",
            1usize << 17,
        ),
        ("stencil_sweep/1Mx10", "stencil_replay/1Mx10", 1 << 20),
    ] {
        let (lp, rp) = pools();
        let replay = locus::iter::Replay::new();
        for (name, with_replay) in [(plain, false), (replayed, true)] {
            if !p.wants(name) {
                continue;
            }
            let ((mut la, mut lb), (mut ra, mut rb)) = (
                iter_cases::stencil_grids(cells),
                iter_cases::stencil_grids(cells),
            );
            let mut with_rayon = || {
                use rayon::prelude::*;
                stencil_sweeps!(rp, ra, rb, |it| it)
            };
            let mut with_locus = || {
                use locus::prelude::*;
                if with_replay {
                    stencil_sweeps!(lp, la, lb, |it| it.with_replay(&replay))
                } else {
                    stencil_sweeps!(lp, la, lb, |it| it)
                }
            };
            assert_eq!(
                with_locus(),
                with_rayon(),
                "{name}: locus and rayon disagree"
            );
            p.measure(name, with_locus, with_rayon);
        }
    }
}
