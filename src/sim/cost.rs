//! The cost model: what each simulated event costs, in nanoseconds, with
//! named parameters, documented defaults and where they come from.
//!
//! # Where the defaults come from
//!
//! Two sources, applied in this order:
//!
//! 1. [`CostModel::published`]: round figures for a current server core at
//!    2 to 3 GHz, taken from published measurements. They are the only
//!    source for what this crate's 2-core CI machine cannot measure
//!    (transfers and bandwidths across LLCs, NUMA nodes and clusters):
//!    - cache-line transfers by distance: the core-to-core latency charts
//!      of AnandTech's reviews (Zen 3/4 EPYC: 15 to 30 ns inside a CCX, 80
//!      to 110 ns across CCDs, 150 to 250 ns across sockets; Kunpeng 920:
//!      about 15 ns inside a 4-core cluster, 40 ns inside a die);
//!    - refill bandwidth: per-core STREAM-like figures (about 50 GB/s from
//!      the own L3, 20 from another die of the node, 10 from another node);
//!    - caches and DRAM (the cache model, `sim::cache`): 1 MiB of L2
//!      per core and 32 MiB per LLC (a Zen 4 core and CCX, AMD's Zen 4
//!      optimization guide); a transfer from an SMT sibling's or cluster
//!      mate's L2 at 100 GB/s (a core's L2 read bandwidth, 32 B a cycle at
//!      3 GHz); local DRAM about 110 ns (AnandTech's Rome review: about
//!      122 ns full random at NPS1), another socket's about 200 ns at
//!      distance 20 (Velten et al., "Memory Performance of AMD EPYC Rome and
//!      Intel Cascade Lake SP Server Processors", ICPE 2022); one core's
//!      DRAM bandwidth 15 GB/s locally and 8 remotely, rounded down from
//!      the per-core figures of the same paper (a core's misses in flight,
//!      not the socket's bandwidth);
//!    - shared bandwidth (`sim::bandwidth`): a package's DRAM 150 GB/s,
//!      all channels together: eight channels of DDR4-3200 (204.8 GB/s
//!      peak, JEDEC) at the 70 to 80% that STREAM triad sustains on
//!      servers (AnandTech, "Intel Skylake-EP vs AMD EPYC 7000": 183 of
//!      256 GB/s on two Xeon 8176, AMD's tuned binary 250 of 307 on two
//!      EPYC 7601); the LLC and socket links are not modelled by default
//!      (0): the machine classes set them. Per machine class:
//!      [`CostModel::class`] (`src/sim/classes/*.cost`, each number with
//!      its source);
//!    - wakeup: a futex wake to the woken thread running, 2 to 10 µs
//!      depending on C-states (the Linux scheduler's wakeup-latency
//!      measurements);
//!    - the cache line: 64 bytes, the L1 and L2 `coherency_line_size`
//!      that Linux reports in the real-machine snapshots the classes
//!      follow (`128arm-2pa2n8cluster4co`, the Kunpeng 920, whose L3
//!      reports 128; `memorysidecaches`, the Xeon), and Intel's and AMD's
//!      optimization manuals for x86; it prices a batch steal's copy of job
//!      handles ([`CostModel::batch_copy`]);
//!    - deque operations and fences: crossbeam-deque's own benchmarks (a
//!      push or pop a few ns, a contended CAS 20 to 50 ns), a `SeqCst`
//!      fence about 20 ns, `membarrier` a few µs;
//!    - what the heavy fence (`membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`)
//!      costs the other workers: the kernel sends an inter-processor
//!      interrupt to every CPU running a thread of the process and waits
//!      for each to run a barrier in its handler (Linux commit
//!      22e4ebb97582, "membarrier: Provide expedited private command",
//!      v4.14). Each running worker loses the interrupt
//!      ([`CostModel::fence_interrupt_ns`]): 1 µs, a conservative bound
//!      from QNX's hypervisor guide ("Guest-issued IPIs", QNX Hypervisor
//!      7.0 User's Guide: an IPI between physical CPUs typically takes
//!      less than a microsecond when the OS runs on the hardware, an order
//!      of magnitude more from a guest, about a guest exit and entry of
//!      10 µs, which is what the development VM measures: 9 µs a fence per
//!      running thread, docs/simulator-results.md, "What the fence costs
//!      while another worker runs"). The caller waits for every target
//!      ([`CostModel::fence_target_ns`] per interrupted worker): 150 ns,
//!      an estimate: Yury Norov's IPI benchmark on a 112-CPU ThunderX2
//!      host (linux-arm-kernel, "[PATCH v2] IPI performance benchmark",
//!      2017-12-19) times a call to all CPUs at 2,106 units of its dry
//!      run against 110 for a call to one, about 0.17 of a one-target
//!      round trip per further target; times the bound of 1 µs for that
//!      round trip, rounded down.
//! 2. `calibrated.cost` (beside this file), written by
//!    `python3 scripts/calibrate.py fit`: the overhead-only constants
//!    measured and fitted on the real pools of the CI machine (per `join`
//!    on one worker for locus and rayon, per steal, per wakeup, the
//!    speed of task work); the file's comments give the command, the date
//!    and the measured numbers, and docs/calibration.md the method.
//!
//! Every parameter can be overridden from a file of `key = value` lines
//! (`#` starts a comment): [`CostModel::parse`], [`CostModel::from_file`]
//! (`simulate --cost FILE`). The keys are the field names; the file
//! format and the perturbation of every parameter are `cost_file`.
//!
//! Invariants: every parameter is finite and non-negative, and the
//! bandwidths a price divides by (`bw_llc`, `bw_node`, `bw_remote`,
//! `bw_cluster`, `bw_dram`, `bw_dram_remote`) are positive (the file
//! format checks both; a shared link's bandwidth of 0 means the link is
//! not modelled, `sim::bandwidth`); a price grows with the distance it
//! crosses (a unit test checks each machine class).

