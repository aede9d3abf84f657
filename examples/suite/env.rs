//! What every scenario shares: the machine (or the virtual topology), the
//! pools of each configuration, their counters, and what this machine
//! cannot show.

use std::fmt::Write as _;

use indicatif::ProgressBar;
use locus::{Distance, StealOrder, TIER_KINDS, ThreadPool, Topology};
use serde::Serialize;
use serde_json::{Value, json};

use std::time::Duration;

use crate::measure::{Budget, Config};

/// How big the workloads are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The tests' size: a few milliseconds per scenario, in a debug build.
    #[cfg_attr(not(test), allow(dead_code))]
    Tiny,
    /// `--quick`.
    Quick,
    /// The default.
    Full,
}

/// The run's settings, shared by the scenarios.
pub struct Env {
    /// The workload size.
    pub size: Size,
    /// Workers of every pool.
    pub threads: usize,
    /// The `--topology` spec, if any.
    pub spec: Option<String>,
    /// The topology the locus pools are laid out on.
    pub topology: Topology,
    /// The progress bar (hidden when stderr is not a terminal).
    pub progress: ProgressBar,
}

impl Env {
    /// From the command line's `--threads` and `--topology` (already
    /// validated by the parser).
    pub fn new(
        quick: bool,
        threads: Option<usize>,
        spec: Option<String>,
        progress: ProgressBar,
    ) -> Env {
        let size = if quick { Size::Quick } else { Size::Full };
        let topology = match &spec {
            Some(s) => Topology::synthetic(s).unwrap_or_else(|_| Topology::detect()),
            None => Topology::detect(),
        };
        let default = if spec.is_some() {
            topology.pus().len()
        } else {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        };
        Env {
            size,
            threads: threads.unwrap_or(default),
            spec,
            topology,
            progress,
        }
    }

    /// The tests' environment: tiny workloads on 2 workers in a virtual
    /// topology of 2 LLCs (so every counter can be non-zero).
    #[cfg(test)]
    pub fn tiny() -> Env {
        let spec = "llc:2 core:1".to_string();
        let mut env = Env::new(true, Some(2), Some(spec), ProgressBar::hidden());
        env.size = Size::Tiny;
        env
    }

    /// `tiny`, `quick` or `full` by the run's size.
    pub fn pick<T>(&self, tiny: T, quick: T, full: T) -> T {
        match self.size {
            Size::Tiny => tiny,
            Size::Quick => quick,
            Size::Full => full,
        }
    }

    /// The measuring budget of a scenario with `cases` cases.
    pub fn budget(&self, cases: usize) -> Budget {
        let (scenario, min_rounds, max_rounds) = self.pick(
            (Duration::ZERO, 1, 2),
            (Duration::from_millis(3500), 3, 7),
            (Duration::from_secs(30), 5, 40),
        );
        Budget {
            per_case: scenario / cases.max(1) as u32,
            min_rounds,
            max_rounds,
        }
    }

    /// A locus pool of configuration `c` (`Group` is the default pool:
    /// the group is made by the scenario), on `topology` (else the run's).
    pub fn locus_on(
        &self,
        c: Config,
        topology: Option<&Topology>,
        threads: usize,
    ) -> Result<ThreadPool, String> {
        let mut b = locus::ThreadPoolBuilder::new().num_threads(threads);
        if let Some(t) = topology {
            b = b.topology(t.clone());
        } else if self.spec.is_some() {
            b = b.topology(self.topology.clone());
        }
        b = match c {
            Config::ClusterOff => b.cluster_aware(false),
            Config::Flat => b.steal_order(StealOrder::Flat),
            _ => b,
        };
        b.build()
            .map_err(|e| format!("building the {} pool: {e}", c.name()))
    }

    /// A locus pool of configuration `c` on the run's topology.
    pub fn locus(&self, c: Config) -> Result<ThreadPool, String> {
        self.locus_on(c, None, self.threads)
    }

