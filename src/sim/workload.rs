//! Workloads as task graphs: each task has work (ns), a data footprint
//! (bytes) and, when its data outlives it, a data identity; its body is a
//! leaf, a `join` of two tasks, or a scope that spawns tasks and waits.
//!
//! Tasks are generated on demand from a small key ([`Node`]), so a fib(30)
//! tree of 1.6 million tasks takes no memory until it runs.

use std::fmt;

use crate::groups::{Affinity, GroupOptions, Placement};
use crate::iter::plumbing::splitter::LengthSplitter;

/// A task's key, meaning what its workload says (for fib: `a` is `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Node {
    /// First key word.
    pub a: u64,
    /// Second key word.
    pub b: u64,
    /// Third key word.
    pub c: u64,
}

impl Node {
    /// A node with key `(a, b, c)`.
    pub const fn new(a: u64, b: u64, c: u64) -> Node {
        Node { a, b, c }
    }
}

/// What a task does after its own work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Nothing: the task is done.
    Leaf,
    /// `join(a, b)`: `b` is recorded as a private half, `a` runs inline.
    Join(Node, Node),
    /// `join(a, b)`, then the third task inline in the same frame once both
    /// halves returned (a merge after its two sorts, the next run of a
    /// loop).
    JoinThen(Node, Node, Node),
    /// A scope: spawns every task (in the task's group, if any) and waits
    /// for all of them.
    Scope(Vec<Node>),
    /// `JobGroup::spawn` of one task into group `g` (an index of
    /// [`Workload::groups`]) from inside the pool, without waiting for it:
    /// a stage of a pipeline handing its item to the next stage. The task
    /// is done at once; the spawned task belongs to the enclosing scope
    /// (the run), so the run ends when it and what it spawns end.
    Spawn(Node, u32),
    /// An indexed parallel iterator run as the pool runs one: cut by the
    /// first split (`hierarchy::first_split`) into pieces aimed at their
    /// domains, each piece then its own task tree; see [`IterSpec`].
    Iter(IterSpec),
}

/// An indexed iterator's run ([`Body::Iter`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IterSpec {
    /// Items.
    pub len: u64,
    /// The producer's `min_len` (1 unless `with_min_len`).
    pub min_len: u64,
    /// Whether it runs with an affinity replay handle (`with_replay`): one
    /// handle per simulation, kept across the runs of the workload.
    pub replay: bool,
    /// The task of the piece of items `lo..lo + n` (or of the whole
    /// iterator, when it is not cut) is `Node::new(lo, n, piece)`.
    pub piece: u64,
    /// What the task does once the iterator returned (the next run of a
    /// loop), inline in its frame.
    pub then: Option<Node>,
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Its own work, before its body.
    pub work_ns: u64,
    /// Bytes of data it touches (refilled when they were last touched in
    /// another cache).
    pub footprint: u64,
    /// The identity of data that outlives the task (a chunk of an array
    /// swept again and again); `None`: its data was last touched by the
    /// worker that created the task.
    pub data: Option<u64>,
    /// What it does next.
    pub body: Body,
}

/// A piece of named data a task reads or writes, besides its
/// [`Task::footprint`] ([`Workload::touches`]): a block of a matrix, a row
/// band of a grid, a run of a sort. The cost model charges moving its
/// bytes to the task's worker from where the data is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// The data's identity: the same `id` is the same bytes in every task
    /// and every run of the workload (the same namespace as
    /// [`Task::data`]).
    pub id: u64,
    /// Bytes of it the task touches.
    pub bytes: u64,
    /// Whether the task writes it (a write makes the task's worker the
    /// data's only holder).
    pub write: bool,
}

/// A task started from outside the pool at a given time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// When it is injected.
    pub at_ns: u64,
    /// The task.
    pub node: Node,
    /// Its job group (an index into [`Workload::groups`]).
    pub group: Option<usize>,
}

/// A workload: its roots, its groups and how each task unfolds.
pub trait Workload {
    /// A short name for reports (`fib:28`).
    fn name(&self) -> String;
    /// The tasks started from outside, in order of time.
    fn roots(&self) -> Vec<Root>;
    /// The job groups its roots name.
    fn groups(&self) -> Vec<GroupOptions> {
        Vec::new()
    }
    /// The task of `node`.
    fn task(&self, node: &Node) -> Task;
    /// The task of `node` as the pool starts it ([`Start`]): the same as
    /// [`Workload::task`] unless the task's shape depends on where it runs
    /// (an iterator's adaptive split budget).
    fn task_in(&self, node: &Node, start: Start) -> Task {
        let _ = start;
        self.task(node)
    }
    /// The named data the task of `node` touches besides its footprint
    /// (read when its own work starts); none by default.
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let _ = node;
        Vec::new()
    }
}

