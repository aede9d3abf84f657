//! Running the first split of an indexed iterator (see the "First split"
//! section of [`plumbing`](super) for the rules): the pieces of
//! [`hierarchy::first_split`] are grouped per LLC, then per cluster, then
//! one by one, and each group level is a fan-out through
//! `runtime::registry::run_aimed`: the group that contains the running
//! worker runs inline, the others are queued to their domain, and the
//! results are reduced, in item order, as a balanced tree over the
//! groups of that level. So the tree of reductions is the hierarchy: the
//! pieces of a cluster are combined on a worker of that cluster, the
//! clusters of an LLC on a worker of that LLC, and only one result per LLC
//! crosses to the caller.
//!
//! Invariants:
//! - the producer and consumer are cut exactly at the pieces' boundaries
//!   (`split_at` with offsets relative to each group), so every item is
//!   produced once and `Reducer::reduce` always gets the left result
//!   first;
//! - every piece runs (a full consumer makes it return at once); a panic
//!   in one is resumed after all pieces of its fan-out finished, the
//!   other results dropped;
//! - `NESTED` is set on a thread for as long as it runs a piece of a first
//!   split (or, on a pool with several LLCs, any part of an iterator's
//!   split tree, including halves that migrated): iterators started there
//!   split adaptively only, so only the outermost iterator is spread over
//!   the machine. A worker that, while it waits inside a piece, runs an
//!   unrelated job sees the flag too: that job's iterators then split
//!   adaptively (a missed placement, never a wrong result).

use std::cell::Cell;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::replay_record::{self as replay, ReplayCore, ReplayKey};
use crate::layout::Layout;
use crate::runtime::job::JobResult;
use crate::runtime::registry::{Aim, Registry, run_aimed};
use crate::runtime::worker::WorkerThread;

use super::hierarchy::{self, Piece, SplitDepth};
use super::splitter::LengthSplitter;
use super::{Consumer, Producer, Reducer, split_indexed};

std::thread_local! {
    /// Whether this thread runs inside an iterator's split tree (module
    /// docs).
    static NESTED: Cell<bool> = const { Cell::new(false) };
}

/// Sets `NESTED` while alive; restores the previous value.
pub(super) struct NestedGuard(bool);

impl NestedGuard {
    pub(super) fn enter() -> Self {
        NestedGuard(NESTED.with(|n| n.replace(true)))
    }
}

impl Drop for NestedGuard {
    fn drop(&mut self) {
        let prev = self.0;
        NESTED.with(|n| n.set(prev));
    }
}

/// Calls `f` with the worker of this thread and the pool an iterator
/// started here runs in (the worker's, else the global pool).
#[inline]
fn here<R>(f: impl FnOnce(Option<&WorkerThread>, &Arc<Registry>) -> R) -> R {
    WorkerThread::with_current(|wt| match wt {
        Some(wt) => f(Some(wt), wt.registry()),
        None => f(None, crate::pool::global::global_registry()),
    })
}

/// The start of an unindexed split tree on this thread: its split budget
/// and whether it is lazy ([`budget`]), and whether the tree is marked as
/// nested (several LLCs, not marked yet), with the guard to hold while it
/// runs.
#[inline]
pub(super) fn unindexed_start() -> ((usize, bool), Option<NestedGuard>) {
    here(|wt, registry| {
        let mark = registry.layout.llc_ranges().len() > 1 && !NESTED.with(Cell::get);
        (budget(wt, registry), mark.then(NestedGuard::enter))
    })
}

/// `bridge_producer_consumer`: the first split where it applies, else the
/// adaptive split tree.
#[inline]
pub(super) fn bridge<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let replay = replay::take_pending();
    here(|wt, registry| {
        if !first_split_applies(registry.layout.llc_ranges().len()) {
            // One LLC: the adaptive split tree, as rayon's; a replay has
            // no cache to place pieces in (`first_split_applies`).
            if let Some(r) = replay {
                unsplit_cold(&r);
            }
            return adaptive(wt, registry, len, producer, consumer, false);
        }
        first_split_cold(wt, registry, len, producer, consumer, replay)
    })
}

/// A replayed run that is not split: its stats say so (out of line, off
/// the path of every unreplayed iterator).
#[cold]
#[inline(never)]
fn unsplit_cold(replay: &ReplayCore) {
    replay.unsplit();
}

/// Whether an iterator on a pool of `llcs` LLCs starts with the first
/// split (by LLC, cluster or, replayed, by worker) rather than the
/// adaptive tree. Only with several LLCs: in one LLC every worker reads
/// the data through the same shared cache, so placing pieces buys no
/// locality, and a replay's aims cost a wait for the aimed worker instead
/// of the first free one (measured: docs/iter-paired.md, "Replay on one
/// LLC").
#[inline]
pub(crate) fn first_split_applies(llcs: usize) -> bool {
    llcs >= 2
}

