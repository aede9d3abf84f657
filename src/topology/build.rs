//! From raw per-PU facts to a nested [`Topology`].
//!
//! Every source (sysfs, synthetic spec, hwloc, flat fallback) only gathers
//! [`Facts`]: for each online PU the raw sets it belongs to. This module turns
//! them into a tree in which every level nests in the next, so that the layout
//! can later give every domain a contiguous range of worker indices.
//!
//! # How nesting is enforced (decisions)
//!
//! Levels, outermost first: package, NUMA node, LLC, cluster, core, PU. When
//! every package lies inside one NUMA node but a node holds several packages
//! (IBM x3950 M2: 4 nodes of 4 packages), the two outer levels swap: NUMA
//! node outside package ([`Topology::package_inside_numa`]).
//!
//! A PU's domain at a level is the intersection of its raw set at that level
//! with its domain one level out (refinement). So where a real machine does
//! not nest, the inner level is clipped:
//! - an L3 larger than its NUMA node (Intel sub-NUMA clustering, the
//!   `memorysidecaches` snapshot): the LLC domain is the L3 ∩ the node, as
//!   the Linux scheduler does ("llc-sibling ... is not on the same node ...
//!   Ignoring dependency"). The raw L3 sets are still reported
//!   ([`Topology::l3_cpusets`]), so the L3 count matches hwloc's;
//! - a cluster crossing an LLC boundary is clipped likewise.
//!
//! Overlapping NUMA nodes (buggy firmware lists CPUs 0-7 in all 8 nodes): a PU
//! belongs to the node its source names (sysfs `cpuN/nodeM` link) or else to
//! the lowest-numbered node listing it; nodes left without PUs are kept as
//! CPU-less nodes, like memory-only nodes.
//!
//! A missing level collapses into its neighbour: no cluster information, a
//! cluster is the L2 if shared by several cores, else the core; no cache
//! information, the LLC is the NUMA node's part of the package; no NUMA, one
//! node; no package id, the package is the whole machine (clipped by NUMA).
//! Package ids known for only some PUs (a garbage file) are all dropped.
//!
//! Domains are classes of PUs whose raw sets agree at their level and every
//! level outside it, so they partition the PUs and nest even when the
//! source's files contradict each other (for consistent input this equals
//! the intersection of the raw sets).
//!
//! # Steps and cost
//!
//! [`build`] runs six named steps: [`normalise`] (PUs sorted, raw sets
//! clipped to online PUs and made partitions, partial package ids dropped),
//! [`levels_seen`], [`raw_keys`] (each PU's raw set at every level, as an id),
//! [`refine`] (the classes above), [`number_domains`] (depth-first order,
//! domains and PU records) and [`finish`] (the reported sets, NUMA nodes,
//! allowed CPUs).
//!
//! Time and memory are linear in the number of PUs times the number of
//! levels, plus the size of the distinct sets the source reports: every
//! distinct set is read once however many PUs share it (sources share one
//! set between the PUs of a domain, [`PuFacts`] holds `Arc`s; equal sets
//! reported separately are recognized by value), and the steps after
//! [`normalise`] work on ids of sets, never on a set per PU. Only the
//! distance matrix, which the source gives, is quadratic, in NUMA nodes.

use super::{CpuSet, Domain, Level, LevelsSeen, Pu, Source, Topology};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// The hasher of the builder's maps, whose keys are ids, pointers and CPU
/// sets (FxHash's multiply-rotate: several times faster than SipHash here,
/// and the keys come from the kernel or the program, so flooding is not a
/// concern).
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map with [`IdHasher`].
type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// What a source knows about one online PU. `None` means "not reported".
/// The sets are shared: a source gives the PUs of one domain clones of one
/// `Arc`, so that facts about N PUs take memory linear in N.
#[derive(Debug, Clone, Default)]
pub(crate) struct PuFacts {
    /// OS index (Linux CPU number).
    pub os: usize,
    /// The PU's SMT siblings, itself included.
    pub core: Option<Arc<CpuSet>>,
    /// CPUs sharing the cluster (L2 or L3 tag) with it.
    pub cluster: Option<Arc<CpuSet>>,
    /// CPUs sharing its L2 (unified or data) cache.
    pub l2: Option<Arc<CpuSet>>,
    /// CPUs sharing its L3 cache.
    pub l3: Option<Arc<CpuSet>>,
    /// OS index of its NUMA node.
    pub node: Option<usize>,
    /// Package id.
    pub package: Option<usize>,
    /// Capacity on the arm64 scale (1024 = biggest core) or any relative
    /// performance figure; normalized to 1024 = max by the builder.
    pub capacity: Option<u32>,
}