use crate::layout::TierKind;
use crate::runtime::job::JobRef;

/// The simulator's costs, in nanoseconds (bandwidths in bytes per ns, which
/// is GB/s). See the module docs for the sources of the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// A cache-line transfer between SMT siblings (shared L1/L2).
    pub line_smt_ns: f64,
    /// A cache-line transfer inside a cluster (shared L2).
    pub line_cluster_ns: f64,
    /// A cache-line transfer inside an LLC.
    pub line_llc_ns: f64,
    /// A cache-line transfer to another LLC of the same NUMA node (or
    /// package).
    pub line_node_ns: f64,
    /// A cache-line transfer to another NUMA node at distance 20; other
    /// distances scale it linearly (distance / 20).
    pub line_remote_ns: f64,
    /// Refill bandwidth from the own LLC.
    pub bw_llc: f64,
    /// Refill bandwidth from another LLC of the node.
    pub bw_node: f64,
    /// Refill bandwidth from another node at distance 20 (scaled by 20 /
    /// distance).
    pub bw_remote: f64,
    /// Transfer bandwidth from an SMT sibling's or a cluster mate's cache
    /// (the shared L1/L2 of a core or cluster).
    pub bw_cluster: f64,
    /// Capacity of each cluster-level cache in bytes: the L2 a cluster
    /// shares, or a core's own L2 where clusters are cores (see
    /// `sim::cache`).
    pub l2_bytes: f64,
    /// Capacity of each LLC in bytes.
    pub llc_bytes: f64,
    /// Latency of a read that misses every cache, from DRAM of the own
    /// NUMA node.
    pub dram_ns: f64,
    /// The same from DRAM of a node at distance 20; other distances
    /// interpolate linearly from `dram_ns` at 10.
    pub dram_remote_ns: f64,
    /// One core's read bandwidth from DRAM of its own node (the
    /// memory-level parallelism of its outstanding misses).
    pub bw_dram: f64,
    /// The same from a node at distance 20 (scaled by 20 / distance).
    pub bw_dram_remote: f64,
    /// Shared: one package's DRAM bandwidth, all its channels together,
    /// split evenly between the package's NUMA nodes (`sim::bandwidth`).
    /// 0: not modelled.
    pub bw_dram_package: f64,
    /// Shared: one LLC's link to the rest of the machine (a Zen CCD's
    /// link to the IO die), for every byte its workers read from outside
    /// it. 0: not modelled (the LLC's die holds its memory controllers).
    pub bw_llc_link: f64,
    /// Shared: one package's link to the other packages, for every byte
    /// its workers read from another package. 0: not modelled.
    pub bw_socket_link: f64,
    /// Cache lines a job carries to its thief (its record and captures).
    pub job_lines: f64,
    /// The cache line's size in bytes (64: the L1 and L2 line of every
    /// machine class's cores, sources in the module docs): how many lines
    /// a batch steal's copy of job handles reads ([`CostModel::batch_copy`]).
    pub line_bytes: f64,
    /// A successful steal besides its line transfers (the CAS on the
    /// victim's deque).
    pub steal_ns: f64,
    /// A look at a queue or deque that turns out empty.
    pub probe_ns: f64,
    /// A push on the own deque or a queue.
    pub push_ns: f64,
    /// A pop of the own deque.
    pub pop_ns: f64,
    /// A private `join` half pushed or popped back.
    pub private_ns: f64,
    /// A `SeqCst` fence (the notify after a push).
    pub fence_ns: f64,
    /// One access to an idle-mask word (a claim's reads and RMWs), counted
    /// by running the `IdleMasks` code itself.
    pub idle_word_ns: f64,
    /// A heavy fence (`membarrier`) before claiming private halves: the
    /// caller's own cost of the call.
    pub heavy_fence_ns: f64,
    /// What a heavy fence costs each other worker that is running when it
    /// is taken (the interrupt `membarrier` sends to its CPU and the
    /// handler's barrier): its next event moves this much later. A parked
    /// worker's CPU is not interrupted.
    pub fence_interrupt_ns: f64,
    /// The caller's cost of a heavy fence per worker it interrupts
    /// (sending the interrupt and waiting for its handler), on top of
    /// [`CostModel::heavy_fence_ns`].
    pub fence_target_ns: f64,
    /// One `spin_loop` hint of a backoff spin step.
    pub spin_ns: f64,
    /// One `yield_now` of a backoff snooze step.
    pub yield_ns: f64,
    /// From a wakeup's claim to the woken worker running.
    pub wake_ns: f64,
    /// A worker's own cost of going to sleep (the futex wait).
    pub park_ns: f64,
    /// This machine's time for one ns of the workloads' own work: the
    /// workloads state work for a reference core (fib: 10 ns a call), the
    /// calibration measures what it takes here (the serial kernel).
    pub work_scale: f64,
}

