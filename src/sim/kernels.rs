//! Workloads with data, the kernels users run: a stencil, a blocked
//! matrix product, a merge sort, STREAM's triad, a tree reduction and a
//! pipeline of job groups. Each declares the data it reads and writes as
//! [`Touch`]es (named blocks of its arrays), so the cost model charges
//! moving them from where they were last written; none uses
//! [`Task::footprint`] (its tasks' data all has a name).
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
//! A [`Touch::id`] is `kind << 56 | array << 48 | index`: the same block
//! is the same id in every task and every sweep, so the model knows where
//! it was last written.

use crate::groups::{Affinity, GroupOptions, Placement};

use super::workload::{Body, IterSpec, Node, Root, Task, Touch, Workload, one_root};

/// The id of block `index` of array `array` of workload kind `kind`.
const fn id(kind: u64, array: u64, index: u64) -> u64 {
    kind << 56 | array << 48 | index
}

/// Bytes of an `f64` (or `u64`) element.
const ELEM: u64 = 8;

/// Work of a split (a `join` that only halves its range), as the other
/// workloads charge it.
const SPLIT_NS: u64 = 5;

/// A task of `work_ns` and `body` whose data is all named by
/// [`Workload::touches`] (no footprint, no data identity): every task of
/// these workloads.
fn task(work_ns: u64, body: Body) -> Task {
    Task {
        work_ns,
        footprint: 0,
        data: None,
        body,
    }
}

/// A leaf of `work_ns`.
fn leaf(work_ns: u64) -> Task {
    task(work_ns, Body::Leaf)
}

/// A split (a `join`, or a `join` and then a task), at [`SPLIT_NS`].
fn split(body: Body) -> Task {
    task(SPLIT_NS, body)
}

/// The task that runs `spec`'s iterator (run `run` of a loop).
fn iter_task(spec: IterSpec) -> Task {
    task(0, Body::Iter(spec))
}

/// `join` of the two halves of `lo..lo + len` (the first `len / 2`
/// items, then the rest), both with `tag`.
fn halves(lo: u64, len: u64, tag: u64) -> Body {
    let h = len / 2;
    Body::Join(Node::new(lo, h, tag), Node::new(lo + h, len - h, tag))
}

/// A split of items `lo..lo + len` of an iterator whose items are blocks
/// (`with_max_len(1)`): halves down to single items; the leaf is the item.
fn split_items(node: &Node, leaf: impl FnOnce(u64) -> Task) -> Task {
    let (lo, len, tag) = (node.a, node.b, node.c);
    if len <= 1 {
        return leaf(lo);
    }
    split(halves(lo, len, tag))
}

/// A read of `bytes` of block `id`.
fn read(id: u64, bytes: u64) -> Touch {
    Touch {
        id,
        bytes,
        write: false,
    }
}

/// A write of `bytes` of block `id` (its worker becomes the block's only
/// holder).
fn write(id: u64, bytes: u64) -> Touch {
    Touch {
        id,
        bytes,
        write: true,
    }
}

/// A Jacobi sweep of a 5-point stencil over an `n` x `n` grid of `f64`,
/// `sweeps` times over the same two arrays (each sweep reads one and
/// writes the other). A sweep is an indexed iterator over bands of
/// [`Stencil::BAND`] rows (`par_chunks_mut(BAND * n).with_max_len(1)`),
/// so locus's first split cuts it by domain; with `replay`, every sweep
/// uses the same affinity replay handle. A band reads its rows and the
/// boundary rows of its two neighbours and writes its rows. 0.5 ns a
/// point (module docs).
#[derive(Debug, Clone)]
pub struct Stencil {
    /// Grid side (rows and columns).
    pub n: u64,
    /// Sweeps.
    pub sweeps: u64,
    /// Whether the sweeps use an affinity replay handle.
    pub replay: bool,
}

impl Stencil {
    /// Rows a band (an item of a sweep) holds.
    pub const BAND: u64 = 4;
    /// Default grid side: two 32 MiB arrays.
    pub const N: u64 = 2048;
    /// Default sweeps.
    pub const SWEEPS: u64 = 8;
    const KIND: u64 = 1;

    fn bands(&self) -> u64 {
        self.n.div_ceil(Self::BAND).max(1)
    }

    fn rows(&self, band: u64) -> u64 {
        Self::BAND.min(self.n - band * Self::BAND)
    }
}