/// Everything a source gathered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Online PUs (order does not matter).
    pub pus: Vec<PuFacts>,
    /// NUMA nodes by OS index with the CPUs they list (possibly empty:
    /// memory-only nodes). May be empty when the machine reports no NUMA.
    pub nodes: Vec<(usize, CpuSet)>,
    /// Distance matrix between the nodes of `nodes`, same order, if known.
    pub distances: Option<Vec<Vec<u32>>>,
    /// CPUs this process may use; `None` means all PUs.
    pub allowed: Option<CpuSet>,
    /// Whether the source saw cluster information (`cluster_cpus_list`).
    pub saw_cluster: bool,
    /// Remarks about decisions and fallbacks, shown to the user.
    pub notes: Vec<String>,
}

/// The online PUs. From [`normalise`] on, a PU is known by its position in
/// `os` (ascending OS indexes), the order of `Facts::pus`.
struct Online {
    /// OS index of each PU, ascending.
    os: Vec<usize>,
    /// The same indexes, as a set.
    set: CpuSet,
}

impl Online {
    /// Positions of the online members of `set`, ascending.
    fn positions<'a>(&'a self, set: &'a CpuSet) -> impl Iterator<Item = usize> + 'a {
        set.iter().filter_map(|os| self.os.binary_search(&os).ok())
    }

    fn len(&self) -> usize {
        self.os.len()
    }
}

/// The sets one level reported, made a partition of the PUs by
/// [`partition`]: `of[i]` is the block of PU `i` (`None`: it reported no set
/// and no PU names it), `sets[b]` the OS indexes of block `b`. Blocks are
/// numbered in the order of their smallest PU.
struct Blocks {
    of: Vec<Option<usize>>,
    sets: Vec<CpuSet>,
}

