//! Workloads by name: the spec a user gives the simulator (`fib:N`,
//! `range:ITEMS`, `stencil`, ...) parsed into the workload it names, the
//! tree workloads of `workload` and the kernels with data of `kernels`.
//!
//! Invariant: a spec that does not parse is an error whose message lists
//! every accepted form, never a default workload.

use crate::groups::{Affinity, Placement};

use super::kernels;
use super::workload::{
    Fib, GRAIN, ITEM_NS, Iter, IterRange, RandomTree, SpawnStorm, Stream, Workload, WorkloadError,
};

/// The workload `spec` names: `fib:N` (scheduling overhead only: no
/// data), `tree:ITEMS[:SEED]`,
/// `range:ITEMS[:GRAIN:NS]` ([`IterRange`]; leaves of 1,024 items of 2 ns
/// unless given), `iter:ITEMS[:RUNS[:NS]]` ([`Iter`]; 2 ns an item unless
/// given), `iter-replay:ITEMS[:RUNS[:NS]]` ([`Iter`] with replay, 4 runs
/// unless given), `spawn:JOBS[:NS]` (scheduling overhead only),
/// `stream:CHUNKS:BYTES[:spread|pack]`, and the kernels with data, each
/// with default sizes: `stencil[:N[:SWEEPS]]`, `stencil-replay[:N[:SWEEPS]]`,
/// `matmul[:N[:BLOCK]]`, `mergesort[:N]`, `triad[:N[:ITERS]]`, `reduce[:N[:RUNS]]`,
/// `pipeline[:ITEMS[:STAGES]]` (see `kernels`).
///
/// # Errors
/// An unknown name or a number that does not parse (the message lists the
/// accepted forms), a size above 2^40 (a seed excepted), more than about
/// 2^24 tasks (`fib` up to 40 excepted) or more than 2^50 ns of work.
pub fn parse(spec: &str) -> Result<Box<dyn Workload + Send + Sync>, WorkloadError> {
    let parts: Vec<&str> = spec.split(':').collect();
    if let Some(made) = kernels::parse(&parts) {
        return made.map_err(|e| WorkloadError(format!("workload `{spec}`: {e}")));
    }
    tree(spec, &parts)
}

/// The error for `spec` when it names no workload: every accepted form.
fn bad(spec: &str) -> WorkloadError {
    const FORMS: &str = "fib:N, tree:ITEMS[:SEED], range:ITEMS[:GRAIN:NS], iter:ITEMS[:RUNS[:NS]], iter-replay:ITEMS[:RUNS[:NS]], \
                         spawn:JOBS[:NS], stream:CHUNKS:BYTES[:spread|pack]";
    WorkloadError(format!(
        "workload `{spec}`: expected one of {FORMS}, {}",
        kernels::FORMS
    ))
}

/// Most nanoseconds of work a tree workload may ask for (about 13 days):
/// with sizes up to 2^40 each, a product of them could wrap, and a
/// simulation that long is a typo, not a question.
const MAX_WORK_NS: u64 = 1 << 50;

/// The workload without data (`workload`'s trees) that `parts`, `spec`
/// split at `:`, names, within the kernels' limits: every size at most
/// 2^40 (a seed any number), about 2^24 tasks and [`MAX_WORK_NS`] of
/// work at most.
///
/// # Errors
/// As [`parse`], and a size, task count or amount of work above those
/// limits.
fn tree(spec: &str, parts: &[&str]) -> Result<Box<dyn Workload + Send + Sync>, WorkloadError> {
    let seed = |i: usize| -> Result<u64, WorkloadError> {
        parts
            .get(i)
            .map_or(Ok(1), |s| s.parse().map_err(|_| bad(spec)))
    };
    let num = |i: usize, default: Option<u64>| -> Result<u64, WorkloadError> {
        let v = match parts.get(i) {
            Some(s) => s.parse().map_err(|_| bad(spec))?,
            None => default.ok_or_else(|| bad(spec))?,
        };
        kernels::at_most_max(v).map_err(|e| WorkloadError(format!("workload `{spec}`: {e}")))
    };
    let product = kernels::product;
    // (the workload, about how many tasks it makes, its work in ns)
    let (w, tasks, work): (Box<dyn Workload + Send + Sync>, u64, u64) = match parts[0] {
        "fib" if parts.len() == 2 => {
            let n = num(1, None)?;
            if n > 40 {
                return Err(WorkloadError(format!(
                    "workload `{spec}`: fib above 40 takes too long to simulate"
                )));
            }
            // fib(40) makes about 2^28 calls: the one shape above the task
            // limit, kept because its cost is known and bounded.
            (Box::new(Fib { n, ns: 10 }), 0, 0)
        }
        "tree" if parts.len() <= 3 => {
            let len = num(1, None)?;
            let w = RandomTree {
                len,
                grain: GRAIN,
                seed: seed(2)?,
            };
            (Box::new(w), product(&[2, len.div_ceil(GRAIN)]), 0)
        }
        "range" if matches!(parts.len(), 2 | 4) => {
            let w = IterRange {
                len: num(1, None)?,
                grain: num(2, Some(GRAIN))?.max(1),
                ns: num(3, Some(ITEM_NS))?,
            };
            let tasks = product(&[2, w.len.div_ceil(w.grain)]);
            let work = product(&[w.len, w.ns]);
            (Box::new(w), tasks, work)
        }
        "iter" | "iter-replay" if (2..=4).contains(&parts.len()) => {
            let replay = parts[0] == "iter-replay";
            let w = Iter {
                len: num(1, None)?,
                ns: num(3, Some(ITEM_NS))?,
                runs: num(2, Some(if replay { Iter::REPLAY_RUNS } else { 1 }))?.max(1),
                replay,
            };
            // Each run splits adaptively (a few pieces a worker), so the
            // runs are what counts.
            let (tasks, work) = (w.runs, product(&[w.len, w.ns, w.runs]));
            (Box::new(w), tasks, work)
        }
        "spawn" if parts.len() <= 3 => {
            let w = SpawnStorm {
                jobs: num(1, None)?,
                ns: num(2, Some(SpawnStorm::NS))?,
            };
            let (tasks, work) = (w.jobs, product(&[w.jobs, w.ns]));
            (Box::new(w), tasks, work)
        }
        "stream" if (3..=4).contains(&parts.len()) => {
            let placement = match parts.get(3).copied().unwrap_or("spread") {
                "spread" => Placement::Spread,
                "pack" => Placement::Pack,
                _ => return Err(bad(spec)),
            };
            let w = stream(num(1, None)?, num(2, None)?, placement);
            let tasks = product(&[w.sweeps, w.chunks]);
            let work = product(&[w.sweeps, w.chunks, w.chunk_work_ns()]);
            (Box::new(w), tasks, work)
        }
        _ => return Err(bad(spec)),
    };
    if work > MAX_WORK_NS {
        return Err(WorkloadError(format!(
            "workload `{spec}`: more than 2^50 ns of work, too long to simulate; take a smaller size"
        )));
    }
    kernels::tasks_at_most(tasks, w).map_err(|e| WorkloadError(format!("workload `{spec}`: {e}")))
}

/// `stream:CHUNKS:BYTES[:spread|pack]`: four sweeps without a gap, a
/// packed stream in a group of `Affinity::Auto`.
fn stream(chunks: u64, bytes: u64, placement: Placement) -> Stream {
    Stream {
        chunks,
        bytes,
        sweeps: 4,
        gap_ns: 0,
        placement,
        affinity: if placement == Placement::Pack {
            Affinity::Auto
        } else {
            Affinity::None
        },
    }
}
