//! The data workloads (`kernels`): their names, their task trees' work
//! and touches at small sizes, and runs to completion in the simulator.

use crate::sim::*;

/// Work, leaves and touched bytes (read, written) of a task tree, an
/// iterator's tree taken whole (as [`work_span`] takes it).
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    work: u64,
    leaves: u64,
    read: u64,
    written: u64,
}

fn tally(w: &dyn Workload, node: &Node, t: &mut Tally) {
    let task = w.task(node);
    t.work += task.work_ns;
    for touch in w.touches(node) {
        if touch.write {
            t.written += touch.bytes;
        } else {
            t.read += touch.bytes;
        }
    }
    match task.body {
        Body::Leaf => t.leaves += 1,
        Body::Join(a, b) => {
            tally(w, &a, t);
            tally(w, &b, t);
        }
        Body::JoinThen(a, b, then) => {
            tally(w, &a, t);
            tally(w, &b, t);
            tally(w, &then, t);
        }
        Body::Scope(kids) => kids.iter().for_each(|k| tally(w, k, t)),
        Body::Spawn(n, _) => tally(w, &n, t),
        Body::Iter(spec) => {
            tally(w, &Node::new(0, spec.len, spec.piece), t);
            if let Some(then) = spec.then {
                tally(w, &then, t);
            }
        }
    }
}

fn tally_all(w: &dyn Workload) -> Tally {
    let mut t = Tally::default();
    for r in w.roots() {
        tally(w, &r.node, &mut t);
    }
    t
}

