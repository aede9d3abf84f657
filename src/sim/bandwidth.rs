//! Shared bandwidth: the links and memory channels many cores share, and
//! what a transfer waits for them.
//!
//! # The resources
//!
//! The cache model (`sim::cache`) prices a transfer by one core's
//! bandwidth for its tier. What many cores share is charged here, each
//! resource with its aggregate bandwidth from the cost model:
//!
//! - **an LLC's link** to the rest of the machine
//!   ([`CostModel::bw_llc_link`]): every byte an LLC's worker reads from
//!   outside that LLC (another LLC's cache, any DRAM) crosses it. A Zen
//!   CCD's link to the IO die; 0 where the LLC's die holds its own memory
//!   controllers and its fabric is not the bottleneck (one resource fewer);
//! - **a NUMA node's DRAM** ([`CostModel::bw_dram_package`] split evenly
//!   between the nodes of its package): every byte read from that node's
//!   DRAM, by any worker, local or remote;
//! - **a package's socket link** ([`CostModel::bw_socket_link`]): every
//!   byte a package's worker reads from another package (its caches or its
//!   DRAM); 0: not modelled.
//!
//! # The rule: first come, first served, at one core's rate
//!
//! Each resource keeps how much of its bandwidth it has given, over time
//! (a profile from the current event on). A transfer of `b` bytes asked
//! at time `t`, which one core alone moves at rate `r` (`b / r` ns), gets
//! on each resource of its path, from `t` on, at each moment the lesser
//! of `r` and what the transfers asked before it left, until its `b`
//! bytes are moved; it ends when the last resource has moved them. The
//! delay beyond `b / r` is added to its cost. So a lone core moves at its
//! own rate; `n` cores asking together get the resource in the order they
//! asked, each at its own rate while the sum fits, the later ones what is
//! left; and the given bandwidth never exceeds the resource's.
//!
//! Two simpler rules were tried first and dropped (docs/cache-model.md):
//! a "busy until" time per resource, each transfer reserving the whole
//! resource for `b / bandwidth` after the last one (a task's later blocks,
//! asked for a later time, left the time before them unused), and the
//! same with gaps filled (a lone core's large read still held the whole
//! resource while it moved at a tenth of its bandwidth).
//!
//! Why first come, first served: a discrete-event simulator prices a
//! transfer once, when its task starts, and schedules the worker's next
//! event after it. The profile needs nothing later: the cost is known at
//! once and deterministic (events are handled in time order). Fair
//! sharing (processor sharing: `n` transfers each at `bandwidth / n`)
//! would change every running transfer's end whenever one starts or ends,
//! so every worker event already scheduled would have to move. For `n`
//! equal transfers started together both rules end the last at
//! `n * b / bandwidth`; first come, first served ends the first ones
//! sooner, sharing ends all at once: a phase that waits for all of them
//! takes the same time.
//!
//! What it leaves out: each resource on a path is reserved on its own (no
//! coordination between the link and the channels a transfer crosses:
//! the slower one decides); write bandwidth (the model has no
//! write-backs: a write is a read for ownership, so a write's bytes are
//! charged as read, as STREAM counts them); the sender's side of a
//! cache-to-cache transfer (only the reader's LLC link and socket link are
//! charged); victim looks and a steal's job lines (a few lines each, not a
//! stream).

use crate::layout::Layout;

use super::cost::CostModel;
use super::counts::Counts;

/// Where a transfer's bytes come from, for its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum From {
    /// A cache of worker `w`'s LLC (or the worker itself: an anonymous
    /// working set).
    Cache(usize),
    /// DRAM of NUMA node `n` (dense index).
    Dram(usize),
}

/// One shared resource.
#[derive(Debug, Clone)]
struct Resource {
    /// Bytes per ns (GB/s); 0: not modelled.
    bw: f64,
    /// The bandwidth already given to transfers, from the current event
    /// on: `(t, used)` breakpoints in time order, `used` bytes per ns from
    /// `t` to the next breakpoint; 0 after the last.
    used: Vec<(f64, f64)>,
}

