//! The scale simulator's command line (`locus::sim`, feature `sim`).
//!
//! ```text
//! cargo run --release --features sim --example simulate -- \
//!     --machine (DIR|TARBALL|XML|SPEC) --workload fib:28 \
//!     [--policy hierarchical,flat,cluster-off,rayon-like] [--workers 2,8,all] \
//!     [--cost CLASS|FILE[,FILE]] [--runs N [--seed S] [--perturb PCT]] [--json FILE] \
//!     [--trace FILE]
//! ```
//!
//! `--machine`: a sysfs snapshot directory, an hwloc `.tar.bz2` snapshot
//! (extracted to a temporary directory), an hwloc XML file (with
//! `--features sim,hwloc`) or a synthetic spec such as
//! `'package:2 llc:12 core:8'`. `--workload`: `fib:N` and `spawn:JOBS[:NS]`
//! (scheduling overhead only: no data), the kernels with data (`stencil`,
//! `stencil-replay`, `matmul`, `mergesort`, `triad`, `reduce`, `pipeline`,
//! each with default sizes and an optional size; `--help` lists them),
//! `tree:ITEMS[:SEED]`,
//! `range:ITEMS[:GRAIN:NS]` (a balanced `join` tree of a fixed grain),
//! `iter:ITEMS[:RUNS[:NS]]` (an indexed iterator through the runtime's
//! first split, its pieces split with the adaptive budget),
//! `iter-replay:ITEMS[:RUNS[:NS]]` (the same with affinity replay, 4 runs unless
//! given), `stream:CHUNKS:BYTES[:spread|pack]`. Prints a
//! table (for iterators also a line per run: pieces, their work in their
//! LLC, replay); `--json` also writes the report as JSON. `--trace FILE`
//! runs each policy, worker count and seed again with a record of every
//! leaf task and steal (`sim::simulate_traced`: the same runs) and writes
//! it as tab-separated lines (`sim::Trace::tsv`), each starting with the
//! policy, the workers and the seed.
//!
//! Costs: `CostModel::calibrated()`, the constants fitted on this crate's
//! CI machine by `python3 scripts/calibrate.py fit` (src/sim/calibrated.cost
//! cites the run; docs/calibration.md the method), over the published
//! figures for what that machine does not have; `--cost FILE` applies its
//! `key = value` lines on top; `--cost published` takes the published
//! figures alone (`CostModel::published`, the model before the fit);
//! `--cost epyc` (or `kunpeng`, `xeon`, `laptop`) takes a machine class's
//! memory hierarchy (caches, their sizes, DRAM: `src/sim/classes/*.cost`,
//! every number with its source) over the calibrated overheads. Items
//! separated by commas apply in order: `--cost epyc,mine.cost`.
//!
//! Error bars: `--runs N` simulates each policy and worker count N times,
//! run `i` with seed `S + i` (`--seed`, default 0) for the policies'
//! random choices and every cost parameter scaled by its own factor drawn
//! from `1 ± PCT/100` (`--perturb`, default 10 with `--runs` above 1,
//! else 0). Each table cell is then `median [min-max]` over the runs; the
//! JSON has every run and a `summary` with each column's median, min and
//! max. The `÷rayon` column is each run's makespan over the rayon-like
//! run with the same seed (same costs), when rayon-like is simulated.

use std::process::ExitCode;
use std::time::Instant;

use locus::sim::{self, CostModel, Policy, Repeat};

const USAGE: &str = "usage: simulate --machine (DIR|TARBALL|XML|SPEC) --workload SPEC \
[--policy hierarchical,flat,cluster-off,rayon-like] [--workers N,N,...|all] [--cost CLASS|FILE[,FILE]] \
[--runs N] [--seed S] [--perturb PCT] [--json FILE] [--trace FILE]

workloads (sizes in brackets are optional):
  scheduling overhead only (no data):
    fib:N                      fib(N) with join, 10 ns a call
    spawn:JOBS[:NS]            one scope spawning JOBS tasks of NS ns (1000)
  kernels with data (default sizes; src/sim/kernels/mod.rs cites the work figures):
    stencil[:N[:SWEEPS]]       5-point Jacobi sweeps over an N x N grid (2048, 8 sweeps)
    stencil-replay[:N[:SWEEPS]]  the same, every sweep with one affinity replay handle
    matmul[:N[:BLOCK]]         blocked C = A B, N x N f64, BLOCK x BLOCK blocks (2048, 64)
    mergesort[:N]              parallel merge sort of N u64 (4194304)
    triad[:N[:ITERS]]          STREAM triad over three arrays of N f64 (4194304, 10)
    reduce[:N[:RUNS]]          tree reduction of N f64, RUNS times (8388608, 8)
    pipeline[:ITEMS[:STAGES]]  stages as packed job groups (512 items, 4 stages)
  synthetic shapes:
    tree:ITEMS[:SEED]  range:ITEMS[:GRAIN:NS]  iter:ITEMS[:RUNS[:NS]]
    iter-replay:ITEMS[:RUNS[:NS]]  stream:CHUNKS:BYTES[:spread|pack]";

