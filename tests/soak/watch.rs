//! Where everyone is: the phase of every soak thread and of every worker
//! of the long-lived pools, the live pools, and the watchdog that prints
//! them and fails the process when nothing makes progress.

use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use locus::ThreadPool;

use crate::ledger::LEDGER;
use crate::memory::{live_heap_kib, rss_kib};

/// Pool tags (set on each worker by its start handler).
pub(crate) const TAG_A: usize = 0;
pub(crate) const TAG_B: usize = 1;
pub(crate) const TAG_C: usize = 2;
pub(crate) const TAG_TEMP: usize = 3;
pub(crate) const TAGS: usize = 4;

std::thread_local! {
    /// (pool tag, worker index) on workers of soak pools.
    pub(crate) static WORKER: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Phases of soak threads and of workers of the long-lived pools.
pub(crate) const PHASES: &[&str] = &[
    "idle",
    "install(join tree)",
    "scope",
    "spawn detached",
    "nested install A>B>C",
    "group op",
    "temp pool",
    "temp pool from a job of A",
    "join half",
    "scope job",
    "detached job",
    "install into B",
    "install into C",
    "drop temp pool",
    "switching clusters",
    "draining",
    "dropping pools",
    "settling threads",
];
pub(crate) const IDLE: u8 = 0;
pub(crate) const P_TREE: u8 = 1;
pub(crate) const P_SCOPE: u8 = 2;
pub(crate) const P_SPAWN: u8 = 3;
pub(crate) const P_NESTED: u8 = 4;
pub(crate) const P_GROUP: u8 = 5;
pub(crate) const P_TEMP: u8 = 6;
pub(crate) const P_TEMP_IN_A: u8 = 7;
pub(crate) const J_HALF: u8 = 8;
pub(crate) const J_SCOPE: u8 = 9;
pub(crate) const J_DETACHED: u8 = 10;
pub(crate) const J_INTO_B: u8 = 11;
pub(crate) const J_INTO_C: u8 = 12;
pub(crate) const P_DROP_TEMP: u8 = 13;
pub(crate) const P_SWITCH: u8 = 14;
pub(crate) const P_DRAIN: u8 = 15;
pub(crate) const P_DROP: u8 = 16;
pub(crate) const P_SETTLE: u8 = 17;

/// Soak threads: 64 callers, the switcher, the main thread.
pub(crate) const MAX_CALLERS: usize = 64;
pub(crate) const SWITCHER: usize = MAX_CALLERS;
pub(crate) const MAIN: usize = MAX_CALLERS + 1;
pub(crate) static CALLER_PHASE: [AtomicU8; MAX_CALLERS + 2] =
    [const { AtomicU8::new(IDLE) }; MAX_CALLERS + 2];
pub(crate) static CALLER_OPS: [AtomicU64; MAX_CALLERS + 2] =
    [const { AtomicU64::new(0) }; MAX_CALLERS + 2];

/// What each worker of A, B and C runs now (set by the jobs).
pub(crate) static WORKER_PHASE: OnceLock<[Vec<AtomicU8>; 3]> = OnceLock::new();

/// Marks the current worker (of A, B or C) as running a job of `phase`
/// until the guard drops (nested jobs restore the outer phase).
pub(crate) struct JobPhase(Option<(usize, usize, u8)>);

pub(crate) fn job_phase(phase: u8) -> JobPhase {
    let Some((tag, w)) = WORKER.with(Cell::get) else {
        return JobPhase(None);
    };
    let Some(slot) = WORKER_PHASE
        .get()
        .and_then(|t| t.get(tag))
        .and_then(|v| v.get(w))
    else {
        return JobPhase(None);
    };
    JobPhase(Some((tag, w, slot.swap(phase, Relaxed))))
}

impl Drop for JobPhase {
    fn drop(&mut self) {
        if let Some((tag, w, prev)) = self.0 {
            WORKER_PHASE.get().unwrap()[tag][w].store(prev, Relaxed);
        }
    }
}

/// Live pools, for the watchdog's report.
pub(crate) static POOLS: Mutex<Vec<(String, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// Keeps a pool in [`POOLS`] while alive; dropped before the pool itself,
/// so the owner's handle is the last one (and its drop joins the workers).
pub(crate) struct Listed(Arc<ThreadPool>);

pub(crate) fn list(name: String, p: &Arc<ThreadPool>) -> Listed {
    POOLS.lock().unwrap().push((name, Arc::clone(p)));
    Listed(Arc::clone(p))
}

impl Drop for Listed {
    fn drop(&mut self) {
        POOLS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(_, p)| !Arc::ptr_eq(p, &self.0));
    }
}

pub(crate) fn report(why: &str) -> String {
    let mut s = format!("soak: {why}\nsoak threads not idle (phase, ops done):\n");
    for (i, p) in CALLER_PHASE.iter().enumerate() {
        let p = p.load(Relaxed);
        if p != IDLE {
            let who = match i {
                SWITCHER => "switcher".to_string(),
                MAIN => "main".to_string(),
                i => format!("caller {i}"),
            };
            let ops = CALLER_OPS[i].load(Relaxed);
            s += &format!("  {who}: {} ({ops} ops)\n", PHASES[p as usize]);
        }
    }
    if let Some(t) = WORKER_PHASE.get() {
        for (tag, name) in ["A", "B", "C"].iter().enumerate() {
            let busy: Vec<String> = t[tag]
                .iter()
                .enumerate()
                .filter(|(_, p)| p.load(Relaxed) != IDLE)
                .map(|(w, p)| format!("{w}: {}", PHASES[p.load(Relaxed) as usize]))
                .collect();
            s += &format!("workers of {name} in soak jobs: [{}]\n", busy.join(", "));
        }
    }
    for (name, p) in POOLS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        s += &format!("pool {name}:\n{}\n", p.stats());
    }
    let l = &LEDGER;
    s += &format!(
        "jobs created {}, run {}, dropped {}; ops {}\n",
        l.created.load(Relaxed),
        l.ran.load(Relaxed),
        l.dropped.load(Relaxed),
        l.ops.load(Relaxed)
    );
    s
}

