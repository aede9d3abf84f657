//! The idle masks under concurrency: claims racing arms and disarms on
//! real threads (invariant 3 of `idle`: no lost wakeup).
use super::*;

/// Workers cycle set_idle / clear_idle while wakers claim. Each cycle of a
/// worker ends with exactly one of: its clear_idle returned true, or exactly
/// one waker claimed it (checked with a per-worker claim counter that the
/// worker waits for, like a real wakeup handshake).
#[test]
fn concurrent_stress() {
    const WORKERS: usize = 6;
    const CYCLES: usize = 3_000;
    let m = StdArc::new(IdleMasks::new(IdleShape::uniform(WORKERS, 3, 2)));
    let claims: StdArc<Vec<StdUsize>> =
        StdArc::new((0..WORKERS).map(|_| StdUsize::new(0)).collect());
    let stop = StdArc::new(StdBool::new(false));
    let wakers: Vec<_> = (0..2)
        .map(|k| {
            let (m, claims, stop) = (m.clone(), claims.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0usize;
                while !stop.load(SeqCst) {
                    if let Some((w, _)) = m.claim_nearest(Some(k * 3), k) {
                        claims[w].fetch_add(1, SeqCst);
                        n += 1;
                    } else {
                        std::thread::yield_now();
                    }
                }
                n
            })
        })
        .collect();
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (m, claims) = (m.clone(), claims.clone());
            std::thread::spawn(move || {
                let (mut cleared, mut claimed) = (0usize, 0usize);
                for i in 0..CYCLES {
                    m.set_idle(w);
                    if i % 2 == 0 {
                        std::thread::yield_now();
                    }
                    if m.clear_idle(w) {
                        cleared += 1;
                        assert_eq!(claims[w].load(SeqCst), claimed, "claimed and cleared");
                    } else {
                        claimed += 1;
                        while claims[w].load(SeqCst) < claimed {
                            std::thread::yield_now();
                        }
                        assert_eq!(claims[w].load(SeqCst), claimed, "claimed twice");
                    }
                }
                (cleared, claimed)
            })
        })
        .collect();
    let mut total_claimed = 0;
    for h in workers {
        let (cleared, claimed) = h.join().unwrap();
        assert_eq!(cleared + claimed, CYCLES);
        total_claimed += claimed;
    }
    stop.store(true, SeqCst);
    let by_wakers: usize = wakers.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(by_wakers, total_claimed);
    for w in 0..WORKERS {
        assert!(!m.is_idle(w));
    }
    check_summary(&m);
    assert!(!m.any_idle());
}

/// Counters shared by the threads of [`no_lost_wakeup_under_churn`].
type Shared = (
    StdArc<IdleMasks>,
    StdArc<Vec<std::sync::atomic::AtomicU64>>,
    StdArc<Vec<std::sync::atomic::AtomicU64>>,
    StdArc<StdBool>,
);

/// A sleeper of [`no_lost_wakeup_under_churn`]: worker `w` announces an
/// idle period, waits until it is claimed, then leaves the idle state
/// (which must find its bit claimed), until `stop`.
fn sleeper(w: usize, (m, announced, claims, stop): Shared) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut period = 0;
        while !stop.load(SeqCst) {
            m.set_idle(w);
            period += 1;
            announced[w].store(period, SeqCst);
            while claims[w].load(SeqCst) < period && !stop.load(SeqCst) {
                std::thread::yield_now();
            }
            // Claimed (or stopping): leave the idle state.
            let cleared = m.clear_idle(w);
            if cleared {
                assert!(
                    stop.load(SeqCst),
                    "sleeper {w} cleared its own bit while running"
                );
                break;
            }
        }
    })
}

