//! Soak test (issue 8, item 9): for a bounded time, threads from outside
//! (1 to 64 at once, in waves) drive three long-lived pools and many
//! short-lived ones with a mix of `join` trees, scopes, detached spawns,
//! job groups (pack, spread, auto, near, numa), nested installs across the
//! three pools (A into B into C), pools built and dropped (from outside and
//! from inside a job of A), live cluster switches, and panics in about 5%
//! of the jobs.
//!
//! Checked at the end:
//! - **every job runs exactly once**: each closure handed to the pool owns
//!   a token; running it counts the token (count and a checksum of ids),
//!   dropping it unrun counts it as dropped. Created = run + dropped, and
//!   only a `join`'s second half may be dropped unrun, and only when its
//!   first half panicked (as `join` documents);
//! - **every panic reaches its caller or the panic handler**: each call
//!   (`install`, `scope`, `join`) records whether one of its own jobs
//!   panicked and must then, and only then, panic in its caller; detached
//!   panics are counted by the pools' panic handlers, and for the pool
//!   whose handler drops them unseen, in its `PoolStats::detached_panics`;
//! - results of `join` trees are right;
//! - the process's thread count (`Threads:` of `/proc/self/status`) is
//!   back at its baseline once the pools are dropped (after a short settle
//!   loop: an exiting thread leaves the count a moment after its join);
//! - memory does not grow over the last half of the run: neither RSS (see
//!   [`rss_tolerance_kib`]) nor the live heap, counted exactly by this
//!   test's global allocator (see [`heap_tolerance_kib`]).
//!
//! Duration: `LOCUS_SOAK_SECS` seconds of load (default 20). A watchdog
//! thread turns a hang into a failure: when nothing makes progress for
//! `LOCUS_SOAK_HANG_SECS` (default 60 s)
//! (or the whole test overruns by 5 minutes) it prints which soak threads
//! are stuck in which phase, what each worker of the long-lived pools is
//! running, and every live pool's stats table, then exits the process
//! with status 1.
//!
//! Only plain fork-join: no `join` whose first half waits for its second,
//! no group used after its pool is gone (both user errors per issue 8).
//!
//! Modules: [`ledger`] (tokens and calls: what is checked), [`jobs`] (what
//! runs in the pools), [`pools`] (the long-lived and short-lived pools),
//! [`callers`] (the load from outside), [`watch`] (where everyone is, the
//! watchdog), [`memory`] (threads, RSS and the live heap).

mod callers;
mod jobs;
mod ledger;
mod memory;
mod pools;
mod watch;

use std::panic;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use ledger::{LEDGER, SoakPanic};
use memory::threads;
use pools::Pools;
use watch::{CALLER_PHASE, IDLE, MAIN, P_DRAIN, P_DROP, P_SETTLE, TAG_A, TAG_B, TAG_C, TAG_TEMP};

