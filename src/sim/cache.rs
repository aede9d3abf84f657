//! The cache model: where a task's data is when it starts, what moving it
//! costs, and the bytes moved per tier.
//!
//! # The model
//!
//! - **Caches**: one cluster-level cache per cluster of the layout (the L2
//!   a cluster shares; where the topology has no cluster level a cluster is
//!   a core, so this is the core's own L2, shared by its SMT siblings) and
//!   one cache per LLC. Their capacities are [`CostModel::l2_bytes`] and
//!   [`CostModel::llc_bytes`]: the topology reads which PUs share a cache,
//!   not how big it is, so the size comes from the machine class's cost
//!   file (`--cost epyc`, ...; `src/sim/classes/`) or `--cost FILE`.
//! - **Granularity**: a block of named data ([`Touch::id`](super::workload::Touch::id), [`Task::data`](super::workload::Task::data)
//!   of the workload), with the bytes a task touches of it, not a cache
//!   line. Each cache keeps blocks in LRU order and evicts the least
//!   recently used ones until a new block fits; a block larger than a
//!   cache is not kept in it (it streams through). Lines, sets and
//!   associativity are not modelled: a tractable granularity that still
//!   makes data go cold once a worker's or an LLC's blocks outgrow it.
//! - **A read** of a block by worker `w` costs, from the nearest place
//!   that has it: nothing from `w`'s own cache (or an SMT sibling's or
//!   cluster mate's line transfer when one of them touched it last); the
//!   LLC's transfer from `w`'s LLC or another cluster's cache in it; the
//!   transfer at the holder's relation and NUMA distance from another LLC
//!   (another LLC of the node, another node, another package); or, if no
//!   cache holds it (or DRAM is cheaper), DRAM of the block's home node at
//!   its NUMA distance ([`CostModel::dram`]). A transfer of many lines
//!   costs one latency plus bytes over the tier's bandwidth
//!   ([`CostModel::transfer`]: memory-level parallelism). The block is
//!   then in `w`'s cluster cache and LLC (evicting others there).
//! - **A copy still arriving**: a copy is in a cache from the start of
//!   the transfer that brought it and complete at its end (with its wait
//!   for shared bandwidth). A reader that finds it in its own caches
//!   before then waits for the rest of that transfer (at least the copy's
//!   own price): its misses merge with the ones already in flight, so it
//!   moves no bytes of its own over the shared links. Another cache's
//!   copy still arriving is priced the same way and competes with DRAM.
//!   Without this rule the second reader of a block read into an LLC at
//!   the same moment would get it at the LLC's price before it had
//!   arrived.
//! - **First touch** gives a block its NUMA home, the first toucher's
//!   node, as Linux's default policy places a page; the first read comes
//!   from that DRAM.
//! - **A write** reads the block as above (read for ownership), then
//!   invalidates every other copy: the writer's caches hold the only one.
//!   A task's own [`Task::data`] is read and written (the engine's former
//!   rule: the task's worker becomes its holder).
//! - **Anonymous footprints** ([`Task::footprint`] with no
//!   [`Task::data`]: the working set the creating task produced) move from
//!   the creator's caches at the creator's relation and distance; they
//!   are not kept in the LRU lists (they have no identity to find again).
//! - **A victim look** (`Sim::victim_look`, in `refill`): a steal pass reading a
//!   busy victim's deque or private-stack ends reads lines its owner keeps
//!   writing: one line transfer at the victim's relation and distance on
//!   top of the look's own cost (`probe_ns`). An idle victim's lines have
//!   not changed since the thief last read them: the look costs
//!   `probe_ns` alone. The only place a victim look is priced.
//!
//! Counted ([`Counts::bytes_by_tier`], indexed as [`BYTE_TIERS`]): the
//! bytes each read or write took from each tier; the bytes a worker found
//! in its own caches count as `own-cache`, so the tiers add up to every
//! byte touched.
//!
//! - **Shared bandwidth**: bytes from outside the reader's LLC also wait
//!   for the links and channels many cores share (an LLC's link, the
//!   home node's DRAM, a socket link), given first come, first served
//!   (`sim::bandwidth`, which says why). Where a block is read from does
//!   not depend on how busy they are, except through a copy still
//!   arriving (its arrival includes its wait), so without such copies the
//!   bytes per tier are those of the model without the links.
//!
//! Not modelled: write-backs of dirty blocks to DRAM (so no write
//! bandwidth either); prefetching beyond what the per-core
//! bandwidths measured; victim (non-inclusive) LLCs such as AMD's, whose
//! L3 holds what L2s evict (here both keep a read block); partial hits
//! (a block is in a cache or not); NUMA distances beyond 20 scale the
//! remote latencies and bandwidths linearly, as the cost file says.
//!
//! Sources of the default numbers: `cost.rs` (the published figures) and
//! `classes/*.cost` (one file per machine class, each number with its
//! source); docs/cache-model.md says what was chosen and why.
//!
//! [`Task::data`]: super::workload::Task::data
//! [`Task::footprint`]: super::workload::Task::footprint
//! [`Counts::bytes_by_tier`]: super::counts::Counts::bytes_by_tier
//! [`BYTE_TIERS`]: super::counts::BYTE_TIERS