/// The claimer of [`no_lost_wakeup_under_churn`]: `claims` claims from
/// rotating LLCs, each `None` checked against the sleepers' announced
/// periods; signals `done` when finished.
fn claimer(
    sleepers: [usize; 5],
    n: usize,
    claims_wanted: usize,
    (m, announced, claims, stop): Shared,
    done: std::sync::mpsc::Sender<()>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut by_me = vec![0u64; n];
        let mut k = 0;
        while k < claims_wanted && !stop.load(SeqCst) {
            let owed = sleepers
                .iter()
                .any(|&w| announced[w].load(SeqCst) > by_me[w]);
            let from = [0, 64, 129][k % 3];
            match m.claim_nearest(None, from) {
                Some((w, _)) => {
                    by_me[w] += 1;
                    claims[w].fetch_add(1, SeqCst);
                    k += 1;
                }
                None => {
                    // (After the watchdog's stop, sleepers clear their
                    // own bits: not a lost wakeup.)
                    assert!(
                        !owed || stop.load(SeqCst),
                        "lost wakeup from LLC {from}: announced {:?}, claimed {:?}",
                        sleepers.map(|w| announced[w].load(SeqCst)),
                        sleepers.map(|w| by_me[w])
                    );
                    std::thread::yield_now();
                }
            }
        }
        done.send(()).unwrap();
    })
}

/// Invariant 3 under concurrency, on a three-level tree: sleepers announce
/// each idle period (after `set_idle`) and wait to be claimed; churners arm
/// and disarm their own bits in the same leaf and upper words; one claimer
/// checks, before each claim, whether some sleeper announced a period it has
/// not claimed yet, and if so the claim must return a worker (a `None` is a
/// lost wakeup). A watchdog turns a hang into a failure.
#[test]
fn no_lost_wakeup_under_churn() {
    use std::sync::atomic::AtomicU64 as StdU64;
    use std::sync::mpsc;
    use std::time::Duration;

    const CLAIMS: usize = 5_000;
    // 130 LLCs of one worker: 1-bit leaves, 3 leaf words, and the root.
    let n = 130;
    let m = StdArc::new(IdleMasks::new(IdleShape::uniform(n, 1, 0)));
    assert_eq!(m.level_spans().len(), 2);
    let sleepers = [1usize, 63, 64, 127, 129];
    let churners = [0usize, 2, 62, 65, 128];
    // announced[w]: idle periods of sleeper w announced so far.
    let announced: StdArc<Vec<StdU64>> = StdArc::new((0..n).map(|_| StdU64::new(0)).collect());
    let claims: StdArc<Vec<StdU64>> = StdArc::new((0..n).map(|_| StdU64::new(0)).collect());
    let stop = StdArc::new(StdBool::new(false));
    let shared = || (m.clone(), announced.clone(), claims.clone(), stop.clone());
    let mut threads: Vec<_> = sleepers.iter().map(|&w| sleeper(w, shared())).collect();
    for &w in &churners {
        let (m, stop) = (m.clone(), stop.clone());
        threads.push(std::thread::spawn(move || {
            // A yield every few cycles: eleven threads share two CPUs in
            // CI, and churners that never yield would starve the claimer
            // and the sleepers whose handshakes the test counts.
            let mut cycle = 0u32;
            while !stop.load(SeqCst) {
                m.set_idle(w);
                std::hint::spin_loop();
                m.clear_idle(w);
                cycle = cycle.wrapping_add(1);
                if cycle % 16 == 0 {
                    std::thread::yield_now();
                }
            }
        }));
    }
    let (done_tx, done_rx) = mpsc::channel();
    let claimer = claimer(sleepers, n, CLAIMS, shared(), done_tx);
    // The watchdog fails on a stall (no claim made for 60 s), not on a slow
    // run: a loaded machine may take long, a hang makes no progress.
    let made = || claims.iter().map(|c| c.load(SeqCst)).sum::<u64>();
    let (mut last, mut since) = (made(), std::time::Instant::now());
    let finished = loop {
        match done_rx.recv_timeout(Duration::from_secs(1)) {
            Ok(()) => break true,
            Err(mpsc::RecvTimeoutError::Disconnected) => break false,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let now = made();
        if now != last {
            (last, since) = (now, std::time::Instant::now());
        } else if since.elapsed() > Duration::from_secs(60) {
            break false;
        }
    };
    stop.store(true, SeqCst);
    claimer.join().unwrap();
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        finished,
        "watchdog: no claim for 60 s ({last} of {CLAIMS} made)"
    );
    for w in 0..n {
        assert!(!m.is_idle(w), "worker {w} left idle");
    }
    check_summary(&m);
    assert!(!m.any_idle());
}