/// The fitted constants of this crate's CI machine (see the module docs).
const CALIBRATED: &str = include_str!("calibrated.cost");

/// The machine classes' memory hierarchies (`classes/*.cost`, each
/// number with its source in the file's comments), by name.
const CLASSES: &[(&str, &str)] = &[
    ("epyc", include_str!("classes/epyc.cost")),
    ("kunpeng", include_str!("classes/kunpeng.cost")),
    ("xeon", include_str!("classes/xeon.cost")),
    ("laptop", include_str!("classes/laptop.cost")),
];

impl Default for CostModel {
    /// [`CostModel::published`].
    fn default() -> Self {
        CostModel::published()
    }
}

impl CostModel {
    /// [`CostModel::published`] with `calibrated.cost` applied: this
    /// crate's CI machine, the `simulate` example's default.
    pub fn calibrated() -> Self {
        CostModel::published()
            .with(CALIBRATED)
            .expect("calibrated.cost parses (a unit test checks it)")
    }

    /// The names of the machine classes [`CostModel::class`] knows.
    pub fn class_names() -> impl Iterator<Item = &'static str> {
        CLASSES.iter().map(|(n, _)| *n)
    }

    /// The machine class `name` (`epyc`, `kunpeng`, `xeon`, `laptop`):
    /// [`CostModel::calibrated`] (the scheduling overheads measured on
    /// this crate's CI machine, the only ones measured) with the class's
    /// memory hierarchy from `src/sim/classes/NAME.cost` (cache-line
    /// transfers, bandwidths, cache capacities, DRAM, each number with
    /// its source in the file). `None` for an unknown name.
    pub fn class(name: &str) -> Option<CostModel> {
        let (_, text) = CLASSES.iter().find(|(n, _)| *n == name)?;
        Some(
            CostModel::calibrated()
                .with(text)
                .expect("the class files parse (a unit test checks them)"),
        )
    }

    /// The published figures alone (see the module docs), work at the
    /// reference speed.
    pub fn published() -> Self {
        CostModel {
            line_smt_ns: 5.0,
            line_cluster_ns: 15.0,
            line_llc_ns: 40.0,
            line_node_ns: 100.0,
            line_remote_ns: 200.0,
            bw_llc: 50.0,
            bw_node: 20.0,
            bw_remote: 10.0,
            bw_cluster: 100.0,
            l2_bytes: 1048576.0,
            llc_bytes: 33554432.0,
            dram_ns: 110.0,
            dram_remote_ns: 200.0,
            bw_dram: 15.0,
            bw_dram_remote: 8.0,
            bw_dram_package: 150.0,
            bw_llc_link: 0.0,
            bw_socket_link: 0.0,
            job_lines: 2.0,
            line_bytes: 64.0,
            steal_ns: 25.0,
            probe_ns: 2.0,
            push_ns: 3.0,
            pop_ns: 3.0,
            private_ns: 1.0,
            fence_ns: 20.0,
            idle_word_ns: 5.0,
            heavy_fence_ns: 3000.0,
            fence_interrupt_ns: 1000.0,
            fence_target_ns: 150.0,
            spin_ns: 10.0,
            yield_ns: 500.0,
            wake_ns: 5000.0,
            park_ns: 1000.0,
            work_scale: 1.0,
        }
    }
}

