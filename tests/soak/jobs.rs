//! The jobs the soak hands to the pools: `join` trees, detached spawns
//! that spawn more, and scope bodies; 5% of them panic.

use std::cell::Cell;
use std::panic;
use std::sync::atomic::Ordering::Relaxed;

use crate::ledger::{Call, Kind, LEDGER, SoakPanic, Token, call, mix, violation};
use crate::watch::{J_DETACHED, J_HALF, J_SCOPE, WORKER, job_phase};

pub(crate) fn work(n: u64) -> u64 {
    std::hint::black_box((0..n).fold(0u64, |a, x| a.wrapping_add(x * x)))
}

/// A `join` tree of depth `d` in the current pool; its leaf halves panic
/// in 5% of the cases. Returns its number of leaves.
pub(crate) fn tree(c: &Call, d: u32) -> u64 {
    if d == 0 {
        work(200);
        return 1;
    }
    let half = |t: Token| {
        move || {
            let _p = job_phase(J_HALF);
            // A first half that unwinds (its own panic or one from below)
            // lets `join` drop the second half unrun.
            let _a = (t.kind == Kind::JoinA).then_some(FirstHalf);
            let panics = t.run();
            if d == 1 && panics {
                c.panic();
            }
            tree(c, d - 1)
        }
    };
    let (a, b) = locus::join(half(Token::new(Kind::JoinA)), half(Token::new(Kind::JoinB)));
    a + b
}

/// Held by a `join`'s first half: counts it if it unwinds.
pub(crate) struct FirstHalf;

impl Drop for FirstHalf {
    fn drop(&mut self) {
        if std::thread::panicking() {
            LEDGER.a_panics.fetch_add(1, Relaxed);
        }
    }
}

/// Checks a tree's result.
pub(crate) fn tree_call(what: &str, d: u32, f: impl FnOnce(&Call) -> u64) {
    if let Some(n) = call(what, f) {
        if n != 1 << d {
            violation(format!("{what}: join tree of depth {d} returned {n}"));
        }
    }
}

/// A detached job (tokens counted; 5% panic); spawns up to two children
/// in its own pool while `depth < 2`.
pub(crate) fn detached(depth: u32) -> impl FnOnce() + Send + 'static {
    let t = Token::new(Kind::Detached);
    move || {
        let _p = job_phase(J_DETACHED);
        let id = t.id;
        // Counted as raised before the token counts as run: once every
        // token is accounted for, every detached panic is counted here.
        let panics = t.panics();
        if panics {
            match WORKER.with(Cell::get) {
                Some((tag, _)) => LEDGER.detached_raised[tag].fetch_add(1, Relaxed),
                None => {
                    violation("a detached job ran outside a soak worker".into());
                    0
                }
            };
        }
        t.run();
        if depth < 2 {
            for _ in 0..(mix(id) % 3) {
                locus::spawn(detached(depth + 1));
            }
        }
        work(300);
        if panics {
            panic::panic_any(SoakPanic);
        }
    }
}

/// The body of a scope: `n` jobs (some spawn one more, some run a nested
/// call of their own), 5% of jobs and bodies panic.
pub(crate) fn scope_body<'s>(c: &'s Call, s: &locus::Scope<'s>, n: u64) {
    let body = Token::new(Kind::ScopeBody);
    let panics = body.run();
    for i in 0..n {
        let t = Token::new(Kind::ScopeJob);
        s.spawn(move |s| {
            let _p = job_phase(J_SCOPE);
            let id = t.id;
            let panics = t.run();
            match mix(id) % 8 {
                0 => {
                    let t2 = Token::new(Kind::ScopeJob);
                    s.spawn(move |_| {
                        let _p = job_phase(J_SCOPE);
                        if t2.run() {
                            c.panic();
                        }
                        work(100);
                    });
                }
                1 => tree_call("join tree in a scope job", 3, |c2| tree(c2, 3)),
                _ => {}
            }
            work(100 + i);
            if panics {
                c.panic();
            }
        });
    }
    if panics {
        c.panic();
    }
}