/// The partitions of the four levels sources report as sets.
struct LevelSets {
    core: Blocks,
    cluster: Blocks,
    l2: Blocks,
    l3: Blocks,
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The distinct sets of one level, clipped to the online PUs, and the set
/// of each PU (an index into them). Recognized by pointer first (shared
/// `Arc`s), then by value, so each distinct set is clipped once.
fn distinct_sets(
    pus: &[PuFacts],
    field: impl Fn(&PuFacts) -> Option<&Arc<CpuSet>>,
    online: &Online,
) -> (Vec<CpuSet>, Vec<Option<usize>>) {
    let mut by_ptr: IdMap<*const CpuSet, usize> = IdMap::default();
    let mut by_value: IdMap<&CpuSet, usize> = IdMap::default();
    let mut clipped: Vec<CpuSet> = Vec::new();
    let mut set_of: Vec<Option<usize>> = vec![None; pus.len()];
    for (i, p) in pus.iter().enumerate() {
        let Some(s) = field(p) else { continue };
        let k = *by_ptr.entry(Arc::as_ptr(s)).or_insert_with(|| {
            *by_value.entry(s.as_ref()).or_insert_with(|| {
                clipped.push(s.intersection(&online.set));
                clipped.len() - 1
            })
        });
        set_of[i] = Some(k);
    }
    (clipped, set_of)
}

/// Union-find over positions: the members of a set are one component, and
/// a PU joins the component of its own set. Returns each PU's root.
fn components(online: &Online, clipped: &[CpuSet], set_of: &[Option<usize>]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..online.len()).collect();
    let mut first_member: Vec<Option<usize>> = vec![None; clipped.len()];
    for (k, s) in clipped.iter().enumerate() {
        for j in online.positions(s) {
            match first_member[k] {
                None => first_member[k] = Some(j),
                Some(f) => {
                    let (a, b) = (find(&mut parent, f), find(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
    }
    for (i, k) in set_of.iter().enumerate() {
        if let Some(f) = k.and_then(|k| first_member[k]) {
            let (a, b) = (find(&mut parent, i), find(&mut parent, f));
            parent[a] = b;
        }
    }
    (0..online.len()).map(|i| find(&mut parent, i)).collect()
}

/// Makes the raw sets of one level a partition of the PUs: PUs whose sets
/// name each other (directly or through others) end up in one set, the
/// union; a PU that reported no set but is named by others gets theirs.
/// Real files disagree with each other (an L2 list that names only the
/// PU itself while its mask names its module sibling); merging is the
/// conservative reading, and a note records it.
///
/// Each set is first clipped to the online PUs, and a PU always belongs to
/// its own set (sources with a list that omits the PU itself are repaired).
/// A distinct set is clipped and walked once, however many PUs share it.
fn partition(
    pus: &[PuFacts],
    field: impl Fn(&PuFacts) -> Option<&Arc<CpuSet>>,
    online: &Online,
    what: &str,
    notes: &mut Vec<String>,
) -> Blocks {
    let (clipped, set_of) = distinct_sets(pus, field, online);
    let root = components(online, &clipped, &set_of);
    let comps = Components::of(&root, &set_of);
    if comps.merged_some(online, &clipped, &set_of, &root) {
        notes.push(format!(
            "{what} sets reported by different CPUs disagree: merged into their union"
        ));
    }
    comps.blocks(online, &root)
}

/// The size of each union-find component and whether it holds a reported
/// set, indexed by root (a PU that reported nothing, a garbage file, but
/// is named by others joins their set).
struct Components {
    size: Vec<usize>,
    reported: Vec<bool>,
}

impl Components {
    fn of(root: &[usize], set_of: &[Option<usize>]) -> Self {
        let mut size = vec![0usize; root.len()];
        let mut reported = vec![false; root.len()];
        for (i, &r) in root.iter().enumerate() {
            size[r] += 1;
            reported[r] |= set_of[i].is_some();
        }
        Components { size, reported }
    }

    /// Whether some PU's repaired set differs from its component's union.
    /// The set lies inside the component, so it differs exactly when it is
    /// smaller. (Sizes once per set, not per PU.)
    fn merged_some(
        &self,
        online: &Online,
        clipped: &[CpuSet],
        set_of: &[Option<usize>],
        root: &[usize],
    ) -> bool {
        let len: Vec<usize> = clipped.iter().map(CpuSet::len).collect();
        set_of.iter().enumerate().any(|(i, k)| {
            k.is_some_and(|k| {
                let own = len[k] + usize::from(!clipped[k].contains(online.os[i]));
                own != self.size[root[i]]
            })
        })
    }

    /// The components holding a reported set, as blocks numbered in the
    /// order of their smallest PU.
    fn blocks(&self, online: &Online, root: &[usize]) -> Blocks {
        let mut block_of_root = vec![usize::MAX; root.len()];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut of = vec![None; root.len()];
        for (i, &r) in root.iter().enumerate() {
            if !self.reported[r] {
                continue;
            }
            if block_of_root[r] == usize::MAX {
                block_of_root[r] = members.len();
                members.push(Vec::new());
            }
            members[block_of_root[r]].push(online.os[i]);
            of[i] = Some(block_of_root[r]);
        }
        Blocks {
            of,
            sets: members.into_iter().map(CpuSet::from_ids).collect(),
        }
    }
}

/// Step 1: sorts the PUs by OS index (dropping repeated ones), makes the
/// four reported levels partitions ([`partition`]), and drops package ids
/// that only some PUs report (the level cannot be trusted to partition the
/// PUs).
fn normalise(facts: &mut Facts, notes: &mut Vec<String>) -> (Online, LevelSets) {
    facts.pus.sort_by_key(|p| p.os);
    facts.pus.dedup_by_key(|p| p.os);
    let os: Vec<usize> = facts.pus.iter().map(|p| p.os).collect();
    let online = Online {
        set: CpuSet::from_ids(os.iter().copied()),
        os,
    };
    let pus = &facts.pus;
    let sets = LevelSets {
        core: partition(pus, |p| p.core.as_ref(), &online, "core", notes),
        cluster: partition(pus, |p| p.cluster.as_ref(), &online, "cluster", notes),
        l2: partition(pus, |p| p.l2.as_ref(), &online, "L2", notes),
        l3: partition(pus, |p| p.l3.as_ref(), &online, "L3", notes),
    };
    let with_package = facts.pus.iter().filter(|p| p.package.is_some()).count();
    if with_package > 0 && with_package < facts.pus.len() {
        notes.push(format!(
            "package id known for only {with_package} of {} PUs: package level ignored",
            facts.pus.len()
        ));
        for p in &mut facts.pus {
            p.package = None;
        }
    }
    (online, sets)
}

/// Step 2: which levels the source reported.
fn levels_seen(facts: &Facts, sets: &LevelSets) -> LevelsSeen {
    LevelsSeen {
        smt: sets.core.sets.iter().any(|c| c.len() > 1),
        cluster: facts.saw_cluster,
        l2: !sets.l2.sets.is_empty(),
        l3: !sets.l3.sets.is_empty(),
        numa: !facts.nodes.is_empty(),
        package: facts.pus.iter().any(|p| p.package.is_some()),
        capacity: {
            let caps: Vec<u32> = facts.pus.iter().filter_map(|p| p.capacity).collect();
            caps.len() == facts.pus.len() && caps.iter().any(|&c| c != caps[0])
        },
    }
}

/// The levels in refinement order, outermost first.
pub(super) fn level_order(package_inside_numa: bool) -> [Level; 5] {
    if package_inside_numa {
        [
            Level::Numa,
            Level::Package,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    } else {
        [
            Level::Package,
            Level::Numa,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    }
}

/// The raw set of every PU at every level, as ids (step 3).
struct RawKeys {
    /// `keys[i][k]`: PU `i`'s raw set at level `order[k]`. Two ids are equal
    /// exactly when the sets are.
    keys: Vec<[usize; 5]>,
    order: [Level; 5],
    package_inside_numa: bool,
    /// OS index of each PU's NUMA node.
    node_id: Vec<usize>,
    /// The PUs of each node, by node OS index.
    node_members: BTreeMap<usize, CpuSet>,
}

/// Ids of sets by value: equal sets get equal ids.
#[derive(Default)]
struct Interner<'a> {
    ids: IdMap<&'a CpuSet, usize>,
}

impl<'a> Interner<'a> {
    fn id(&mut self, s: &'a CpuSet) -> usize {
        let next = self.ids.len();
        *self.ids.entry(s).or_insert(next)
    }

    /// The ids of the sets of `blocks`, by block.
    fn ids(&mut self, blocks: &'a Blocks) -> Vec<usize> {
        blocks.sets.iter().map(|s| self.id(s)).collect()
    }
}

/// Whether every online member of `set` has the same `key`.
fn uniform<K: PartialEq>(online: &Online, set: &CpuSet, key: impl Fn(usize) -> K) -> bool {
    let mut it = online.positions(set).map(key);
    let Some(first) = it.next() else { return true };
    it.all(|k| k == first)
}

/// Each PU's NUMA node (the node its source names, else the first node
/// listing it, else the first node) and the PUs of each node.
fn nodes(facts: &Facts, online: &Online) -> (Vec<usize>, BTreeMap<usize, CpuSet>) {
    let mut node_id: Vec<Option<usize>> = facts.pus.iter().map(|p| p.node).collect();
    for (id, set) in &facts.nodes {
        for i in online.positions(set) {
            node_id[i].get_or_insert(*id);
        }
    }
    let default_node = facts.nodes.first().map_or(0, |nd| nd.0);
    let node_id: Vec<usize> = node_id
        .into_iter()
        .map(|x| x.unwrap_or(default_node))
        .collect();
    let members = group(online, |i| Some(node_id[i]));
    (node_id, members)
}

/// The PUs with each `key`, by key (PUs without one left out).
fn group(online: &Online, key: impl Fn(usize) -> Option<usize>) -> BTreeMap<usize, CpuSet> {
    let mut m: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &os) in online.os.iter().enumerate() {
        if let Some(k) = key(i) {
            m.entry(k).or_default().push(os);
        }
    }
    m.into_iter()
        .map(|(k, v)| (k, CpuSet::from_ids(v)))
        .collect()
}

/// Whether NUMA is the outer level: every package lies within one node
/// while some node holds several packages. A package lies within the node
/// of its members when they all have one node (nodes partition the PUs),
/// and is then smaller than that node exactly when they differ.
fn numa_outside_packages(
    online: &Online,
    node_id: &[usize],
    nodes: &BTreeMap<usize, CpuSet>,
    packages: &BTreeMap<usize, CpuSet>,
    seen: &LevelsSeen,
) -> bool {
    let node_of = |s: &CpuSet| online.positions(s).next().map(|j| node_id[j]);
    let node_len: BTreeMap<usize, usize> = nodes.iter().map(|(&nd, s)| (nd, s.len())).collect();
    seen.package
        && seen.numa
        && packages
            .values()
            .all(|s| uniform(online, s, |j| node_id[j]))
        && packages
            .values()
            .any(|s| node_of(s).is_some_and(|nd| node_len[&nd] != s.len()))
}

/// Notes LLCs that span several NUMA nodes (refinement clips them). The
/// LLC sets some PU has: the L3s, the L2s of PUs without an L3, and all
/// PUs for PUs without either.
fn note_split_llcs(
    online: &Online,
    node_id: &[usize],
    sets: &LevelSets,
    seen: &LevelsSeen,
    notes: &mut Vec<String>,
) {
    let mut l2_is_llc = vec![false; sets.l2.sets.len()];
    let mut online_is_llc = false;
    for (l3, l2) in sets.l3.of.iter().zip(&sets.l2.of) {
        match (l3, l2) {
            (Some(_), _) => {}
            (None, Some(b)) => l2_is_llc[*b] = true,
            (None, None) => online_is_llc = true,
        }
    }
    let in_node = |s: &CpuSet| uniform(online, s, |j| node_id[j]);
    let llc_in_node = sets.l3.sets.iter().all(in_node)
        && sets
            .l2
            .sets
            .iter()
            .zip(&l2_is_llc)
            .all(|(s, &llc)| !llc || in_node(s))
        && (!online_is_llc || in_node(&online.set));
    if (seen.l2 || seen.l3) && !llc_in_node {
        notes.push(
            "an LLC spans several NUMA nodes (sub-NUMA clustering): \
             LLC domains are clipped to their node, as Linux does"
                .into(),
        );
    }
}

/// The core of each PU without SMT siblings (itself); an empty set for the
/// others, which have their core's set.
fn singles(online: &Online, sets: &LevelSets) -> Vec<CpuSet> {
    (0..online.len())
        .map(|i| match sets.core.of[i] {
            None => CpuSet::from_ids([online.os[i]]),
            Some(_) => CpuSet::new(),
        })
        .collect()
}

/// Whether each L2 lies inside one core: all its members have one core
/// (`core`: each PU's core id; cores partition the PUs).
fn l2_in_core(online: &Online, sets: &LevelSets, core: &[usize]) -> Vec<bool> {
    sets.l2
        .sets
        .iter()
        .map(|s| uniform(online, s, |j| core[j]))
        .collect()
}

/// The raw set ids of every PU, in `order`. Each distinct set is interned
/// once, so that a PU only looks up ids. Package: the PUs with its package
/// id, else all. NUMA: the PUs of its node. LLC: its L3, else its L2, else
/// all. Core: its SMT siblings, else itself. Cluster: its cluster, else its
/// L2 when shared by several cores (and an L3 exists above it), else its
/// core.
fn level_keys(
    facts: &Facts,
    online: &Online,
    sets: &LevelSets,
    node_id: &[usize],
    nodes: &BTreeMap<usize, CpuSet>,
    packages: &BTreeMap<usize, CpuSet>,
    order: [Level; 5],
) -> Vec<[usize; 5]> {
    let n = online.len();
    let singles = singles(online, sets);
    let mut ids = Interner::default();
    let all = ids.id(&online.set);
    let node_key: BTreeMap<usize, usize> = nodes.iter().map(|(&k, s)| (k, ids.id(s))).collect();
    let package_key: BTreeMap<usize, usize> =
        packages.iter().map(|(&k, s)| (k, ids.id(s))).collect();
    let (cluster_key, l2_key, l3_key) =
        (ids.ids(&sets.cluster), ids.ids(&sets.l2), ids.ids(&sets.l3));
    let core_key = ids.ids(&sets.core);
    let core: Vec<usize> = (0..n)
        .map(|i| sets.core.of[i].map_or_else(|| ids.id(&singles[i]), |b| core_key[b]))
        .collect();
    let l2_in_core = l2_in_core(online, sets, &core);
    let key = |i: usize, l: Level| match l {
        Level::Package => facts.pus[i].package.map_or(all, |k| package_key[&k]),
        Level::Numa => node_key[&node_id[i]],
        Level::Llc => match (sets.l3.of[i], sets.l2.of[i]) {
            (Some(b), _) => l3_key[b],
            (None, Some(b)) => l2_key[b],
            (None, None) => all,
        },
        Level::Cluster => match (sets.cluster.of[i], sets.l2.of[i]) {
            (Some(b), _) => cluster_key[b],
            (None, Some(b)) if sets.l3.of[i].is_some() && !l2_in_core[b] => l2_key[b],
            _ => core[i],
        },
        _ => core[i],
    };
    (0..n).map(|i| order.map(|l| key(i, l))).collect()
}

/// Step 3: each PU's raw set at every level, as ids ([`level_keys`]), in
/// refinement order: NUMA outside packages when nodes hold several
/// packages ([`numa_outside_packages`]). Notes that decision and LLCs
/// clipped to their node.
fn raw_keys(
    facts: &Facts,
    online: &Online,
    sets: &LevelSets,
    seen: &LevelsSeen,
    notes: &mut Vec<String>,
) -> RawKeys {
    let (node_id, node_members) = nodes(facts, online);
    let packages = group(online, |i| facts.pus[i].package);
    let package_inside_numa =
        numa_outside_packages(online, &node_id, &node_members, &packages, seen);
    if package_inside_numa {
        notes.push("NUMA nodes hold several packages: NUMA is the outer level".into());
    }
    note_split_llcs(online, &node_id, sets, seen, notes);
    let order = level_order(package_inside_numa);
    let keys = level_keys(
        facts,
        online,
        sets,
        &node_id,
        &node_members,
        &packages,
        order,
    );
    RawKeys {
        keys,
        order,
        package_inside_numa,
        node_id,
        node_members,
    }
}

/// Step 4: the effective domain of each PU at each level is its class: the
/// PUs whose raw sets agree with its own at this level and every level
/// outside it. For consistent input this is the intersection chain of the
/// raw sets; for inconsistent input (a package id missing on some PUs only,
/// garbage files) it is still a partition that nests, which the
/// intersection chain alone would not be. `class[i][k]` numbers the classes
/// of level `k` in the order of their smallest PU.
fn refine(keys: &[[usize; 5]]) -> Vec<[usize; 5]> {
    let mut class = vec![[0usize; 5]; keys.len()];
    for k in 0..5 {
        let mut ids: IdMap<(usize, usize), usize> = IdMap::default();
        for (i, key) in keys.iter().enumerate() {
            let outer = if k == 0 { 0 } else { class[i][k - 1] };
            let next = ids.len();
            class[i][k] = *ids.entry((outer, key[k])).or_insert(next);
        }
    }
    class
}

/// Step 5 result: the PUs in depth-first order and the domains of each
/// level in refinement order.
struct Numbered {
    pus: Vec<Pu>,
    domains: Vec<Vec<Domain>>,
}

/// The smallest OS index and the OS indexes of each class, by level and
/// class. Classes are numbered in PU order, so a class's first PU is its
/// smallest.
fn class_sets(online: &Online, class: &[[usize; 5]]) -> ([Vec<usize>; 5], [Vec<CpuSet>; 5]) {
    let mut min_os: [Vec<usize>; 5] = Default::default();
    let mut members: [Vec<Vec<usize>>; 5] = Default::default();
    for (i, c) in class.iter().enumerate() {
        for k in 0..5 {
            if c[k] == min_os[k].len() {
                min_os[k].push(online.os[i]);
                members[k].push(Vec::new());
            }
            members[k][c[k]].push(online.os[i]);
        }
    }
    (
        min_os,
        members.map(|level| level.into_iter().map(CpuSet::from_ids).collect()),
    )
}

/// The PUs in depth-first order: sorted by the smallest OS index of their
/// class at each level, outermost first, then by OS index.
fn depth_first(online: &Online, class: &[[usize; 5]], min_os: &[Vec<usize>; 5]) -> Vec<usize> {
    let sort_key = |i: usize| -> ([usize; 5], usize) {
        (
            std::array::from_fn(|k| min_os[k][class[i][k]]),
            online.os[i],
        )
    };
    let mut idx: Vec<usize> = (0..online.len()).collect();
    idx.sort_by_cached_key(|&i| sort_key(i));
    idx
}

/// The domains of each level in refinement order, grown one PU at a time
/// in depth-first order: a PU extends the last domain of a level when it
/// has the same class and parent, else starts a new one.
struct Runs {
    domains: Vec<Vec<Domain>>,
    last_class: [usize; 5],
}

impl Runs {
    fn new() -> Self {
        Runs {
            domains: vec![Vec::new(); 5],
            last_class: [usize::MAX; 5],
        }
    }

    /// Places the PU at position `pos`, of classes `class`; a new domain of
    /// level `k` for class `c` gets the set and OS index `new(k, c)`.
    /// Returns the PU's domain index at each level.
    fn place(
        &mut self,
        pos: usize,
        class: [usize; 5],
        new: impl Fn(usize, usize) -> (CpuSet, Option<usize>),
    ) -> [usize; 5] {
        let mut dom_idx = [0usize; 5];
        for k in 0..5 {
            let parent = if k == 0 { 0 } else { dom_idx[k - 1] };
            let c = class[k];
            match self.domains[k].last_mut() {
                Some(d) if self.last_class[k] == c && d.parent == parent => d.pus.end = pos + 1,
                _ => {
                    let (cpuset, os_index) = new(k, c);
                    self.domains[k].push(Domain {
                        cpuset,
                        pus: pos..pos + 1,
                        parent,
                        os_index,
                    });
                }
            }
            self.last_class[k] = c;
            dom_idx[k] = self.domains[k].len() - 1;
        }
        dom_idx
    }
}

/// A PU's capacity on the 1024 = biggest scale, 1024 for all when the
/// source reported no differences.
fn capacity(facts: &Facts, i: usize, max_cap: u32, seen: &LevelsSeen) -> u32 {
    match facts.pus[i].capacity {
        Some(c) if max_cap > 0 && seen.capacity => ((c as u64 * 1024) / max_cap as u64) as u32,
        _ => 1024,
    }
}

/// Step 5: depth-first order ([`depth_first`]), domains as runs of PUs with
/// the same class and parent ([`Runs`]), and the PU records.
fn number_domains(
    facts: &Facts,
    online: &Online,
    raw: &RawKeys,
    class: &[[usize; 5]],
    seen: &LevelsSeen,
) -> Numbered {
    let (min_os, sets) = class_sets(online, class);
    let order = depth_first(online, class, &min_os);
    let max_cap = facts
        .pus
        .iter()
        .filter_map(|p| p.capacity)
        .max()
        .unwrap_or(0);
    let level_at = |l: Level| raw.order.iter().position(|&x| x == l).unwrap_or(0);
    let mut pus: Vec<Pu> = Vec::with_capacity(order.len());
    let mut runs = Runs::new();
    for (pos, &i) in order.iter().enumerate() {
        let dom_idx = runs.place(pos, class[i], |k, c| {
            let os_index = match raw.order[k] {
                Level::Numa if seen.numa => Some(raw.node_id[i]),
                Level::Package => facts.pus[i].package,
                _ => None,
            };
            (sets[k][c].clone(), os_index)
        });
        let at = |l: Level| dom_idx[level_at(l)];
        pus.push(Pu {
            os_index: online.os[i],
            core: at(Level::Core),
            cluster: at(Level::Cluster),
            llc: at(Level::Llc),
            numa: at(Level::Numa),
            package: at(Level::Package),
            capacity: capacity(facts, i, max_cap, seen),
        });
    }
    Numbered {
        pus,
        domains: runs.domains,
    }
}

/// The nodes the source listed, each with the PUs it got; a note for each
/// node left without any (its CPUs went to other nodes).
fn node_list(
    mut nodes: Vec<(usize, CpuSet)>,
    members: &BTreeMap<usize, CpuSet>,
    notes: &mut Vec<String>,
) -> Vec<(usize, CpuSet)> {
    let listed_empty: HashSet<usize> = nodes
        .iter()
        .filter(|(_, s)| s.is_empty())
        .map(|(i, _)| *i)
        .collect();
    for (id, set) in &mut nodes {
        *set = members.get(id).cloned().unwrap_or_default();
        if set.is_empty() && !listed_empty.contains(id) {
            notes.push(format!(
                "NUMA node {id} lists only CPUs claimed by other nodes: kept without CPUs"
            ));
        }
    }
    nodes
}

/// The row in the distance matrix (the position in `nodes`) of each NUMA
/// domain, so that [`Topology::numa_distance`] is one lookup.
fn numa_rows(nodes: &[(usize, CpuSet)], numa: &[Domain]) -> Vec<Option<usize>> {
    let mut row_of_node: HashMap<usize, usize> = HashMap::new();
    for (row, (id, _)) in nodes.iter().enumerate() {
        row_of_node.entry(*id).or_insert(row);
    }
    numa.iter()
        .map(|d| d.os_index.and_then(|o| row_of_node.get(&o).copied()))
        .collect()
}

/// The domains by level (`order`: the level of each list of `domains`).
fn by_level(
    order: [Level; 5],
    domains: Vec<Vec<Domain>>,
    pus: &[Pu],
) -> BTreeMap<Level, Vec<Domain>> {
    let by_level: BTreeMap<Level, Vec<Domain>> = order.into_iter().zip(domains).collect();
    // A domain set was built from a possibly non-contiguous sort; check the
    // invariant that each domain's PUs are exactly its range.
    debug_assert!(by_level.values().flatten().all(|d: &Domain| {
        CpuSet::from_ids(d.pus.clone().map(|p| pus[p].os_index)) == d.cpuset
    }));
    by_level
}

/// The allowed CPUs: the source's set clipped to the `online` ones, or all
/// online CPUs (with a note when the source's set has none of them).
fn allowed(allowed: Option<&CpuSet>, online: CpuSet, notes: &mut Vec<String>) -> CpuSet {
    let allowed = allowed.map_or_else(|| online.clone(), |a| a.intersection(&online));
    if !allowed.is_empty() {
        return allowed;
    }
    notes.push(
        "the allowed CPU set does not intersect the online CPUs: treating all CPUs as allowed"
            .into(),
    );
    online
}

/// What steps 1 to 5 found, for [`finish`].
struct Parts {
    online: Online,
    sets: LevelSets,
    raw: RawKeys,
    numbered: Numbered,
    seen: LevelsSeen,
    notes: Vec<String>,
}

/// Step 6: the domains by level, the reported L2/L3 sets, the NUMA node
/// list (with the PUs each node got; notes for nodes left without any),
/// each NUMA domain's row in the distance matrix, and the allowed CPUs.
fn finish(facts: Facts, source: Source, parts: Parts) -> Topology {
    let Parts {
        online,
        sets,
        raw,
        numbered,
        seen,
        mut notes,
    } = parts;
    let Numbered { pus, domains } = numbered;
    let by_level = by_level(raw.order, domains, &pus);
    let nodes = node_list(facts.nodes, &raw.node_members, &mut notes);
    let numa_rows = numa_rows(
        &nodes,
        by_level.get(&Level::Numa).map_or(&[], |d| d.as_slice()),
    );
    let allowed = allowed(facts.allowed.as_ref(), online.set, &mut notes);
    Topology {
        source,
        pus,
        domains: by_level,
        package_inside_numa: raw.package_inside_numa,
        l2_sets: sets.l2.sets,
        l3_sets: sets.l3.sets,
        numa_nodes: nodes,
        numa_rows,
        distances: facts.distances,
        allowed,
        cpu_quota: None,
        seen,
        notes,
    }
}

/// Builds the nested topology. Fails only when there is no PU at all.
pub(crate) fn build(mut facts: Facts, source: Source) -> Result<Topology, super::TopologyError> {
    if facts.pus.is_empty() {
        return Err(super::TopologyError::NoPus {
            source: source.to_string(),
        });
    }
    let mut notes = std::mem::take(&mut facts.notes);
    let (online, sets) = normalise(&mut facts, &mut notes);
    let seen = levels_seen(&facts, &sets);
    let raw = raw_keys(&facts, &online, &sets, &seen, &mut notes);
    let class = refine(&raw.keys);
    let numbered = number_domains(&facts, &online, &raw, &class, &seen);
    Ok(finish(
        facts,
        source,
        Parts {
            online,
            sets,
            raw,
            numbered,
            seen,
            notes,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 PUs in LLCs of 4 and cores of 2; `shared`: one `Arc` per domain,
    /// else a separate copy per PU (as sysfs reads them).
    fn facts(shared: bool) -> Facts {
        let set = |lo: usize, len: usize| Arc::new(CpuSet::from_ids(lo..lo + len));
        let llcs = [set(0, 4), set(4, 4)];
        let cores: Vec<Arc<CpuSet>> = (0..4).map(|c| set(2 * c, 2)).collect();
        let pick = |a: &Arc<CpuSet>| {
            if shared {
                a.clone()
            } else {
                Arc::new((**a).clone())
            }
        };
        let pus = (0..8)
            .rev() // sources may list PUs in any order
            .map(|os| PuFacts {
                os,
                core: Some(pick(&cores[os / 2])),
                l3: Some(pick(&llcs[os / 4])),
                ..Default::default()
            })
            .collect();
        Facts {
            pus,
            ..Default::default()
        }
    }

    fn summary(t: &Topology) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            t.pus(),
            t.cores(),
            t.llcs(),
            t.notes()
        )
    }

    #[test]
    fn shared_and_separate_sets_build_alike() {
        let a = build(facts(true), Source::Synthetic("a".into())).unwrap();
        let b = build(facts(false), Source::Synthetic("a".into())).unwrap();
        assert_eq!(summary(&a), summary(&b));
        assert_eq!(a.llcs().len(), 2);
        assert_eq!(a.cores()[3].cpuset.to_string(), "6-7");
        assert!(a.notes().is_empty(), "{:?}", a.notes());
    }

    #[test]
    fn disagreeing_sets_merge_with_a_note() {
        // PU 5 names only itself and PU 6 (offline 9 is clipped); PU 7
        // reports nothing but is named by PU 6: one L3 of 4-7, noted.
        let mut f = facts(true);
        for p in &mut f.pus {
            match p.os {
                5 => p.l3 = Some(Arc::new(CpuSet::from_ids([6, 9]))),
                7 => p.l3 = None,
                _ => {}
            }
        }
        let t = build(f, Source::Synthetic("b".into())).unwrap();
        assert_eq!(t.llcs()[1].cpuset.to_string(), "4-7");
        assert_eq!(t.l3_cpusets().len(), 2);
        assert_eq!(
            t.notes(),
            ["L3 sets reported by different CPUs disagree: merged into their union"]
        );
    }
}