use std::collections::{BTreeMap, HashMap};

use crate::layout::{Layout, TierKind};

use super::bandwidth::{From, Links};
use super::cost::{CostModel, Reach};
use super::counts::Counts;

// Indexes of `BYTE_TIERS` beyond the relations (`TierKind` as `usize`).
const DRAM_LOCAL: usize = 6;
const DRAM_REMOTE: usize = 7;
/// The index of `own-cache` in [`BYTE_TIERS`](super::counts::BYTE_TIERS):
/// bytes found in the worker's own caches (nothing moved).
pub(super) const OWN: usize = 8;

/// One cache's blocks in LRU order.
#[derive(Debug, Default)]
struct Lru {
    capacity: u64,
    used: u64,
    /// Block id -> (its last use, its bytes here).
    blocks: HashMap<u64, (u64, u64)>,
    /// Last use -> block id: the first entry is the least recently used.
    order: BTreeMap<u64, u64>,
}

impl Lru {
    fn new(capacity: f64) -> Lru {
        Lru {
            capacity: capacity.max(0.0) as u64,
            ..Lru::default()
        }
    }

    fn remove(&mut self, id: u64) {
        if let Some((stamp, bytes)) = self.blocks.remove(&id) {
            self.order.remove(&stamp);
            self.used -= bytes;
        }
    }

    /// Makes block `id` of `bytes` the most recently used, evicting the
    /// least recently used blocks until it fits (their ids pushed on
    /// `evicted`). Returns whether it is kept (a block larger than the
    /// cache is not).
    fn put(&mut self, id: u64, bytes: u64, stamp: u64, evicted: &mut Vec<u64>) -> bool {
        self.remove(id);
        if bytes > self.capacity {
            return false;
        }
        while self.used + bytes > self.capacity {
            let (_, old) = self.order.pop_first().expect("used > 0 means a block");
            let (_, b) = self.blocks.remove(&old).expect("order and blocks agree");
            self.used -= b;
            evicted.push(old);
        }
        self.blocks.insert(id, (stamp, bytes));
        self.order.insert(stamp, id);
        self.used += bytes;
        true
    }
}

/// What the model knows of one block.
#[derive(Debug)]
struct Block {
    /// Its NUMA home: the node (dense index) of its first toucher.
    home: usize,
    /// The worker that touched it last.
    last: usize,
    /// The caches holding a copy.
    holders: Vec<Holder>,
}

/// A cache holding a copy of a block.
#[derive(Clone, Copy, Debug)]
struct Holder {
    /// The cache (an index into `Caches::caches`).
    cache: u32,
    /// When the transfer that brought it started: a read before that
    /// time does not see it.
    from: f64,
    /// When that transfer ends: a read before then waits for the rest.
    ready: f64,
}

/// Every cache of a simulated machine and every block's state.
#[derive(Debug)]
pub(super) struct Caches {
    /// The cluster caches (`0..clusters`), then the LLCs.
    caches: Vec<Lru>,
    /// A worker of each cache, to find its relation to a reader.
    member: Vec<usize>,
    clusters: usize,
    blocks: HashMap<u64, Block>,
    stamp: u64,
    evicted: Vec<u64>,
    /// The shared links and memory channels (`sim::bandwidth`).
    pub(super) links: Links,
}