impl Resource {
    /// Gives a transfer of `bytes` asked at `at`, which moves at most
    /// `rate` bytes per ns (one core's bandwidth), what the transfers
    /// given bandwidth before it leave, from `at` on, until its bytes are
    /// moved; forgets what ended by `now` (no later request starts
    /// before it). Returns when it ends, and its pieces
    /// `(from, to, rate)`.
    fn reserve(&mut self, now: f64, at: f64, bytes: f64, rate: f64) -> (f64, Vec<(f64, f64, f64)>) {
        // Forget the segments that ended by `now`.
        let keep = self.used.partition_point(|b| b.0 <= now).saturating_sub(1);
        self.used.drain(..keep);
        let mut pieces = Vec::new();
        let (mut t, mut left) = (at, bytes);
        let mut i = self.used.partition_point(|b| b.0 <= at);
        while left > 1e-9 {
            let used = if i == 0 { 0.0 } else { self.used[i - 1].1 };
            let next = self.used.get(i).map_or(f64::INFINITY, |b| b.0);
            let r = rate.min(self.bw - used);
            if r > 1e-12 {
                let need = left / r;
                let to = (t + need).min(next);
                pieces.push((t, to, r));
                left -= r * (to - t);
                if to < next {
                    t = to;
                    break;
                }
            }
            t = next;
            i += 1;
        }
        let end = if pieces.is_empty() { at } else { t };
        for &(from, to, r) in &pieces {
            self.add(from, to, r);
        }
        (end, pieces)
    }

    /// Adds `rate` to the bandwidth used from `from` to `to`.
    fn add(&mut self, from: f64, to: f64, rate: f64) {
        let at = |v: &Vec<(f64, f64)>, t: f64| {
            let i = v.partition_point(|b| b.0 <= t);
            if i == 0 { 0.0 } else { v[i - 1].1 }
        };
        for t in [from, to] {
            let i = self.used.partition_point(|b| b.0 < t);
            if self.used.get(i).map(|b| b.0) != Some(t) {
                let u = at(&self.used, t);
                self.used.insert(i, (t, u));
            }
        }
        for b in &mut self.used {
            if b.0 >= from && b.0 < to {
                b.1 += rate;
            }
        }
    }
}

/// The shared resources of a simulated machine.
#[derive(Debug)]
pub(super) struct Links {
    /// The LLC links, then the nodes' DRAM, then the socket links.
    res: Vec<Resource>,
    llcs: usize,
    nodes: usize,
    /// The package of each NUMA node (its first worker's).
    node_package: Vec<usize>,
    /// The current event's time (`at_event`).
    now: f64,
    /// Per resource, every reserved piece of time and the bytes asked:
    /// kept in tests only, to check that no resource's bandwidth is
    /// exceeded.
    #[cfg(test)]
    pub(super) log: Vec<Vec<(f64, f64, f64)>>,
    #[cfg(test)]
    pub(super) log_bytes: Vec<u64>,
}

impl Links {
    pub(super) fn new(layout: &Layout, cost: &CostModel) -> Links {
        let (llcs, nodes) = (layout.llc_ranges().len(), layout.numa_ranges().len());
        let packages = layout.package_ranges().len();
        let w = layout.workers();
        let node_package: Vec<usize> = layout
            .numa_ranges()
            .iter()
            .map(|r| w[r.start].package)
            .collect();
        let res = (0..llcs)
            .map(|_| cost.bw_llc_link)
            .chain((0..nodes).map(|n| dram_share(layout, cost, n)))
            .chain((0..packages).map(|_| cost.bw_socket_link))
            .map(|bw| Resource {
                bw,
                used: Vec::new(),
            })
            .collect::<Vec<_>>();
        Links {
            #[cfg(test)]
            log: vec![Vec::new(); res.len()],
            #[cfg(test)]
            log_bytes: vec![0; res.len()],
            now: 0.0,
            res,
            llcs,
            nodes,
            node_package,
        }
    }

    /// The resources worker `w`'s read of bytes `from` crosses, as
    /// indexes (unmodelled ones included: `reserve` skips them).
    fn path(&self, layout: &Layout, w: usize, from: From) -> ([usize; 3], usize) {
        let me = &layout.workers()[w];
        let (llc, package, dram) = match from {
            From::Cache(m) => {
                let p = &layout.workers()[m];
                (p.llc, p.package, None)
            }
            From::Dram(n) => (usize::MAX, self.node_package[n], Some(n)),
        };
        let mut path = [0; 3];
        let mut len = 0;
        let mut add = |r| {
            path[len] = r;
            len += 1;
        };
        if llc != me.llc {
            add(me.llc);
        }
        if let Some(n) = dram {
            add(self.llcs + n);
        }
        if package != me.package {
            add(self.llcs + self.nodes + me.package);
        }
        (path, len)
    }

