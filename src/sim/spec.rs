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
/// An unknown name or a number that does not parse; the message lists the
/// accepted forms.
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

/// The workload without data (`workload`'s trees) that `parts`, `spec`
/// split at `:`, names.
///
/// # Errors
/// As [`parse`].
fn tree(spec: &str, parts: &[&str]) -> Result<Box<dyn Workload + Send + Sync>, WorkloadError> {
    let num = |i: usize, default: Option<u64>| -> Result<u64, WorkloadError> {
        match parts.get(i) {
            Some(s) => s.parse().map_err(|_| bad(spec)),
            None => default.ok_or_else(|| bad(spec)),
        }
    };
    Ok(match parts[0] {
        "fib" if parts.len() == 2 => {
            let n = num(1, None)?;
            if n > 40 {
                return Err(WorkloadError(format!(
                    "workload `{spec}`: fib above 40 takes too long to simulate"
                )));
            }
            Box::new(Fib { n, ns: 10 })
        }
        "tree" if parts.len() <= 3 => Box::new(RandomTree {
            len: num(1, None)?,
            grain: GRAIN,
            seed: num(2, Some(1))?,
        }),
        "range" if matches!(parts.len(), 2 | 4) => Box::new(IterRange {
            len: num(1, None)?,
            grain: num(2, Some(GRAIN))?.max(1),
            ns: num(3, Some(ITEM_NS))?,
        }),
        "iter" | "iter-replay" if (2..=4).contains(&parts.len()) => {
            let replay = parts[0] == "iter-replay";
            Box::new(Iter {
                len: num(1, None)?,
                ns: num(3, Some(ITEM_NS))?,
                runs: num(2, Some(if replay { 4 } else { 1 }))?.max(1),
                replay,
            })
        }
        "spawn" if parts.len() <= 3 => Box::new(SpawnStorm {
            jobs: num(1, None)?,
            ns: num(2, Some(1000))?,
        }),
        "stream" if (3..=4).contains(&parts.len()) => {
            let placement = match parts.get(3).copied().unwrap_or("spread") {
                "spread" => Placement::Spread,
                "pack" => Placement::Pack,
                _ => return Err(bad(spec)),
            };
            Box::new(stream(num(1, None)?, num(2, None)?, placement))
        }
        _ => return Err(bad(spec)),
    })
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