/// The adaptive split tree of the whole iterator on `registry`'s pool
/// (`nested`: mark the migrated halves).
#[inline]
fn adaptive<P, C>(
    wt: Option<&WorkerThread>,
    registry: &Registry,
    len: usize,
    producer: P,
    consumer: C,
    nested: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (budget, lazy) = budget(wt, registry);
    let splitter = LengthSplitter::new(producer.min_len(), producer.max_len(), len, budget)
        .nested(nested)
        .lazy(lazy);
    split_indexed(len, false, splitter, producer, consumer)
}

/// The split budget of an adaptive tree starting here (`wt` this thread's
/// worker, of `registry`'s pool, as [`here`] gives them), and whether it
/// is lazy: rayon's, the pool's thread count; but 1, lazily, when the tree
/// starts on a worker while no worker of the pool searches or is idle
/// (see the splitter's module docs).
#[inline]
fn budget(wt: Option<&WorkerThread>, registry: &Registry) -> (usize, bool) {
    if wt.is_some() && !registry.has_demand() {
        (1, true)
    } else {
        (registry.num_threads(), false)
    }
}

#[cold]
#[inline(never)]
fn first_split_cold<P, C>(
    wt: Option<&WorkerThread>,
    registry: &Arc<Registry>,
    len: usize,
    producer: P,
    consumer: C,
    replay: Option<Arc<ReplayCore>>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let nested = NESTED.with(Cell::get);
    let in_group = wt.is_some_and(|wt| !wt.group().is_none());
    let depth = split_depth(replay.is_some(), registry.cluster_aware());
    let pieces = if nested || in_group {
        Vec::new()
    } else {
        hierarchy::first_split(&registry.layout, len, producer.min_len(), depth)
    };
    if pieces.len() < 2 {
        // Nested, in a job group (whose placement rules), or too short.
        if let Some(r) = &replay {
            r.unsplit();
        }
        let _nested = (!nested).then(NestedGuard::enter);
        return adaptive(wt, registry, len, producer, consumer, true);
    }
    let top = move |wt: &WorkerThread| {
        let _nested = NestedGuard::enter();
        run_top(wt, &pieces, len, producer, consumer, replay)
    };
    match wt {
        Some(wt) => top(wt),
        None => registry.in_worker(move |wt, _| top(wt)),
    }
}

/// How deep the first split cuts: per worker with a replay handle, else
/// per cluster when the pool is cluster-aware, else per LLC.
pub(crate) fn split_depth(replay: bool, cluster_aware: bool) -> SplitDepth {
    if replay {
        SplitDepth::Worker
    } else if cluster_aware {
        SplitDepth::Cluster
    } else {
        SplitDepth::Llc
    }
}

/// The workers a replayed run aims its pieces at: where they ran last
/// time if `core`'s record is valid for `key` (one piece per worker:
/// [`replay::balance`]), else each piece at the first worker of its own
/// domain.
pub(crate) fn replay_targets(
    core: &ReplayCore,
    key: ReplayKey,
    pieces: &[Piece],
    layout: &Layout,
) -> Vec<usize> {
    let natural: Vec<usize> = pieces
        .iter()
        .map(|p| p.domain.workers(layout).start)
        .collect();
    match core.targets(key) {
        Some(mut t) => {
            replay::balance(&mut t, &natural, layout);
            t
        }
        None => natural,
    }
}

/// What every group of one run shares (the simulator, `sim`, builds one
/// too, to group and aim the pieces with the same rules).
pub(crate) struct Ctx<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) pieces: &'a [Piece],
    /// Replay: the worker each piece is aimed at.
    pub(crate) targets: Option<&'a [usize]>,
    /// Replay: the worker that started each piece (`usize::MAX`: not yet).
    pub(crate) ran: &'a [AtomicUsize],
    /// Whether to group by cluster inside an LLC.
    pub(crate) clusters: bool,
}

/// A level of grouping: the groups of `Pool` are LLCs, of `Llc` clusters
/// (or pieces, without the cluster level), of `Cluster` pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Pool,
    Llc,
    Cluster,
}

impl Level {
    /// The level of the groups' own groups.
    pub(crate) fn below(self) -> Level {
        match self {
            Level::Pool => Level::Llc,
            Level::Llc | Level::Cluster => Level::Cluster,
        }
    }
}

