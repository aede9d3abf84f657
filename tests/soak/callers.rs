//! The callers from outside the pools: waves of 1 to 64 threads, each
//! running random operations, and a thread switching cluster awareness.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::jobs::{detached, scope_body, tree, tree_call};
use crate::ledger::{Kind, LEDGER, Token, call, mix};
use crate::pools::{Pools, temp_pool};
use crate::watch::{
    CALLER_OPS, CALLER_PHASE, IDLE, J_INTO_B, J_INTO_C, P_GROUP, P_NESTED, P_SCOPE, P_SPAWN,
    P_SWITCH, P_TEMP, P_TEMP_IN_A, P_TREE, SWITCHER, job_phase,
};

pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(mix(seed) | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One operation of a caller from outside the pools.
pub(crate) fn one_op(p: &Pools, r: &mut Rng, phase: &AtomicU8) {
    let pick = |r: &mut Rng| match r.below(3) {
        0 => &p.a,
        1 => &p.b,
        _ => &p.c,
    };
    match r.below(100) {
        0..=17 => {
            phase.store(P_TREE, Relaxed);
            let pool = pick(r);
            let d = 1 + r.below(7) as u32;
            tree_call("install(join tree)", d, |c| {
                pool.install(|| {
                    if Token::new(Kind::Install).run() {
                        c.panic();
                    }
                    tree(c, d)
                })
            });
        }
        18..=35 => {
            phase.store(P_SCOPE, Relaxed);
            let pool = pick(r);
            let n = r.below(24);
            call("scope", |c| pool.scope(|s| scope_body(c, s, n)));
        }
        36..=45 => {
            phase.store(P_SPAWN, Relaxed);
            let pool = pick(r);
            for _ in 0..1 + r.below(8) {
                pool.spawn(detached(0));
            }
        }
        46..=60 => {
            phase.store(P_NESTED, Relaxed);
            let (b, cp) = (&p.b, &p.c);
            let n = r.below(8);
            tree_call("nested install A", 2, |c| {
                p.a.install(|| {
                    let t = tree(c, 2);
                    tree_call("nested install B", 2, |c| {
                        let _p = job_phase(J_INTO_B);
                        b.install(|| {
                            let t = tree(c, 2);
                            call("nested install C", |c| {
                                let _p = job_phase(J_INTO_C);
                                cp.install(|| locus::scope(|s| scope_body(c, s, n)))
                            });
                            t
                        })
                    });
                    t
                })
            });
        }
        61..=91 => {
            phase.store(P_GROUP, Relaxed);
            let (name, g) = &p.groups[r.below(p.groups.len() as u64) as usize];
            match r.below(4) {
                0 => {
                    let n = r.below(24);
                    call(&format!("scope of group {name}"), |c| {
                        g.scope(|s| scope_body(c, s, n))
                    });
                }
                1 => {
                    let d = r.below(5) as u32;
                    tree_call(&format!("join of group {name}"), d + 1, |c| {
                        let (x, y) = g.join(|| tree(c, d), || tree(c, d));
                        x + y
                    });
                }
                2 => {
                    let d = 1 + r.below(5) as u32;
                    tree_call(&format!("install of group {name}"), d, |c| {
                        g.install(|| tree(c, d))
                    });
                }
                _ => {
                    for _ in 0..1 + r.below(4) {
                        g.spawn(detached(0));
                    }
                }
            }
        }
        92..=96 => {
            phase.store(P_TEMP, Relaxed);
            temp_pool(r, &p.c, phase);
        }
        _ => {
            phase.store(P_TEMP_IN_A, Relaxed);
            let seed = r.next();
            // The temp pool's jobs install into A, and A's worker drops it
            // (issue 8, item 5: a drop that must not wait for itself).
            let a = &p.a;
            a.install(|| {
                let mut r = Rng::new(seed);
                let local = AtomicU8::new(IDLE);
                temp_pool(&mut r, a, &local);
            });
        }
    }
    phase.store(IDLE, Relaxed);
    LEDGER.ops.fetch_add(1, Relaxed);
}

/// Runs the load for `secs` seconds: waves of callers (1 and 64 early,
/// then a random mix), each wave 0.3 to 1 s, while a switcher toggles
/// cluster awareness on the three pools all along. Returns the wave sizes.
pub(crate) fn run_load(pools: &Pools, secs: u64) -> Vec<usize> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut waves = Vec::new();
    let done = AtomicBool::new(false);
    std::thread::scope(|ts| {
        // Live cluster switches on the three pools, all along.
        ts.spawn(|| {
            let mut r = Rng::new(7);
            CALLER_PHASE[SWITCHER].store(P_SWITCH, Relaxed);
            while !done.load(Relaxed) {
                let on = r.below(2) == 0;
                match r.below(3) {
                    0 => pools.a.set_cluster_aware(on),
                    1 => pools.b.set_cluster_aware(on),
                    _ => pools.c.set_cluster_aware(on),
                }
                CALLER_OPS[SWITCHER].fetch_add(1, Relaxed);
                std::thread::sleep(Duration::from_millis(1 + r.below(5)));
            }
            CALLER_PHASE[SWITCHER].store(IDLE, Relaxed);
        });
        let mut r = Rng::new(1);
        // 1 and 64 callers early, then a random mix.
        let mut plan = [1usize, 64, 3, 17, 8, 40, 2, 5].into_iter();
        let mut k = 0u64;
        while Instant::now() < deadline {
            let n = plan.next().unwrap_or_else(|| match r.below(10) {
                0..=4 => 1 + r.below(4) as usize,
                5..=7 => 5 + r.below(12) as usize,
                _ => 17 + r.below(48) as usize,
            });
            waves.push(n);
            let end = (Instant::now() + Duration::from_millis(300 + r.below(700))).min(deadline);
            std::thread::scope(|ws| {
                for i in 0..n {
                    ws.spawn(move || {
                        let mut r = Rng::new(k * 1000 + i as u64 + 11);
                        loop {
                            one_op(pools, &mut r, &CALLER_PHASE[i]);
                            CALLER_OPS[i].fetch_add(1, Relaxed);
                            if Instant::now() >= end {
                                break;
                            }
                        }
                    });
                }
            });
            k += 1;
        }
        done.store(true, Relaxed);
    });
    waves
}