impl Workload for Stencil {
    fn name(&self) -> String {
        let kind = if self.replay {
            "stencil-replay"
        } else {
            "stencil"
        };
        format!("{kind}:{}:{}", self.n, self.sweeps)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    // A sweep's node is `(sweep, 0, 0)`; its items' nodes are
    // `(lo, len, sweep + 1)`.
    fn task(&self, node: &Node) -> Task {
        if node.c >= 1 {
            return split_items(node, |band| leaf(self.rows(band) * self.n / 2));
        }
        let sweep = node.a;
        iter_task(IterSpec {
            len: self.bands(),
            min_len: 1,
            replay: self.replay,
            piece: sweep + 1,
            then: (sweep + 1 < self.sweeps).then(|| Node::new(sweep + 1, 0, 0)),
        })
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.c == 0 || node.b != 1 {
            return Vec::new();
        }
        let (band, sweep) = (node.a, node.c - 1);
        let (src, dst) = (sweep % 2, 1 - sweep % 2);
        let row = self.n * ELEM;
        let mut t = vec![read(id(Self::KIND, src, band), self.rows(band) * row)];
        for nb in [band.checked_sub(1), Some(band + 1)].into_iter().flatten() {
            if nb < self.bands() {
                t.push(read(id(Self::KIND, src, nb), row));
            }
        }
        t.push(write(id(Self::KIND, dst, band), self.rows(band) * row));
        t
    }
}

/// `C = A B` for `n` x `n` matrices of `f64` in blocks of
/// [`Matmul::BLOCK`] x `BLOCK` (`n` rounded up to a multiple of it): a
/// recursive `join` halves the larger side of the range of C's blocks, as
/// a cache-oblivious blocked product splits, down to one C block, which
/// reads A's row of blocks and B's column of blocks (each `BLOCK * n`
/// elements) and writes its block: `2 BLOCK^2 n` flops at 0.025 ns a flop
/// (module docs).
#[derive(Debug, Clone)]
pub struct Matmul {
    /// Matrix side (a multiple of [`Matmul::BLOCK`]).
    pub n: u64,
}

impl Matmul {
    /// Block side.
    pub const BLOCK: u64 = 64;
    /// Default matrix side: three 32 MiB matrices, 1,024 C blocks.
    pub const N: u64 = 2048;
    const KIND: u64 = 2;

    fn blocks(&self) -> u64 {
        self.n / Self::BLOCK
    }
}

/// Packs a range of block indices `lo..lo + len` into a node word.
const fn range(lo: u64, len: u64) -> u64 {
    lo | len << 32
}

/// Unpacks [`range`].
const fn unrange(x: u64) -> (u64, u64) {
    (x & 0xFFFF_FFFF, x >> 32)
}

impl Workload for Matmul {
    fn name(&self) -> String {
        format!("matmul:{}", self.n)
    }
    fn roots(&self) -> Vec<Root> {
        let nb = self.blocks();
        one_root(Node::new(range(0, nb), range(0, nb), 0))
    }
    // A node is (rows of C blocks, columns of C blocks).
    fn task(&self, node: &Node) -> Task {
        let ((i0, ni), (j0, nj)) = (unrange(node.a), unrange(node.b));
        if ni * nj <= 1 {
            // 2 BLOCK^2 n flops at 40 GFLOP/s.
            return leaf(2 * Self::BLOCK * Self::BLOCK * self.n / 40);
        }
        let body = if ni >= nj {
            let h = ni / 2;
            Body::Join(
                Node::new(range(i0, h), node.b, 0),
                Node::new(range(i0 + h, ni - h), node.b, 0),
            )
        } else {
            let h = nj / 2;
            Body::Join(
                Node::new(node.a, range(j0, h), 0),
                Node::new(node.a, range(j0 + h, nj - h), 0),
            )
        };
        split(body)
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let ((i, ni), (j, nj)) = (unrange(node.a), unrange(node.b));
        if ni * nj != 1 {
            return Vec::new();
        }
        let panel = Self::BLOCK * self.n * ELEM;
        vec![
            read(id(Self::KIND, 0, i), panel),
            read(id(Self::KIND, 1, j), panel),
            write(
                id(Self::KIND, 2, i * self.blocks() + j),
                Self::BLOCK * Self::BLOCK * ELEM,
            ),
        ]
    }
}

/// A parallel merge sort of `n` `u64`s (`n` rounded up to a power of two
/// of at least [`Mergesort::RUN`]), as rayon's `par_sort` works: a
/// recursive `join` down to runs of `RUN` elements, each sorted in place
/// (`RUN log2 RUN` ns); after a `join`, its two sorted halves are merged
/// into the other buffer by a parallel merge, itself a `join` tree over
/// the output down to pieces of `RUN` elements, each reading about half of
/// its elements from each input run and writing its piece (1 ns an
/// element). Runs alternate between two buffers by depth; the data is
/// named by buffer and run of `RUN` elements.
#[derive(Debug, Clone)]
pub struct Mergesort {
    /// Elements (a power of two, at least [`Mergesort::RUN`]).
    pub n: u64,
}

impl Mergesort {
    /// Elements of a sorted leaf run and of a merge piece (32 KiB).
    pub const RUN: u64 = 4096;
    /// Default elements: 4 Mi (32 MiB a buffer).
    pub const N: u64 = 1 << 22;
    const KIND: u64 = 3;
    const MERGE: u64 = 1;

