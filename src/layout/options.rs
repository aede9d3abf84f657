//! The knobs of a [`Layout`](super::Layout): [`Pinning`], [`StealOrder`],
//! [`LayoutOptions`], and the error of their text forms.

use std::fmt;
use std::str::FromStr;

/// What set of CPUs each worker thread is pinned to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Pinning {
    /// The allowed CPUs of the worker's cluster (the default): the kernel
    /// may move the thread between the cores that share its L2 or L3 tag, so
    /// a busy core does not stall it, but its cache stays warm.
    #[default]
    Cluster,
    /// The allowed PUs (SMT siblings) of the worker's core.
    Core,
    /// The worker's own PU only.
    Cpu,
    /// No pinning: the pin set is empty and the kernel places the thread.
    None,
}

impl Pinning {
    /// All values, in declaration order, which is also the order of
    /// [`Pinning::NAMES`].
    pub const ALL: [Pinning; 4] = [Pinning::Cluster, Pinning::Core, Pinning::Cpu, Pinning::None];
    /// The accepted text forms, as parsed by `FromStr` and printed by `Display`.
    pub const NAMES: [&'static str; 4] = ["cluster", "core", "cpu", "none"];

    /// Lower-case name: `cluster`, `core`, `cpu` or `none`.
    pub fn name(self) -> &'static str {
        Pinning::NAMES[self as usize]
    }
}

impl fmt::Display for Pinning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Pinning {
    type Err = ParseOptionError;
    /// Parses `cluster`, `core`, `cpu` or `none` (ASCII case and surrounding
    /// blanks ignored, so environment variables parse as expected).
    ///
    /// ```
    /// use locus::Pinning;
    /// assert_eq!("core".parse::<Pinning>().unwrap(), Pinning::Core);
    /// let e = "socket".parse::<Pinning>().unwrap_err();
    /// assert!(e.to_string().contains("cluster, core, cpu, none"));
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_named(s, "pinning", &Pinning::NAMES, &Pinning::ALL)
    }
}

/// The order in which an idle worker looks for work to steal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum StealOrder {
    /// Nearest first, by topology (the default): SMT siblings, cluster, LLC,
    /// NUMA node, package, then the other NUMA nodes by distance.
    #[default]
    Hierarchical,
    /// All other workers in one tier, victims picked at random (what a
    /// topology-blind pool such as rayon does); for A/B comparisons.
    Flat,
}

impl StealOrder {
    /// All values, in declaration order, which is also the order of
    /// [`StealOrder::NAMES`].
    pub const ALL: [StealOrder; 2] = [StealOrder::Hierarchical, StealOrder::Flat];
    /// The accepted text forms, as parsed by `FromStr` and printed by `Display`.
    pub const NAMES: [&'static str; 2] = ["hierarchical", "flat"];

    /// Lower-case name: `hierarchical` or `flat`.
    pub fn name(self) -> &'static str {
        StealOrder::NAMES[self as usize]
    }
}

impl fmt::Display for StealOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StealOrder {
    type Err = ParseOptionError;
    /// Parses `hierarchical` or `flat` (ASCII case and surrounding blanks ignored).
    ///
    /// ```
    /// use locus::StealOrder;
    /// assert_eq!("Flat".parse::<StealOrder>().unwrap(), StealOrder::Flat);
    /// assert!("random".parse::<StealOrder>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_named(s, "steal order", &StealOrder::NAMES, &StealOrder::ALL)
    }
}

// `name` indexes `NAMES` by discriminant: `ALL` must list the variants in
// declaration order.
const _: () = {
    let mut i = 0;
    while i < Pinning::ALL.len() {
        assert!(Pinning::ALL[i] as usize == i);
        i += 1;
    }
    let mut i = 0;
    while i < StealOrder::ALL.len() {
        assert!(StealOrder::ALL[i] as usize == i);
        i += 1;
    }
};

fn parse_named<T: Copy>(
    s: &str,
    option: &'static str,
    names: &'static [&'static str],
    values: &[T],
) -> Result<T, ParseOptionError> {
    let t = s.trim();
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(t))
        .map(|i| values[i])
        .ok_or_else(|| ParseOptionError {
            option,
            value: s.to_string(),
            accepted: names,
        })
}

/// A text value that names no variant of an option ([`Pinning`], [`StealOrder`]).
/// Its message lists the accepted values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptionError {
    option: &'static str,
    value: String,
    accepted: &'static [&'static str],
}

impl ParseOptionError {
    /// The accepted values.
    pub fn accepted(&self) -> &'static [&'static str] {
        self.accepted
    }
}

impl fmt::Display for ParseOptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} {:?}: accepted values are {}",
            self.option,
            self.value,
            self.accepted.join(", ")
        )
    }
}

impl std::error::Error for ParseOptionError {}

/// What to build a [`Layout`](super::Layout) with. `Default` gives one
/// worker per allowed PU, cluster pinning, hierarchical stealing, cluster
/// awareness on, a real (pinned) topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Number of workers; `None` for one per allowed PU. At most
    /// [`MAX_WORKERS`](super::MAX_WORKERS). Fewer workers than allowed PUs
    /// are spread over the machine; more wrap around the PUs (see
    /// [`Layout::new`](super::Layout::new)).
    pub num_threads: Option<usize>,
    /// What each worker is pinned to.
    pub pinning: Pinning,
    /// How workers look for work to steal.
    pub steal_order: StealOrder,
    /// Whether the steal order has a cluster tier. With `false` the workers
    /// of the rest of the cluster are in the LLC tier, as if the machine
    /// reported no clusters (like Linux's run-time switch for cluster
    /// scheduling). Pinning is not affected, so an A/B run changes one thing.
    pub cluster_aware: bool,
    /// The topology is not the machine's (a synthetic one, for simulation):
    /// workers are not pinned, every pin set is empty whatever
    /// [`pinning`](Self::pinning) says.
    pub virtual_topology: bool,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            num_threads: None,
            pinning: Pinning::Cluster,
            steal_order: StealOrder::Hierarchical,
            cluster_aware: true,
            virtual_topology: false,
        }
    }
}