/// Runs every piece on `wt`'s pool, then records the replay.
fn run_top<P, C>(
    wt: &WorkerThread,
    pieces: &[Piece],
    len: usize,
    producer: P,
    consumer: C,
    replay: Option<Arc<ReplayCore>>,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let registry = wt.registry();
    let layout = &registry.layout;
    let key = ReplayKey {
        pool: Arc::as_ptr(registry) as usize,
        len,
        pieces: pieces.len(),
    };
    // First run (or a new length): each piece at the first worker of its
    // own domain; later runs: where it ran, one piece per worker.
    let targets = replay
        .as_ref()
        .map(|r| replay_targets(r, key, pieces, layout));
    let ran: Vec<AtomicUsize> = match &replay {
        Some(_) => (0..pieces.len())
            .map(|_| AtomicUsize::new(usize::MAX))
            .collect(),
        None => Vec::new(),
    };
    let ctx = Ctx {
        layout,
        pieces,
        targets: targets.as_deref(),
        ran: &ran,
        clusters: registry.cluster_aware(),
    };
    let result = run_group(wt, &ctx, 0..pieces.len(), Level::Pool, producer, consumer);
    if let Some(r) = replay {
        let ran = ran.into_iter().map(AtomicUsize::into_inner).collect();
        r.record(key, ran, |w| {
            layout.workers().get(w).map_or(usize::MAX, |p| p.llc)
        });
    }
    result
}

impl Ctx<'_> {
    /// The grouping key of piece `i` at `level`.
    fn key(&self, i: usize, level: Level) -> usize {
        let d = self.pieces[i].domain;
        match level {
            Level::Pool => d.llc(self.layout).unwrap_or(usize::MAX),
            Level::Llc if self.clusters => d
                .cluster(self.layout)
                .unwrap_or(self.layout.cluster_ranges().len() + i),
            _ => self.layout.cluster_ranges().len() + i,
        }
    }

    /// The groups of pieces `idx` at `level` (runs of equal keys).
    pub(crate) fn groups(&self, idx: Range<usize>, level: Level) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = Vec::new();
        for i in idx {
            match out.last_mut() {
                Some(g) if self.key(g.start, level) == self.key(i, level) => g.end = i + 1,
                _ => out.push(i..i + 1),
            }
        }
        out
    }

    /// Where group `g` runs, seen from worker `wt`: inline if it is `wt`'s
    /// (its domain holds `wt`; with replay, a single piece aimed at `wt`),
    /// else queued to its domain.
    fn aim(&self, me: usize, g: &Range<usize>, level: Level) -> Aim {
        if g.len() == 1 {
            if let Some(t) = self.targets {
                let w = t[g.start];
                return if w == me { Aim::Here } else { Aim::Worker(w) };
            }
        }
        let d = self.pieces[g.start].domain;
        // The group's domain: its LLC at the pool level, else its cluster
        // or piece domain (every piece of a group shares it).
        let (workers, llc, wake_from) = match level {
            Level::Pool => {
                let l = d.llc(self.layout).unwrap_or(0);
                (self.layout.llc_ranges()[l].clone(), l, None)
            }
            _ => {
                let workers = match d.cluster(self.layout) {
                    Some(c) if g.len() > 1 => self.layout.cluster_ranges()[c].clone(),
                    _ => d.workers(self.layout),
                };
                (
                    workers.clone(),
                    d.llc(self.layout).unwrap_or(0),
                    Some(workers.start),
                )
            }
        };
        if workers.contains(&me) {
            Aim::Here
        } else {
            Aim::Llc { llc, wake_from }
        }
    }

    /// Where each of `groups` (at `level`) runs, seen from worker `me`:
    /// [`Ctx::aim`], except that only the first group aimed at `me` runs
    /// inline; several replayed pieces aimed at `me` queue the others to
    /// it like any aimed piece, so that its neighbours can take them.
    pub(crate) fn aims(&self, me: usize, groups: &[Range<usize>], level: Level) -> Vec<Aim> {
        let mut inline = false;
        groups
            .iter()
            .map(|g| match self.aim(me, g, level) {
                Aim::Here if inline => Aim::Worker(me),
                Aim::Here => {
                    inline = true;
                    Aim::Here
                }
                aim => aim,
            })
            .collect()
    }

    /// What [`run_group`] does with pieces `idx` at `level` on worker `me`:
    /// the decision the pool's recursion and the simulator's fan-out frame
    /// (`sim`) both take.
    pub(crate) fn fan_out(&self, me: usize, idx: Range<usize>, level: Level) -> FanOut {
        if idx.len() == 1 {
            return FanOut::Piece(idx.start);
        }
        let groups = self.groups(idx, level);
        if groups.len() == 1 {
            return FanOut::Below;
        }
        let aims = self.aims(me, &groups, level);
        FanOut::Aimed { groups, aims }
    }
}

/// One step of [`run_group`] ([`Ctx::fan_out`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FanOut {
    /// A single piece, `i`: run it ([`run_piece`]).
    Piece(usize),
    /// A single group at this level: the same pieces a level below.
    Below,
    /// Groups of pieces, each with its aim ([`Ctx::aims`]), run by
    /// `run_aimed` a level below.
    Aimed {
        /// The groups, in order.
        groups: Vec<Range<usize>>,
        /// Where each runs.
        aims: Vec<Aim>,
    },
}