    /// The chunk of buffer `buf` that element `at` is in.
    fn chunk(buf: u64, at: u64) -> u64 {
        id(Self::KIND, buf, at / Self::RUN)
    }
}

impl Workload for Mergesort {
    fn name(&self) -> String {
        format!("mergesort:{}", self.n)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.n, 0))
    }
    // A node is (lo, len, depth * 2 + merge): a sort of lo..lo + len, or
    // the piece lo..lo + len of the output of the merge at that depth.
    fn task(&self, node: &Node) -> Task {
        let (lo, len, depth, merge) = (node.a, node.b, node.c / 2, node.c % 2);
        let h = len / 2;
        if len <= Self::RUN {
            let work = if merge == Self::MERGE {
                len
            } else {
                len * u64::from(len.max(2).ilog2())
            };
            return leaf(work);
        }
        let (a, b) = (
            Node::new(lo, h, node.c + 2 * (1 - merge)),
            Node::new(lo + h, h, node.c + 2 * (1 - merge)),
        );
        let body = if merge == Self::MERGE {
            Body::Join(a, b)
        } else {
            Body::JoinThen(a, b, Node::new(lo, len, depth * 2 + Self::MERGE))
        };
        split(body)
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let (lo, len, depth, merge) = (node.a, node.b, node.c / 2, node.c % 2);
        if len > Self::RUN {
            return Vec::new();
        }
        // Depth d's output goes to buffer d % 2; its inputs (depth d + 1's
        // outputs) are in the other.
        let out = depth % 2;
        let bytes = len * ELEM;
        if merge != Self::MERGE {
            // A leaf sorts its run in place, in its depth's buffer (the
            // write fetches it).
            return vec![write(Self::chunk(out, lo), bytes)];
        }
        // The merge of run m..m + 2h (h = n >> (depth + 1)) into piece
        // lo..lo + len takes about half from each input at the same offset.
        let half = self.n >> (depth + 1);
        let m = lo - lo % (2 * half);
        let off = (lo - m) / 2;
        let inb = 1 - out;
        vec![
            read(Self::chunk(inb, m + off), bytes / 2),
            read(Self::chunk(inb, m + half + off), bytes / 2),
            write(Self::chunk(out, lo), bytes),
        ]
    }
}

/// STREAM's triad `a[i] = b[i] + s * c[i]` over three arrays of `n`
/// `f64`s, `iters` times: each iteration an indexed iterator over chunks
/// of [`Triad::CHUNK`] elements (`with_max_len(1)`; locus's first split
/// cuts it by domain, the same way every iteration), a chunk reading `b`
/// and `c` and writing `a`. 1/3 ns an element (module docs).
#[derive(Debug, Clone)]
pub struct Triad {
    /// Elements of each array.
    pub n: u64,
    /// Iterations.
    pub iters: u64,
}

impl Triad {
    /// Elements of a chunk (64 KiB of each array).
    pub const CHUNK: u64 = 8192;
    /// Default elements: 4 Mi (three 32 MiB arrays).
    pub const N: u64 = 1 << 22;
    /// Default iterations.
    pub const ITERS: u64 = 10;
    const KIND: u64 = 4;

    fn len(&self, chunk: u64) -> u64 {
        Self::CHUNK.min(self.n - chunk * Self::CHUNK)
    }
}