impl Caches {
    pub(super) fn new(layout: &Layout, cost: &CostModel) -> Caches {
        let clusters = layout.cluster_ranges();
        let llcs = layout.llc_ranges();
        let caches = clusters
            .iter()
            .map(|_| Lru::new(cost.l2_bytes))
            .chain(llcs.iter().map(|_| Lru::new(cost.llc_bytes)))
            .collect();
        let member = clusters.iter().chain(llcs).map(|r| r.start).collect();
        Caches {
            caches,
            member,
            clusters: clusters.len(),
            blocks: HashMap::new(),
            stamp: 0,
            evicted: Vec::new(),
            links: Links::new(layout, cost),
        }
    }

    /// Worker `w` reads (or writes) `bytes` of block `id` at time `at`:
    /// the cost of getting them to `w` (with the wait for shared
    /// bandwidth, `sim::bandwidth`), counted in `counts`, and the caches
    /// updated.
    pub(super) fn access(
        &mut self,
        layout: &Layout,
        cost: &CostModel,
        (w, at): (usize, f64),
        (id, bytes, write): (u64, u64, bool),
        counts: &mut Counts,
    ) -> f64 {
        if bytes == 0 {
            return 0.0;
        }
        let p = &layout.workers()[w];
        let (own_l2, own_llc) = (p.cluster as u32, (self.clusters + p.llc) as u32);
        let block = self.blocks.entry(id).or_insert_with(|| Block {
            home: p.numa,
            last: w,
            holders: Vec::new(),
        });
        let (tier, mut ns, far, arrival) = source(
            layout,
            cost,
            &self.member,
            (w, at),
            block,
            bytes,
            (own_l2, own_llc),
        );
        if let Some((from, alone)) = far {
            ns += self
                .links
                .charge(layout, w, from, (at, bytes, alone), counts);
        }
        counts.bytes_by_tier[tier] += bytes;
        if matches!(tier, DRAM_LOCAL | DRAM_REMOTE) {
            // A home is a worker's node: one of the layout's.
            let by_node = &mut counts.dram_bytes_by_node;
            by_node.resize(layout.numa_ranges().len(), 0);
            by_node[block.home] += bytes;
        }
        counts.arrival_wait_ns += arrival.round() as u64;
        if matches!(tier, 3..=5) {
            counts.llc_moves += 1;
        }
        block.last = w;
        if write {
            for Holder { cache: c, .. } in std::mem::take(&mut block.holders) {
                if c != own_l2 && c != own_llc {
                    self.caches[c as usize].remove(id);
                }
            }
        }
        // The reader's copies arrive with its transfer, or sooner if they
        // were already on their way.
        let copy = |cache| {
            let mine = Holder {
                cache,
                from: at,
                ready: at + ns,
            };
            match block.holders.iter().find(|h| h.cache == cache) {
                Some(h) if h.from <= at => *h,
                _ => mine,
            }
        };
        let copies = [copy(own_l2), copy(own_llc)];
        block
            .holders
            .retain(|h| h.cache != own_l2 && h.cache != own_llc);
        self.keep(id, bytes, copies);
        ns
    }

    /// Puts block `id` (`bytes`) in the caches of `copies` as their most
    /// recently used block, each cache evicting what no longer fits.
    fn keep(&mut self, id: u64, bytes: u64, copies: [Holder; 2]) {
        for copy in copies {
            let c = copy.cache;
            self.stamp += 1;
            if self.caches[c as usize].put(id, bytes, self.stamp, &mut self.evicted) {
                self.blocks
                    .get_mut(&id)
                    .expect("the reader's access made it")
                    .holders
                    .push(copy);
            }
            for old in self.evicted.drain(..) {
                if let Some(b) = self.blocks.get_mut(&old) {
                    b.holders.retain(|h| h.cache != c);
                }
            }
        }
    }
}

