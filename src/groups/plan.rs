//! [`GroupPlan`]: where each job of a group goes, as pure code over a
//! [`Layout`]. The pool calls [`GroupPlan::destination`] for every group
//! push; tests call it directly.

use parking_lot::Mutex;

use super::options::{Affinity, GroupError, GroupOptions, Placement};
use super::policy::{SpreadDealer, SpreadUnit, saturated_by, spread_units};
use crate::layout::Layout;

/// Where one job of a group goes, and where the wakeup for it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Destination {
    /// Placed like an ordinary job: the spawning worker's deque, or an LLC
    /// injector from outside the pool (no affinity, or `Auto` without a
    /// preference yet).
    Ordinary,
    /// The pack queue of LLC `llc`; an idle worker of that LLC is woken,
    /// the cluster of `wake_from` first (when given), big cores first.
    Pack {
        /// The LLC.
        llc: usize,
        /// Where the wakeup search starts.
        wake_from: Option<usize>,
    },
    /// The spread queue of cluster `cluster` (in LLC `llc`); an idle worker
    /// of that cluster is woken first (big cores first), else of its LLC,
    /// else anyone idle.
    Cluster {
        /// The cluster (dense id).
        cluster: usize,
        /// Its LLC.
        llc: usize,
        /// Its first worker (where the wakeup search starts).
        wake_from: usize,
    },
    /// The ordinary injector of LLC `llc` (spreading with cluster awareness
    /// off); an idle worker of that LLC is woken first, else anyone idle.
    Llc {
        /// The LLC.
        llc: usize,
    },
}

/// The placement of one group on one layout: its domain, its `Near`
/// worker, its spread dealers (one per cluster mode).
#[derive(Debug)]
pub(crate) struct GroupPlan {
    options: GroupOptions,
    llcs: Vec<usize>,
    worker_llc: Vec<usize>,
    units: [Vec<SpreadUnit>; 2],
    dealers: [Mutex<SpreadDealer>; 2],
}

impl GroupPlan {
    /// The plan of a group with `options` on `layout`.
    ///
    /// # Errors
    /// When the affinity names an LLC, NUMA node or worker the layout does
    /// not have.
    pub(crate) fn new(layout: &Layout, options: GroupOptions) -> Result<GroupPlan, GroupError> {
        let nllc = layout.llc_ranges().len();
        let llcs = match options.affinity {
            Affinity::Llc(l) if l >= nllc => {
                return Err(GroupError::NoSuchLlc { llc: l, llcs: nllc });
            }
            Affinity::Llc(l) => vec![l],
            Affinity::Near(w) if w >= layout.len() => {
                return Err(GroupError::NoSuchWorker {
                    worker: w,
                    workers: layout.len(),
                });
            }
            Affinity::Near(w) => vec![layout.workers()[w].llc],
            Affinity::Numa(n) if n >= layout.numa_ranges().len() => {
                return Err(GroupError::NoSuchNuma {
                    numa: n,
                    nodes: layout.numa_ranges().len(),
                });
            }
            Affinity::Numa(n) => (0..nllc).filter(|&l| layout.llc_numa(l) == n).collect(),
            Affinity::None | Affinity::Auto => (0..nllc).collect(),
        };
        let units = [
            spread_units(layout, false, &llcs),
            spread_units(layout, true, &llcs),
        ];
        let dealer = |u: &[SpreadUnit]| {
            let w: Vec<u64> = u.iter().map(|u| u.weight).collect();
            Mutex::new(SpreadDealer::new(&w))
        };
        Ok(GroupPlan {
            options,
            dealers: [dealer(&units[0]), dealer(&units[1])],
            units,
            llcs,
            worker_llc: layout.workers().iter().map(|w| w.llc).collect(),
        })
    }

    /// The options.
    pub(crate) fn options(&self) -> GroupOptions {
        self.options
    }

    #[cfg(test)]
    /// The LLCs of the affinity's domain (all for `None` and `Auto`).
    pub(crate) fn llcs(&self) -> &[usize] {
        &self.llcs
    }

    /// The LLC of `Llc(i)` and `Near(w)`, else `None`.
    pub(crate) fn fixed_llc(&self) -> Option<usize> {
        match self.options.affinity {
            Affinity::Llc(_) | Affinity::Near(_) => Some(self.llcs[0]),
            _ => None,
        }
    }