impl Workload for Triad {
    fn name(&self) -> String {
        format!("triad:{}:{}", self.n, self.iters)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    fn task(&self, node: &Node) -> Task {
        if node.c >= 1 {
            return split_items(node, |chunk| leaf(self.len(chunk) / 3));
        }
        let it = node.a;
        iter_task(IterSpec {
            len: self.n.div_ceil(Self::CHUNK).max(1),
            min_len: 1,
            replay: false,
            piece: it + 1,
            then: (it + 1 < self.iters).then(|| Node::new(it + 1, 0, 0)),
        })
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.c == 0 || node.b != 1 {
            return Vec::new();
        }
        let (chunk, bytes) = (node.a, self.len(node.a) * ELEM);
        vec![
            read(id(Self::KIND, 1, chunk), bytes),
            read(id(Self::KIND, 2, chunk), bytes),
            write(id(Self::KIND, 0, chunk), bytes),
        ]
    }
}

/// A tree reduction (a sum) over an array of `n` `f64`s, `runs` times one
/// after the other: a recursive `join` halving the range down to leaves
/// of [`Reduce::LEAF`] elements, each reading its chunk (1/4 ns an
/// element, module docs); the next run starts after the previous one
/// returned.
#[derive(Debug, Clone)]
pub struct Reduce {
    /// Elements.
    pub n: u64,
    /// Runs.
    pub runs: u64,
}

impl Reduce {
    /// Elements of a leaf (64 KiB).
    pub const LEAF: u64 = 8192;
    /// Default elements: 8 Mi (64 MiB).
    pub const N: u64 = 1 << 23;
    /// Default runs.
    pub const RUNS: u64 = 8;
    const KIND: u64 = 5;
}

impl Workload for Reduce {
    fn name(&self) -> String {
        format!("reduce:{}:{}", self.n, self.runs)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.n, 0))
    }
    // A node is (lo, len, run + 1); `(run, 0, 0)` is run `run`'s start.
    fn task(&self, node: &Node) -> Task {
        if node.c == 0 {
            // Run `run`: the tree's two halves (an empty one when the array
            // is one leaf), then the next run inline.
            let (run, tag) = (node.a, node.a + 1);
            let h = if self.n > Self::LEAF {
                self.n / 2
            } else {
                self.n
            };
            let (a, b) = (Node::new(0, h, tag), Node::new(h, self.n - h, tag));
            let next = (run + 1 < self.runs).then(|| Node::new(run + 1, 0, 0));
            return split(match next {
                Some(next) => Body::JoinThen(a, b, next),
                None => Body::Join(a, b),
            });
        }
        let (lo, len) = (node.a, node.b);
        if len <= Self::LEAF {
            return leaf(len / 4);
        }
        split(halves(lo, len, node.c))
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let len = node.b;
        if node.c == 0 || len == 0 || len > Self::LEAF {
            return Vec::new();
        }
        vec![read(id(Self::KIND, 0, node.a), len * ELEM)]
    }
}

/// A pipeline of `stages` stages, each a job group placed with `Pack`
/// (its jobs go to one LLC, `Affinity::Auto`): `items` items of
/// [`Pipeline::ITEM`] bytes, [`Pipeline::BATCH`] entering every period;
/// stage `s` of an item reads the item (written by stage `s - 1`) and
/// the stage's own state ([`Pipeline::STATE`] bytes: its tables, its
/// model) and writes the item, 1 ns per 16 bytes of the item. Batch
/// `b`'s first stage is injected at `b` periods (a period is twice a
/// stage's work); each stage's task then spawns the item's next stage
/// into the next stage's group ([`Body::Spawn`]), as a program's stage
/// hands its item on. Until the simulator had that spawn, every stage was
/// injected from outside the pool on the same schedule, which is not how
/// a pipeline runs: each `Auto` group learned its LLC from the injectors'
/// round robin, not from where its items were (docs/cache-model.md,
/// "The pipeline's loss").
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Items.
    pub items: u64,
    /// Stages.
    pub stages: u64,
}

impl Pipeline {
    /// Bytes of an item.
    pub const ITEM: u64 = 64 << 10;
    /// Bytes of a stage's state.
    pub const STATE: u64 = 256 << 10;
    /// Items entering per period.
    pub const BATCH: u64 = 8;
    /// Default items.
    pub const ITEMS: u64 = 512;
    /// Default stages.
    pub const STAGES: u64 = 4;
    const KIND: u64 = 6;

    fn work_ns() -> u64 {
        Self::ITEM / 16
    }
}