/// Most runs a report repeats: every run's counts stay in memory until
/// the report is written (a few hundred bytes a run and policy), and more
/// runs than this narrow no spread worth reading.
const MAX_RUNS: usize = 10_000;

struct Args {
    machine: String,
    workload: String,
    policies: Vec<Policy>,
    workers: Vec<Option<usize>>,
    cost: CostModel,
    repeat: Repeat,
    json: Option<String>,
    trace: Option<String>,
}

/// The `--cost` argument: comma-separated items applied in order over the
/// calibrated model; `published` and a machine class name
/// (`CostModel::class_names`) replace the model, a file applies its lines
/// on top.
fn cost(spec: &str) -> Result<CostModel, String> {
    let mut m = CostModel::calibrated();
    for item in spec.split(',') {
        if item == "published" {
            m = CostModel::published();
        } else if let Some(c) = CostModel::class(item) {
            m = c;
        } else {
            let text = std::fs::read_to_string(item).map_err(|e| {
                let classes: Vec<_> = CostModel::class_names().collect();
                format!(
                    "--cost: `{item}` is not published, a machine class ({}) or a readable file: {e}",
                    classes.join(", ")
                )
            })?;
            m = m.with(&text).map_err(|e| format!("--cost {item}: {e}"))?;
        }
    }
    Ok(m)
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        machine: String::new(),
        workload: String::new(),
        policies: Policy::ALL.to_vec(),
        workers: vec![None],
        cost: CostModel::calibrated(),
        repeat: Repeat::ONCE,
        json: None,
        trace: None,
    };
    let mut perturb = None;
    while let Some(flag) = argv.next() {
        let mut value = || {
            argv.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--machine" => a.machine = value()?,
            "--workload" => a.workload = value()?,
            "--policy" => {
                a.policies = value()?
                    .split(',')
                    .map(Policy::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.to_string())?
            }
            "--workers" => {
                a.workers = value()?
                    .split(',')
                    .map(|w| match w {
                        "all" => Ok(None),
                        n => n
                            .parse()
                            .map(Some)
                            .map_err(|_| format!("--workers: `{n}` is not a number or `all`")),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--cost" => a.cost = cost(&value()?)?,
            "--json" => a.json = Some(value()?),
            "--trace" => a.trace = Some(value()?),
            "--runs" => {
                a.repeat.runs = value()?
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_RUNS).contains(n))
                    .ok_or_else(|| {
                        format!("--runs: expected a number of runs from 1 to {MAX_RUNS}")
                    })?
            }
            "--seed" => {
                a.repeat.seed = value()?
                    .parse()
                    .map_err(|_| "--seed: expected a whole number".to_string())?
            }
            "--perturb" => {
                perturb = Some(
                    value()?
                        .parse::<f64>()
                        .ok()
                        .filter(|p| (0.0..100.0).contains(p))
                        .ok_or_else(|| {
                            "--perturb: expected a percentage from 0 to under 100".to_string()
                        })?,
                )
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    a.repeat.perturb_pct = perturb.unwrap_or(if a.repeat.runs > 1 { 10.0 } else { 0.0 });
    if a.machine.is_empty() || a.workload.is_empty() {
        return Err(format!("--machine and --workload are required\n{USAGE}"));
    }
    Ok(a)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let a = parse(std::env::args().skip(1))?;
    let scratch = std::env::temp_dir();
    let topology = sim::load_machine(&a.machine, &scratch).map_err(|e| e.to_string())?;
    let workload = sim::parse_workload(&a.workload).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let report = sim::report_repeated(
        &a.machine,
        &topology,
        &*workload,
        &a.policies,
        &a.workers,
        &a.cost,
        a.repeat,
    )
    .map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    print!("{}", report.table());
    let events: u64 = report.runs.iter().map(|r| r.counts.events).sum();
    eprintln!(
        "simulated {events} events in {secs:.2} s ({:.2} M events/s)",
        events as f64 / secs / 1e6
    );
    if let Some(path) = &a.json {
        std::fs::write(path, report.json()).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    if let Some(path) = &a.trace {
        let text = trace(&a, &topology, &*workload)?;
        std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(())
}

/// `--trace`: every run of the report again, traced, as one text.
fn trace(
    a: &Args,
    topology: &locus::Topology,
    workload: &dyn sim::Workload,
) -> Result<String, String> {
    let mut out = format!("policy\tworkers\tseed\t{}\n", sim::Trace::leaf_header());
    for &n in &a.workers {
        for &p in &a.policies {
            for (seed, c) in a.repeat.costs(&a.cost) {
                let (run, t) = sim::simulate_traced(topology, workload, p, n, &c, seed)
                    .map_err(|e| e.to_string())?;
                out += &t.tsv(&format!("{p}\t{}\t{seed}\t", run.workers));
            }
        }
    }
    Ok(out)
}
