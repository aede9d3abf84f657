//! Job groups against rayon (and locus without groups), same machine, same
//! moment. Three workloads:
//!
//! - **triad** (STREAM-style, bandwidth-bound): `a[i] = b[i] + s * c[i]`
//!   over three arrays of 16 MiB each (48 MiB, more than any LLC of the
//!   development machines), cut into 4 chunks per worker, each chunk an
//!   independent job. `locus-spread` runs them in a [`Placement::Spread`]
//!   group. *Expected on a many-core machine:* spread deals the chunks over
//!   all clusters in proportion to capacity, so every cluster's (and every
//!   LLC's) path to memory is busy; a pool that lets the first idle workers
//!   of one cluster or LLC grab most chunks leaves bandwidth unused. The
//!   seed figures are STREAM +10..19% from spreading 4-6 threads over
//!   clusters on Kunpeng 920, and SPECrate mcf +25% at 6 copies on
//!   Jacobsville (6 clusters of 4). The gain appears when there are fewer
//!   bandwidth-hungry jobs in flight than cores (run it with a pool of 4-8
//!   threads on a machine with many clusters).
//! - **pingpong** (communication-bound, the hackbench / Verilator
//!   pattern): pairs of jobs hand a small buffer (4 KiB) back and forth,
//!   each hand-off a new job that reads and writes it; one pair per
//!   worker, 100 hand-offs each. `locus-pack` puts each pair in its own
//!   [`Placement::Pack`] group, pairs dealt over the LLCs. *Expected on a
//!   many-core machine:* every hand-off stays in one LLC, so the buffer is
//!   an LLC hit instead of a cross-LLC (or cross-socket) transfer; seed
//!   figures are 2.03x for an 8-thread Verilator simulation kept on one
//!   CCX of an EPYC and +24..35% hackbench from cache-aware scheduling.
//! - **pipeline** (producer-consumer stages, the simulator's `pipeline`):
//!   128 items of 64 KiB through 4 stages, each stage a packed
//!   [`Affinity::Auto`] group; a stage reads and writes its item, then
//!   hands it to the next stage with [`JobGroup::spawn`] from the worker
//!   (rayon: `rayon::spawn` on the same pool). *Expected on a many-core
//!   machine:* the next stage runs where its item is (the spawner's own
//!   deque, docs/pipeline-packing.md).
//! - **mixed**: both at once in one pool: the triad spread, the pairs
//!   packed, as a service would run a bandwidth job next to chatty ones.
//!   *Expected:* spread and pack do not fight: the triad keeps its
//!   bandwidth while the pairs keep their LLCs (overload lets other LLCs
//!   help only when a pair's LLC is fuller than the rest by 20%).
//!
//! On the 2-core, one-L3 development machine none of these effects can
//! show: the benchmark only proves that the group code paths work and cost
//! (close to) nothing against rayon and against plain locus. Compare ratios
//! within one run only (see DESIGN.md on honest measurement):
//!
//! `cargo bench --bench groups -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "common/pools.rs"]
mod pools;
#[path = "common/triad.rs"]
mod triad;
use locus::{Affinity, GroupOptions, JobGroup, Placement};
use triad::{chunks, triad};

const N: usize = 1 << 21; // 16 MiB of f64 per array
const PING_WORDS: usize = 512; // 4 KiB

/// A pair's buffer, aligned (and so padded) to 128 bytes, for every peer:
/// two pairs' buffers never share a line or an adjacent-line-prefetch
/// pair, so where `malloc` happens to put them does not add false sharing
/// that has nothing to do with scheduling.
#[repr(C, align(128))]
struct PingBuf([u64; PING_WORDS]);

fn ping_buf() -> Box<PingBuf> {
    Box::new(PingBuf([1; PING_WORDS]))
}
const HANDOFFS: usize = 100;
const ITEMS: usize = 128;
const ITEM_WORDS: usize = 8192; // 64 KiB
const STAGES: usize = 4;

