//! Building a [`Layout`]: the workers on the allowed PUs (how many on
//! each: `select`), their dense domain ranges and pin sets (`pinsets`),
//! their steal tiers (`tiers`, for both values of the cluster switch) and
//! each LLC's order (`order`).
//!
//! Invariants established here (the first three of the [`Layout`]'s):
//! workers are numbered in the order of [`Topology::pus`], over allowed
//! PUs only, so each core, cluster, LLC, NUMA node and package is a
//! contiguous range of workers (`extend_ranges` opens a new range exactly
//! when the topology's domain id changes); dense ids count only domains
//! with workers, in worker order; a virtual topology gets no pin sets.
//! Input the layout cannot serve is a typed [`LayoutError`], never a
//! panic.

use std::ops::Range;
use std::sync::OnceLock;

use super::options::{LayoutOptions, Pinning};
use super::place::WorkerPlace;
use super::{Layout, LayoutError, MAX_WORKERS, order, pinsets, select, tiers};
use crate::topology::Topology;

/// Appends worker `w` to the dense ranges of one level; returns its dense id.
fn extend_ranges(
    ranges: &mut Vec<Range<usize>>,
    last: &mut Option<usize>,
    topo_id: usize,
    w: usize,
) -> usize {
    match ranges.last_mut() {
        Some(r) if *last == Some(topo_id) => r.end = w + 1,
        _ => ranges.push(w..w + 1),
    }
    *last = Some(topo_id);
    ranges.len() - 1
}

/// Where the dense LLCs of a layout are in its topology.
struct DenseLlcs {
    /// Topology NUMA domain and package of each dense LLC.
    place: Vec<(usize, usize)>,
    /// Dense LLC of each topology LLC (`usize::MAX`: no worker in it).
    dense_of_llc: Vec<usize>,
}

/// The positions in [`Topology::pus`] of the allowed PUs.
fn allowed_positions(topology: &Topology) -> Result<Vec<usize>, LayoutError> {
    let pus = topology.pus();
    let allowed: Vec<usize> = (0..pus.len())
        .filter(|&i| topology.allowed().contains(pus[i].os_index))
        .collect();
    if allowed.is_empty() {
        return Err(LayoutError::NoAllowedCpu {
            source: topology.source().to_string(),
        });
    }
    Ok(allowed)
}

/// The number of workers `opts` asks for, with `allowed` PUs.
fn worker_count(opts: &LayoutOptions, allowed: usize) -> Result<usize, LayoutError> {
    match opts.num_threads {
        None => Ok(allowed),
        Some(0) => Err(LayoutError::ZeroThreads { allowed }),
        Some(n) if n > MAX_WORKERS => Err(LayoutError::TooManyThreads { requested: n }),
        Some(n) => Ok(n),
    }
}

impl Layout {
    /// Lays out workers on `topology`.
    ///
    /// With `num_threads` unset, one worker per allowed PU. With `n` below
    /// the number of allowed PUs, the PUs are spread evenly over packages,
    /// NUMA nodes, LLCs, clusters and cores, outermost first, and two workers
    /// share a core only when every core has one (details in the `select`
    /// module docs). With `n` above, every allowed PU gets `n / m` workers
    /// and `n % m` of them (spread the same way) one more: useful for tests
    /// and virtual topologies, pointless for speed on a real machine; such
    /// workers are pinned to wider sets (module docs, "Pinning more workers
    /// than CPUs").
    ///
    /// # Errors
    /// [`LayoutError::ZeroThreads`] for `Some(0)`,
    /// [`LayoutError::TooManyThreads`] above [`MAX_WORKERS`].
    ///
    /// ```
    /// use locus::{Layout, LayoutOptions, Topology};
    /// let t = Topology::synthetic("llc:2 cluster:2 core:4").unwrap();
    /// let opts = LayoutOptions { num_threads: Some(4), ..Default::default() };
    /// let l = Layout::new(&t, &opts).unwrap();
    /// // One worker per cluster, on its first core.
    /// let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    /// assert_eq!(pus, [0, 4, 8, 12]);
    /// assert_eq!(l.workers()[1].cpus.to_string(), "4-7");
    /// ```
    pub fn new(topology: &Topology, opts: &LayoutOptions) -> Result<Layout, LayoutError> {
        Self::new_keeping(topology, || std::borrow::Cow::Owned(topology.clone()), opts)
    }

    /// [`Layout::new`] on a topology that lives as long as the process
    /// (the detected machine): the layout keeps a reference, no copy.
    pub(crate) fn new_static(
        topology: &'static Topology,
        opts: &LayoutOptions,
    ) -> Result<Layout, LayoutError> {
        Self::new_keeping(topology, || std::borrow::Cow::Borrowed(topology), opts)
    }