/// What the pool knows when a task starts, for [`Workload::task_in`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    /// The task runs on another worker than the one that created it (a
    /// stolen `join` half: rayon's `FnContext::migrated`).
    pub migrated: bool,
    /// The pool's workers (`current_num_threads`).
    pub workers: usize,
    /// The split budget a new adaptive tree here starts with: the workers
    /// of the piece's domain inside a first split (`run_split::run_piece`),
    /// else the pool's (`run_split::budget` with demand).
    pub budget: usize,
}

impl Default for Start {
    /// Not migrated, one worker.
    fn default() -> Self {
        Start {
            migrated: false,
            workers: 1,
            budget: 1,
        }
    }
}

/// Total work T1 and span T∞ (critical path) of the tree under `node`, in
/// ns of task work (no overheads).
pub fn work_span(w: &dyn Workload, node: &Node) -> (u64, u64) {
    let t = w.task(node);
    match t.body {
        Body::Leaf => (t.work_ns, t.work_ns),
        Body::Join(a, b) => {
            let (wa, sa) = work_span(w, &a);
            let (wb, sb) = work_span(w, &b);
            (t.work_ns + wa + wb, t.work_ns + sa.max(sb))
        }
        Body::JoinThen(a, b, then) => {
            let (wa, sa) = work_span(w, &a);
            let (wb, sb) = work_span(w, &b);
            let (wt, st) = work_span(w, &then);
            (t.work_ns + wa + wb + wt, t.work_ns + sa.max(sb) + st)
        }
        Body::Scope(kids) => kids.iter().fold((t.work_ns, t.work_ns), |(w1, s), k| {
            let (wk, sk) = work_span(w, k);
            (w1 + wk, s.max(t.work_ns + sk))
        }),
        Body::Spawn(n, _) => {
            let (wn, sn) = work_span(w, &n);
            (t.work_ns + wn, t.work_ns + sn)
        }
        // The whole iterator as one tree (the first split only cuts it at
        // other places), then what follows.
        Body::Iter(spec) => {
            let (wp, sp) = work_span(w, &Node::new(0, spec.len, spec.piece));
            let (wt, st) = spec.then.map_or((0, 0), |n| work_span(w, &n));
            (t.work_ns + wp + wt, t.work_ns + sp + st)
        }
    }
}

/// `fib(n)` with `join`, `ns` of work per call (the command line's
/// `fib:N` takes 10 ns: fib(30) on one core of this crate's benchmark
/// machine takes about 28 ms for 2.7 million calls).
#[derive(Debug, Clone)]
pub struct Fib {
    /// The argument.
    pub n: u64,
    /// Work per call.
    pub ns: u64,
}

impl Workload for Fib {
    fn name(&self) -> String {
        format!("fib:{}", self.n)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(self.n, 0, 0))
    }
    fn task(&self, node: &Node) -> Task {
        let n = node.a;
        let body = if n < 2 {
            Body::Leaf
        } else {
            Body::Join(Node::new(n - 1, 0, 0), Node::new(n - 2, 0, 0))
        };
        Task {
            work_ns: self.ns,
            footprint: 0,
            data: None,
            body,
        }
    }
}

/// A quicksort-like tree: `len` items split at a random point between 1/10
/// and 9/10 (partitioning costs 1 ns per item), leaves of at most `grain`
/// items cost 8 ns per item; 8 bytes per item of data.
#[derive(Debug, Clone)]
pub struct RandomTree {
    /// Items.
    pub len: u64,
    /// Largest leaf.
    pub grain: u64,
    /// Seed of the splits.
    pub seed: u64,
}

impl Workload for RandomTree {
    fn name(&self) -> String {
        format!("tree:{}:{}", self.len, self.seed)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.len, self.seed))
    }
    fn task(&self, node: &Node) -> Task {
        let (lo, len, seed) = (node.a, node.b, node.c);
        if len <= self.grain.max(1) {
            return Task {
                work_ns: len * 8,
                footprint: len * 8,
                data: None,
                body: Body::Leaf,
            };
        }
        let r = mix(seed ^ lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ len);
        let cut = (len / 10 + r % (len * 8 / 10).max(1)).clamp(1, len - 1);
        Task {
            work_ns: len,
            footprint: len * 8,
            data: None,
            body: Body::Join(
                Node::new(lo, cut, mix(r ^ 1)),
                Node::new(lo + cut, len - cut, mix(r ^ 2)),
            ),
        }
    }
}