/// One stage of an item in the locus pipeline: touch it, then spawn its
/// next stage into the next stage's group; the last stage reports.
fn stage_locus(
    stages: Arc<Vec<JobGroup>>,
    mut item: Vec<u64>,
    s: usize,
    done: std::sync::mpsc::Sender<u64>,
) {
    pass(&mut item, s);
    if s + 1 < STAGES {
        let next = stages.clone();
        stages[s + 1].spawn(move || stage_locus(next, item, s + 1, done));
    } else {
        done.send(item[0]).unwrap();
    }
}

fn stage_rayon(
    pool: Arc<rayon::ThreadPool>,
    mut item: Vec<u64>,
    s: usize,
    done: std::sync::mpsc::Sender<u64>,
) {
    pass(&mut item, s);
    if s + 1 < STAGES {
        let p = pool.clone();
        pool.spawn(move || stage_rayon(p, item, s + 1, done));
    } else {
        done.send(item[0]).unwrap();
    }
}

fn pass(item: &mut [u64], s: usize) {
    for (i, w) in item.iter_mut().enumerate() {
        *w = w.wrapping_mul(31).wrapping_add((i ^ s) as u64);
    }
}

fn touch(buf: &mut PingBuf, k: usize) {
    for (i, w) in buf.0.iter_mut().enumerate() {
        *w = w.wrapping_mul(31).wrapping_add((i ^ k) as u64);
    }
}

/// One hand-off of a pair in a locus scope: touch, then pass the buffer
/// on to a new job.
fn ping_locus<'s>(s: &locus::Scope<'s>, mut buf: Box<PingBuf>, k: usize) {
    touch(&mut buf, k);
    if k > 0 {
        s.spawn(move |s| ping_locus(s, buf, k - 1));
    } else {
        black_box(&buf);
    }
}

fn ping_rayon<'s>(s: &rayon::Scope<'s>, mut buf: Box<PingBuf>, k: usize) {
    touch(&mut buf, k);
    if k > 0 {
        s.spawn(move |s| ping_rayon(s, buf, k - 1));
    } else {
        black_box(&buf);
    }
}

/// The pools and groups every workload of this bench shares.
struct Setup {
    threads: usize,
    lp: locus::ThreadPool,
    rp: Arc<rayon::ThreadPool>,
    /// 4 chunks per worker for the triad.
    parts: usize,
    /// The triad's spread group.
    spread: JobGroup,
    /// One packed group per pair, the pairs dealt over the LLCs.
    pairs: Vec<JobGroup>,
    /// The pipeline's stages, one packed group each.
    stages: Arc<Vec<JobGroup>>,
}

impl Setup {
    fn new() -> Setup {
        let threads = pools::threads();
        let (lp, rp) = pools::pools();
        let llcs = lp.layout().llc_ranges().len();
        let spread = lp
            .group(GroupOptions::new().placement(Placement::Spread))
            .unwrap();
        let pairs = (0..threads)
            .map(|i| {
                lp.group(GroupOptions::new().affinity(Affinity::Llc(i % llcs)))
                    .unwrap()
            })
            .collect();
        let stages = (0..STAGES)
            .map(|_| {
                lp.group(GroupOptions::new().affinity(Affinity::Auto))
                    .unwrap()
            })
            .collect();
        Setup {
            threads,
            lp,
            rp: Arc::new(rp),
            parts: 4 * threads,
            spread,
            pairs,
            stages: Arc::new(stages),
        }
    }
}

