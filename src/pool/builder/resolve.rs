//! From a builder to a running registry: the builder's settings and the
//! environment resolved into a [`RegistryConfig`] (the builder's setting
//! wins over the variable, the variable over the default; the rules and
//! the table are in `env`), then the registry built from it.
//!
//! Invariants: an invalid `LOCUS_*` value is an error naming the variable
//! and what it accepts, never a panic or a silent fallback; a thread count
//! above [`crate::max_num_threads`] is lowered to it; a topology that is
//! not the running machine (synthetic, from `LOCUS_TOPOLOGY`) gives a
//! virtual pool, whose workers are not pinned.

use std::borrow::Cow;
use std::sync::Arc;

use crate::Topology;
use crate::layout::{Layout, LayoutOptions, MAX_WORKERS, Pinning};
use crate::runtime::error::BuildError;
use crate::runtime::registry::Registry;
use crate::runtime::start::RegistryConfig;
use crate::runtime::worker::WorkerThread;
use crate::topology::{CpuSet, Source};

use super::super::env::{self, Lookup};
use super::super::thread_builder::ThreadSpawn;
use super::ThreadPoolBuilder;

impl<S> ThreadPoolBuilder<S> {
    /// Resolves builder + environment into the registry's configuration
    /// and the spawn strategy.
    pub(super) fn resolve(self, env: &Lookup<'_>) -> Result<(RegistryConfig, S), BuildError> {
        let num_threads = match self.settings.num_threads {
            Some(n) => Some(n),
            None => env::num_threads(env)?.map(|(n, _)| n),
        };
        let pinning = pinning(self.settings.pinning, env)?;
        let cluster_aware = cluster_aware(self.settings.cluster_aware, env)?;
        let topology = topology(self.settings.topology, env)?;
        let topology = confine(topology, self.settings.cpus, env)?;
        let opts = LayoutOptions {
            num_threads: worker_count(num_threads, &topology),
            pinning,
            steal_order: self.settings.steal_order.unwrap_or_default(),
            cluster_aware,
            virtual_topology: is_virtual(topology.source()),
        };
        // The detected machine is kept by reference, not copied.
        let layout = match topology {
            Cow::Borrowed(t) => Layout::new_static(t, &opts)?,
            Cow::Owned(ref t) => Layout::new(t, &opts)?,
        };
        let cfg = RegistryConfig {
            layout,
            thread_name: Some(
                self.settings
                    .thread_name
                    .unwrap_or_else(|| Box::new(|i| format!("locus-{i}"))),
            ),
            stack_size: self.settings.stack_size,
            start_handler: self.settings.start_handler,
            exit_handler: self.settings.exit_handler,
            panic_handler: self.settings.panic_handler,
            use_current_thread: self.settings.use_current_thread,
            breadth_first: self.settings.breadth_first,
        };
        Ok((cfg, self.spawn_handler))
    }
}

/// The pinning set on the builder, else `LOCUS_PINNING`, else the default.
fn pinning(set: Option<Pinning>, env: &Lookup<'_>) -> Result<Pinning, BuildError> {
    if let Some(p) = set {
        return Ok(p);
    }
    const ACCEPTED: &str = "cluster, core, cpu, none";
    match env::locus_var(env, "LOCUS_PINNING", ACCEPTED)? {
        None => Ok(Pinning::default()),
        Some(v) => v.parse().map_err(|_| BuildError::Env {
            var: "LOCUS_PINNING",
            value: v.clone(),
            accepted: ACCEPTED,
        }),
    }
}

/// Cluster awareness set on the builder, else `LOCUS_CLUSTER`, else on.
fn cluster_aware(set: Option<bool>, env: &Lookup<'_>) -> Result<bool, BuildError> {
    if let Some(c) = set {
        return Ok(c);
    }
    match env::locus_var(env, "LOCUS_CLUSTER", "0, 1")?.as_deref() {
        None => Ok(true),
        Some(v) => match v.trim() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(BuildError::Env {
                var: "LOCUS_CLUSTER",
                value: v.to_string(),
                accepted: "0, 1",
            }),
        },
    }
}