/// Where worker `w` gets `bytes` of `block` at time `at` from, and the
/// cost: the cheapest of its holders and its home's DRAM, by one core's
/// latency and bandwidth (the choice does not depend on how busy the
/// shared links are: coherence, not the reader, decides who answers). For
/// bytes from outside `w`'s LLC, also where they come from and their
/// bandwidth term alone, for the shared links (`sim::bandwidth`); last,
/// the part of the cost spent waiting for a copy still arriving beyond
/// the copy's own price.
///
/// A copy whose transfer started before `at` but ends after it costs the
/// rest of that transfer at least. In the reader's own caches it is
/// taken whatever that wait: the reader's misses find the lines already
/// requested and wait for them, as a cache's miss-status holding
/// registers merge misses to one line (Kroft, "Lockup-free instruction
/// fetch/prefetch cache organization", ISCA 1981), so it moves nothing
/// over the shared links. Another cache's copy still arriving is priced
/// the same way and competes with the home's DRAM, which holds the clean
/// block meanwhile.
fn source(
    layout: &Layout,
    cost: &CostModel,
    member: &[usize],
    (w, at): (usize, f64),
    block: &Block,
    bytes: u64,
    (own_l2, own_llc): (u32, u32),
) -> (usize, f64, Option<(From, f64)>, f64) {
    // The copy in cache `c` a read at `at` sees: its transfer started.
    let held = |c| {
        let copy = block.holders.iter().find(|h| h.cache == c);
        copy.filter(|h| h.from <= at).map(|h| h.ready)
    };
    // The copy's price, or the rest of its transfer if that is longer,
    // and the difference.
    let wait = |ns: f64, ready: f64| (ns.max(ready - at), (ready - at - ns).max(0.0));
    if let Some(ready) = held(own_l2) {
        // In the own cluster cache: free unless a sibling or cluster mate
        // wrote or read it last (its line comes over from that core).
        let (tier, ns) = match (block.last != w).then(|| layout.relation(w, block.last)) {
            Some(k @ (TierKind::Smt | TierKind::Cluster)) => {
                (k as usize, cost.transfer(Reach::At(k, 10), bytes))
            }
            _ => (OWN, 0.0),
        };
        let (ns, arrival) = wait(ns, ready);
        return (tier, ns, None, arrival);
    }
    if let Some(ready) = held(own_llc) {
        let ns = cost.transfer(Reach::At(TierKind::Llc, 10), bytes);
        let (ns, arrival) = wait(ns, ready);
        return (TierKind::Llc as usize, ns, None, arrival);
    }
    let here = layout.workers()[w].numa;
    let distance = |node| layout.topology().numa_distance(here, node);
    let home = if block.home == here {
        DRAM_LOCAL
    } else {
        DRAM_REMOTE
    };
    let d = distance(block.home);
    let mut best = (
        home,
        cost.dram(d, bytes),
        Some((From::Dram(block.home), cost.dram_stream(d, bytes))),
        0.0,
    );
    for h in block.holders.iter().filter(|h| h.from <= at) {
        let m = member[h.cache as usize];
        let reach = Reach::At(layout.relation(w, m), distance(layout.workers()[m].numa));
        let (ns, arrival) = wait(cost.transfer(reach, bytes), h.ready);
        if ns < best.1 {
            let Reach::At(k, _) = reach else {
                unreachable!()
            };
            best = (
                k as usize,
                ns,
                Some((From::Cache(m), cost.refill(reach, bytes))),
                arrival,
            );
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::BYTE_TIERS;

    const MIB: u64 = 1 << 20;

    thread_local! {
        static CLOCK: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    }

    /// A moment after every transfer so far: the tests read complete
    /// copies unless they name the time.
    fn later() -> f64 {
        CLOCK.with(|t| {
            t.set(t.get() + 1e9);
            t.get()
        })
    }

    use crate::sim::tests::hierarchical_layout as machine;

    /// Caches of `l2` and `llc` bytes on `spec`.
    fn caches(spec: &str, l2: u64, llc: u64) -> (Layout, CostModel, Caches, Counts) {
        let l = machine(spec);
        let mut cost = CostModel::published();
        cost.l2_bytes = l2 as f64;
        cost.llc_bytes = llc as f64;
        let c = Caches::new(&l, &cost);
        (l, cost, c, Counts::default())
    }

    #[test]
    fn eviction_makes_a_reread_come_from_dram() {
        let (l, cost, mut c, mut k) = caches("core:2", MIB, 4 * MIB);
        let read = |c: &mut Caches, k: &mut Counts, id| {
            c.access(&l, &cost, (0, later()), (id, MIB, false), k)
        };
        let first = read(&mut c, &mut k, 1);
        assert_eq!(
            first,
            cost.dram(10, MIB),
            "first touch: from its home's DRAM"
        );
        assert_eq!(read(&mut c, &mut k, 1), 0.0, "then in the own cache");
        // Four more blocks: block 1 is the least recently used in the LLC
        // (and long gone from the 1 MiB L2).
        for id in 2..=5 {
            read(&mut c, &mut k, id);
        }
        assert_eq!(
            read(&mut c, &mut k, 1),
            cost.dram(10, MIB),
            "evicted: DRAM again"
        );
        assert_eq!(k.bytes_by_tier[DRAM_LOCAL], 6 * MIB);
        // Block 5 left the L2 for block 1 but is still in the LLC.
        let ns = read(&mut c, &mut k, 5);
        assert_eq!(ns, cost.transfer(Reach::At(TierKind::Llc, 10), MIB));
        assert_eq!(k.bytes_by_tier[TierKind::Llc as usize], MIB);
    }

    #[test]
    fn a_copy_still_arriving_makes_the_next_reader_wait_for_it() {
        // Two cores of one LLC, each with its own L2.
        let (l, cost, mut c, mut k) = caches("core:2", MIB, 8 * MIB);
        let first = c.access(&l, &cost, (0, 0.0), (1, MIB, false), &mut k);
        assert_eq!(first, cost.dram(10, MIB));
        let llc = cost.transfer(Reach::At(TierKind::Llc, 10), MIB);
        assert!(llc < first / 2.0, "the premise: the LLC is much nearer");
        // A quarter of the way in, the other core waits for the rest of
        // the transfer and reads the block from the LLC, not from DRAM.
        let second = c.access(&l, &cost, (1, first / 4.0), (1, MIB, false), &mut k);
        assert_eq!(second, first * 0.75);
        assert_eq!(k.arrival_wait_ns, (first * 0.75 - llc).round() as u64);
        assert_eq!(k.bytes_by_tier[TierKind::Llc as usize], MIB);
        assert_eq!(k.bytes_by_tier[DRAM_LOCAL], MIB);
        // Once it has arrived, a third read pays the LLC's price alone.
        c.access(&l, &cost, (0, first), (2, MIB, false), &mut k);
        c.access(&l, &cost, (0, 2.0 * first), (2, MIB, true), &mut k);
        let third = c.access(&l, &cost, (1, 4.0 * first), (1, MIB, false), &mut k);
        assert_eq!(third, 0.0, "in worker 1's own L2 since its read");
        let fourth = c.access(&l, &cost, (1, 4.0 * first), (2, MIB, false), &mut k);
        assert_eq!(fourth, llc);
    }

    #[test]
    fn a_block_larger_than_a_cache_streams_through_it() {
        let (l, cost, mut c, mut k) = caches("core:1", MIB, 4 * MIB);
        c.access(&l, &cost, (0, later()), (7, 8 * MIB, false), &mut k);
        let again = c.access(&l, &cost, (0, later()), (7, 8 * MIB, false), &mut k);
        assert_eq!(again, cost.dram(10, 8 * MIB));
    }

    #[test]
    fn a_write_leaves_the_writer_the_only_copy() {
        let (l, cost, mut c, mut k) = caches("llc:2 core:1", MIB, 8 * MIB);
        c.access(&l, &cost, (0, later()), (1, 4096, false), &mut k);
        c.access(&l, &cost, (1, later()), (1, 4096, false), &mut k);
        // Both hold a copy: a read again is free on either side.
        assert_eq!(
            c.access(&l, &cost, (1, later()), (1, 4096, false), &mut k),
            0.0
        );
        assert_eq!(
            c.access(&l, &cost, (0, later()), (1, 4096, false), &mut k),
            0.0
        );
        // Worker 0 writes: worker 1's copy is gone, it reads from
        // worker 0's LLC.
        assert_eq!(
            c.access(&l, &cost, (0, later()), (1, 4096, true), &mut k),
            0.0
        );
        let ns = c.access(&l, &cost, (1, later()), (1, 4096, false), &mut k);
        let far = Reach::At(l.relation(1, 0), 10);
        assert_eq!(ns, cost.transfer(far, 4096));
        // Its first read and this one came from the other LLC.
        assert_eq!(k.bytes_by_tier[l.relation(1, 0) as usize], 2 * 4096);
        assert_eq!(k.llc_moves, 2);
    }

    #[test]
    fn first_touch_gives_the_numa_home() {
        // No cache keeps anything: every read comes from the home's DRAM.
        let (l, cost, mut c, mut k) = caches("numa:2 core:2", 0, 0);
        let (near, far) = (2, 0);
        assert_ne!(l.workers()[near].numa, l.workers()[far].numa);
        c.access(&l, &cost, (near, later()), (9, MIB, true), &mut k);
        assert_eq!(k.bytes_by_tier[DRAM_LOCAL], MIB);
        let d = l.topology().numa_distance(0, 1);
        assert!(d > 10);
        assert_eq!(
            c.access(&l, &cost, (far, later()), (9, MIB, false), &mut k),
            cost.dram(d, MIB)
        );
        assert_eq!(k.bytes_by_tier[DRAM_REMOTE], MIB);
        assert_eq!(
            c.access(&l, &cost, (near, later()), (9, MIB, false), &mut k),
            cost.dram(10, MIB)
        );
    }

    #[test]
    fn cost_grows_with_distance() {
        let (l, cost, mut c, mut k) = caches("numa:2 llc:2 cluster:2 core:2 smt:2", MIB, 32 * MIB);
        // Worker 0 writes a block per reader; each reader then reads its own.
        let mut last = 0.0;
        for (id, reader) in [1usize, 2, 4, 8, 16].into_iter().enumerate() {
            let id = id as u64 + 100;
            c.access(&l, &cost, (0, later()), (id, 256 * 1024, true), &mut k);
            let ns = c.access(
                &l,
                &cost,
                (reader, later()),
                (id, 256 * 1024, false),
                &mut k,
            );
            assert!(
                ns > last,
                "reader {reader} ({:?}): {ns} after {last}",
                l.relation(0, reader)
            );
            last = ns;
        }
        let kinds = [
            TierKind::Smt,
            TierKind::Cluster,
            TierKind::Llc,
            TierKind::Numa,
        ];
        for kind in kinds {
            assert_eq!(k.bytes_by_tier[kind as usize], 256 * 1024, "{kind:?}");
        }
    }

    #[test]
    fn byte_counters_add_up_to_every_byte_touched() {
        let (l, cost, mut c, mut k) = caches("numa:2 llc:2 cluster:2 core:2", 256 * 1024, MIB);
        let mut touched = 0;
        let mut r = 1u64;
        for _ in 0..5000 {
            r = crate::sim::workload::mix(r);
            let (w, id, bytes) = (
                (r % 16) as usize,
                (r >> 8) % 40,
                4096 * (1 + (r >> 20) % 64),
            );
            c.access(
                &l,
                &cost,
                (w, later()),
                (id, bytes, r >> 40 & 3 == 0),
                &mut k,
            );
            touched += bytes;
        }
        assert_eq!(k.bytes_by_tier.iter().sum::<u64>(), touched);
        let dram = k.bytes_by_tier[DRAM_LOCAL] + k.bytes_by_tier[DRAM_REMOTE];
        assert_eq!(k.dram_bytes_by_node.iter().sum::<u64>(), dram);
        assert_eq!(k.dram_bytes_by_node.len(), 2, "one entry per node");
        assert!(k.dram_bytes_by_node.iter().all(|&b| b > 0));
        for (t, b) in BYTE_TIERS.iter().zip(k.bytes_by_tier) {
            // No SMT, one package: no sibling and no other package.
            if !["same-core", "other-node"].contains(t) {
                assert!(b > 0, "{t}: {:?}", k.bytes_by_tier);
            }
        }
        // Every cache's bytes stay within its capacity, and its blocks
        // know they are there.
        for (i, lru) in c.caches.iter().enumerate() {
            assert!(lru.used <= lru.capacity);
            assert_eq!(lru.used, lru.blocks.values().map(|b| b.1).sum::<u64>());
            for id in lru.blocks.keys() {
                assert!(c.blocks[id].holders.iter().any(|h| h.cache == i as u32));
            }
        }
    }
}