fn parsed(spec: &str) -> Box<dyn Workload + Send + Sync> {
    parse_workload(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

#[test]
fn each_kernel_parses_with_and_without_a_size() {
    // The bare name, the name it reports (the default sizes), a spec with
    // sizes, and the name that one reports (sizes rounded, defaults filled).
    let cases = [
        "stencil        stencil:2048:8         stencil:64          stencil:64:8",
        "stencil-replay stencil-replay:2048:8  stencil-replay:64:3 stencil-replay:64:3",
        "matmul         matmul:2048            matmul:100          matmul:128",
        "matmul         matmul:2048            matmul:100:32       matmul:128:32",
        "matmul         matmul:2048            matmul:2048:64      matmul:2048",
        "mergesort      mergesort:4194304      mergesort:5000      mergesort:8192",
        "triad          triad:4194304:10       triad:1000          triad:1000:10",
        "reduce         reduce:8388608:8       reduce:1000:2       reduce:1000:2",
        "pipeline       pipeline:512:4         pipeline:64         pipeline:64:4",
    ];
    for case in cases {
        let words: Vec<&str> = case.split_whitespace().collect();
        let [bare, default, sized, sized_name] = words[..] else {
            panic!("{case}: four words")
        };
        assert_eq!(parsed(bare).name(), default);
        assert_eq!(parsed(sized).name(), sized_name, "{sized}");
    }
    for bad in [
        "stencil:0",
        "matmul:x",
        "triad:1:2:3",
        "reduce:-4",
        "matmul:1048576",
        "matmul:1099511627776",
        "matmul:64:0",
        "matmul:8:1099511627776",
        "matmul:64:32:2",
        // Task counts that overflow 64 bits are refused, not wrapped.
        "stencil:1099511627776:1099511627776",
        "triad:1099511627776:1099511627776",
        "reduce:1099511627776:1099511627776",
        "pipeline:1099511627776:1099511627776",
        "mergesort:1099511627776",
    ] {
        let e = parse_workload(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} parsed"));
        assert!(e.0.contains(bad), "{bad}: {e}");
    }
}

#[test]
fn stencil_sweeps_read_bands_and_halos_and_write_bands() {
    for replay in [false, true] {
        let w = Stencil {
            n: 16,
            sweeps: 2,
            replay,
        };
        // 4 bands of 4 rows of 16 points at 0.5 ns, 3 splits of 5 ns, per
        // sweep; a band reads its 512 bytes and a 128-byte row of each
        // neighbour (6 halo rows a sweep) and writes its 512 bytes.
        let t = tally_all(&w);
        assert_eq!(
            t,
            Tally {
                work: 2 * (4 * 32 + 15),
                leaves: 8,
                read: 2 * (4 * 512 + 6 * 128),
                written: 2 * 4 * 512,
            }
        );
        // Sweep 1 reads what sweep 0 wrote.
        let (s0, s1) = (
            w.touches(&Node::new(1, 1, 1)),
            w.touches(&Node::new(1, 1, 2)),
        );
        let written0 = s0.iter().find(|t| t.write).unwrap().id;
        assert_eq!(s1[0].id, written0);
        assert!(!s1[0].write);
    }
}

#[test]
fn matmul_blocks_read_a_row_and_a_column_of_blocks() {
    let w = parsed("matmul:128");
    // 2 x 2 C blocks of 2 * 64^2 * 128 flops at 40 per ns, 3 splits; each
    // reads two panels of 64 x 128 f64 and writes a 64 x 64 block.
    let t = tally_all(&*w);
    assert_eq!(
        t,
        Tally {
            work: 4 * (2 * 64 * 64 * 128 / 40) + 15,
            leaves: 4,
            read: 4 * 2 * 64 * 128 * 8,
            written: 4 * 64 * 64 * 8,
        }
    );
    assert_eq!(work_span(&*w, &w.roots()[0].node).0, t.work);
    // The same side in blocks of 32: 4 x 4 blocks, 15 splits, panels of
    // 32 x 128 f64 and blocks of 32 x 32.
    let t = tally_all(&Matmul::new(128, 32));
    assert_eq!(
        t,
        Tally {
            work: 16 * (2 * 32 * 32 * 128 / 40) + 15 * 5,
            leaves: 16,
            read: 16 * 2 * 32 * 128 * 8,
            written: 16 * 32 * 32 * 8,
        }
    );
}

#[test]
fn mergesort_merges_read_two_runs_and_write_one() {
    let w = Mergesort { n: 16384 };
    // 4 runs of 4096 sorted at 12 ns an element; merges of 2 x 8192 and
    // 16384 elements in pieces of 4096 at 1 ns an element (8 pieces); 3
    // sort splits and 1 + 1 + 3 merge splits of 5 ns.
    let t = tally_all(&w);
    assert_eq!(
        t,
        Tally {
            work: 4 * 4096 * 12 + 8 * 4096 + 8 * 5,
            leaves: 12,
            read: 8 * 4096 * 8,
            written: 4 * 4096 * 8 + 8 * 4096 * 8,
        }
    );
    // The last merge's first piece reads the first halves of the two
    // depth-1 runs (buffer 1), which depth 1's merges wrote.
    let top = w.touches(&Node::new(0, 4096, 1));
    let depth1 = w.touches(&Node::new(8192, 4096, 3));
    assert_eq!(top[1].id, depth1[2].id);
    assert!(depth1[2].write && !top[1].write);
}

#[test]
fn triad_reduce_and_pipeline_touch_their_arrays() {
    // Triad: chunks of 8192, 8192 and 3616 elements at 1/3 ns, 2 splits;
    // b and c read, a written, twice.
    let t = tally_all(&Triad { n: 20000, iters: 2 });
    assert_eq!(
        t,
        Tally {
            work: 2 * (2730 + 2730 + 1205 + 10),
            leaves: 6,
            read: 2 * 2 * 20000 * 8,
            written: 2 * 20000 * 8,
        }
    );
    // Reduce: leaves of 5000 elements at 1/4 ns, 3 splits, twice; reads
    // only.
    let t = tally_all(&Reduce { n: 20000, runs: 2 });
    assert_eq!(
        t,
        Tally {
            work: 2 * (4 * 1250 + 15),
            leaves: 8,
            read: 2 * 20000 * 8,
            written: 0,
        }
    );
    // Pipeline: every stage reads its state, stages after the first the
    // item, and each writes the item; only the first stage is injected,
    // each stage spawns the next, the last is a leaf.
    let w = Pipeline {
        items: 10,
        stages: 2,
    };
    assert_eq!(w.roots().len(), 10);
    assert!(w.roots().windows(2).all(|r| r[0].at_ns <= r[1].at_ns));
    assert_eq!(
        tally_all(&w),
        Tally {
            work: 20 * Pipeline::ITEM / 16,
            leaves: 10,
            read: 20 * Pipeline::STATE + 10 * Pipeline::ITEM,
            written: 20 * Pipeline::ITEM,
        }
    );
}

#[test]
fn a_pipeline_stage_spawns_the_next_into_its_group() {
    // Each stage's task spawns the item's next stage into the next group
    // (`Body::Spawn`), under every policy: every group runs every item
    // once, and the run ends only when the last stage of the last item
    // did (the spawned tasks count as the run's, not their spawner's).
    let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:2").unwrap();
    let w = Pipeline {
        items: 24,
        stages: 3,
    };
    assert_eq!(
        w.task(&Node::new(5, 0, 0)).body,
        Body::Spawn(Node::new(5, 1, 0), 1)
    );
    assert_eq!(w.task(&Node::new(5, 2, 0)).body, Body::Leaf);
    let (_, span) = crate::sim::work_span(&w, &Node::new(0, 0, 0));
    let last_root = w.roots().iter().map(|r| r.at_ns).max().unwrap();
    for p in Policy::ALL {
        let r = simulate(&t, &w, p, None, &CostModel::published()).unwrap();
        let c = &r.counts;
        if p != Policy::RayonLike {
            for g in 0..3 {
                let runs = c.group_runs.iter().filter(|r| r.0 == g).count();
                assert_eq!(runs, 24, "{p}: group {g}");
            }
        }
        assert_eq!(c.leaves, 24, "{p}");
        assert!(c.makespan_ns >= last_root + span, "{p}: {c:?}");
    }
}

#[test]
fn every_kernel_runs_to_completion_on_a_small_machine() {
    let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:2").unwrap();
    let specs = [
        "stencil:32:3",
        "stencil-replay:32:3",
        "matmul:256",
        "mergesort:32768",
        "triad:100000:3",
        "reduce:100000:3",
        "pipeline:32:3",
    ];
    for spec in specs {
        let w = parsed(spec);
        let want = tally_all(&*w);
        for p in Policy::ALL {
            let r = simulate(&t, &*w, p, None, &CostModel::published()).unwrap();
            let c = &r.counts;
            assert_eq!(c.leaves, want.leaves, "{spec} {p}");
            // Every task's work ran, spread over 16 workers at most.
            assert!(c.busy_ns >= want.work, "{spec} {p}: {c:?}");
            assert!(c.makespan_ns * 16 >= want.work, "{spec} {p}: {c:?}");
        }
    }
}