/// Where a piece of data or a cache line travels from, seen from the
/// worker that needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The same worker: nothing moves.
    Same,
    /// At this relation ([`crate::Layout::relation`]), with the NUMA
    /// distance between the two workers' nodes (10 = local).
    At(TierKind, u32),
}

impl CostModel {
    /// One cache-line transfer over `reach`.
    pub fn line(&self, reach: Reach) -> f64 {
        match reach {
            Reach::Same => 0.0,
            Reach::At(TierKind::Smt, _) => self.line_smt_ns,
            Reach::At(TierKind::Cluster, _) => self.line_cluster_ns,
            Reach::At(TierKind::Llc, _) => self.line_llc_ns,
            Reach::At(_, d) if d <= 10 => self.line_node_ns,
            Reach::At(_, d) => self.line_remote_ns * d as f64 / 20.0,
        }
    }

    /// Refilling `bytes` of working set over `reach`: the bandwidth term
    /// alone ([`CostModel::transfer`] adds the latency).
    pub fn refill(&self, reach: Reach, bytes: u64) -> f64 {
        let bw = match reach {
            Reach::Same => return 0.0,
            Reach::At(TierKind::Smt | TierKind::Cluster, _) => self.bw_cluster,
            Reach::At(TierKind::Llc, _) => self.bw_llc,
            Reach::At(_, d) if d <= 10 => self.bw_node,
            Reach::At(_, d) => self.bw_remote * 20.0 / d as f64,
        };
        bytes as f64 / bw
    }

    /// Moving `bytes` (many lines) from a cache over `reach`: one line's
    /// latency, then the bytes at the tier's bandwidth. The misses of a
    /// block overlap (memory-level parallelism: a core keeps 10 to 20
    /// misses in flight, which the per-core bandwidths measure), so a
    /// block costs latency + bytes / bandwidth, not lines × latency.
    pub fn transfer(&self, reach: Reach, bytes: u64) -> f64 {
        if bytes == 0 {
            return 0.0;
        }
        self.line(reach) + self.refill(reach, bytes)
    }