/// A number of seconds from the environment variable `var`, else `default`.
fn env_secs(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Waits (up to 30 s) until `f` holds; returns whether it does.
fn settled(f: &dyn Fn() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while !f() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    f()
}

/// The detached panics raised on the pools, for the checks after the drop.
struct Raised {
    /// On the pools with a panic handler (A, B, the short-lived ones).
    handled: u64,
    /// On C, which has none.
    on_c: u64,
}

/// Detached jobs may still be running: waits until every token is
/// accounted for and every detached panic was handled or counted
/// (bounded; the watchdog also watches).
fn drain(pools: &Pools, failures: &mut Vec<String>) -> Raised {
    CALLER_PHASE[MAIN].store(P_DRAIN, Relaxed);
    let l = &LEDGER;
    let all_accounted = || l.created.load(Relaxed) == l.ran.load(Relaxed) + l.dropped.load(Relaxed);
    if !settled(&all_accounted) {
        failures.push(format!(
            "jobs not accounted for after 30 s:\n{}",
            watch::report("drain")
        ));
    }
    // C's detached panics are counted by the worker after the unwind.
    let on_c = l.detached_raised[TAG_C].load(Relaxed);
    settled(&|| pools.c.stats().total().detached_panics >= on_c);
    let handled: u64 = [TAG_A, TAG_B, TAG_TEMP]
        .iter()
        .map(|&t| l.detached_raised[t].load(Relaxed))
        .sum();
    settled(&|| l.handled.load(Relaxed) >= handled);
    eprintln!("{}", watch::report("end of load (not a failure)"));
    Raised { handled, on_c }
}

/// Every job ran exactly once, or was a `join` second half dropped after
/// its first half panicked. Prints the run's totals.
fn check_jobs(secs: u64, waves: &[usize], c_panics: u64, failures: &mut Vec<String>) {
    let l = &LEDGER;
    let (created, ran, dropped) = (
        l.created.load(Relaxed),
        l.ran.load(Relaxed),
        l.dropped.load(Relaxed),
    );
    let (cs, rs, ds) = (
        l.created_sum.load(Relaxed),
        l.ran_sum.load(Relaxed),
        l.dropped_sum.load(Relaxed),
    );
    eprintln!(
        "soak: {secs} s, waves of callers {waves:?}; {} ops; jobs created {created}, run {ran}, \
         dropped {dropped} (join halves after a panic in the first half: {}); calls that \
         panicked {} (caught {}); detached panics {:?} (handled {}, counted by C {c_panics})",
        l.ops.load(Relaxed),
        l.a_panics.load(Relaxed),
        l.calls_raised.load(Relaxed),
        l.calls_caught.load(Relaxed),
        l.detached_raised.each_ref().map(|x| x.load(Relaxed)),
        l.handled.load(Relaxed),
    );
    if created != ran + dropped || cs != rs.wrapping_add(ds) {
        failures.push(format!(
            "jobs: created {created} != run {ran} + dropped {dropped} (or checksums differ: \
             a job ran twice, or was lost)"
        ));
    }
    if dropped > l.a_panics.load(Relaxed) || l.bad_drops.load(Relaxed) > 0 {
        failures.push(format!(
            "jobs dropped unrun: {dropped}, of which {} not join halves; join first halves \
             that panicked: {}",
            l.bad_drops.load(Relaxed),
            l.a_panics.load(Relaxed)
        ));
    }
}

/// Every panic reached its caller or a panic handler (or C's stats); and
/// the violations the ledger recorded (wrong results, wrong panics).
fn check_panics(raised: &Raised, c_panics: u64, failures: &mut Vec<String>) {
    let l = &LEDGER;
    if l.calls_raised.load(Relaxed) != l.calls_caught.load(Relaxed) {
        failures.push("a call's panic did not reach its caller".into());
    }
    if l.handled.load(Relaxed) != raised.handled {
        failures.push(format!(
            "detached panics on pools with a handler: {} raised, {} handled",
            raised.handled,
            l.handled.load(Relaxed)
        ));
    }
    if c_panics != raised.on_c {
        failures.push(format!(
            "detached panics on C (no handler): {} raised, {c_panics} in its stats",
            raised.on_c
        ));
    }
    failures.extend(l.violations.lock().unwrap().iter().cloned());
}

#[test]
fn soak() {
    let secs = env_secs("LOCUS_SOAK_SECS", 20);
    let hang_secs = env_secs("LOCUS_SOAK_HANG_SECS", 60);
    // Our panics are expected: keep them off the output.
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<SoakPanic>() {
            default_hook(info);
        }
    }));

    // The watchdog, started before the baseline (it is part of it).
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let watchdog = watch::start_watchdog(t0, secs, hang_secs, Arc::clone(&stop));
    let baseline = threads();

    let (pools, listed) = Pools::long_lived();
    let run_start = t0.elapsed();
    let waves = callers::run_load(&pools, secs);
    let run_end = t0.elapsed();

    let mut failures: Vec<String> = Vec::new();
    let raised = drain(&pools, &mut failures);
    CALLER_PHASE[MAIN].store(P_DROP, Relaxed);
    let c_panics = pools.c.stats().total().detached_panics;
    let Pools { a, b, c, groups } = pools;
    drop(groups);
    drop(listed);
    drop((a, b, c));
    CALLER_PHASE[MAIN].store(P_SETTLE, Relaxed);
    let threads_settled = settled(&|| threads() == baseline);
    let threads_now = threads();
    CALLER_PHASE[MAIN].store(IDLE, Relaxed);
    stop.store(true, Relaxed);
    let samples = watchdog.join().unwrap();

    check_jobs(secs, &waves, c_panics, &mut failures);
    check_panics(&raised, c_panics, &mut failures);
    if !threads_settled {
        failures.push(format!(
            "threads: {threads_now} after dropping every pool, {baseline} before"
        ));
    }
    memory::check_growth(&samples, (run_start, run_end), &mut failures);
    assert!(failures.is_empty(), "soak failed:\n{}", failures.join("\n"));
}
