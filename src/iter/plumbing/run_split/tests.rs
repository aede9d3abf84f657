//! Tests of the first split's cut, combine and per-LLC piece counts.
use super::*;

/// The consumer side of the tree: parts as vectors, reduced by
/// concatenation, so the reduction order shows in the result.
#[test]
fn cut_and_combine_keep_item_order() {
    struct Items(Range<usize>);
    impl Producer for Items {
        type Item = usize;
        type IntoIter = Range<usize>;
        fn into_iter(self) -> Range<usize> {
            self.0
        }
        fn split_at(self, i: usize) -> (Self, Self) {
            let m = self.0.start + i;
            (Items(self.0.start..m), Items(m..self.0.end))
        }
    }
    struct Concat;
    impl Reducer<Vec<Range<usize>>> for Concat {
        fn reduce(self, mut l: Vec<Range<usize>>, r: Vec<Range<usize>>) -> Vec<Range<usize>> {
            l.extend(r);
            l
        }
    }
    struct Never;
    impl super::super::Folder<usize> for Never {
        type Result = Vec<Range<usize>>;
        fn consume(self, _: usize) -> Self {
            self
        }
        fn complete(self) -> Self::Result {
            Vec::new()
        }
        fn full(&self) -> bool {
            false
        }
    }
    struct Collect;
    impl Consumer<usize> for Collect {
        type Folder = Never;
        type Reducer = Concat;
        type Result = Vec<Range<usize>>;
        fn split_at(self, _i: usize) -> (Self, Self, Concat) {
            (Collect, Collect, Concat)
        }
        fn into_folder(self) -> Never {
            Never
        }
        fn full(&self) -> bool {
            false
        }
    }
    for k in 1..9 {
        let cuts: Vec<usize> = (0..k).map(|i| i * 10).collect();
        let mut parts = Vec::new();
        let mut reducers = Vec::new();
        cut(
            Items(0..k * 10),
            Collect,
            &cuts,
            0,
            &mut parts,
            &mut reducers,
        );
        assert_eq!(parts.len(), k);
        assert_eq!(reducers.len(), k - 1);
        let results: Vec<Vec<Range<usize>>> = parts.into_iter().map(|(p, _)| vec![p.0]).collect();
        let all = combine(&mut results.into_iter(), &mut reducers.into_iter(), k);
        let want: Vec<Range<usize>> = (0..k).map(|i| i * 10..i * 10 + 10).collect();
        assert_eq!(all, want);
    }
}

/// `LlcHints::placed`: while a piece of the first split runs, its LLC
/// counts it (the far steal's hint, `pass::queues::victim_size`); once the
/// iterator returned, or a piece panicked, every count is back at 0.
#[test]
fn pieces_are_counted_in_their_llc_while_they_run() {
    use crate::prelude::*;
    use std::sync::atomic::AtomicUsize;

    let pool = crate::test_support::work::virtual_pool("llc:2 core:2");
    let counts = || {
        here(|_, registry| {
            registry
                .llc_hints
                .iter()
                .map(|h| h.placed.load(Ordering::Relaxed))
                .collect::<Vec<_>>()
        })
    };
    let uncounted = AtomicUsize::new(0);
    pool.install(|| {
        (0..10_000).into_par_iter().for_each(|_| {
            let counted = WorkerThread::with_current(|wt| {
                let wt = wt.expect("items run on the pool's workers");
                let hints = &wt.registry().llc_hints;
                hints.iter().any(|h| h.placed.load(Ordering::Relaxed) > 0)
            });
            if !counted {
                uncounted.fetch_add(1, Ordering::Relaxed);
            }
        });
    });
    // Each item runs inside its piece, counted in the LLC where the
    // piece started (a thief of the other LLC may run it, after its own
    // piece ended).
    assert_eq!(uncounted.load(Ordering::Relaxed), 0);
    assert_eq!(pool.install(counts), [0, 0]);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            (0..10_000).into_par_iter().for_each(|i| {
                if i == 7_777 {
                    panic!("a piece panics");
                }
            })
        })
    }));
    assert!(panicked.is_err());
    assert_eq!(pool.install(counts), [0, 0]);
}
