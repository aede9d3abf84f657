//! The pools: the three long-lived ones (A, B, C) with their job groups,
//! and the short-lived ones built, used and dropped by the callers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use locus::{Affinity, GroupOptions, JobGroup, Placement, ThreadPool, ThreadPoolBuilder, Topology};

use crate::callers::Rng;
use crate::jobs::{detached, scope_body, tree, tree_call};
use crate::ledger::{LEDGER, SoakPanic, call, payload_text, violation};
use crate::watch::{
    IDLE, J_INTO_C, Listed, P_DROP_TEMP, TAG_A, TAG_B, TAG_C, TAG_TEMP, WORKER, WORKER_PHASE,
    job_phase, list,
};

pub(crate) fn handler(p: Box<dyn std::any::Any + Send>) {
    if p.is::<SoakPanic>() {
        LEDGER.handled.fetch_add(1, Relaxed);
    } else {
        violation(format!(
            "panic handler: unexpected panic: {}",
            payload_text(&*p)
        ));
    }
}

/// A soak pool; its panic handler counts the payloads it sees in the
/// ledger (`counting`), or drops them unseen (a pool without a panic
/// handler would abort the process on the first detached panic, as in
/// rayon).
pub(crate) fn build(spec: &str, tag: usize, counting: bool) -> ThreadPool {
    // One worker per PU, set: the environment may set a default count.
    let t = Topology::synthetic(spec).unwrap();
    let b = ThreadPoolBuilder::new()
        .num_threads(t.allowed().len())
        .topology(t)
        .start_handler(move |i| WORKER.with(|w| w.set(Some((tag, i)))))
        .thread_name(move |i| format!("soak-{tag}-{i}"));
    let b = if counting {
        b.panic_handler(handler)
    } else {
        b.panic_handler(drop)
    };
    b.build()
        .unwrap_or_else(|e| panic!("building a soak pool on {spec:?}: {e}"))
}

pub(crate) struct Pools {
    pub(crate) a: Arc<ThreadPool>,
    pub(crate) b: Arc<ThreadPool>,
    pub(crate) c: Arc<ThreadPool>,
    pub(crate) groups: Vec<(String, JobGroup)>,
}

pub(crate) const TEMP_SPECS: &[&str] = &[
    "core:1",
    "core:2",
    "llc:2 core:2",
    "cluster:2 core:2",
    "llc:2 cluster:2 core:1",
    "numa:2 llc:1 core:2",
    "llc:3 core:1",
];

pub(crate) fn group_options(r: &mut Rng) -> GroupOptions {
    let affinity = match r.below(5) {
        0 => Affinity::Auto,
        1 => Affinity::Llc(0),
        2 => Affinity::Near(0),
        3 => Affinity::Numa(0),
        _ => Affinity::None,
    };
    let placement = if r.below(3) == 0 {
        Placement::Spread
    } else {
        Placement::Pack
    };
    GroupOptions::new().affinity(affinity).placement(placement)
}

/// Builds a pool, uses it (trees, a scope, detached spawns, sometimes a
/// group and a nested install into `c_pool`: C from outside, A from a
/// worker of A), drops it.
pub(crate) fn temp_pool(r: &mut Rng, c_pool: &ThreadPool, phase: &AtomicU8) {
    let spec = TEMP_SPECS[r.below(TEMP_SPECS.len() as u64) as usize];
    let pool = Arc::new(build(spec, TAG_TEMP, true));
    let listed = list(format!("temp {spec:?}"), &pool);
    let d = 1 + r.below(5) as u32;
    tree_call("install into a temp pool", d, |c| {
        pool.install(|| tree(c, d))
    });
    let n = r.below(12);
    call("scope on a temp pool", |c| {
        pool.scope(|s| scope_body(c, s, n))
    });
    for _ in 0..r.below(6) {
        pool.spawn(detached(0));
    }
    if r.below(2) == 0 {
        let g = pool.group(group_options(r)).unwrap();
        let n = r.below(8);
        call("group scope on a temp pool", |c| {
            g.scope(|s| scope_body(c, s, n))
        });
        g.spawn(detached(1));
        drop(g);
    }
    if r.below(3) == 0 {
        tree_call("temp pool into C or A", 2, |c| {
            pool.install(|| {
                let _p = job_phase(J_INTO_C);
                c_pool.install(|| tree(c, 2))
            })
        });
    }
    phase.store(P_DROP_TEMP, Relaxed);
    drop(listed);
    drop(pool);
}

impl Pools {
    /// Builds A, B and C (C's panic handler drops the payloads unseen: its
    /// detached panics are checked through `PoolStats::detached_panics`
    /// only), lists them for the watchdog, and makes their
    /// groups (pack, spread, auto, near, numa).
    pub(crate) fn long_lived() -> (Pools, [Listed; 3]) {
        let a = Arc::new(build("llc:2 cluster:2 core:2", TAG_A, true));
        let b = Arc::new(build("llc:2 core:3", TAG_B, true));
        let c = Arc::new(build("cluster:2 core:2", TAG_C, false));
        WORKER_PHASE
            .set([&a, &b, &c].map(|p| {
                (0..p.current_num_threads())
                    .map(|_| AtomicU8::new(IDLE))
                    .collect()
            }))
            .ok()
            .unwrap();
        let listed = [
            list("A llc:2 cluster:2 core:2".into(), &a),
            list("B llc:2 core:3".into(), &b),
            list("C cluster:2 core:2".into(), &c),
        ];
        let mut groups = Vec::new();
        let pack = |a| GroupOptions::new().affinity(a);
        let spread = |a| pack(a).placement(Placement::Spread);
        for (name, pool, opts) in [
            ("A pack llc 0", &a, pack(Affinity::Llc(0))),
            ("A pack llc 1", &a, pack(Affinity::Llc(1))),
            ("A pack auto", &a, pack(Affinity::Auto)),
            ("A pack near 5", &a, pack(Affinity::Near(5))),
            ("A spread", &a, spread(Affinity::None)),
            ("B pack llc 1", &b, pack(Affinity::Llc(1))),
            ("B pack numa 0", &b, pack(Affinity::Numa(0))),
            ("B spread auto", &b, spread(Affinity::Auto)),
            ("C spread", &c, spread(Affinity::None)),
            ("C pack auto", &c, pack(Affinity::Auto)),
        ] {
            groups.push((name.to_string(), pool.group(opts).unwrap()));
        }
        (Pools { a, b, c, groups }, listed)
    }
}
