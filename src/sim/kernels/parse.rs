//! The data workloads' names (`stencil[:N[:SWEEPS]]`, ...) and their
//! parsing into kernels, with each kernel's default sizes.
//!
//! Invariants: a parsed kernel makes at most about 2^24 tasks (a larger
//! size is an error, not a long simulation); every size is a positive
//! whole number.

use super::matmul::Matmul;
use super::mergesort::Mergesort;
use super::pipeline::Pipeline;
use super::reduce::Reduce;
use super::stencil::Stencil;
use super::triad::Triad;
use crate::sim::workload::Workload;

/// The accepted forms of the data workloads' names, for error messages.
pub(crate) const FORMS: &str = "stencil[:N[:SWEEPS]], stencil-replay[:N[:SWEEPS]], matmul[:N], \
                                mergesort[:N], triad[:N[:ITERS]], reduce[:N[:RUNS]], \
                                pipeline[:ITEMS[:STAGES]]";

/// A parsed workload, as the simulator takes it.
type Made = Box<dyn Workload + Send + Sync>;

/// The data workload `parts` (a spec split at `:`) names, `None` if its
/// name is not one of them. Sizes are optional (the defaults of each
/// type); matmul's side is rounded up to a multiple of its block,
/// mergesort's elements to a power of two of at least a run.
///
/// # Errors
/// A number that does not parse, is zero, or makes more than about
/// 2^24 tasks (too long to simulate).
pub(crate) fn parse(parts: &[&str]) -> Option<Result<Made, String>> {
    let max_args = match parts[0] {
        "matmul" | "mergesort" => 2,
        "stencil" | "stencil-replay" | "triad" | "reduce" | "pipeline" => 3,
        _ => return None,
    };
    if parts.len() > max_args {
        return Some(Err(format!("too many numbers for `{}`", parts[0])));
    }
    Some(kernel(parts).and_then(|(tasks, w)| tasks_at_most(tasks, w)))
}

/// Size `i` of `parts`, `default` when it is not given.
///
/// # Errors
/// A number that does not parse, is zero or is above 2^40.
fn size(parts: &[&str], i: usize, default: u64) -> Result<u64, String> {
    match parts.get(i) {
        None => Ok(default),
        Some(s) => match s.parse::<u64>() {
            Ok(0) | Err(_) => Err(format!("`{s}` is not a positive whole number")),
            Ok(v) if v > 1 << 40 => Err(format!("{v} is too large to simulate")),
            Ok(v) => Ok(v),
        },
    }
}

/// `w`, which makes about `tasks` tasks, unless that is more than 2^24.
///
/// # Errors
/// More than 2^24 tasks.
fn tasks_at_most(tasks: u64, w: Made) -> Result<Made, String> {
    if tasks > 1 << 24 {
        Err(format!(
            "{} makes about {tasks} tasks, too many to simulate; take a smaller size",
            w.name()
        ))
    } else {
        Ok(w)
    }
}

/// The kernel `parts` names (a name [`parse`] accepts, with at most its
/// number of sizes) and about how many tasks it makes.
///
/// # Errors
/// A size that [`size`] refuses.
fn kernel(parts: &[&str]) -> Result<(u64, Made), String> {
    let num = |i: usize, default: u64| size(parts, i, default);
    Ok(match parts[0] {
        "stencil" | "stencil-replay" => {
            let w = Stencil {
                n: num(1, Stencil::N)?,
                sweeps: num(2, Stencil::SWEEPS)?,
                replay: parts[0] == "stencil-replay",
            };
            (2 * w.bands() * w.sweeps, Box::new(w))
        }
        "matmul" => {
            let n = num(1, Matmul::N)?.next_multiple_of(Matmul::BLOCK);
            let nb = n / Matmul::BLOCK;
            (2 * nb * nb, Box::new(Matmul { n }))
        }
        "mergesort" => {
            let n = num(1, Mergesort::N)?
                .max(Mergesort::RUN)
                .next_power_of_two();
            let runs = n / Mergesort::RUN;
            (
                4 * runs * u64::from(runs.ilog2() + 1),
                Box::new(Mergesort { n }),
            )
        }
        "triad" => {
            let w = Triad {
                n: num(1, Triad::N)?,
                iters: num(2, Triad::ITERS)?,
            };
            (2 * w.n.div_ceil(Triad::CHUNK) * w.iters, Box::new(w))
        }
        "reduce" => {
            let w = Reduce {
                n: num(1, Reduce::N)?,
                runs: num(2, Reduce::RUNS)?,
            };
            (2 * w.n.div_ceil(Reduce::LEAF) * w.runs, Box::new(w))
        }
        _ => {
            let w = Pipeline {
                items: num(1, Pipeline::ITEMS)?,
                stages: num(2, Pipeline::STAGES)?,
            };
            (w.items * w.stages, Box::new(w))
        }
    })
}