impl Workload for Pipeline {
    fn name(&self) -> String {
        format!("pipeline:{}:{}", self.items, self.stages)
    }
    // A task is (item, stage, 0).
    fn roots(&self) -> Vec<Root> {
        let period = 2 * Self::work_ns();
        (0..self.items)
            .map(|i| Root {
                at_ns: i / Self::BATCH * period,
                node: Node::new(i, 0, 0),
                group: Some(0),
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupOptions> {
        (0..self.stages)
            .map(|_| GroupOptions {
                placement: Placement::Pack,
                affinity: Affinity::Auto,
            })
            .collect()
    }
    fn task(&self, node: &Node) -> Task {
        let (item, next) = (node.a, node.b + 1);
        if next < self.stages {
            task(
                Self::work_ns(),
                Body::Spawn(Node::new(item, next, 0), next as u32),
            )
        } else {
            leaf(Self::work_ns())
        }
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let (item, stage) = (node.a, node.b);
        let mut t = vec![read(id(Self::KIND, 1, stage), Self::STATE)];
        if stage > 0 {
            t.push(read(id(Self::KIND, 0, item), Self::ITEM));
        }
        t.push(write(id(Self::KIND, 0, item), Self::ITEM));
        t
    }
}

/// The accepted forms of the data workloads' names, for error messages.
pub(super) const FORMS: &str = "stencil[:N[:SWEEPS]], stencil-replay[:N[:SWEEPS]], matmul[:N], \
                                mergesort[:N], triad[:N[:ITERS]], reduce[:N[:RUNS]], \
                                pipeline[:ITEMS[:STAGES]]";

/// The data workload `parts` (a spec split at `:`) names, `None` if its
/// name is not one of them. Sizes are optional (the defaults of each
/// type); matmul's side is rounded up to a multiple of its block,
/// mergesort's elements to a power of two of at least a run.
///
/// # Errors
/// A number that does not parse, is zero, or makes more than about
/// 2^24 tasks (too long to simulate).
pub(super) fn parse(parts: &[&str]) -> Option<Result<Box<dyn Workload + Send + Sync>, String>> {
    let num = |i: usize, default: u64| -> Result<u64, String> {
        match parts.get(i) {
            None => Ok(default),
            Some(s) => match s.parse::<u64>() {
                Ok(0) | Err(_) => Err(format!("`{s}` is not a positive whole number")),
                Ok(v) if v > 1 << 40 => Err(format!("{v} is too large to simulate")),
                Ok(v) => Ok(v),
            },
        }
    };
    let max_args = match parts[0] {
        "matmul" | "mergesort" => 2,
        "stencil" | "stencil-replay" | "triad" | "reduce" | "pipeline" => 3,
        _ => return None,
    };
    if parts.len() > max_args {
        return Some(Err(format!("too many numbers for `{}`", parts[0])));
    }
    let tasks_at_most = |tasks: u64, w: Box<dyn Workload + Send + Sync>| {
        if tasks > 1 << 24 {
            Err(format!(
                "{} makes about {tasks} tasks, too many to simulate; take a smaller size",
                w.name()
            ))
        } else {
            Ok(w)
        }
    };
    let made = (|| -> Result<Box<dyn Workload + Send + Sync>, String> {
        Ok(match parts[0] {
            "stencil" | "stencil-replay" => {
                let w = Stencil {
                    n: num(1, Stencil::N)?,
                    sweeps: num(2, Stencil::SWEEPS)?,
                    replay: parts[0] == "stencil-replay",
                };
                tasks_at_most(2 * w.bands() * w.sweeps, Box::new(w))?
            }
            "matmul" => {
                let n = num(1, Matmul::N)?.next_multiple_of(Matmul::BLOCK);
                let nb = n / Matmul::BLOCK;
                tasks_at_most(2 * nb * nb, Box::new(Matmul { n }))?
            }
            "mergesort" => {
                let n = num(1, Mergesort::N)?
                    .max(Mergesort::RUN)
                    .next_power_of_two();
                let runs = n / Mergesort::RUN;
                tasks_at_most(
                    4 * runs * u64::from(runs.ilog2() + 1),
                    Box::new(Mergesort { n }),
                )?
            }
            "triad" => {
                let w = Triad {
                    n: num(1, Triad::N)?,
                    iters: num(2, Triad::ITERS)?,
                };
                tasks_at_most(2 * w.n.div_ceil(Triad::CHUNK) * w.iters, Box::new(w))?
            }
            "reduce" => {
                let w = Reduce {
                    n: num(1, Reduce::N)?,
                    runs: num(2, Reduce::RUNS)?,
                };
                tasks_at_most(2 * w.n.div_ceil(Reduce::LEAF) * w.runs, Box::new(w))?
            }
            _ => {
                let w = Pipeline {
                    items: num(1, Pipeline::ITEMS)?,
                    stages: num(2, Pipeline::STAGES)?,
                };
                tasks_at_most(w.items * w.stages, Box::new(w))?
            }
        })
    })();
    Some(made)
}