    /// The current event's time: no transfer asked from now on starts
    /// before it (events are handled in time order).
    pub(super) fn at_event(&mut self, now: f64) {
        self.now = now;
    }

    /// The kind of resource `r` (an index of `res`): 0 an LLC link, 1 a
    /// node's DRAM, 2 a socket link (the order of
    /// [`Counts::bw_wait_by_resource`](super::counts::Counts::bw_wait_by_resource)).
    fn kind(&self, r: usize) -> usize {
        if r < self.llcs {
            0
        } else if r < self.llcs + self.nodes {
            1
        } else {
            2
        }
    }

    /// [`Links::delay`], counted: the wait is added to `counts.bw_wait_ns`
    /// and to `counts.bw_wait_by_resource` of the resource that decided it.
    pub(super) fn charge(
        &mut self,
        layout: &Layout,
        w: usize,
        from: From,
        transfer: (f64, u64, f64),
        counts: &mut Counts,
    ) -> f64 {
        let (wait, by) = self.delay(layout, w, from, transfer);
        if wait > 0.0 {
            counts.bw_wait_ns += wait.round() as u64;
            counts.bw_wait_by_resource[self.kind(by)] += wait.round() as u64;
        }
        wait
    }

    /// Worker `w` reads `bytes` `from` at time `at`, which it alone would
    /// move in `alone` ns: the delay beyond `alone` the shared resources on
    /// its path add (0 when none is busy enough), their time reserved, and
    /// the resource that decided it (the last to move the bytes).
    pub(super) fn delay(
        &mut self,
        layout: &Layout,
        w: usize,
        from: From,
        (at, bytes, alone): (f64, u64, f64),
    ) -> (f64, usize) {
        if bytes == 0 {
            return (0.0, 0);
        }
        let (path, len) = self.path(layout, w, from);
        let (mut wait, mut by): (f64, usize) = (0.0, 0);
        for &r in &path[..len] {
            let res = &mut self.res[r];
            if res.bw <= 0.0 {
                continue;
            }
            let rate = if alone > 0.0 {
                bytes as f64 / alone
            } else {
                res.bw
            };
            let (end, _pieces) = res.reserve(self.now, at, bytes as f64, rate);
            #[cfg(test)]
            {
                self.log[r].extend(_pieces);
                self.log_bytes[r] += bytes;
            }
            if end - at - alone > wait {
                (wait, by) = (end - at - alone, r);
            }
        }
        // Below a picosecond is the rounding of `end`, not a wait.
        if wait > 1e-3 { (wait, by) } else { (0.0, 0) }
    }
}