/// A balanced `join` tree over `len` items, halved down to leaves of
/// `grain` items (`ns` each item): a fixed grain, not the adaptive budget
/// of the pool's iterators ([`Iter`] has that, and the first split).
#[derive(Debug, Clone)]
pub struct IterRange {
    /// Items.
    pub len: u64,
    /// Items per piece.
    pub grain: u64,
    /// Work per item.
    pub ns: u64,
}

impl Workload for IterRange {
    fn name(&self) -> String {
        if (self.grain, self.ns) == (GRAIN, ITEM_NS) {
            format!("range:{}", self.len)
        } else {
            format!("range:{}:{}:{}", self.len, self.grain, self.ns)
        }
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.len, 0))
    }
    fn task(&self, node: &Node) -> Task {
        halves(node, self.grain, self.ns, false)
    }
}

/// The adaptive tree of items `node.a..node.a + node.b`: halved down to
/// `grain` items, 5 ns a split, `ns` an item, 8 bytes an item of data;
/// with `persistent`, each leaf's data outlives it, named by its first
/// item.
fn halves(node: &Node, grain: u64, ns: u64, persistent: bool) -> Task {
    let (lo, len, tag) = (node.a, node.b, node.c);
    if len <= grain.max(1) {
        return Task {
            work_ns: len * ns,
            footprint: len * 8,
            data: persistent.then_some(lo),
            body: Body::Leaf,
        };
    }
    let h = len / 2;
    Task {
        work_ns: 5,
        footprint: 0,
        data: None,
        body: Body::Join(Node::new(lo, h, tag), Node::new(lo + h, len - h, tag)),
    }
}

/// The adaptive split tree of an indexed iterator's items
/// `node.a..node.a + node.b` (`min_len` 1), cut by the pool's own
/// splitter (`iter::plumbing::splitter::LengthSplitter`, the budget rule
/// `split_indexed` asks): a piece's root (`node.c == 1`) starts with
/// `start.budget` splits; the budget left after a split passes to both
/// halves (`node.c` is it plus 2); a half that runs on another worker
/// than its creator (`start.migrated`) renews it to at least the pool's
/// workers; with no budget left the piece is a leaf. 5 ns a split, `ns`
/// an item, 8 bytes of persistent data an item (named by its first item).
/// Not modelled: the lazy budget of a tree started while every worker is
/// busy (`run_split::budget`); the simulator's iterators start with
/// demand, so the splitter never asks for it.
fn adaptive(node: &Node, start: Start, ns: u64) -> Task {
    let (lo, len) = (node.a, node.b);
    let mut splitter = if node.c == 1 {
        LengthSplitter::new(1, usize::MAX, len as usize, start.budget)
    } else {
        LengthSplitter::resume(1, (node.c - 2) as usize)
    };
    if !splitter.try_split_in(len as usize, start.migrated, start.workers, || false) {
        return Task {
            work_ns: len * ns,
            footprint: len * 8,
            data: Some(lo),
            body: Body::Leaf,
        };
    }
    let splits = splitter.splits() as u64;
    let h = len / 2;
    Task {
        work_ns: 5,
        footprint: 0,
        data: None,
        body: Body::Join(
            Node::new(lo, h, splits + 2),
            Node::new(lo + h, len - h, splits + 2),
        ),
    }
}

/// `runs` runs, one after the other, of an indexed iterator over `len`
/// items (`ns` each, 8 bytes of persistent data each: item `i` is the same
/// data in every run) as the pool runs one: the first split
/// ([`Body::Iter`]), then each piece split adaptively ([`Start::budget`]:
/// about as many leaves as the piece's workers, more where halves are
/// stolen), as `split_indexed` splits it. With `replay`, every run uses
/// the same affinity replay handle (`with_replay`).
#[derive(Debug, Clone)]
pub struct Iter {
    /// Items.
    pub len: u64,
    /// Work per item.
    pub ns: u64,
    /// Runs of the iterator, in sequence.
    pub runs: u64,
    /// Whether the runs use an affinity replay handle.
    pub replay: bool,
}

impl Iter {
    /// Runs of `iter-replay` unless the spec names them (`iter` makes 1).
    pub const REPLAY_RUNS: u64 = 4;
}