/// Runs pieces `idx` (the items of `producer`/`consumer`) on `wt` and the
/// workers of their domains: see the module docs.
fn run_group<P, C>(
    wt: &WorkerThread,
    ctx: &Ctx<'_>,
    idx: Range<usize>,
    level: Level,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let (groups, aims) = match ctx.fan_out(wt.index(), idx.clone(), level) {
        FanOut::Piece(i) => return run_piece(wt, ctx, i, producer, consumer),
        FanOut::Below => return run_group(wt, ctx, idx, level.below(), producer, consumer),
        FanOut::Aimed { groups, aims } => (groups, aims),
    };
    let base = ctx.pieces[idx.start].range.start;
    let cuts: Vec<usize> = groups
        .iter()
        .map(|g| ctx.pieces[g.start].range.start - base)
        .collect();
    let mut parts = Vec::with_capacity(groups.len());
    let mut reducers = Vec::with_capacity(groups.len() - 1);
    cut(producer, consumer, &cuts, 0, &mut parts, &mut reducers);
    let below = level.below();
    let tasks: Vec<_> = groups
        .into_iter()
        .zip(parts)
        .zip(aims)
        .map(|((g, (p, c)), aim)| {
            let task = move |_migrated: bool| {
                // Tasks run on workers (inline on `wt`, or taken from a
                // queue by a worker).
                WorkerThread::with_current(|wt| {
                    let wt = wt.expect("an iterator piece ran outside a worker");
                    let _nested = NestedGuard::enter();
                    run_group(wt, ctx, g, below, p, c)
                })
            };
            (aim, task)
        })
        .collect();
    let n = tasks.len();
    let mut results = Vec::with_capacity(n);
    let mut panic = None;
    for r in run_aimed(wt, tasks) {
        match r {
            JobResult::Ok(v) => results.push(v),
            JobResult::Panic(p) if panic.is_none() => panic = Some(p),
            other => other.discard(),
        }
    }
    if let Some(p) = panic {
        // The other results are dropped here (a collect drops what it
        // wrote), then the first panic, in item order, goes on.
        drop(results);
        std::panic::resume_unwind(p);
    }
    combine(&mut results.into_iter(), &mut reducers.into_iter(), n)
}

/// The leaf: the adaptive split tree of one piece, its split budget the
/// number of workers of its domain (so that each gets about one leaf, as
/// rayon's budget of one per thread for the whole pool).
fn run_piece<P, C>(
    wt: &WorkerThread,
    ctx: &Ctx<'_>,
    i: usize,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if let Some(slot) = ctx.ran.get(i) {
        slot.store(wt.index(), Ordering::Relaxed);
    }
    let piece = &ctx.pieces[i];
    let len = piece.range.len();
    let workers = piece.domain.workers(ctx.layout).len();
    let splitter =
        LengthSplitter::new(producer.min_len(), producer.max_len(), len, workers).nested(true);
    wt.run_placed(|| split_indexed(len, false, splitter, producer, consumer))
}

/// Cuts `producer`/`consumer` (whose items start at `offset` among the
/// group's) into parts starting at `cuts` (`cuts[0] == offset`), as a
/// balanced binary tree: parts in order into `parts`, the reducers of the
/// tree's inner nodes in pre-order into `reducers`.
fn cut<P, C>(
    producer: P,
    consumer: C,
    cuts: &[usize],
    offset: usize,
    parts: &mut Vec<(P, C)>,
    reducers: &mut Vec<C::Reducer>,
) where
    P: Producer,
    C: Consumer<P::Item>,
{
    if cuts.len() == 1 {
        parts.push((producer, consumer));
        return;
    }
    let mid = cuts.len() / 2;
    let at = cuts[mid] - offset;
    let (lp, rp) = producer.split_at(at);
    let (lc, rc, reducer) = consumer.split_at(at);
    reducers.push(reducer);
    cut(lp, lc, &cuts[..mid], offset, parts, reducers);
    cut(rp, rc, &cuts[mid..], cuts[mid], parts, reducers);
}

/// Reduces `n` results along the tree [`cut`] built (same shape, reducers
/// in pre-order).
fn combine<T, R: Reducer<T>>(
    results: &mut impl Iterator<Item = T>,
    reducers: &mut impl Iterator<Item = R>,
    n: usize,
) -> T {
    if n == 1 {
        return results.next().expect("one result per part");
    }
    let reducer = reducers.next().expect("one reducer per inner node");
    let mid = n / 2;
    let left = combine(results, reducers, mid);
    let right = combine(results, reducers, n - mid);
    reducer.reduce(left, right)
}

#[cfg(test)]
mod tests;