    /// The rayon pool, same thread count.
    pub fn rayon_with(&self, threads: usize) -> Result<rayon::ThreadPool, String> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("building the rayon pool: {e}"))
    }

    /// The rayon pool with the run's thread count.
    pub fn rayon(&self) -> Result<rayon::ThreadPool, String> {
        self.rayon_with(self.threads)
    }

    /// The chili pool, same thread count.
    pub fn chili(&self) -> chili::ThreadPool {
        chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(self.threads),
            ..Default::default()
        })
    }

    /// What the topology of the locus pools lacks for the scenarios'
    /// effects to show.
    pub fn limits(&self) -> Limits {
        Limits::of(&self.topology, self.spec.is_some())
    }

    /// The machine description of the JSON report.
    pub fn machine(&self) -> Value {
        let t = &self.topology;
        json!({
            "source": format!("{:?}", t.source()),
            "virtual_topology": self.spec,
            "real_cpus": real_cpus(),
            "threads": self.threads,
            "pus": t.pus().len(),
            "cores": t.cores().len(),
            "clusters": t.clusters().len(),
            "clusters_reported": t.levels_seen().cluster,
            "llcs": t.llcs().len(),
            "numa_nodes": t.numa_domains().len(),
            "packages": t.packages().len(),
            "smt_width": t.smt_width(),
            "core_kinds": t.kinds().iter().map(|(s, c)| json!({"capacity": c, "cpus": s.to_string()})).collect::<Vec<_>>(),
            "l2_bytes": cache_bytes(2),
            "llc_bytes": cache_bytes(3).or(cache_bytes(2)),
            "size": format!("{:?}", self.size).to_lowercase(),
        })
    }
}

/// CPUs this process may use.
pub fn real_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The size of CPU 0's cache of this level (Linux sysfs), if known.
pub fn cache_bytes(level: u32) -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    for e in dir.flatten() {
        let p = e.path();
        let read = |f: &str| {
            std::fs::read_to_string(p.join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        if read("level").as_deref() != Some(&level.to_string())
            || read("type").as_deref() == Some("Instruction")
        {
            continue;
        }
        let s = read("size")?;
        // "2048K", "300M", or bytes.
        let (n, mult) = match s.as_bytes().last() {
            Some(b'K') => (&s[..s.len() - 1], 1 << 10),
            Some(b'M') => (&s[..s.len() - 1], 1 << 20),
            Some(b'G') => (&s[..s.len() - 1], 1 << 30),
            _ => (&s[..], 1),
        };
        return n.parse::<u64>().ok().map(|n| n * mult);
    }
    None
}

/// What the locus pools' topology has.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Limits {
    /// LLCs.
    pub llcs: usize,
    /// Clusters are a level of their own (several cores each, several per LLC).
    pub clusters: bool,
    /// Cores of several capacities.
    pub hybrid: bool,
    /// With a virtual topology: the real CPUs its workers share.
    pub virtual_cpus: Option<usize>,
}

impl Limits {
    /// The limits of `t`; `virtual_topology`: its workers share the real CPUs.
    pub fn of(t: &Topology, virtual_topology: bool) -> Limits {
        Limits {
            llcs: t.llcs().len(),
            // A level of its own: more clusters than LLCs, fewer than cores.
            clusters: t.clusters().len() > t.llcs().len() && t.clusters().len() < t.cores().len(),
            hybrid: t.kinds().len() > 1,
            virtual_cpus: virtual_topology.then(real_cpus),
        }
    }

    /// The sentences that apply, for a scenario that needs `several_llcs`,
    /// `clusters` and/or `hybrid` to show its effect.
    pub fn say(&self, several_llcs: bool, clusters: bool, hybrid: bool) -> Vec<String> {
        let mut v = Vec::new();
        if several_llcs && self.llcs < 2 {
            v.push("one LLC: every worker shares the last-level cache, so keeping data in one LLC or spreading over LLCs cannot change the time here".into());
        }
        if clusters && !self.clusters {
            v.push("no clusters (no cache level between core and LLC): cluster awareness on or off lays the pool out the same way, so those two configurations should tie".into());
        }
        if hybrid && !self.hybrid {
            v.push("no big/little cores: every core has the same capacity".into());
        }
        if let Some(n) = self.virtual_cpus {
            v.push(format!(
                "virtual topology: its workers are unpinned threads sharing {n} real CPU(s), so the counters show the policy but the times cannot show a cache effect"
            ));
        }
        v
    }
}

/// The counters of one locus pool after a scenario: steals by tier kind,
/// wakeups by distance, jobs, parks, and per group the jobs per LLC.
pub fn counters(pool: &ThreadPool) -> Value {
    let st = pool.stats();
    let t = st.total();
    let steals: serde_json::Map<String, Value> = TIER_KINDS
        .iter()
        .map(|k| (k.name().to_string(), json!(t.steals(*k))))
        .collect();
    let wakeups = json!({
        "same-cluster": t.wakeups(Distance::Cluster),
        "same-llc": t.wakeups(Distance::Llc),
        "other-llc": t.wakeups(Distance::Remote),
    });
    let groups: Vec<Value> = st
        .groups
        .iter()
        .map(|g| {
            json!({
                "id": g.id,
                "options": format!("{:?}", g.options),
                "jobs_per_llc": g.jobs_per_llc,
                "preferred_llc": g.preferred_llc,
                "preference_changes": g.preference_changes,
            })
        })
        .collect();
    json!({
        "jobs_run": t.jobs_run,
        "injected": st.injected,
        "steals": steals,
        "wakeups": wakeups,
        "parks": t.parks,
        "groups": groups,
    })
}

