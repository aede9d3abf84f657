//! Workload names and reports: `range:` specs, repeated runs' medians and
//! ranges, and data bytes by tier in the JSON.

use super::*;

/// `range:ITEMS[:GRAIN:NS]` names the balanced fork-join of the tests, and
/// its name in reports says which one it is.
#[test]
fn range_workloads_take_a_grain_and_a_leaf_time() {
    let w = parse_workload("range:65536:1:2000").unwrap();
    assert_eq!(w.name(), "range:65536:1:2000");
    let (t1, _) = work_span(&*w, &w.roots()[0].node);
    let direct = IterRange {
        len: 1 << 16,
        grain: 1,
        ns: 2_000,
    };
    assert_eq!(work_span(&direct, &direct.roots()[0].node).0, t1);
    assert_eq!(parse_workload("range:4096").unwrap().name(), "range:4096");
    for bad in ["range:4096:1", "range:4096:x:2", "range:4096:1:2:3"] {
        assert!(parse_workload(bad).is_err(), "{bad}");
    }
}

/// A report's name says every size that is not the default, so that two
/// reports of different workloads never carry the same name.
#[test]
fn shape_names_keep_their_sizes() {
    for (spec, name) in [
        ("iter:1000", "iter:1000"),
        ("iter:1000:1:2", "iter:1000"),
        ("iter:1000:3", "iter:1000:3"),
        ("iter:1000:1:5", "iter:1000:1:5"),
        ("iter-replay:1000:4", "iter-replay:1000"),
        ("iter-replay:1000:2", "iter-replay:1000:2"),
        ("spawn:10", "spawn:10"),
        ("spawn:10:1000", "spawn:10"),
        ("spawn:10:7", "spawn:10:7"),
    ] {
        assert_eq!(parse_workload(spec).unwrap().name(), name, "{spec}");
    }
}

/// Sizes whose products would wrap, or that ask for more tasks or work
/// than a simulation can give, are refused with a message, not wrapped
/// into a small wrong workload or an endless run.
#[test]
fn shapes_too_large_are_refused() {
    let huge = 1u64 << 40;
    for bad in [
        format!("tree:{huge}"),
        format!("tree:{}", u64::MAX),
        format!("range:{huge}:1:1"),
        format!("range:{huge}:{huge}:{huge}"),
        format!("iter:100:{huge}"),
        format!("iter:{huge}:1:{huge}"),
        format!("spawn:{}", u64::MAX),
        format!("spawn:{huge}:{huge}"),
        format!("stream:{huge}:1"),
        format!("stream:100000:{huge}"),
    ] {
        let e = parse_workload(&bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} parsed"));
        assert!(e.0.contains("too"), "{bad}: {e}");
    }
    // A seed is any number.
    assert!(parse_workload(&format!("tree:100:{}", u64::MAX)).is_ok());
}

#[test]
fn repeated_reports_show_median_and_range_per_column() {
    let t = machine("llc:2 core:4");
    let w = Fib { n: 14, ns: 10 };
    let repeat = Repeat {
        runs: 3,
        seed: 1,
        perturb_pct: 10.0,
    };
    let pols = [Policy::Hierarchical, Policy::RayonLike];
    let r = report_repeated("m", &t, &w, &pols, &[None], &CostModel::default(), repeat).unwrap();
    assert_eq!(r.runs.len(), 6);
    assert_eq!(
        r.runs.iter().map(|x| x.seed).collect::<Vec<_>>(),
        [1, 2, 3, 1, 2, 3]
    );
    // Perturbed costs and other seeds change the runs.
    assert_ne!(r.runs[0].counts, r.runs[1].counts);
    let table = r.table();
    assert!(table.contains("median [min-max] of 3 runs"), "{table}");
    let rayon_row = table.lines().find(|l| l.starts_with("rayon-like")).unwrap();
    // The rayon-like row's ratio to itself is 1 in every run.
    assert!(rayon_row.contains("1.00 [1.00-1.00]"), "{table}");
    let json = r.json();
    assert!(json.contains("\"summary\": ["), "{json}");
    assert!(json.contains("\"makespan_ms\": {\"median\": "), "{json}");
    assert!(json.contains("\"seeds\": [1, 2, 3]"), "{json}");
    // One run, seed 0: the plain single-run report.
    let once = report("m", &t, &w, &pols, &[None], &CostModel::default()).unwrap();
    assert!(!once.table().contains('['), "{}", once.table());
}

/// Sweeps over named blocks: each root a scope of `blocks` tasks, task `i`
/// writing block `i` of `bytes` (a data workload without editing the
/// workload list).
struct Sweeps {
    sweeps: u64,
    blocks: u64,
    bytes: u64,
}

impl Workload for Sweeps {
    fn name(&self) -> String {
        "sweeps".into()
    }
    fn roots(&self) -> Vec<Root> {
        (0..self.sweeps)
            .map(|s| Root {
                at_ns: s * 1_000_000,
                node: Node::new(0, s, 0),
                group: None,
            })
            .collect()
    }
    fn task(&self, node: &Node) -> Task {
        let body = if node.a == 0 {
            Body::Scope((0..self.blocks).map(|i| Node::new(1, i, 0)).collect())
        } else {
            Body::Leaf
        };
        Task {
            work_ns: 1000,
            footprint: 0,
            data: None,
            body,
        }
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.a == 0 {
            return Vec::new();
        }
        vec![Touch {
            id: node.b,
            bytes: self.bytes,
            write: true,
        }]
    }
}

#[test]
fn data_bytes_by_tier_add_up_and_reach_the_json() {
    let w = Sweeps {
        sweeps: 3,
        blocks: 64,
        bytes: 64 * 1024,
    };
    let t = machine("numa:2 llc:2 cluster:2 core:2");
    let r = report("m", &t, &w, &Policy::ALL, &[None], &CostModel::default()).unwrap();
    for run in &r.runs {
        let k = &run.counts;
        assert_eq!(
            k.bytes_by_tier.iter().sum::<u64>(),
            3 * 64 * 64 * 1024,
            "{}: {:?}",
            run.policy,
            k.bytes_by_tier
        );
        // The first sweep's first touches come from DRAM.
        assert!(
            k.bytes_from_dram() >= 64 * 64 * 1024,
            "{:?}",
            k.bytes_by_tier
        );
    }
    let json = r.json();
    assert!(
        json.contains("\"bytes_by_tier\": {\"same-core\": "),
        "{json}"
    );
    assert!(json.contains("\"dram-local\": "));
}