/// The three arrays of the triad.
struct Arrays {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

fn bench_triad(c: &mut Criterion, st: &Setup, t: &mut Arrays) {
    let (lp, rp, parts, spread) = (&st.lp, &st.rp, st.parts, &st.spread);
    let Arrays { a, b, c: cc } = t;
    let mut g = c.benchmark_group("triad48M");
    g.bench_function("locus-spread", |bch| {
        bch.iter(|| {
            spread.scope(|s| {
                for (x, y, z) in chunks(a, b, cc, parts) {
                    s.spawn(move |_| triad(x, y, z));
                }
            })
        })
    });
    g.bench_function("locus", |bch| {
        bch.iter(|| {
            lp.scope(|s| {
                for (x, y, z) in chunks(a, b, cc, parts) {
                    s.spawn(move |_| triad(x, y, z));
                }
            })
        })
    });
    g.bench_function("rayon", |bch| {
        bch.iter(|| {
            rp.scope(|s| {
                for (x, y, z) in chunks(a, b, cc, parts) {
                    s.spawn(move |_| triad(x, y, z));
                }
            })
        })
    });
    g.finish();
}

fn bench_pingpong(c: &mut Criterion, st: &Setup) {
    let (lp, rp, threads, pairs) = (&st.lp, &st.rp, st.threads, &st.pairs);
    let mut g = c.benchmark_group("pingpong");
    g.bench_function("locus-pack", |bch| {
        bch.iter(|| {
            lp.scope(|s| {
                for p in pairs {
                    s.spawn(move |_| {
                        p.scope(|s| ping_locus(s, ping_buf(), HANDOFFS));
                    });
                }
            })
        })
    });
    g.bench_function("locus", |bch| {
        bch.iter(|| {
            lp.scope(|s| {
                for _ in 0..threads {
                    s.spawn(|s| ping_locus(s, ping_buf(), HANDOFFS));
                }
            })
        })
    });
    g.bench_function("rayon", |bch| {
        bch.iter(|| {
            rp.scope(|s| {
                for _ in 0..threads {
                    s.spawn(|s| ping_rayon(s, ping_buf(), HANDOFFS));
                }
            })
        })
    });
    g.finish();
}

fn bench_mixed(c: &mut Criterion, st: &Setup, t: &mut Arrays) {
    let (lp, rp, threads, parts) = (&st.lp, &st.rp, st.threads, st.parts);
    let (spread, pairs) = (&st.spread, &st.pairs);
    let Arrays { a, b, c: cc } = t;
    let mut g = c.benchmark_group("mixed");
    g.bench_function("locus-groups", |bch| {
        bch.iter(|| {
            lp.scope(|s| {
                let (a, b, cc) = (&mut *a, &*b, &*cc);
                s.spawn(move |_| {
                    spread.scope(|s| {
                        for (x, y, z) in chunks(a, b, cc, parts) {
                            s.spawn(move |_| triad(x, y, z));
                        }
                    })
                });
                for p in pairs {
                    s.spawn(move |_| {
                        p.scope(|s| ping_locus(s, ping_buf(), HANDOFFS));
                    });
                }
            })
        })
    });
    g.bench_function("rayon", |bch| {
        bch.iter(|| {
            rp.scope(|s| {
                for (x, y, z) in chunks(a, b, cc, parts) {
                    s.spawn(move |_| triad(x, y, z));
                }
                for _ in 0..threads {
                    s.spawn(|s| ping_rayon(s, ping_buf(), HANDOFFS));
                }
            })
        })
    });
    g.finish();
}

fn bench_pipeline(c: &mut Criterion, st: &Setup) {
    let (rp, stages) = (&st.rp, &st.stages);
    let mut g = c.benchmark_group("pipeline");
    g.bench_function("locus-pack", |bch| {
        bch.iter(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..ITEMS {
                let (st, tx) = (stages.clone(), tx.clone());
                stages[0].spawn(move || stage_locus(st, vec![1; ITEM_WORDS], 0, tx));
            }
            rx.iter().take(ITEMS).sum::<u64>()
        })
    });
    g.bench_function("rayon", |bch| {
        bch.iter(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..ITEMS {
                let (p, tx) = (rp.clone(), tx.clone());
                rp.spawn(move || stage_rayon(p, vec![1; ITEM_WORDS], 0, tx));
            }
            rx.iter().take(ITEMS).sum::<u64>()
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let st = Setup::new();
    let mut t = Arrays {
        a: vec![0.0f64; N],
        b: vec![1.0f64; N],
        c: vec![2.0f64; N],
    };
    bench_triad(c, &st, &mut t);
    bench_pingpong(c, &st);
    bench_mixed(c, &st, &mut t);
    bench_pipeline(c, &st);
    // Where the group jobs ran (one LLC here; many on a big machine).
    for g in st.lp.stats().groups.iter() {
        eprintln!("{g}");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