/// Merges `extra`'s fields into the counters object `c`.
pub fn with(mut c: Value, extra: Value) -> Value {
    if let (Some(m), Value::Object(e)) = (c.as_object_mut(), extra) {
        m.extend(e);
    }
    c
}

/// One line per locus configuration's counters, each number with what it
/// cannot show on this topology and why.
pub fn describe(counters: &serde_json::Map<String, Value>, l: &Limits) -> Vec<String> {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let far = if l.llcs < 2 {
        " [one LLC here: same-node/same-package/other-node cannot be non-zero]"
    } else {
        ""
    };
    let near = if l.clusters {
        ""
    } else {
        " [no clusters of several cores here: same-cluster cannot be non-zero]"
    };
    let far2 = if l.llcs < 2 {
        " [one LLC here: other-llc cannot be non-zero]"
    } else {
        ""
    };
    let mut out = Vec::new();
    for (config, c) in counters {
        let st = &c["steals"];
        let wk = &c["wakeups"];
        let mut line = format!(
            "{config}: {} jobs; steals same-core {} / same-cluster {} / same-llc {} / same-node {} / same-package {} / other-node {}{far}{near}; wakeups same-cluster {} / same-llc {} / other-llc {}{far2}{near}",
            n(c, "jobs_run"),
            n(st, "same-core"),
            n(st, "same-cluster"),
            n(st, "same-llc"),
            n(st, "same-node"),
            n(st, "same-package"),
            n(st, "other-node"),
            n(wk, "same-cluster"),
            n(wk, "same-llc"),
            n(wk, "other-llc"),
        );
        if let Some(gs) = c["groups"].as_array().filter(|g| !g.is_empty()) {
            let per: Vec<String> = gs
                .iter()
                .map(|g| format!("{}", g["jobs_per_llc"]))
                .collect();
            let _ = write!(line, "; group jobs per LLC {}", per.join(" "));
            if l.llcs < 2 {
                line.push_str(
                    " [one LLC here: every group job is in LLC 0, packing and spreading over LLCs cannot differ]",
                );
            }
        }
        if let Some(r) = c.get("replay") {
            let _ = write!(
                line,
                "; replay: {} pieces, {} on the same worker, {} in the same LLC as the run before",
                n(r, "pieces"),
                n(r, "same_worker"),
                n(r, "same_llc")
            );
            if l.llcs < 2 {
                line.push_str(" [one LLC here: same-LLC counts every piece by construction]");
            }
        }
        if let Some(b) = c.get("big_share").and_then(Value::as_f64) {
            let _ = write!(line, "; {:.0}% of the jobs on big cores", b * 100.0);
            if !l.hybrid {
                line.push_str(" [one core kind here: every core is big]");
            }
        }
        out.push(line);
    }
    out
}

/// Sets the scenario's note (`what`, then what this topology cannot show
/// of an effect that needs several LLCs, clusters or big/little cores) and
/// the lines describing its counters.
pub fn finish(
    sc: &mut crate::report::Scenario,
    l: Limits,
    what: String,
    llcs: bool,
    clusters: bool,
    hybrid: bool,
) {
    let mut note = what;
    for s in l.say(llcs, clusters, hybrid) {
        note.push_str("; ");
        note.push_str(&s);
    }
    sc.note = note;
    sc.counter_notes = describe(&sc.counters, &l);
}

/// The locus configurations with a pool of their own, in the order of
/// [`Env::locus_pools`] (`locus-group` gets a default pool of its own, so
/// its counters are its own).
pub const LOCUS_CONFIGS: [Config; 4] = [
    Config::Locus,
    Config::ClusterOff,
    Config::Flat,
    Config::Group,
];

impl Env {
    /// One pool per [`LOCUS_CONFIGS`] entry.
    pub fn locus_pools(&self) -> Result<[ThreadPool; 4], String> {
        Ok([
            self.locus(Config::Locus)?,
            self.locus(Config::ClusterOff)?,
            self.locus(Config::Flat)?,
            self.locus(Config::Locus)?,
        ])
    }
}

/// Records the counters of `pools` (the first of [`LOCUS_CONFIGS`]).
pub fn record(sc: &mut crate::report::Scenario, pools: &[ThreadPool]) {
    for (c, p) in LOCUS_CONFIGS.iter().zip(pools) {
        sc.counters(c.name(), counters(p));
    }
}
