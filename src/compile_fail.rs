//! What the compiler must reject: programs that would be data races or
//! use-after-free if `join`, `scope`, `spawn`, `install`, `broadcast` and
//! the parallel iterators accepted them. Doctests only (`#[cfg(doctest)]`:
//! not compiled into the crate, not in its docs).
//!
//! Each module holds one such program, marked `compile_fail` with the error
//! it must fail with, and the same program with the bad line fixed, which
//! must compile and run. The twin keeps the case honest: a `compile_fail`
//! test also passes when its program fails for an unrelated reason (a
//! typo, an API rename), but then its twin, which differs only in the bad
//! line, fails too. The error codes are documentation on a stable
//! toolchain (only a nightly rustdoc checks them); each was checked by
//! hand to be the only error the program gets.

/// A half of `join` capturing a non-`Send` value (an `Rc`, through a reference:
/// `&Rc` is not `Send` because `Rc` is not `Sync`): the halves may run on two
/// threads at once.
///
/// ```compile_fail,E0277
/// use std::rc::Rc;
/// let count = Rc::new(1);
/// locus::join(|| *count + 1, || 2);
/// ```
///
/// Fixed: an `Arc` may be shared between threads.
///
/// ```
/// use std::sync::Arc;
/// let count = Arc::new(1);
/// assert_eq!(locus::join(|| *count + 1, || 2), (2, 2));
/// ```
mod join_captures_rc {}

/// A half of `join` returning a non-`Send` value: the result is made on one
/// thread and handed to another.
///
/// ```compile_fail,E0277
/// use std::rc::Rc;
/// let (a, _) = locus::join(|| Rc::new(1), || ());
/// ```
///
/// Fixed: return an `Arc` (or the value itself).
///
/// ```
/// use std::sync::Arc;
/// let (a, _) = locus::join(|| Arc::new(1), || ());
/// assert_eq!(*a, 1);
/// ```
mod join_returns_rc {}

/// Both halves of `join` borrowing one vector mutably (they may run at the same
/// time: a data race).
///
/// ```compile_fail,E0499
/// let mut v = vec![3, 1, 2, 5, 4];
/// locus::join(|| v.sort(), || v.reverse());
/// ```
///
/// Fixed: give each half its own part (`split_at_mut`).
///
/// ```
/// let mut v = vec![3, 1, 2, 5, 4];
/// let (left, right) = v.split_at_mut(2);
/// locus::join(|| left.sort(), || right.reverse());
/// assert_eq!(v, [1, 3, 4, 5, 2]);
/// ```
mod join_halves_share_mut {}

/// A job spawned in a `scope` capturing a non-`Send` value.
///
/// ```compile_fail,E0277
/// use std::rc::Rc;
/// let name = Rc::new("job");
/// locus::scope(|s| s.spawn(|_| println!("{name}")));
/// ```
///
/// Fixed: an `Arc`.
///
/// ```
/// use std::sync::Arc;
/// let name = Arc::new("job");
/// locus::scope(|s| s.spawn(|_| println!("{name}")));
/// ```
mod scope_spawn_captures_rc {}

/// A job spawned in a `scope` borrowing a local of the scope's body: the job
/// may run after the body returned (the scope waits for its jobs, not the
/// body), so it may only borrow what lives outside the scope.
///
/// ```compile_fail,E0373
/// locus::scope(|s| {
///     let local = vec![1, 2, 3];
///     s.spawn(|_| println!("{local:?}"));
/// });
/// ```
///
/// Fixed: move the local into the job.
///
/// ```
/// locus::scope(|s| {
///     let local = vec![1, 2, 3];
///     s.spawn(move |_| println!("{local:?}"));
/// });
/// ```
mod scope_spawn_borrows_body_local {}

/// Changing a value inside a `scope` while one of its jobs may still read it: a
/// spawned job's borrows last until the scope ends.
///
/// ```compile_fail,E0502
/// let mut v = vec![1, 2, 3];
/// locus::scope(|s| {
///     s.spawn(|_| println!("{v:?}"));
///     v.push(4);
/// });
/// ```
///
/// Fixed: change it after the scope returned.
///
/// ```
/// let mut v = vec![1, 2, 3];
/// locus::scope(|s| {
///     s.spawn(|_| println!("{v:?}"));
/// });
/// v.push(4);
/// ```
mod scope_job_outlives_borrow {}

/// Keeping a `Scope` to spawn on after `scope` returned (a spawn that outlives
/// its scope).
///
/// ```compile_fail,E0521
/// let mut kept = None;
/// locus::scope(|s| kept = Some(s));
/// kept.unwrap().spawn(|_| ());
/// ```
///
/// Fixed: spawn inside the scope.
///
/// ```
/// locus::scope(|s| s.spawn(|_| ()));
/// ```
mod scope_handle_escapes {}

/// A detached `spawn` borrowing a local: the job may run after the caller
/// returned, so it must own what it uses (`'static`).
///
/// ```compile_fail,E0373
/// let v = vec![1, 2, 3];
/// locus::spawn(|| println!("{v:?}"));
/// ```
///
/// Fixed: move the value into the job.
///
/// ```
/// let v = vec![1, 2, 3];
/// locus::spawn(move || println!("{v:?}"));
/// ```
mod spawn_borrows_local {}

