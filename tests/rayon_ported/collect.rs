//! A panic while collecting drops every item made so far exactly once,
//! and nothing else, also for zero-sized items (rayon's
//! `tests/collect.rs`).

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use locus::prelude::*;

const LEN: i64 = 1024;
const PANIC_ABOVE: i64 = 740;

/// Records its value when dropped.
struct Logged<'a>(i64, &'a Mutex<Vec<i64>>);

impl Drop for Logged<'_> {
    fn drop(&mut self) {
        self.1.lock().unwrap().push(self.0);
    }
}

#[test]
fn a_panic_drops_exactly_the_items_made() {
    for panics in [true, false] {
        let made = Mutex::new(Vec::new());
        let dropped = Mutex::new(Vec::new());
        let mut a: Vec<i64> = (0..LEN).collect();
        let b: Vec<i64> = (0..LEN).collect();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::new();
            a.par_iter_mut()
                .zip(&b)
                .map(|(&mut x, &y)| {
                    if panics && x > PANIC_ABOVE {
                        panic!("collect test panic");
                    }
                    made.lock().unwrap().push(x + y);
                    Logged(x + y, &dropped)
                })
                .collect_into_vec(&mut out);
            assert_eq!(out.len(), a.len());
        }));
        assert_eq!(outcome.is_err(), panics);
        let mut made = made.into_inner().unwrap();
        let mut dropped = dropped.into_inner().unwrap();
        made.sort_unstable();
        dropped.sort_unstable();
        assert_eq!(made, dropped, "panics: {panics}");
        if !panics {
            assert_eq!(made.len(), LEN as usize);
        }
    }
}

static ZST_MADE: AtomicUsize = AtomicUsize::new(0);
static ZST_DROPPED: AtomicUsize = AtomicUsize::new(0);

/// A zero-sized item that counts its drops.
struct Nothing;

impl Drop for Nothing {
    fn drop(&mut self) {
        ZST_DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panic_drops_exactly_the_zero_sized_items_made() {
    for panics in [true, false] {
        ZST_MADE.store(0, Ordering::SeqCst);
        ZST_DROPPED.store(0, Ordering::SeqCst);
        let a: Vec<i64> = (0..LEN).collect();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::new();
            a.par_iter()
                .map(|&x| {
                    if panics && x > PANIC_ABOVE {
                        panic!("collect test panic");
                    }
                    ZST_MADE.fetch_add(1, Ordering::SeqCst);
                    Nothing
                })
                .collect_into_vec(&mut out);
            assert_eq!(out.len(), a.len());
        }));
        assert_eq!(outcome.is_err(), panics);
        let made = ZST_MADE.load(Ordering::SeqCst);
        assert_eq!(made, ZST_DROPPED.load(Ordering::SeqCst), "panics: {panics}");
        if !panics {
            assert_eq!(made, LEN as usize);
        }
    }
}
