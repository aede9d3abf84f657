use super::shape::IdleShapeError;
use super::*;
use std::sync::Arc as StdArc;
use std::sync::atomic::{AtomicBool as StdBool, AtomicUsize as StdUsize, Ordering::SeqCst};

/// Asserts that every LLC's field equals its number of armed workers and that
/// no LLC with a set bit has a zero field.
fn check_summary(m: &IdleMasks) {
    for (l, info) in m.llcs.iter().enumerate() {
        let armed = info.range.clone().filter(|&w| m.is_armed(w)).count() as u64;
        assert_eq!(m.summary_count(l), armed, "LLC {l} count");
        let any_bit = info.range.clone().any(|w| m.is_idle(w));
        assert!(
            !any_bit || m.summary_count(l) != 0,
            "LLC {l}: false negative"
        );
        for w in info.range.clone() {
            assert!(
                !m.is_idle(w) || m.is_armed(w),
                "worker {w} set but not armed"
            );
        }
    }
    let any = m
        .llcs
        .iter()
        .enumerate()
        .any(|(l, _)| m.summary_count(l) != 0);
    assert_eq!(m.any_idle(), any);
    check_tree(m);
}

/// Asserts that every field of every level of the summary tree counts the
/// armed workers of the LLCs under it (exact when nothing runs
/// concurrently), and that the root's total is the armed count.
fn check_tree(m: &IdleMasks) {
    let spans = m.level_spans();
    let mut armed_llc = vec![0u64; m.num_llcs()];
    for (l, info) in m.llcs.iter().enumerate() {
        armed_llc[l] = info.range.clone().filter(|&w| m.is_armed(w)).count() as u64;
    }
    for (k, field, v) in m.tree_fields() {
        let lo = (field << spans[k]).min(m.num_llcs());
        let hi = ((field + 1) << spans[k]).min(m.num_llcs());
        let want: u64 = armed_llc[lo..hi].iter().sum();
        assert_eq!(v, want, "level {k} field {field} (LLCs {lo}..{hi})");
    }
    assert_eq!(m.armed_total() as u64, armed_llc.iter().sum::<u64>());
}