/// `ThreadPool::install` with a closure capturing a non-`Send` value: it runs
/// on a worker of the pool.
///
/// ```compile_fail,E0277
/// use std::rc::Rc;
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let n = Rc::new(1);
/// pool.install(|| *n + 1);
/// ```
///
/// Fixed: an `Arc`.
///
/// ```
/// use std::sync::Arc;
/// let pool = locus::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let n = Arc::new(1);
/// assert_eq!(pool.install(|| *n + 1), 2);
/// ```
mod install_captures_rc {}

/// `broadcast` with a closure capturing a `Cell`: the closure runs on every
/// worker at once, so it must be `Sync`.
///
/// ```compile_fail,E0277
/// use std::cell::Cell;
/// let seen = Cell::new(0);
/// locus::broadcast(|_| seen.set(seen.get() + 1));
/// ```
///
/// Fixed: an atomic.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let seen = AtomicUsize::new(0);
/// locus::broadcast(|_| seen.fetch_add(1, Ordering::Relaxed));
/// assert_eq!(seen.into_inner(), locus::current_num_threads());
/// ```
mod broadcast_captures_cell {}

/// `par_iter` over items that are not `Sync` (`Rc`): the items are read from
/// several threads.
///
/// ```compile_fail,E0599
/// use locus::prelude::*;
/// use std::rc::Rc;
/// let v = vec![Rc::new(1), Rc::new(2)];
/// v.par_iter().count();
/// ```
///
/// Fixed: `Arc` items.
///
/// ```
/// use locus::prelude::*;
/// use std::sync::Arc;
/// let v = vec![Arc::new(1), Arc::new(2)];
/// assert_eq!(v.par_iter().count(), 2);
/// ```
mod par_iter_of_rc {}

/// An iterator adapter's closure capturing a `Cell`: adapter closures are
/// called from several threads at once, so they must be `Sync`.
///
/// ```compile_fail,E0277
/// use locus::prelude::*;
/// use std::cell::Cell;
/// let last = Cell::new(0);
/// (0..10).into_par_iter().for_each(|x| last.set(x));
/// ```
///
/// Fixed: an atomic.
///
/// ```
/// use locus::prelude::*;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let last = AtomicUsize::new(0);
/// (0..10usize).into_par_iter().for_each(|x| { last.fetch_max(x, Ordering::Relaxed); });
/// assert_eq!(last.into_inner(), 9);
/// ```
mod for_each_captures_cell {}

/// An iterator adapter's closure assigning to a captured local: the closure is
/// a shared `Fn`, called from several threads.
///
/// ```compile_fail,E0594
/// use locus::prelude::*;
/// let mut sum = 0;
/// (0..10).into_par_iter().for_each(|x| sum += x);
/// ```
///
/// Fixed: let the iterator reduce (`sum`).
///
/// ```
/// use locus::prelude::*;
/// let sum: i32 = (0..10).into_par_iter().sum();
/// assert_eq!(sum, 45);
/// ```
mod for_each_mutates_local {}

/// Reading a vector from inside a `par_iter_mut` over it (a mutable and a
/// shared borrow at once).
///
/// ```compile_fail,E0502
/// use locus::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x += v.len());
/// ```
///
/// Fixed: read what is needed before.
///
/// ```
/// use locus::prelude::*;
/// let mut v = vec![1, 2, 3];
/// let len = v.len();
/// v.par_iter_mut().for_each(|x| *x += len);
/// assert_eq!(v, [4, 5, 6]);
/// ```
mod par_iter_mut_while_reading {}

/// `zip` with a filtered iterator: `zip` needs both sides indexed (it splits
/// them at the same positions), and a filter's length is unknown until it ran.
///
/// ```compile_fail,E0277
/// use locus::prelude::*;
/// let evens = (0..10).into_par_iter().filter(|x| x % 2 == 0);
/// let _pairs = (0..5).into_par_iter().zip(evens);
/// ```
///
/// Fixed: zip first, then filter.
///
/// ```
/// use locus::prelude::*;
/// let n = (0..5).into_par_iter().zip(0..10).filter(|(_, x)| x % 2 == 0).count();
/// assert_eq!(n, 3);
/// ```
mod zip_with_filtered {}

/// `collect_into_vec` after `filter_map`: it writes each item at its index, so
/// it needs an indexed iterator.
///
/// ```compile_fail,E0599
/// use locus::prelude::*;
/// let mut out: Vec<u32> = Vec::new();
/// (0..10u32).into_par_iter().filter_map(|x| x.checked_sub(5)).collect_into_vec(&mut out);
/// ```
///
/// Fixed: `collect`, which does not need the length.
///
/// ```
/// use locus::prelude::*;
/// let out: Vec<u32> = (0..10u32).into_par_iter().filter_map(|x| x.checked_sub(5)).collect();
/// assert_eq!(out, [0, 1, 2, 3, 4]);
/// ```
mod collect_into_vec_after_filter_map {}

/// `par_array_windows` with `N == 0`: there is no window of no elements
/// (rayon rejects it the same way, when the iterator is driven).
///
/// ```compile_fail,E0080
/// use locus::prelude::*;
/// let n = [1, 2, 3].par_array_windows::<0>().count();
/// ```
///
/// Fixed: a window of one element.
///
/// ```
/// use locus::prelude::*;
/// let n = [1, 2, 3].par_array_windows::<1>().count();
/// assert_eq!(n, 3);
/// ```
mod array_windows_of_zero {}
