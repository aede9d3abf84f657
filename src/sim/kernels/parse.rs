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
pub(crate) const FORMS: &str = "stencil[:N[:SWEEPS]], stencil-replay[:N[:SWEEPS]], matmul[:N[:BLOCK]], \
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
        "mergesort" => 2,
        "stencil" | "stencil-replay" | "matmul" | "triad" | "reduce" | "pipeline" => 3,
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
/// A number that does not parse, is zero or is above [`at_most_max`]'s
/// limit.
fn size(parts: &[&str], i: usize, default: u64) -> Result<u64, String> {
    match parts.get(i) {
        None => Ok(default),
        Some(s) => match s.parse::<u64>() {
            Ok(0) | Err(_) => Err(format!("`{s}` is not a positive whole number")),
            Ok(v) => at_most_max(v),
        },
    }
}

/// `v` if it is at most 2^40, the largest size of any workload (kernel or
/// shape): products of a few such sizes are checked by [`product`].
///
/// # Errors
/// A larger `v`.
pub(crate) fn at_most_max(v: u64) -> Result<u64, String> {
    if v > 1 << 40 {
        Err(format!("{v} is too large to simulate"))
    } else {
        Ok(v)
    }
}

/// The product of `factors`, `u64::MAX` if it overflows: task counts
/// are products of sizes up to 2^40 each, and a count that wrapped could
/// pass [`tasks_at_most`]'s limit.
pub(crate) fn product(factors: &[u64]) -> u64 {
    factors.iter().fold(1, |p: u64, &f| p.saturating_mul(f))
}

/// `w`, which makes about `tasks` tasks, unless that is more than 2^24.
///
/// # Errors
/// More than 2^24 tasks.
pub(crate) fn tasks_at_most(tasks: u64, w: Made) -> Result<Made, String> {
    if tasks > 1 << 24 {
        // A count that saturated (`u64::MAX`) is not an estimate.
        let about = if tasks == u64::MAX {
            "more than 2^64".to_string()
        } else {
            format!("about {tasks}")
        };
        Err(format!(
            "{} makes {about} tasks, too many to simulate; take a smaller size",
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
            (product(&[2, w.bands(), w.sweeps]), Box::new(w))
        }
        "matmul" => {
            let w = Matmul::new(num(1, Matmul::N)?, num(2, Matmul::BLOCK)?);
            // A block's flops (2 block^2 n) must fit the simulator's
            // integers.
            if (2 * w.block)
                .checked_mul(w.block)
                .and_then(|x| x.checked_mul(w.n))
                .is_none()
            {
                return Err(format!(
                    "blocks of {b} x {b} on a side of {n} are too large to simulate; \
                     take a smaller block or side",
                    b = w.block,
                    n = w.n
                ));
            }
            let nb = w.blocks();
            (product(&[2, nb, nb]), Box::new(w))
        }
        "mergesort" => {
            let n = num(1, Mergesort::N)?
                .max(Mergesort::RUN)
                .next_power_of_two();
            let runs = n / Mergesort::RUN;
            (
                product(&[4, runs, u64::from(runs.ilog2() + 1)]),
                Box::new(Mergesort { n }),
            )
        }
        "triad" => {
            let w = Triad {
                n: num(1, Triad::N)?,
                iters: num(2, Triad::ITERS)?,
            };
            (
                product(&[2, w.n.div_ceil(Triad::CHUNK), w.iters]),
                Box::new(w),
            )
        }
        "reduce" => {
            let w = Reduce {
                n: num(1, Reduce::N)?,
                runs: num(2, Reduce::RUNS)?,
            };
            (
                product(&[2, w.n.div_ceil(Reduce::LEAF), w.runs]),
                Box::new(w),
            )
        }
        _ => {
            let w = Pipeline {
                items: num(1, Pipeline::ITEMS)?,
                stages: num(2, Pipeline::STAGES)?,
            };
            (product(&[w.items, w.stages]), Box::new(w))
        }
    })
}
