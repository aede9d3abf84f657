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
            while !stop.load(SeqCst) {
                m.set_idle(w);
                std::hint::spin_loop();
                m.clear_idle(w);
            }
        }));
    }
    let (done_tx, done_rx) = mpsc::channel();
    let claimer = claimer(sleepers, n, CLAIMS, shared(), done_tx);
    let finished = done_rx.recv_timeout(Duration::from_secs(60));
    stop.store(true, SeqCst);
    claimer.join().unwrap();
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        finished.is_ok(),
        "watchdog: the claims did not finish in 60 s"
    );
    for w in 0..n {
        assert!(!m.is_idle(w), "worker {w} left idle");
    }
    check_summary(&m);
    assert!(!m.any_idle());
}

// Wake order on layouts as the pool builds them (moved from
// tests/confine.rs: the idle masks are crate-private).

mod layouts {
    use super::{Distance, IdleMasks};
    use crate::runtime::registry::idle_shape;
    use crate::test_support::{all_idle, snapshot};
    use crate::{Layout, LayoutOptions, Topology};

    #[test]
    fn wake_prefers_a_fully_idle_core_over_a_busy_cores_sibling() {
        let t = Topology::synthetic("core:4 smt:2").unwrap();
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        assert_eq!(l.core_ranges()[0], 0..2);
        let m = all_idle(&l);
        // Worker 0 runs (busy) and pushes: not its sibling 1, a whole idle core.
        assert!(m.clear_idle(0));
        let (w, _) = m.claim_nearest(Some(0), 0).unwrap();
        assert_eq!(w, 2, "the first fully idle core");
        // Cores 1 (2 claimed) and 0 (0 busy) are half busy: next cores 2, 3.
        assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 4);
        assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 6);
        // Only siblings of busy cores remain: they are still found.
        let mut rest: Vec<usize> = (0..4)
            .map(|_| m.claim_nearest(Some(0), 0).unwrap().0)
            .collect();
        rest.sort();
        assert_eq!(rest, [1, 3, 5, 7]);
        assert_eq!(m.claim_nearest(Some(0), 0), None);
    }

    #[test]
    fn wake_across_llcs_prefers_whole_cores_there_too() {
        let t = Topology::synthetic("llc:2 core:2 smt:2").unwrap();
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        let m = IdleMasks::new(idle_shape(&l));
        // LLC 0 all busy; in LLC 1 worker 4's sibling 5 is idle, core 6-7 idle.
        for w in [5, 6, 7] {
            m.set_idle(w);
        }
        assert_eq!(m.claim_nearest(Some(0), 0), Some((6, Distance::Remote)));
        assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 5);
    }

    #[test]
    fn wake_without_smt_is_unchanged() {
        let t = Topology::synthetic("llc:1 core:4").unwrap();
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        let m = all_idle(&l);
        assert!(m.clear_idle(0));
        let got: Vec<usize> = (0..3)
            .map(|_| m.claim_nearest(Some(0), 0).unwrap().0)
            .collect();
        assert_eq!(got, [1, 2, 3]);
    }

    #[test]
    #[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
    fn raptor_lake_wakes_an_idle_e_core_before_a_busy_p_cores_sibling() {
        let (_tmp, t) = snapshot("20em64t-hybrid-1p6c2t+2ca4co1t");
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        // Workers 0-11: six P-cores of 2 threads; 12-19: eight E-cores.
        assert_eq!(
            l.core_ranges()[..6],
            [0..2, 2..4, 4..6, 6..8, 8..10, 10..12]
        );
        let m = all_idle(&l);
        // P-core worker 0 is busy and pushes: the other P-cores first, one
        // thread each, then the E-cores, and only then the P-cores' siblings.
        assert!(m.clear_idle(0));
        let order: Vec<usize> = (0..19)
            .map(|_| m.claim_in_llc(Some(0), 0).unwrap().0)
            .collect();
        assert_eq!(order[..5], [2, 4, 6, 8, 10]);
        let mut e: Vec<usize> = order[5..13].to_vec();
        e.sort();
        assert_eq!(e, (12..20).collect::<Vec<_>>());
        let mut siblings: Vec<usize> = order[13..].to_vec();
        siblings.sort();
        assert_eq!(siblings, [1, 3, 5, 7, 9, 11]);
        // All busy but P-core 1's sibling 3 and E-core 12: the E-core.
        let m = IdleMasks::new(idle_shape(&l));
        m.set_idle(3);
        m.set_idle(12);
        assert_eq!(m.claim_in_llc(Some(0), 0).unwrap().0, 12);
        assert_eq!(m.claim_in_llc(Some(0), 0).unwrap().0, 3);
    }
}
