//! The quicksort of `benches/fork_join.rs` against rayon in alternating
//! pairs, with the bound a pool cannot beat.
//!
//! ```text
//! cargo bench --bench quicksort_paired [-- [--pairs N]]
//! ```
//!
//! Each pair sorts a fresh copy of one input (1M pseudo-random `u32`)
//! once with each library, the order alternating, so that a disturbance
//! of the loaded machine falls on both sides of most pairs (criterion runs
//! one library's whole group after the other's). Every piece of the sort
//! (a partition or a serial leaf) adds its duration to the sort's *busy*
//! time, and the root partition's is kept, which gives the sort's
//! *ideal*: root partition + (busy - root partition) / threads, the time a
//! pool that cost nothing would take for these pieces (the root partition
//! is serial; the rest split perfectly). Two `Instant` reads and an atomic
//! add per piece, a few hundred pieces per sort.
//!
//! Per run it prints the medians per sort, the median of the per-pair
//! ratios locus/rayon of wall time (quartiles) and of process CPU time,
//! each library's median wall / ideal, and the *floor*: the median per
//! pair of locus's ideal over rayon's wall time, the ratio locus would
//! reach if its pool cost nothing (`docs/quicksort-two-workers.md`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[path = "common/cli.rs"]
mod cli;
mod common;
#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/pools.rs"]
mod pools;
use pools::pools;
#[path = "common/quicksort.rs"]
mod quicksort;
use quicksort::{CUTOFF, partition, random_vec};

/// Nanoseconds spent in pieces during the current sort.
static BUSY: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds of the current sort's root partition.
static ROOT: AtomicU64 = AtomicU64::new(0);

/// Adds the piece that started at `t` to [`BUSY`] (and to [`ROOT`] if it
/// is the root partition, of `len` elements out of `total`).
fn piece(t: Instant, len: usize, total: usize) {
    let ns = t.elapsed().as_nanos() as u64;
    BUSY.fetch_add(ns, Ordering::Relaxed);
    if len == total {
        ROOT.store(ns, Ordering::Relaxed);
    }
}

/// The quicksort of `benches/fork_join.rs` on `$join`, timing its pieces.
macro_rules! timed_quicksort {
    ($name:ident, $join:path) => {
        fn $name(v: &mut [u32], total: usize) {
            let t = Instant::now();
            if v.len() <= CUTOFF {
                v.sort_unstable();
                piece(t, v.len(), total);
                return;
            }
            let mid = partition(v);
            piece(t, v.len(), total);
            let (lo, hi) = v.split_at_mut(mid);
            $join(|| $name(lo, total), || $name(&mut hi[1..], total));
        }
    };
}
timed_quicksort!(qs_locus, locus::join);
timed_quicksort!(qs_rayon, rayon::join);

/// One sort: wall time, process CPU time, ideal time.
struct Sort {
    wall: Duration,
    cpu: Duration,
    ideal: Duration,
}

/// Runs `sort` on a copy of `input` (copied outside the timing).
fn one(input: &[u32], threads: usize, sort: &mut dyn FnMut(&mut [u32])) -> Sort {
    let mut v = input.to_vec();
    BUSY.store(0, Ordering::Relaxed);
    ROOT.store(0, Ordering::Relaxed);
    let (t, c) = (Instant::now(), cpu::process_cpu());
    sort(&mut v);
    let (wall, cpu) = (t.elapsed(), cpu::process_cpu() - c);
    assert!(v.is_sorted());
    let (busy, root) = (BUSY.load(Ordering::Relaxed), ROOT.load(Ordering::Relaxed));
    let ideal = Duration::from_nanos(root + (busy - root) / threads as u64);
    Sort { wall, cpu, ideal }
}

/// The quartiles (first, median, third) of `v`, sorted in place.
fn quartiles(v: &mut [f64]) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    let q = |k: usize| v[(k * (v.len() - 1)) / 4];
    [q(1), q(2), q(3)]
}

fn main() {
    let mut pairs = 30usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {}
            "--pairs" => pairs = cli::pairs("quicksort_paired", args.next()),
            o => eprintln!("quicksort_paired: ignoring {o}"),
        }
    }
    let threads = pools::threads();
    let (lp, rp) = pools();
    let input = random_vec(1 << 20);
    let total = input.len();
    let mut locus = |v: &mut [u32]| lp.install(|| qs_locus(v, total));
    let mut rayon = |v: &mut [u32]| rp.install(|| qs_rayon(v, total));
    // Warm-up: two sorts each.
    for _ in 0..2 {
        one(&input, threads, &mut locus);
        one(&input, threads, &mut rayon);
    }
    let (mut wall, mut cpu, mut floor) = (vec![], vec![], vec![]);
    let (mut lw, mut rw, mut li, mut ri) = (vec![], vec![], vec![], vec![]);
    for i in 0..pairs {
        let (l, r) = if i % 2 == 0 {
            let l = one(&input, threads, &mut locus);
            (l, one(&input, threads, &mut rayon))
        } else {
            let r = one(&input, threads, &mut rayon);
            (one(&input, threads, &mut locus), r)
        };
        let s = |d: Duration| d.as_secs_f64();
        wall.push(s(l.wall) / s(r.wall));
        cpu.push(s(l.cpu) / s(r.cpu).max(1e-9));
        floor.push(s(l.ideal) / s(r.wall));
        lw.push(s(l.wall) * 1e3);
        rw.push(s(r.wall) * 1e3);
        li.push(s(l.wall) / s(l.ideal));
        ri.push(s(r.wall) / s(r.ideal));
    }
    let [w1, w2, w3] = quartiles(&mut wall);
    let med = |v: &mut Vec<f64>| quartiles(v)[1];
    println!(
        "quicksort/1M, {threads} threads each, {pairs} alternating pairs: locus {:.2} ms rayon {:.2} ms \
         wall ratio {w2:.3} (quartiles {w1:.3} to {w3:.3}) cpu ratio {:.3}; \
         wall/ideal locus {:.3} rayon {:.3}; floor {:.3}",
        med(&mut lw),
        med(&mut rw),
        med(&mut cpu),
        med(&mut li),
        med(&mut ri),
        med(&mut floor),
    );
}
