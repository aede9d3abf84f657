//! Workloads with data, the kernels users run: a stencil, a blocked
//! matrix product, a merge sort, STREAM's triad, a tree reduction and a
//! pipeline of job groups. Each declares the data it reads and writes as
//! [`Touch`](crate::sim::workload::Touch)es (named blocks of its arrays), so the cost model charges
//! moving them from where they were last written; none uses
//! [`Task::footprint`](crate::sim::workload::Task::footprint) (its tasks' data all has a name).
//!
//! # Work figures
//!
//! Work is what a task costs with its data in the core's own caches (the
//! cost model adds moving it); the reference core is a 3 GHz x86 core with
//! two 256-bit FMA units, 16 double-precision flops a cycle (Intel 64 and
//! IA-32 Architectures Optimization Reference Manual; Agner Fog's
//! instruction tables for Haswell and Zen 2 and later), two loads and one
//! store a cycle. Round figures, each from a published rate:
//!
//! | kernel | work | from |
//! |---|---|---|
//! | stencil (5 points, Jacobi) | 0.5 ns a grid point | about a point a cycle from L1 with two loads and a store a cycle and neighbours reused (the roofline model of Williams, Waterman and Patterson, CACM 2009, puts 5- and 7-point stencils at ~0.5 flops a byte: memory-bound, so the moved data dominates); halved for bands in L2 |
//! | matmul (blocked DGEMM) | 0.025 ns a flop (40 GFLOP/s) | about 85% of the 48 GFLOP/s peak, what tuned DGEMM kernels reach on one core (Van Zee and van de Geijn, "BLIS", ACM TOMS 2015; Goto and van de Geijn, ACM TOMS 2008) |
//! | mergesort | 1 ns an element a level (n log2 n to sort a run, n to merge) | Rust's `slice::sort_unstable` (pdqsort) sorts a million random `u64` in about 20 ms on such a core, 1 ns an element a level; a branchless merge moves about an element a ns |
//! | triad (a = b + s c) | 1/3 ns an element | a cycle an element (two loads, a store, an FMA) from L1/L2; McCalpin's STREAM rules out caches, the cost model charges the moves |
//! | reduce (sum) | 1/4 ns an element | a load and an add a lane, several accumulators: about 4 elements a ns in cache |
//! | pipeline stage | 1 ns per 16 bytes of the item | as the `stream` workload |
//!
//! # Data names
//!
//! A [`Touch::id`](crate::sim::workload::Touch::id) is `kind << 56 | array << 48 | index`: the same block
//! is the same id in every task and every sweep, so the model knows where
//! it was last written.
//!
//! One module per kernel; `common` holds the pieces they share (block
//! ids, task builders, touches) and `parse` the names of the `simulate`
//! example's `--workload` for them.

mod common;
mod matmul;
mod mergesort;
mod parse;
mod pipeline;
mod reduce;
mod stencil;
mod triad;

#[cfg(test)]
mod tests;

pub use matmul::Matmul;
pub use mergesort::Mergesort;
pub(super) use parse::{FORMS, at_most_max, parse, product, tasks_at_most};
pub use pipeline::Pipeline;
pub use reduce::Reduce;
pub use stencil::Stencil;
pub use triad::Triad;