/// One sample of the watchdog: time since the start, RSS and live heap
/// (KiB).
pub(crate) type Sample = (Duration, u64, u64);

/// Starts the watchdog: every 50 ms it samples memory and checks progress;
/// when no job or operation finished for `hang_secs`, or the run overran
/// `secs` by 5 minutes, it prints [`report`] and exits the process with
/// status 1. Returns the samples once `stop` is set.
pub(crate) fn start_watchdog(
    t0: Instant,
    secs: u64,
    hang_secs: u64,
    stop: Arc<AtomicBool>,
) -> JoinHandle<Vec<Sample>> {
    std::thread::spawn(move || {
        // Room for every sample up to the overrun limit, so that the
        // vector's own growth does not count as the soak's.
        let mut samples = Vec::with_capacity(((secs + 330) * 20) as usize);
        let mut last = (0, Instant::now());
        while !stop.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
            samples.push((t0.elapsed(), rss_kib(), live_heap_kib()));
            let progress = LEDGER.ran.load(Relaxed) + LEDGER.ops.load(Relaxed);
            let why = if progress != last.0 {
                last = (progress, Instant::now());
                None
            } else if last.1.elapsed() > Duration::from_secs(hang_secs) {
                Some("HANG: no job or operation finished for LOCUS_SOAK_HANG_SECS")
            } else if t0.elapsed() > Duration::from_secs(secs + 300) {
                Some("HANG: the soak overran its time by 5 minutes")
            } else {
                None
            };
            if let Some(why) = why {
                // Straight to stderr (the test harness captures only
                // the print macros), then fail the whole process: the
                // hung threads cannot be unwound.
                let _ = std::io::stderr().write_all(report(why).as_bytes());
                std::process::exit(1);
            }
        }
        samples
    })
}