    /// A batch steal's copy of `handles` job handles from the victim's
    /// deque buffer over `reach` (besides the job it pops, which
    /// `Sim::stole` charges as a single steal): crossbeam-deque's
    /// `Stealer::steal_batch_with_limit_and_pop` (0.8.8, Cargo.lock) reads
    /// each moved slot of the victim's buffer and writes it into the
    /// thief's, so the thief reads `ceil(handles × size_of::<JobRef>() /
    /// line_bytes)` lines its victim wrote, charged as any moved block
    /// ([`CostModel::transfer`]: one latency, then the bytes at the tier's
    /// bandwidth). 0 for no handle.
    pub fn batch_copy(&self, reach: Reach, handles: usize) -> f64 {
        let line = self.line_bytes.max(1.0);
        let bytes = (handles * std::mem::size_of::<JobRef>()) as f64;
        let lines = (bytes / line).ceil();
        self.transfer(reach, (lines * line) as u64)
    }

    /// Reading `bytes` that no cache holds from DRAM at NUMA `distance`
    /// (10: the own node): latency plus bytes at the core's DRAM
    /// bandwidth, both as [`CostModel::transfer`].
    pub fn dram(&self, distance: u32, bytes: u64) -> f64 {
        if bytes == 0 {
            return 0.0;
        }
        let d = distance.max(10) as f64;
        let latency = self.dram_ns + (self.dram_remote_ns - self.dram_ns) * (d - 10.0) / 10.0;
        latency.max(0.0) + self.dram_stream(distance, bytes)
    }

    /// The bandwidth term of [`CostModel::dram`] alone: `bytes` at one
    /// core's DRAM bandwidth at NUMA `distance`.
    pub fn dram_stream(&self, distance: u32, bytes: u64) -> f64 {
        let d = distance.max(10) as f64;
        let bw = if d <= 10.0 {
            self.bw_dram
        } else {
            (self.bw_dram_remote * 20.0 / d).min(self.bw_dram)
        };
        bytes as f64 / bw
    }
}

/// The pool's heavy fence, run once: what [`CostModel::heavy_fence_ns`]
/// charges, for measuring it on a real machine (the `calibrate` example).
/// The first call registers the process for `membarrier` as a pool's
/// start does; the fence is then the system call between two `SeqCst`
/// fences where the kernel has it, else a `SeqCst` fence: the code the
/// workers run, not a copy of it.
pub fn heavy_fence() {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    REGISTERED.get_or_init(crate::sync::init_asymmetric_fences);
    crate::sync::heavy_fence();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibrated_file_parses_and_moves_the_defaults() {
        let m = CostModel::published().with(CALIBRATED).unwrap();
        assert_eq!(m, CostModel::calibrated());
        assert!(
            CALIBRATED
                .lines()
                .any(|l| l.contains("scripts/calibrate.py fit"))
        );
        assert_ne!(m.work_scale, CostModel::published().work_scale);
    }

    #[test]
    fn the_class_files_parse_and_differ() {
        let names: Vec<_> = CostModel::class_names().collect();
        assert_eq!(names, ["epyc", "kunpeng", "xeon", "laptop"]);
        for n in &names {
            let m = CostModel::class(n).unwrap();
            assert_ne!(m, CostModel::calibrated(), "{n} sets its hierarchy");
            assert!(m.llc_bytes > m.l2_bytes, "{n}");
            assert!(m.dram_remote_ns > m.dram_ns, "{n}");
            // Costs grow with distance.
            let at = |k, d| m.transfer(Reach::At(k, d), 1 << 16);
            assert!(at(TierKind::Smt, 10) <= at(TierKind::Cluster, 10), "{n}");
            assert!(at(TierKind::Cluster, 10) <= at(TierKind::Llc, 10), "{n}");
            assert!(at(TierKind::Llc, 10) < at(TierKind::Numa, 10), "{n}");
            assert!(at(TierKind::Numa, 10) < at(TierKind::Remote, 20), "{n}");
            assert!(m.dram(10, 1 << 16) < m.dram(20, 1 << 16), "{n}");
        }
        assert!(CostModel::class("vax").is_none());
    }
}