/// Node `n`'s DRAM bandwidth: its packages' `bw_dram_package` shared
/// evenly by the nodes in them (SNC or NPS modes, a Kunpeng package's two
/// dies), summed over the packages a node spans (a node that encloses
/// packages).
fn dram_share(layout: &Layout, cost: &CostModel, n: usize) -> f64 {
    let w = layout.workers();
    let mut packages: Vec<usize> = layout.numa_ranges()[n]
        .clone()
        .map(|i| w[i].package)
        .collect();
    packages.sort_unstable();
    packages.dedup();
    let mut nodes: Vec<usize> = w
        .iter()
        .filter(|p| packages.contains(&p.package))
        .map(|p| p.numa)
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    cost.bw_dram_package * packages.len() as f64 / nodes.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cache::Caches;
    use crate::sim::counts::Counts;
    use crate::sim::{Policy, Triad, simulate};
    use crate::topology::Topology;

    const MIB: u64 = 1 << 20;

    use crate::sim::tests::hierarchical_layout as machine;

    /// A model without latencies and caches, every core at 10 GB/s from
    /// DRAM, the package's DRAM at `dram` GB/s.
    fn streaming(dram: f64) -> CostModel {
        let mut c = CostModel::published();
        (c.dram_ns, c.dram_remote_ns, c.l2_bytes, c.llc_bytes) = (0.0, 0.0, 0.0, 0.0);
        (c.bw_dram, c.bw_dram_package) = (10.0, dram);
        c
    }

    #[test]
    fn two_cores_streaming_through_one_resource_take_twice_as_long_as_one() {
        let l = machine("core:2");
        let cost = streaming(10.0);
        let mut k = Counts::default();
        let mut c = Caches::new(&l, &cost);
        let one = c.access(&l, &cost, (0, 0.0), (1, MIB, false), &mut k);
        assert_eq!(one, MIB as f64 / 10.0);
        // Both cores start a block at time 0: the channels carry one after
        // the other.
        let mut c = Caches::new(&l, &cost);
        let a = c.access(&l, &cost, (0, 0.0), (1, MIB, false), &mut k);
        let b = c.access(&l, &cost, (1, 0.0), (2, MIB, false), &mut k);
        assert_eq!(a, one);
        assert_eq!(a.max(b), 2.0 * one);
        assert_eq!(k.bw_wait_ns, one.round() as u64);
        // The wait is the node's DRAM's (the only resource on the path).
        assert_eq!(k.bw_wait_by_resource, [0, k.bw_wait_ns, 0]);
        // Started one after the other, neither waits.
        let mut c = Caches::new(&l, &cost);
        c.access(&l, &cost, (0, 0.0), (1, MIB, false), &mut k);
        assert_eq!(c.access(&l, &cost, (1, one), (2, MIB, false), &mut k), one);
    }

    #[test]
    fn a_later_reservation_leaves_the_time_before_it_to_others() {
        let l = machine("core:2");
        let cost = streaming(10.0);
        let mut k = Counts::default();
        let mut c = Caches::new(&l, &cost);
        let one = MIB as f64 / 10.0;
        // Worker 0's block is asked for time 2 * one (a task's second
        // block); worker 1's, asked afterwards for time 0, fits before it.
        c.access(&l, &cost, (0, 2.0 * one), (1, MIB, false), &mut k);
        assert_eq!(c.access(&l, &cost, (1, 0.0), (2, MIB, false), &mut k), one);
        // A third one, asked at time one / 2, waits for worker 1's and
        // takes the gap up to worker 0's block.
        let ns = c.access(&l, &cost, (1, one / 2.0), (3, MIB, false), &mut k);
        assert!((ns - 1.5 * one).abs() < 1e-6, "{ns}");
        // A fourth finds no gap left: after worker 0's block.
        let ns = c.access(&l, &cost, (0, 0.0), (4, MIB, false), &mut k);
        assert!((ns - 4.0 * one).abs() < 1e-6, "{ns}");
    }

    #[test]
    fn per_core_bandwidth_still_limits_a_lone_core() {
        // The EPYC class: a CCD link of 55 GB/s and 360 for the socket,
        // one core at 25.
        let l = machine("package:2 llc:2 core:4");
        let cost = CostModel::class("epyc").unwrap();
        assert!(cost.bw_llc_link > cost.bw_dram && cost.bw_dram_package > cost.bw_dram);
        let mut off = cost.clone();
        (off.bw_dram_package, off.bw_llc_link, off.bw_socket_link) = (0.0, 0.0, 0.0);
        let (mut k, mut k_off) = (Counts::default(), Counts::default());
        let (mut c, mut c_off) = (Caches::new(&l, &cost), Caches::new(&l, &off));
        let mut t = 0.0;
        for id in 0..20 {
            let ns = c.access(&l, &cost, (0, t), (id, MIB, false), &mut k);
            assert_eq!(ns, cost.dram(10, MIB), "block {id}");
            c_off.access(&l, &off, (0, t), (id, MIB, false), &mut k_off);
            t += ns;
        }
        // Worker 8 (the other package) reads them back, one after the
        // other: over its CCD link and the socket link, both faster than
        // one core, at the cost the model without shared links gives.
        for id in 0..20 {
            let ns = c.access(&l, &cost, (8, t), (id, MIB, false), &mut k);
            let alone = c_off.access(&l, &off, (8, t), (id, MIB, false), &mut k_off);
            assert_eq!(ns, alone, "block {id}");
            t += ns;
        }
        assert!(k.bytes_by_tier[crate::layout::TierKind::Remote as usize] > 0);
        assert_eq!(k.bw_wait_ns, 0);
    }

    #[test]
    fn a_resource_never_carries_more_than_its_bandwidth() {
        let l = machine("package:2 llc:2 core:4");
        let mut cost = CostModel::class("epyc").unwrap();
        (cost.l2_bytes, cost.llc_bytes) = (256.0 * 1024.0, MIB as f64);
        let mut k = Counts::default();
        let mut c = Caches::new(&l, &cost);
        let (mut r, mut t) = (1u64, 0.0);
        for _ in 0..3000 {
            r = crate::sim::workload::mix(r);
            let (w, id, bytes) = (
                (r % 16) as usize,
                (r >> 8) % 64,
                4096 * (1 + (r >> 20) % 64),
            );
            c.access(&l, &cost, (w, t), (id, bytes, r >> 40 & 3 == 0), &mut k);
            t += ((r >> 44) % 500) as f64;
        }
        assert!(k.bw_wait_ns > 0, "the test must load the links");
        let links = &c.links;
        for (i, log) in links.log.iter().enumerate() {
            let bw = links.res[i].bw;
            if bw == 0.0 {
                assert!(log.is_empty());
                continue;
            }
            // At no time do the pieces given out add up to more than the
            // resource's bandwidth, and together they move exactly the
            // bytes asked.
            let mut times: Vec<f64> = log.iter().flat_map(|p| [p.0, p.1]).collect();
            times.sort_by(f64::total_cmp);
            for t in times {
                let load: f64 = log
                    .iter()
                    .filter(|p| p.0 <= t && t < p.1)
                    .map(|p| p.2)
                    .sum();
                assert!(
                    load <= bw * (1.0 + 1e-9),
                    "resource {i} at {t}: {load} of {bw}"
                );
            }
            let moved: f64 = log.iter().map(|p| (p.1 - p.0) * p.2).sum();
            let want = links.log_bytes[i] as f64;
            assert!(
                (moved - want).abs() <= 1e-6 * want,
                "resource {i}: {moved} of {want}"
            );
        }
    }

    #[test]
    fn bytes_per_tier_do_not_depend_on_the_links() {
        // Bursts of reads at one moment, each of another block, so the
        // links are busy while no read finds a copy still arriving (the
        // one way the links can move a read: `sim::cache::source`).
        let l = machine("package:2 llc:2 cluster:2 core:2");
        let mut on = CostModel::class("epyc").unwrap();
        (on.l2_bytes, on.llc_bytes) = (256.0 * 1024.0, MIB as f64);
        let mut off = on.clone();
        (off.bw_dram_package, off.bw_llc_link, off.bw_socket_link) = (0.0, 0.0, 0.0);
        let (mut c_on, mut c_off) = (Caches::new(&l, &on), Caches::new(&l, &off));
        let (mut k_on, mut k_off) = (Counts::default(), Counts::default());
        let mut r = 3u64;
        for burst in 0..200 {
            let at = burst as f64 * 1e9;
            let mut ids = Vec::new();
            while ids.len() < 12 {
                r = crate::sim::workload::mix(r);
                let (w, id, bytes) = (
                    (r % 16) as usize,
                    (r >> 8) % 40,
                    4096 * (1 + (r >> 20) % 64),
                );
                if ids.contains(&id) {
                    continue;
                }
                ids.push(id);
                let a = (id, bytes, r >> 40 & 3 == 0);
                let x = c_on.access(&l, &on, (w, at), a, &mut k_on);
                let y = c_off.access(&l, &off, (w, at), a, &mut k_off);
                assert!(x >= y);
            }
        }
        assert_eq!(k_on.bytes_by_tier, k_off.bytes_by_tier);
        assert_eq!(k_on.llc_moves, k_off.llc_moves);
        assert!(k_on.bw_wait_ns > 0 && k_off.bw_wait_ns == 0);
    }

    #[test]
    fn ninety_six_cores_stream_at_most_the_socket_dram_bandwidth() {
        // A small triad on one EPYC socket (12 CCX of 8): every byte after
        // the first touch comes from DRAM, so DRAM bytes over the makespan
        // stay under the socket's 360 GB/s, however many cores stream.
        let t = Topology::synthetic("llc:12 core:8").unwrap();
        let cost = CostModel::class("epyc").unwrap();
        let w = Triad {
            n: 1 << 23,
            iters: 2,
        };
        for p in [Policy::Hierarchical, Policy::RayonLike] {
            let r = simulate(&t, &w, p, None, &cost).unwrap();
            let k = &r.counts;
            let dram = k.bytes_by_tier[6] + k.bytes_by_tier[7];
            let gbs = dram as f64 / k.makespan_ns as f64;
            assert!(gbs <= cost.bw_dram_package, "{p}: {gbs} GB/s");
            assert!(k.bw_wait_ns > 0, "{p}");
            // Each wait is put on one resource: the kinds add up to it.
            assert_eq!(
                k.bw_wait_by_resource.iter().sum::<u64>(),
                k.bw_wait_ns,
                "{p}"
            );
        }
    }
}
