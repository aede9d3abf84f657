use locus::prelude::*;
use std::time::Instant;
fn sweep(a: &mut Vec<f64>, b: &mut Vec<f64>, rep: Option<&locus::iter::Replay>) {
    for _ in 0..10 {
        let src: &[f64] = a;
        let it = b.par_chunks_mut(4096);
        let f = |(i, chunk): (usize, &mut [f64])| {
            let base = i * 4096;
            for (j, cell) in chunk.iter_mut().enumerate() {
                let k = base + j;
                let l = src[k.saturating_sub(1)];
                let r = src[(k + 1).min(src.len() - 1)];
                *cell = 0.25 * l + 0.5 * src[k] + 0.25 * r;
            }
        };
        match rep {
            Some(r) => it.with_replay(r).enumerate().for_each(f),
            None => it.enumerate().for_each(f),
        }
        std::mem::swap(a, b);
    }
}
fn main() {
    let cells: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1 << 17);
    let pool = locus::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut a = vec![1.0f64; cells];
    let mut b = vec![0.0f64; cells];
    let rep = locus::iter::Replay::new();
    let mut t = [vec![], vec![]];
    for round in 0..400 {
        for k in [round % 2, 1 - round % 2] {
            let t0 = Instant::now();
            pool.install(|| {
                for _ in 0..5 {
                    sweep(&mut a, &mut b, if k == 1 { Some(&rep) } else { None })
                }
            });
            t[k].push(t0.elapsed().as_nanos() as f64 / 50.0);
        }
    }
    for k in 0..2 {
        t[k].sort_by(|x, y| x.partial_cmp(y).unwrap());
    }
    println!(
        "per pass: plain {:.1} us, replay {:.1} us; ratio {:.3}; stats {:?}",
        t[0][200] / 1e3,
        t[1][200] / 1e3,
        t[1][200] / t[0][200],
        rep.stats()
    );
}