    /// [`Layout::new`], keeping the topology that `keep` gives.
    fn new_keeping(
        topology: &Topology,
        keep: impl FnOnce() -> std::borrow::Cow<'static, Topology>,
        opts: &LayoutOptions,
    ) -> Result<Layout, LayoutError> {
        let allowed = allowed_positions(topology)?;
        let n = worker_count(opts, allowed.len())?;
        let mult = select::multiplicities(topology, &allowed, n);
        let mut l = Layout {
            topology: keep(),
            options: opts.clone(),
            workers: Vec::with_capacity(n),
            core_ranges: Vec::new(),
            cluster_ranges: Vec::new(),
            llc_ranges: Vec::new(),
            numa_ranges: Vec::new(),
            package_ranges: Vec::new(),
            numa_topo: Vec::new(),
            llc_runs: Vec::new(),
            llc_lists: Vec::new(),
            other_tiers: Vec::new(),
            llc_by_cpu: Vec::new(),
        };
        let llcs = l.place_workers(topology, &allowed, &mult);
        let tiers = tiers::all(&l, opts.cluster_aware);
        for (w, t) in l.workers.iter_mut().zip(tiers) {
            w.tiers = t;
        }
        l.other_tiers = tiers::all(&l, !opts.cluster_aware);
        l.order_llcs(topology, &llcs);
        Ok(l)
    }

    /// Appends the workers: `mult[i]` on the PU at position `allowed[i]`,
    /// in that order, with their dense domain ranges and pin sets. Returns
    /// where the dense LLCs are in the topology.
    fn place_workers(
        &mut self,
        topology: &Topology,
        allowed: &[usize],
        mult: &[usize],
    ) -> DenseLlcs {
        let pus = topology.pus();
        let pinning = if self.options.virtual_topology {
            Pinning::None
        } else {
            self.options.pinning
        };
        let pin_sets = pinsets::pin_sets(topology, allowed, mult, pinning);
        let mut last = [None; 5];
        let mut llcs = DenseLlcs {
            place: Vec::new(),
            dense_of_llc: vec![usize::MAX; topology.llcs().len()],
        };
        for ((&pos, &k), cpus) in allowed.iter().zip(mult).zip(pin_sets) {
            if k == 0 {
                continue;
            }
            let pu = &pus[pos];
            // The pin set is shared by the PU's workers.
            for _ in 0..k {
                let w = self.workers.len();
                let core = extend_ranges(&mut self.core_ranges, &mut last[0], pu.core, w);
                let cluster = extend_ranges(&mut self.cluster_ranges, &mut last[1], pu.cluster, w);
                let llc = extend_ranges(&mut self.llc_ranges, &mut last[2], pu.llc, w);
                let numa = extend_ranges(&mut self.numa_ranges, &mut last[3], pu.numa, w);
                let package = extend_ranges(&mut self.package_ranges, &mut last[4], pu.package, w);
                if llc == llcs.place.len() {
                    llcs.dense_of_llc[pu.llc] = llc;
                    llcs.place.push((pu.numa, pu.package));
                }
                if numa == self.numa_topo.len() {
                    self.numa_topo.push(pu.numa);
                }
                self.workers.push(WorkerPlace {
                    index: w,
                    pu: pu.os_index,
                    cpus: cpus.clone(),
                    core,
                    cluster,
                    llc,
                    numa,
                    package,
                    capacity: pu.capacity,
                    tiers: Vec::new(),
                });
            }
        }
        llcs
    }

    /// The LLC orders and the CPU -> LLC map.
    fn order_llcs(&mut self, topology: &Topology, llcs: &DenseLlcs) {
        let pus = topology.pus();
        let mut orders = order::LlcOrders::new(topology, &llcs.place);
        self.llc_runs = llcs
            .place
            .iter()
            .enumerate()
            .map(|(b, &(na, pa))| orders.others(b, na, pa))
            .collect();
        self.llc_lists = vec![OnceLock::new(); llcs.place.len()];
        let max_os = pus.iter().map(|p| p.os_index).max().unwrap_or(0);
        self.llc_by_cpu = vec![usize::MAX; max_os + 1];
        for p in pus {
            let own = Some(llcs.dense_of_llc[p.llc]).filter(|&d| d != usize::MAX);
            self.llc_by_cpu[p.os_index] = own.unwrap_or_else(|| orders.nearest(p.numa, p.package));
        }
    }
}
