//! Growth of `Topology::synthetic` and `Layout::new` with the number of PUs:
//! 1k, 4k, 16k and 64k PUs, on two shapes of each size:
//! - `flat`: `core:N`, one LLC of N one-PU cores (before the fix, building
//!   was quadratic here: 16k PUs took 15 s, 64k over 2 minutes);
//! - `tree`: `numa:16 llc:X core:8 smt:2`, 16 PUs per LLC, so N/16 LLCs
//!   (4096 at 64k) and a 16-node distance matrix.
//!
//! Each size is one benchmark id with its PU count as throughput, so the
//! report's elements/s stays flat when the growth is linear. `layout` is
//! `Layout::new` with default options (one worker per PU), `layout_half`
//! with `num_threads` = N/2 + 1 (the spreading path).
//!
//! `cargo bench --bench topology_scale` (about a minute).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use locus::{Layout, LayoutOptions, Topology};

const SIZES: [usize; 4] = [1 << 10, 1 << 12, 1 << 14, 1 << 16];

fn spec(shape: &str, n: usize) -> String {
    match shape {
        "flat" => format!("core:{n}"),
        _ => format!("numa:16 llc:{} core:8 smt:2", n / 256),
    }
}

fn topology_scale(c: &mut Criterion) {
    for shape in ["flat", "tree"] {
        let mut g = c.benchmark_group(format!("topology_scale/{shape}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        for n in SIZES {
            let spec = spec(shape, n);
            let t = Topology::synthetic(&spec).expect("spec");
            assert_eq!(t.pus().len(), n, "{spec}");
            g.throughput(Throughput::Elements(n as u64));
            g.bench_with_input(BenchmarkId::new("synthetic", n), &spec, |b, s| {
                b.iter(|| Topology::synthetic(black_box(s)).expect("spec"))
            });
            g.bench_with_input(BenchmarkId::new("layout", n), &t, |b, t| {
                b.iter(|| Layout::new(black_box(t), &LayoutOptions::default()).expect("layout"))
            });
            let half = LayoutOptions {
                num_threads: Some(n / 2 + 1),
                ..Default::default()
            };
            g.bench_with_input(BenchmarkId::new("layout_half", n), &t, |b, t| {
                b.iter(|| Layout::new(black_box(t), &half).expect("layout"))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, topology_scale);
criterion_main!(benches);