#[test]
fn awake_bits_read_a_word_of_idle_bits_at_a_time() {
    // Two LLCs of 100 workers: two words each, the second short.
    let m = IdleMasks::new(IdleShape::uniform(200, 100, 0));
    assert_eq!(m.awake_bits(0, 200), (u64::MAX, 64), "nobody idle");
    assert_eq!(m.awake_bits(64, 200), ((1 << 36) - 1, 100), "the LLC's end");
    assert_eq!(m.awake_bits(3, 5), (0b11, 5), "the range's end");
    for w in 0..200 {
        m.set_idle(w);
    }
    // Awake workers in each kind of place: a word's first and last bit,
    // the last of an LLC's short second word, the next LLC's first.
    for w in [64, 99, 100, 163, 170] {
        assert!(m.clear_idle(w));
    }
    let walk = |from, end| {
        let mut seen = Vec::new();
        let mut v = from;
        while v < end {
            let (mut bits, stop) = m.awake_bits(v, end);
            while bits != 0 {
                seen.push(v + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            v = stop;
        }
        seen
    };
    assert_eq!(walk(0, 200), [64, 99, 100, 163, 170]);
    assert_eq!(walk(65, 164), [99, 100, 163]);
    // The same walk as an iterator, equal to a test of every bit.
    for (from, end) in [(0, 200), (65, 164), (99, 101), (171, 200)] {
        let bit_by_bit: Vec<_> = (from..end).filter(|&w| !m.is_idle(w)).collect();
        assert_eq!(m.awake_in(from..end).collect::<Vec<_>>(), bit_by_bit);
        assert_eq!(walk(from, end), bit_by_bit);
    }
    assert_eq!(walk(101, 163), [] as [usize; 0]);
    assert_eq!(m.awake_bits(170, 171), (1, 171));
    // A claimed worker's bit is clear: it is not idle any more.
    assert!(m.claim_worker(5));
    assert_eq!(m.awake_bits(0, 64).0, 1 << 5);
}

#[test]
fn claim_order_cluster_llc_remote() {
    // 4 LLCs of 8 workers, clusters of 4.
    let m = IdleMasks::new(IdleShape::uniform(32, 8, 4));
    assert_eq!(m.claim_nearest(Some(1), 0), None);
    for w in [2, 5, 9, 17, 25] {
        m.set_idle(w);
    }
    check_summary(&m);
    assert_eq!(m.claim_nearest(Some(1), 0), Some((2, Distance::Cluster)));
    assert_eq!(m.claim_nearest(Some(1), 0), Some((5, Distance::Llc)));
    // order of LLC 0: 1, 2, 3
    assert_eq!(m.claim_nearest(Some(1), 0), Some((9, Distance::Remote)));
    assert_eq!(m.claim_nearest(Some(1), 0), Some((17, Distance::Remote)));
    assert_eq!(m.claim_nearest(Some(1), 0), Some((25, Distance::Remote)));
    assert_eq!(m.claim_nearest(Some(1), 0), None);
    check_summary(&m); // claimed workers stay armed: false positives only
    assert!(m.any_idle());
    for w in [2, 5, 9, 17, 25] {
        assert!(!m.clear_idle(w), "worker {w} was claimed");
    }
    check_summary(&m);
    assert!(!m.any_idle());
}

#[test]
fn claim_follows_llc_order_and_from_llc() {
    let mut shape = IdleShape::uniform(16, 4, 0);
    shape.llc_order[0] = vec![3..4, 1..2]; // LLC 2 deliberately never searched from 0
    let m = IdleMasks::new(shape);
    for w in [5, 9, 13] {
        m.set_idle(w);
    }
    assert_eq!(m.claim_nearest(None, 0), Some((13, Distance::Remote)));
    assert_eq!(m.claim_nearest(None, 0), Some((5, Distance::Remote)));
    assert_eq!(
        m.claim_nearest(None, 0),
        None,
        "LLC 2 is not in LLC 0's order"
    );
    // From LLC 2 without a worker: own LLC first.
    assert_eq!(m.claim_nearest(None, 2), Some((9, Distance::Llc)));
    // A from_worker outside from_llc does not give a cluster step.
    m.set_idle(10);
    assert_eq!(m.claim_nearest(Some(0), 2), Some((10, Distance::Llc)));
    assert_eq!(m.claim_nearest(None, 99), None);
}

#[test]
fn cluster_unaware_treats_llc_as_one_domain() {
    let m = IdleMasks::new(IdleShape::uniform(16, 8, 0));
    m.set_idle(6);
    m.set_idle(1);
    // No cluster step: lowest index in the LLC, reported as Llc.
    assert_eq!(m.claim_nearest(Some(7), 0), Some((1, Distance::Llc)));
    assert_eq!(m.claim_nearest(Some(7), 0), Some((6, Distance::Llc)));
    // Same worker indices with clusters of 4: 6 is in 7's cluster.
    let m = IdleMasks::new(IdleShape::uniform(16, 8, 4));
    m.set_idle(6);
    m.set_idle(1);
    assert_eq!(m.claim_nearest(Some(7), 0), Some((6, Distance::Cluster)));
    assert_eq!(m.claim_nearest(Some(7), 0), Some((1, Distance::Llc)));
}

#[test]
fn big_cores_first_within_each_domain() {
    // One LLC of 8: cluster 0..4 little (512), cluster 4..8 big (1024) but
    // worker 2 is big too.
    let mut shape = IdleShape::uniform(8, 8, 4);
    shape.capacity = vec![512, 512, 1024, 512, 1024, 1024, 1024, 1024];
    let m = IdleMasks::new(shape);
    for w in 0..8 {
        m.set_idle(w);
    }
    // From worker 0: own cluster first, big (2) before little (0, 1, 3).
    let got: Vec<_> = (0..4)
        .map(|_| m.claim_nearest(Some(0), 0).unwrap())
        .collect();
    assert_eq!(
        got,
        vec![
            (2, Distance::Cluster),
            (0, Distance::Cluster),
            (1, Distance::Cluster),
            (3, Distance::Cluster)
        ]
    );
    assert_eq!(m.claim_nearest(Some(0), 0), Some((4, Distance::Llc)));
    // Remote LLC: big first across its words too.
    let mut shape = IdleShape::uniform(140, 70, 0);
    for w in 70..135 {
        shape.capacity[w] = 100;
    }
    let m = IdleMasks::new(shape); // workers 135..140 (second word of LLC 1) are big
    for w in [70, 71, 136, 139] {
        m.set_idle(w);
    }
    assert_eq!(m.claim_nearest(None, 0), Some((136, Distance::Remote)));
    assert_eq!(m.claim_nearest(None, 0), Some((139, Distance::Remote)));
    assert_eq!(m.claim_nearest(None, 0), Some((70, Distance::Remote)));
}

#[test]
fn word_boundaries_64_65_130() {
    for per_llc in [64usize, 65, 130] {
        let n = per_llc * 3;
        let m = IdleMasks::new(IdleShape::uniform(n, per_llc, 0));
        // Every worker, alone, is found from every LLC, at the right distance.
        for w in 0..n {
            m.set_idle(w);
            assert!(m.is_idle(w));
            check_summary(&m);
            let from = (w / per_llc + 1) % 3;
            assert_eq!(
                m.claim_nearest(None, from),
                Some((w, Distance::Remote)),
                "per_llc {per_llc} w {w}"
            );
            assert!(!m.is_idle(w));
            assert!(!m.clear_idle(w));
            m.set_idle(w);
            assert_eq!(m.claim_nearest(None, w / per_llc), Some((w, Distance::Llc)));
            assert!(!m.clear_idle(w));
        }
        // All idle: claims come out in index order, LLC by LLC, none twice.
        for w in 0..n {
            m.set_idle(w);
        }
        check_summary(&m);
        let mut seen = vec![false; n];
        for i in 0..n {
            let (w, _) = m.claim_nearest(None, 0).unwrap();
            assert_eq!(w, i);
            assert!(!std::mem::replace(&mut seen[w], true));
        }
        assert_eq!(m.claim_nearest(None, 0), None);
        // Clusters that straddle a word boundary.
        let m = IdleMasks::new(IdleShape::uniform(n, per_llc, 10));
        if per_llc >= 70 {
            // cluster 60..70 straddles words 0 and 1 of LLC 0
            m.set_idle(66);
            m.set_idle(5);
            assert_eq!(m.claim_nearest(Some(61), 0), Some((66, Distance::Cluster)));
            assert_eq!(m.claim_nearest(Some(61), 0), Some((5, Distance::Llc)));
        }
        let last = n - 1;
        m.set_idle(last);
        assert_eq!(m.claim_nearest(Some(0), 0), Some((last, Distance::Remote)));
    }
}

#[test]
fn summary_after_set_clear_claim_sequences() {
    // A deterministic pseudo-random sequence of owner and waker actions.
    let n = 3 * 70;
    let m = IdleMasks::new(IdleShape::uniform(n, 70, 8));
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut claimed = vec![false; n];
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = (x % n as u64) as usize;
        match (x >> 32) % 4 {
            0 | 1 => {
                m.set_idle(w);
                claimed[w] = false;
            }
            2 => {
                let was_set = m.is_idle(w);
                assert_eq!(m.clear_idle(w), was_set);
                claimed[w] = false;
            }
            _ => {
                let from = (x >> 40) as usize % 3;
                let expect_some = (0..n).any(|v| m.is_idle(v));
                match m.claim_nearest(Some(from * 70), from) {
                    Some((v, _)) => {
                        assert!(!m.is_idle(v));
                        assert!(m.is_armed(v));
                        assert!(!std::mem::replace(&mut claimed[v], true), "claimed twice");
                    }
                    None => assert!(!expect_some, "an idle worker was missed"),
                }
            }
        }
        check_summary(&m);
    }
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // `vec![0..2]` is a list of runs here
fn invalid_shapes_are_reported() {
    let ok = IdleShape::uniform(8, 4, 2);
    assert_eq!(ok.validate(), Ok(()));
    let mut s = ok.clone();
    s.capacity.clear();
    assert_eq!(s.validate(), Err(IdleShapeError::NoWorkers));
    let mut s = ok.clone();
    s.llc_ranges[1] = 5..8;
    assert!(matches!(
        s.validate(),
        Err(IdleShapeError::LlcRange { llc: 1, .. })
    ));
    let mut s = ok.clone();
    s.capacity.push(1);
    assert!(matches!(
        s.validate(),
        Err(IdleShapeError::WorkerCount {
            llc_end: 8,
            capacities: 9
        })
    ));
    let mut s = ok.clone();
    s.cluster_ranges[1] = 3..5;
    let e = s.validate().unwrap_err();
    assert!(matches!(e, IdleShapeError::ClusterRange { .. }));
    assert!(e.to_string().contains("inside one LLC"), "{e}");
    let mut s = ok.clone();
    s.core_ranges = vec![0..2, 3..5];
    let e = s.validate().unwrap_err();
    assert!(
        matches!(e, IdleShapeError::CoreRange { core: 1, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("cores must be"), "{e}");
    s.core_ranges = vec![0..2, 2..4];
    assert_eq!(s.validate(), Ok(()));
    let mut s = ok.clone();
    s.llc_order.pop();
    assert!(matches!(
        s.validate(),
        Err(IdleShapeError::LlcOrderLen { got: 1, llcs: 2 })
    ));
    let mut s = ok.clone();
    s.llc_order[0] = vec![0..2];
    assert!(matches!(
        s.validate(),
        Err(IdleShapeError::LlcOrderEntry { llc: 0, entry: 0 })
    ));
    let mut s = ok;
    s.llc_order[0] = vec![1..3];
    assert!(matches!(
        s.validate(),
        Err(IdleShapeError::LlcOrderEntry { llc: 0, entry: 2 })
    ));
}

#[test]
fn many_llcs_form_a_tree() {
    // 153 LLCs of 64: 8-bit leaf fields, 8 per word, 20 leaf words; level
    // 1 counts up to 512 per field (16 bits, 4 per word): 5 words; level 2
    // up to 2048 (16 bits): 2 words; level 3 the root.
    let m = IdleMasks::new(IdleShape::uniform(153 * 64, 64, 0));
    assert_eq!(m.level_spans(), [0, 3, 5, 7]);
    assert!(!m.any_idle());
    m.set_idle(152 * 64 + 63);
    m.set_idle(100 * 64);
    check_summary(&m);
    assert_eq!(m.armed_total(), 2);
    assert_eq!(m.claim_nearest(None, 0), Some((100 * 64, Distance::Remote)));
    assert_eq!(
        m.claim_nearest(None, 0),
        Some((152 * 64 + 63, Distance::Remote))
    );
    assert_eq!(m.claim_nearest(None, 0), None);
    assert!(
        m.any_idle() && !m.any_unclaimed(),
        "claimed, not yet cleared"
    );
    assert!(!m.clear_idle(100 * 64) && !m.clear_idle(152 * 64 + 63));
    check_summary(&m);
    assert!(!m.any_idle());
    // Single-worker LLCs: 1-bit leaf fields, 64 LLCs per word.
    let m = IdleMasks::new(IdleShape::uniform(4096, 1, 0));
    assert_eq!(m.level_spans(), [0, 6, 9, 11]);
    assert_eq!(m.claim_nearest(Some(3), 3), None);
    for w in [4095, 64, 63, 0] {
        m.set_idle(w);
    }
    check_summary(&m);
    // From LLC 3: nearer index first, lower first on ties.
    let got: Vec<usize> = (0..4)
        .map(|_| m.claim_nearest(None, 3).unwrap().0)
        .collect();
    assert_eq!(got, [0, 63, 64, 4095]);
}

#[test]
fn root_is_one_word_and_any_bit_set_follows_the_tree() {
    for (n, per_llc) in [(1, 1), (16, 16), (64 * 12, 16), (4096, 16), (5000, 3)] {
        let m = IdleMasks::new(IdleShape::uniform(n, per_llc, 0));
        assert!(!m.any_bit_set() && !m.any_unclaimed());
        for w in [n - 1, n / 2, 0] {
            m.set_idle(w);
            assert!(m.any_bit_set() && m.any_unclaimed(), "n {n} w {w}");
            assert_ne!(m.root_word().load(SeqCst), 0);
            assert!(m.clear_idle(w));
            assert!(!m.any_bit_set() && !m.any_idle(), "n {n} w {w}");
        }
        check_summary(&m);
    }
}

/// A shape of LLCs of random sizes (1 to 70 workers) and, for each LLC, a
/// random search order: the other LLCs cut into ascending runs, the runs
/// shuffled, some runs left out.
fn random_shape(rng: &mut impl FnMut() -> u64, llcs: usize) -> IdleShape {
    let mut llc_ranges = Vec::new();
    let mut start = 0;
    for _ in 0..llcs {
        let len = 1 + (rng() % 70) as usize;
        llc_ranges.push(start..start + len);
        start += len;
    }
    let llc_order = (0..llcs)
        .map(|l| {
            let mut runs = Vec::new();
            let mut a = 0;
            while a < llcs {
                let b = (a + 1 + (rng() % 20) as usize).min(llcs);
                for r in [a..l.clamp(a, b), (l + 1).clamp(a, b)..b] {
                    if !r.is_empty() && rng() % 8 != 0 {
                        runs.push(r);
                    }
                }
                a = b;
            }
            for i in (1..runs.len()).rev() {
                runs.swap(i, (rng() % (i as u64 + 1)) as usize);
            }
            runs
        })
        .collect();
    IdleShape {
        llc_ranges,
        cluster_ranges: Vec::new(),
        core_ranges: Vec::new(),
        capacity: vec![1024; start],
        llc_order,
    }
}

/// What `claim_nearest(None, from)` must return, from a model of the bits:
/// the lowest set worker of `from`'s LLC, else of the first LLC with one
/// in `from`'s order (equal capacities, no clusters, no SMT).
fn model_claim(shape: &IdleShape, bits: &[bool], from: usize) -> Option<(usize, Distance)> {
    let first = |r: Range<usize>| r.into_iter().find(|&w| bits[w]);
    if let Some(w) = first(shape.llc_ranges[from].clone()) {
        return Some((w, Distance::Llc));
    }
    shape.llc_order[from]
        .iter()
        .flat_map(|r| r.clone())
        .find_map(|m| first(shape.llc_ranges[m].clone()))
        .map(|w| (w, Distance::Remote))
}

#[test]
fn random_sequences_against_a_model() {
    // Shapes of 1 to 300 LLCs (trees of one to three levels), random
    // set / clear / claim sequences; every claim is compared with the
    // model and the tree is checked after every step.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rng = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for llcs in [1usize, 2, 9, 13, 64, 65, 130, 300] {
        let shape = random_shape(&mut rng, llcs);
        let m = IdleMasks::new(shape.clone());
        let n = m.num_workers();
        let mut bits = vec![false; n];
        let mut armed = vec![false; n];
        for _ in 0..3_000 {
            let r = rng();
            // Mostly few idle workers (the interesting case for the tree),
            // sometimes many.
            let w = if r % 4 == 0 {
                (r >> 8) as usize % n
            } else {
                ((r >> 8) as usize % 8) * n / 8
            };
            match (r >> 40) % 5 {
                0 | 1 => {
                    m.set_idle(w);
                    bits[w] = true;
                    armed[w] = true;
                }
                2 => {
                    assert_eq!(m.clear_idle(w), bits[w], "clear_idle({w})");
                    bits[w] = false;
                    armed[w] = false;
                }
                _ => {
                    let from = (r >> 48) as usize % llcs;
                    let want = model_claim(&shape, &bits, from);
                    assert_eq!(m.claim_nearest(None, from), want, "from LLC {from}");
                    if let Some((v, _)) = want {
                        bits[v] = false;
                    }
                }
            }
            assert_eq!(m.any_unclaimed(), bits.iter().any(|&b| b));
            assert_eq!(m.armed_total(), armed.iter().filter(|&&a| a).count());
        }
        check_summary(&m);
    }
}

#[test]
fn field_widths_are_powers_of_two() {
    // (workers per LLC, log2 of the LLCs under a field of each level): the
    // leaf fields are 1, 2, 4, 4 and 8 bits wide, 64 to 8 per word.
    for (per_llc, spans) in [
        (1, &[0, 6][..]),
        (3, &[0, 5]),
        (4, &[0, 4]),
        (15, &[0, 4]),
        (16, &[0, 3, 6]),
    ] {
        let m = IdleMasks::new(IdleShape::uniform(per_llc * 65, per_llc, 0));
        assert_eq!(m.level_spans(), spans, "{per_llc} per LLC");
        for w in 0..per_llc * 65 {
            m.set_idle(w);
        }
        check_summary(&m); // every field at its maximum: no carry into a neighbour
        for l in 0..65 {
            assert_eq!(m.idle_count(l), per_llc);
        }
        assert_eq!(m.armed_total(), per_llc * 65);
    }
}

#[test]
fn close_capacities_form_one_class() {
    // 1024, 1000 and 900 are one class (900 >= 7/8 * 1024 = 896); 800 is
    // little. Within a class, lowest index first.
    let mut shape = IdleShape::uniform(4, 4, 0);
    shape.capacity = vec![800, 1000, 900, 1024];
    let m = IdleMasks::new(shape);
    assert_eq!(m.classes, 2);
    for w in 0..4 {
        m.set_idle(w);
    }
    let got: Vec<usize> = (0..4)
        .map(|_| m.claim_nearest(None, 0).unwrap().0)
        .collect();
    assert_eq!(got, vec![1, 2, 3, 0]);
}

mod concurrent;

mod layouts;