    #[cfg(test)]
    /// The spread units of one cluster mode, in dealing order.
    pub(crate) fn spread_units(&self, cluster_aware: bool) -> &[SpreadUnit] {
        &self.units[usize::from(cluster_aware)]
    }

    /// Where the next job goes.
    ///
    /// - `learned`: the `Auto` group's preferred LLC (ignored otherwise);
    /// - `load(l)`: busy workers and workers of LLC `l` (see
    ///   [`overloaded_by`](super::policy::overloaded_by)), asked by `Numa`,
    ///   which packs into the least busy LLC of its node (relative to
    ///   size), and by `Auto` for its learned LLC;
    /// - `from_worker`: the pushing worker, if a worker of the pool;
    /// - `cluster_aware`: the pool's current cluster mode.
    ///
    /// Pack: the target LLC's pack queue, with the wakeup starting at the
    /// `Near` worker's cluster for `Near` (anywhere in the LLC otherwise);
    /// but a job pushed by a worker **of the target LLC** is
    /// [`Destination::Ordinary`]: it goes on that worker's own deque, as
    /// an ordinary spawn (LIFO: the worker runs it next, on the data its
    /// parent just wrote, unless a thief takes it first). The group is
    /// already where it should be, and the shared FIFO would hand the job
    /// to whichever worker of the LLC comes next, which reads the parent's
    /// data through the L3 (docs/pipeline-packing.md). Such a job is
    /// stealable like a `join` half (the module's "Limits").
    ///
    /// `Auto` does not pack into its learned LLC while that LLC is
    /// saturated ([`saturated`](super::policy::saturated): none of its
    /// workers idle): the job is then placed as an ordinary one (the
    /// spawner's deque, or an injector from outside), as the kernel's
    /// cache-aware scheduling does not aggregate a process onto an
    /// overloaded LLC. A learned LLC is a guess from where the group's
    /// jobs ran; groups that feed each other (a pipeline's stages) all
    /// learn the LLC of the first, and more work than it has workers would
    /// queue there, to be taken by the help rule's idle helpers of other
    /// LLCs once they run dry, after a trip to and from the LLC
    /// (docs/pipeline-packing.md). A given LLC (`Llc`, `Near`, `Numa`) is
    /// the user's choice and is kept.
    ///
    /// Spread advances the dealer of the current mode.
    pub(crate) fn destination(
        &self,
        learned: Option<usize>,
        load: &dyn Fn(usize) -> (usize, usize),
        from_worker: Option<usize>,
        cluster_aware: bool,
    ) -> Destination {
        match self.options.placement {
            Placement::Pack => {
                let llc = match self.options.affinity {
                    Affinity::None => None,
                    // Auto's domain is every LLC; a saturated one is not
                    // packed into (see below).
                    Affinity::Auto => learned
                        .filter(|&l| l < self.llcs.len())
                        .filter(|&l| !saturated_by(load(l))),
                    Affinity::Llc(_) | Affinity::Near(_) => self.fixed_llc(),
                    Affinity::Numa(_) => self.llcs.iter().copied().min_by_key(|&l| {
                        let (b, s) = load(l);
                        (b * 1024 / s.max(1), l)
                    }),
                };
                match llc {
                    None => Destination::Ordinary,
                    // From a worker of the LLC: its own deque, as an
                    // ordinary spawn (see below).
                    Some(llc) if from_worker.and_then(|w| self.worker_llc.get(w)) == Some(&llc) => {
                        Destination::Ordinary
                    }
                    Some(llc) => Destination::Pack {
                        llc,
                        wake_from: match self.options.affinity {
                            Affinity::Near(w) => Some(w),
                            _ => None,
                        },
                    },
                }
            }
            Placement::Spread => {
                let m = usize::from(cluster_aware);
                let i = self.dealers[m].lock().next_unit();
                match self.units[m].get(i) {
                    Some(u) => match u.cluster {
                        Some(cluster) => Destination::Cluster {
                            cluster,
                            llc: u.llc,
                            wake_from: u.workers.start,
                        },
                        None => Destination::Llc { llc: u.llc },
                    },
                    None => Destination::Ordinary,
                }
            }
        }
    }
}
