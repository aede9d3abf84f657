//! `par_bridge` against rayon in alternating pairs, on the three kinds of
//! source it serves (docs/par-bridge.md).
//!
//! ```text
//! cargo bench --bench par_bridge_paired [-- [--pairs N] [CASE]]
//! ```
//!
//! - `cheap/100k`: a range of 100k trivial items; the lock is the cost.
//! - `stalled/20`: a source that sleeps 2 ms before every other item of
//!   20, each item spinning 500 us; the workers must take each item the
//!   moment the source gives it (ideal about 22 ms).
//! - `work_list/2000`: a queue whose items, when consumed (spinning
//!   20 us), queue their two children, and whose `next` waits while items
//!   are out, as jwalk's directory queue does; a bridge that held pulled
//!   items while calling `next` again would hang here.
//!
//! Each pair runs the case once with each library, the order alternating;
//! per case it prints each library's median time and the median per-pair
//! ratio locus/rayon with its quartiles. `CASE` filters by substring.

use std::time::{Duration, Instant};

#[path = "common/cli.rs"]
mod cli;
#[path = "common/pools.rs"]
mod pools;
#[path = "common/work_list.rs"]
mod work_list;
use work_list::WorkList;

/// Busy for `d` (a CPU-bound item).
fn spin(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// The source of `stalled/20`.
fn stalled() -> impl Iterator<Item = u32> + Send {
    (0..20u32).inspect(|i| {
        if i % 2 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    })
}

/// A case's two sides: locus's run, then rayon's.
type Sides<'a> = (Box<dyn Fn() + 'a>, Box<dyn Fn() + 'a>);

/// One case on both libraries: `$run` is an expression over `$p`, a
/// prelude in scope, returning a count to check.
macro_rules! case {
    ($lp:expr, $rp:expr, $expect:expr, |$p:ident| $run:expr) => {
        (
            Box::new(move || {
                use locus::prelude::*;
                let $p = &$lp;
                assert_eq!($run, $expect);
            }) as Box<dyn Fn()>,
            Box::new(move || {
                use rayon::prelude::*;
                let $p = &$rp;
                assert_eq!($run, $expect);
            }) as Box<dyn Fn()>,
        )
    };
}

fn main() {
    let (mut pairs, mut filter) = (20usize, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {}
            "--pairs" => pairs = cli::pairs("par_bridge_paired", args.next()),
            o if !o.starts_with('-') => filter = Some(o.to_owned()),
            o => eprintln!("par_bridge_paired: ignoring {o}"),
        }
    }
    let (lp, rp) = pools::pools();
    let (lp, rp) = (&lp, &rp);
    let cases: Vec<(&str, Sides<'_>)> = vec![
        (
            "cheap/100k",
            case!(lp, rp, 299_995u64, |p| p.install(|| (0
                ..std::hint::black_box(100_000u64))
                .par_bridge()
                .map(|x| x % 7)
                .sum::<u64>())),
        ),
        (
            "stalled/20",
            case!(lp, rp, 20usize, |p| p.install(|| stalled()
                .par_bridge()
                .map(|_| spin(Duration::from_micros(500)))
                .count())),
        ),
        (
            "work_list/2000",
            case!(lp, rp, 2_000usize, |p| {
                let list = WorkList::new(2_000);
                let n = p.install(|| {
                    (&list)
                        .par_bridge()
                        .map(|n| {
                            spin(Duration::from_micros(20));
                            list.finish(n)
                        })
                        .count()
                });
                assert!(!list.timed_out(), "the work list hung");
                n
            }),
        ),
    ];
    println!(
        "par_bridge, locus / rayon, {} threads each, {pairs} alternating pairs",
        pools::threads()
    );
    for (name, (locus, rayon)) in &cases {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let time = |f: &dyn Fn()| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        };
        // Warm-up: one run each.
        time(&**locus);
        time(&**rayon);
        let (mut l, mut r, mut ratio) = (vec![], vec![], vec![]);
        for i in 0..pairs {
            let (a, b) = if i % 2 == 0 {
                let a = time(&**locus);
                (a, time(&**rayon))
            } else {
                let b = time(&**rayon);
                (time(&**locus), b)
            };
            l.push(a);
            r.push(b);
            ratio.push(a / b);
        }
        let q = |v: &mut Vec<f64>, k: usize| {
            v.sort_by(f64::total_cmp);
            v[(k * (v.len() - 1)) / 4]
        };
        println!(
            "{name:<16} locus {:8.3} ms rayon {:8.3} ms ratio {:.2} (quartiles {:.2} to {:.2})",
            q(&mut l, 2) * 1e3,
            q(&mut r, 2) * 1e3,
            q(&mut ratio, 2),
            q(&mut ratio, 1),
            q(&mut ratio, 3),
        );
    }
}