/// The topology set on the builder, else `LOCUS_TOPOLOGY`'s, else this
/// machine's.
fn topology(set: Option<Topology>, env: &Lookup<'_>) -> Result<Cow<'static, Topology>, BuildError> {
    if let Some(t) = set {
        return Ok(Cow::Owned(t));
    }
    Ok(
        match env::locus_var(env, "LOCUS_TOPOLOGY", TOPOLOGY_ACCEPTED)? {
            Some(spec) => Cow::Owned(Topology::synthetic(spec.trim())?),
            None => Topology::detect_for_pool(WorkerThread::on_worker_thread()),
        },
    )
}

/// The worker count to lay out: the one asked for, else the default under
/// a CPU quota (see `num_threads`), and at most `max_num_threads` workers
/// however they were asked for (rayon's soft limit). `None`: one per
/// allowed PU.
fn worker_count(asked: Option<usize>, topology: &Topology) -> Option<usize> {
    asked
        .or_else(|| {
            let cap = crate::topology::quota_workers(topology.cpu_quota()?);
            (cap < topology.allowed().len()).then_some(cap)
        })
        .or_else(|| (topology.allowed().len() > MAX_WORKERS).then_some(MAX_WORKERS))
        .map(|n| n.min(MAX_WORKERS))
}

/// Whether a topology from `source` is not the running machine (its
/// workers are then not pinned).
fn is_virtual(source: &Source) -> bool {
    match source {
        Source::Synthetic(_) => true,
        Source::Sysfs(root) => root != std::path::Path::new("/"),
        Source::Hwloc(xml) => xml.is_some(),
        Source::Flat(_) => false,
    }
}

/// What `LOCUS_TOPOLOGY` accepts.
const TOPOLOGY_ACCEPTED: &str = "a synthetic topology spec, e.g. llc:2 core:4";

/// Applies [`ThreadPoolBuilder::cpus`], else `LOCUS_CPUS` and
/// `LOCUS_SMT`, to the topology's allowed set.
fn confine(
    mut topology: Cow<'static, Topology>,
    cpus: Option<CpuSet>,
    env: &Lookup<'_>,
) -> Result<Cow<'static, Topology>, BuildError> {
    const CPUS_ACCEPTED: &str = "a cpulist of allowed CPUs, e.g. 0-7,16-23";
    const SMT_ACCEPTED: &str = "0 (one worker per core), 1";
    let (cpus, var) = match cpus {
        Some(s) => (Some(s), None),
        None => match env::locus_var(env, "LOCUS_CPUS", CPUS_ACCEPTED)? {
            None => (None, None),
            Some(v) => {
                let s = CpuSet::from_cpulist(v.trim()).map_err(|_| BuildError::Env {
                    var: "LOCUS_CPUS",
                    value: v.clone(),
                    accepted: CPUS_ACCEPTED,
                })?;
                (Some(s), Some("LOCUS_CPUS"))
            }
        },
    };
    let from_builder = cpus.is_some() && var.is_none();
    if let Some(set) = cpus {
        if set.is_empty() || !set.is_subset(topology.allowed()) {
            return Err(BuildError::Cpus {
                var,
                requested: set,
                allowed: topology.allowed().clone(),
            });
        }
        if set != *topology.allowed() {
            topology
                .to_mut()
                .confine(set, var.unwrap_or("ThreadPoolBuilder::cpus"));
        }
    }
    if from_builder {
        return Ok(topology);
    }
    match env::locus_var(env, "LOCUS_SMT", SMT_ACCEPTED)?.as_deref() {
        None => {}
        Some(v) => match v.trim() {
            "1" => {}
            "0" => {
                let one = topology.one_per_core();
                if one != *topology.allowed() {
                    topology.to_mut().confine(one, "LOCUS_SMT=0");
                }
            }
            _ => {
                return Err(BuildError::Env {
                    var: "LOCUS_SMT",
                    value: v.to_string(),
                    accepted: SMT_ACCEPTED,
                });
            }
        },
    }
    Ok(topology)
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    pub(crate) fn build_registry(self) -> Result<Arc<Registry>, BuildError> {
        self.build_registry_with(&env::process_env)
    }

    /// Resolves builder + environment into a layout and starts the workers.
    pub(crate) fn build_registry_with(self, env: &Lookup<'_>) -> Result<Arc<Registry>, BuildError> {
        let (cfg, mut spawn) = self.resolve(env)?;
        Registry::new(cfg, &mut |thread| spawn.spawn(thread))
    }
}