impl Workload for Iter {
    fn name(&self) -> String {
        let kind = if self.replay { "iter-replay" } else { "iter" };
        let runs = if self.replay { Self::REPLAY_RUNS } else { 1 };
        match (self.runs, self.ns) {
            (r, ITEM_NS) if r == runs => format!("{kind}:{}", self.len),
            (r, ITEM_NS) => format!("{kind}:{}:{r}", self.len),
            (r, ns) => format!("{kind}:{}:{r}:{ns}", self.len),
        }
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    fn task(&self, node: &Node) -> Task {
        self.task_in(node, Start::default())
    }
    fn task_in(&self, node: &Node, start: Start) -> Task {
        if node.c >= 1 {
            return adaptive(node, start, self.ns);
        }
        let run = node.a;
        Task {
            work_ns: 0,
            footprint: 0,
            data: None,
            body: Body::Iter(IterSpec {
                len: self.len,
                min_len: 1,
                replay: self.replay,
                piece: 1,
                then: (run + 1 < self.runs).then(|| Node::new(run + 1, 0, 0)),
            }),
        }
    }
}

/// A spawn storm: one scope spawning `jobs` tasks of `ns` each.
#[derive(Debug, Clone)]
pub struct SpawnStorm {
    /// Tasks spawned.
    pub jobs: u64,
    /// Work per task.
    pub ns: u64,
}

impl SpawnStorm {
    /// Work per task unless the spec names it.
    pub const NS: u64 = 1000;
}

impl Workload for SpawnStorm {
    fn name(&self) -> String {
        if self.ns == Self::NS {
            format!("spawn:{}", self.jobs)
        } else {
            format!("spawn:{}:{}", self.jobs, self.ns)
        }
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    fn task(&self, node: &Node) -> Task {
        if node.a == 0 {
            let kids = (0..self.jobs).map(|i| Node::new(1, i, 0)).collect();
            return Task {
                work_ns: 0,
                footprint: 0,
                data: None,
                body: Body::Scope(kids),
            };
        }
        Task {
            work_ns: self.ns,
            footprint: 0,
            data: None,
            body: Body::Leaf,
        }
    }
}

/// The benchmark suite's STREAM chunks: `sweeps` sweeps (one root each,
/// `gap_ns` apart), each a scope of `chunks` chunk tasks of `bytes` bytes
/// (persistent data: chunk `i` is the same data in every sweep, 1 ns per 16
/// bytes of work), in a job group with `placement`.
#[derive(Debug, Clone)]
pub struct Stream {
    /// Chunks per sweep.
    pub chunks: u64,
    /// Bytes per chunk.
    pub bytes: u64,
    /// Sweeps.
    pub sweeps: u64,
    /// Time between sweeps.
    pub gap_ns: u64,
    /// Where the chunks go.
    pub placement: Placement,
    /// The group's affinity.
    pub affinity: Affinity,
}

impl Stream {
    /// A chunk's work: 1 ns per 16 bytes.
    pub fn chunk_work_ns(&self) -> u64 {
        self.bytes / 16
    }
}

impl Workload for Stream {
    fn name(&self) -> String {
        format!("stream:{}:{}", self.chunks, self.bytes)
    }
    fn roots(&self) -> Vec<Root> {
        (0..self.sweeps)
            .map(|s| Root {
                at_ns: s * self.gap_ns,
                node: Node::new(0, s, 0),
                group: Some(0),
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupOptions> {
        vec![GroupOptions {
            placement: self.placement,
            affinity: self.affinity,
        }]
    }
    fn task(&self, node: &Node) -> Task {
        if node.a == 0 {
            let kids = (0..self.chunks).map(|i| Node::new(1, i, 0)).collect();
            return Task {
                work_ns: 0,
                footprint: 0,
                data: None,
                body: Body::Scope(kids),
            };
        }
        Task {
            work_ns: self.chunk_work_ns(),
            footprint: self.bytes,
            data: Some(node.b),
            body: Body::Leaf,
        }
    }
}

/// One root at time 0, in no group.
pub(super) fn one_root(node: Node) -> Vec<Root> {
    vec![Root {
        at_ns: 0,
        node,
        group: None,
    }]
}

/// SplitMix64's finaliser: the workloads' deterministic randomness.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A workload argument that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadError(pub String);

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WorkloadError {}

/// Items a leaf of the named `tree` and `range` workloads
/// ([`parse_workload`](super::parse_workload)) holds unless the spec says
/// otherwise.
pub(super) const GRAIN: u64 = 1024;

/// Nanoseconds an item of the named `range` and `iter` workloads costs
/// unless the spec says otherwise.
pub(super) const ITEM_NS: u64 = 2;
