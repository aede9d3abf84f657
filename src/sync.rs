//! The one facade through which the concurrency protocols reach atomics,
//! locks and thread parking.
//!
//! Normally these are `std` atomics and `parking_lot` locks; under
//! `--cfg loom` they are loom's model-checked versions, so the protocols in
//! `runtime::sleep`, `runtime::search`, `runtime::idle`, `runtime::latch`
//! and `runtime::private` can be checked by the `loom-tests` crate exactly
//! as they are compiled for users (the approach tokio takes). Code in those
//! modules must not import `std::sync` directly. The search loop's spin
//! backoff goes through here too (a crossbeam-style spin-then-yield one
//! normally; under loom one that yields to the model checker).
//!
//! # Asymmetric fences
//!
//! [`light_fence`] and [`heavy_fence`] are a pair: a light fence on one
//! thread and a heavy fence on another order memory as if both were
//! `fence(SeqCst)` (the store-buffering guarantee: of two threads that each
//! store, fence, then load the other's location, at least one sees the
//! other's store). The light side is cheap and runs on a fast path (a
//! worker's private `join` halves, `runtime::private`); the heavy side is
//! rare (a thief about to take such a half or to park).
//!
//! On Linux with `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` the light
//! fence is only a compiler fence and the heavy fence is the system call,
//! which makes every running thread of the process execute a full memory
//! barrier (an interrupt) before it returns: whatever program point a
//! light-fencing thread is at, its accesses before that point are visible
//! after the heavy fence, and none after it were performed before (the
//! compiler fence keeps the compiler from moving them across). This is the
//! design of Folly's `asymmetric_thread_fence_{light,heavy}` and of
//! fence-free work stealing (Morrison and Afek, ASPLOS 2014).
//! [`init_asymmetric_fences`] registers the process for the command once,
//! before the first pool starts its workers. Where the call does not
//! exist (other systems, old kernels, seccomp filters, Miri) or registration
//! fails, [`init_asymmetric_fences`] says so and the light fence must not
//! be used (the private `join` halves are then disabled: every half is
//! public at once, as in rayon, which is cheaper than a full fence on
//! every `join`); the heavy fence is then a plain `fence(SeqCst)`. The
//! choice is made once per process, before any worker runs. Under loom
//! both are `fence(SeqCst)`, which is the semantics the protocols are
//! modelled with.

#[cfg(not(loom))]
mod imp {
    use super::Pause;
    #[cfg(not(feature = "sim"))]
    pub(crate) use std::sync::atomic::AtomicU64;
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering, fence};

    #[cfg(feature = "sim")]
    pub(crate) use super::counted::AtomicU64;

    /// A mutex with the `parking_lot` interface (no poisoning).
    pub(crate) type Mutex<T> = parking_lot::Mutex<T>;
    /// A condition variable with the `parking_lot` interface.
    pub(crate) type Condvar = parking_lot::Condvar;
    /// A mutex with `std`'s interface (`try_lock`, poisoning). Its fast
    /// paths are a little shorter than `parking_lot`'s (measured on a lock
    /// taken once an item: `par_bridge`, docs/par-bridge.md).
    pub(crate) use std::sync::{
        Mutex as StdMutex, MutexGuard as StdMutexGuard, PoisonError, TryLockError,
    };

    /// Spin-then-yield backoff of a searching worker: crossbeam's
    /// `Backoff` (spins of 1, 2, .. 64 pauses, then `yield_now`), but with
    /// a number of steps before it reports completion that the search
    /// chooses (`runtime::backoff`: up to the 7 spins and 32 yields, as
    /// many yields as rayon's 32 rounds, where crossbeam has 4).
    ///
    /// The rule only: each round returns the [`Pause`] to take, which the
    /// threads take with [`pause`] and the simulator charges as simulated
    /// time (`runtime::search::Search` is driven by both).
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Backoff {
        step: u32,
        /// The step at which it is completed.
        done: u32,
    }

    /// Doubling spins up to `1 << SPIN_LIMIT` pauses (crossbeam's limit).
    const SPIN_LIMIT: u32 = 6;

    impl Backoff {
        /// A backoff that completes after `steps` snoozes: the first
        /// `SPIN_LIMIT + 1` spin, the others yield.
        pub(crate) fn new(steps: u32) -> Self {
            Backoff {
                step: 0,
                done: steps,
            }
        }

        /// After a lost race: spin, without yielding.
        pub(crate) fn spin(&mut self) -> Pause {
            let step = self.step;
            if step <= SPIN_LIMIT {
                self.step = step + 1;
            }
            Pause::Spin(1 << step.min(SPIN_LIMIT))
        }

        /// After a pass that found nothing: spin, then yield.
        pub(crate) fn snooze(&mut self) -> Pause {
            let step = self.step;
            if step < self.done {
                self.step = step + 1;
            }
            if step <= SPIN_LIMIT {
                Pause::Spin(1 << step)
            } else {
                Pause::Yield
            }
        }

        /// Whether the search has spun and yielded enough to park.
        pub(crate) fn is_completed(&self) -> bool {
            self.step >= self.done
        }

        /// Starts over, to complete after `steps` snoozes.
        pub(crate) fn reset(&mut self, steps: u32) {
            *self = Backoff::new(steps);
        }
    }

    /// Takes a [`Pause`] on this thread: `n` spin-loop hints, or a yield
    /// of the CPU.
    #[inline]
    pub(crate) fn pause(p: Pause) {
        match p {
            Pause::Spin(n) => {
                for _ in 0..n {
                    std::hint::spin_loop();
                }
            }
            Pause::Yield => std::thread::yield_now(),
        }
    }

    /// `std`'s `UnsafeCell` with loom's closure interface, so that loom
    /// can check the accesses of protocols that hand data over through
    /// one (`runtime::private`).
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) fn new(t: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(t))
        }
        /// Calls `f` with a pointer for reading.
        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }
        /// Calls `f` with a pointer for writing.
        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }

    pub(crate) use super::asymmetric::{heavy_fence, init_asymmetric_fences, light_fence};

    /// One spin-loop hint, for a bounded wait on a word another thread
    /// polls (`runtime::handoff`).
    #[inline]
    pub(crate) fn spin_hint() {
        std::hint::spin_loop();
    }

    /// A spin-wait for a word another thread holds briefly: spins with
    /// exponential backoff, then yields the CPU (the holder may have been
    /// preempted, e.g. in the middle of a system call).
    #[derive(Default)]
    pub(crate) struct SpinWait {
        step: u32,
    }

    impl SpinWait {
        pub(crate) fn spin(&mut self) {
            if self.step < 7 {
                for _ in 0..1u32 << self.step {
                    std::hint::spin_loop();
                }
                self.step += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(loom)]
mod imp {
    use super::Pause;
    pub(crate) use loom::sync::atomic::{
        AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence,
    };

    /// loom's mutex, wrapped to expose the `parking_lot` interface.
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);
    impl<T> Mutex<T> {
        pub(crate) fn new(t: T) -> Self {
            Mutex(loom::sync::Mutex::new(t))
        }
        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap()))
        }
    }
    impl<T: Default> Default for Mutex<T> {
        fn default() -> Self {
            Mutex::new(T::default())
        }
    }
    /// Guard of [`Mutex`]; an `Option` so that [`Condvar::wait`] can move it.
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);
    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().unwrap()
        }
    }
    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().unwrap()
        }
    }
    /// loom's mutex with `std`'s interface.
    pub(crate) use loom::sync::{Mutex as StdMutex, MutexGuard as StdMutexGuard};
    pub(crate) use std::sync::{PoisonError, TryLockError};
    /// loom's condition variable with the `parking_lot` interface.
    pub(crate) struct Condvar(loom::sync::Condvar);
    impl Condvar {
        pub(crate) fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }
        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            let g = guard.0.take().unwrap();
            guard.0 = Some(self.0.wait(g).unwrap());
        }
        /// A wait of at most `timeout`: loom has no time, so it is modelled
        /// as one that times out at once (a yield to the model checker,
        /// the guard kept); callers must not rely on a notify to return.
        pub(crate) fn wait_for<T>(
            &self,
            _guard: &mut MutexGuard<'_, T>,
            _timeout: std::time::Duration,
        ) {
            loom::thread::yield_now();
        }
        pub(crate) fn notify_one(&self) -> bool {
            self.0.notify_one();
            true
        }
        pub(crate) fn notify_all(&self) -> usize {
            self.0.notify_all();
            0
        }
    }

    impl Default for Condvar {
        fn default() -> Self {
            Condvar::new()
        }
    }

    /// The search loop's backoff under loom: completed from the start, so a
    /// worker that found nothing goes idle after one pass (spinning only
    /// repeats passes; the sleep proof does not rely on it, and every extra
    /// pass multiplies the interleavings loom explores), and a spin after a
    /// lost race yields to loom's scheduler, as a spin loop must under loom.
    #[derive(Debug, Clone, Copy, Default)]
    pub(crate) struct Backoff;
    impl Backoff {
        pub(crate) fn new(_steps: u32) -> Self {
            Backoff
        }
        pub(crate) fn spin(&mut self) -> Pause {
            Pause::Yield
        }
        pub(crate) fn snooze(&mut self) -> Pause {
            Pause::Yield
        }
        pub(crate) fn is_completed(&self) -> bool {
            true
        }
        pub(crate) fn reset(&mut self, _steps: u32) {}
    }

    /// Takes a [`Pause`]: under loom, every pause yields to the model
    /// checker.
    pub(crate) fn pause(_: Pause) {
        loom::thread::yield_now();
    }

    pub(crate) use loom::cell::UnsafeCell;

    /// The light side of an asymmetric fence pair: modelled as what it
    /// guarantees, `fence(SeqCst)` (see the module docs).
    pub(crate) fn light_fence() {
        fence(Ordering::SeqCst);
    }

    /// The heavy side: `fence(SeqCst)` as well.
    pub(crate) fn heavy_fence() {
        fence(Ordering::SeqCst);
    }

    /// A spin-loop hint: under loom, a yield to another thread.
    pub(crate) fn spin_hint() {
        loom::thread::yield_now();
    }

    /// A spin-wait: under loom each step lets another thread run.
    #[derive(Default)]
    pub(crate) struct SpinWait;

    impl SpinWait {
        pub(crate) fn spin(&mut self) {
            loom::thread::yield_now();
        }
    }

    /// Nothing to register under loom.
    pub(crate) fn init_asymmetric_fences() -> bool {
        false
    }
}

/// The asymmetric fences outside loom (see the module docs).
#[cfg(not(loom))]
mod asymmetric {
    use std::sync::atomic::{AtomicU8, Ordering, compiler_fence, fence};

    /// Not decided yet.
    const UNDECIDED: u8 = 0;
    /// `membarrier` is registered: the heavy fence is the system call.
    const MEMBARRIER: u8 = 1;
    /// No `membarrier`: the heavy fence is a full fence, and the light
    /// fence must not be relied on (see [`light_fence`]).
    const SYMMETRIC: u8 = 2;

    /// The process-wide mode; moves once from `UNDECIDED`. Workers are
    /// started after it moved (thread spawn orders the store before all
    /// their reads).
    static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

    // Miri does not emulate `membarrier`: it takes the portable path, as
    // on a kernel without the call (the private `join` halves disabled).
    #[cfg(all(target_os = "linux", not(miri)))]
    mod sys {
        /// `MEMBARRIER_CMD_PRIVATE_EXPEDITED` (linux/membarrier.h).
        const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
        /// `MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED`.
        const REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

        fn membarrier(cmd: libc::c_long) -> bool {
            // SAFETY: membarrier takes (cmd, flags, cpu_id) integers and
            // touches no memory of ours.
            unsafe {
                libc::syscall(
                    libc::SYS_membarrier,
                    cmd,
                    0 as libc::c_long,
                    0 as libc::c_long,
                ) == 0
            }
        }

        /// Registers the process (idempotent); false if unsupported.
        pub(super) fn register() -> bool {
            membarrier(REGISTER_PRIVATE_EXPEDITED)
        }

        /// The barrier on every running thread of the process.
        pub(super) fn expedited() -> bool {
            membarrier(PRIVATE_EXPEDITED)
        }
    }

    #[cfg(any(not(target_os = "linux"), miri))]
    mod sys {
        pub(super) fn register() -> bool {
            false
        }
        pub(super) fn expedited() -> bool {
            false
        }
    }

    /// Chooses the mode (first call), registering the process for
    /// `membarrier` where it exists. Call before starting workers that use
    /// the fences; later calls re-register (cheap, idempotent: it also
    /// covers a child process after `fork`, should the kernel not carry
    /// the registration over). Returns whether the light fence is a
    /// compiler fence.
    pub(crate) fn init_asymmetric_fences() -> bool {
        let registered = sys::register();
        match MODE.load(Ordering::Acquire) {
            UNDECIDED => {
                let mode = if registered { MEMBARRIER } else { SYMMETRIC };
                // A racing first call decides the same way (same process).
                let _ = MODE.compare_exchange(UNDECIDED, mode, Ordering::AcqRel, Ordering::Acquire);
            }
            MEMBARRIER if !registered => {
                // Cannot happen on a kernel that registered us once.
                eprintln!("locus: membarrier registration failed after it had succeeded; aborting");
                std::process::abort();
            }
            _ => {}
        }
        MODE.load(Ordering::Acquire) == MEMBARRIER
    }

    /// The light side: a compiler fence. Paired with a heavy fence it
    /// orders like `fence(SeqCst)` only under `membarrier`: callers must
    /// not rely on it unless [`init_asymmetric_fences`] returned true (the
    /// private `join` halves are disabled otherwise). A branch on the mode
    /// here would cost the fast path it serves.
    #[inline(always)]
    pub(crate) fn light_fence() {
        compiler_fence(Ordering::SeqCst);
    }

    /// The heavy side: `membarrier` (a system call that interrupts every
    /// CPU running a thread of this process), else a full fence.
    pub(crate) fn heavy_fence() {
        if MODE.load(Ordering::Relaxed) == MEMBARRIER {
            // Our own accesses, ordered around the call as well.
            fence(Ordering::SeqCst);
            if !sys::expedited() {
                // Registered, so the kernel cannot refuse it; going on
                // would break the protocol's ordering.
                eprintln!(
                    "locus: membarrier(PRIVATE_EXPEDITED) failed after registration; aborting"
                );
                std::process::abort();
            }
            fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }
}

pub(crate) use imp::*;

/// What a searching worker does between two passes ([`Backoff`]'s
/// answer): the threads take it with [`pause`], the simulator charges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pause {
    /// This many spin-loop hints (never under loom, whose backoff yields).
    #[cfg_attr(loom, allow(dead_code))]
    Spin(u32),
    /// A yield of the CPU to another runnable thread.
    Yield,
}

/// With the `sim` feature, the protocols' 64-bit words (the idle masks and
/// their summary) count every access on the calling thread, so that the
/// simulator can report how many words an idle claim reads, running the
/// claim code itself ([`words_touched`](counted::words_touched)). Without the feature this module
/// does not exist and the words are `std`'s.
#[cfg(all(feature = "sim", not(loom)))]
pub(crate) mod counted {
    use std::cell::Cell;
    use std::sync::atomic::Ordering;

    std::thread_local! {
        static TOUCHED: Cell<u64> = const { Cell::new(0) };
    }

    /// The accesses (loads, stores, read-modify-writes) to counted words
    /// made by this thread so far.
    pub(crate) fn words_touched() -> u64 {
        TOUCHED.with(Cell::get)
    }

    #[inline]
    fn touch() {
        TOUCHED.with(|c| c.set(c.get() + 1));
    }

    /// `std`'s `AtomicU64`, counting each access of this thread. Methods it
    /// does not wrap are reached through `Deref` (uncounted).
    #[derive(Debug, Default)]
    pub struct AtomicU64(std::sync::atomic::AtomicU64);

    impl std::ops::Deref for AtomicU64 {
        type Target = std::sync::atomic::AtomicU64;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }

    /// Counted forms of `AtomicU64`'s one-operand read-modify-writes.
    macro_rules! rmw {
        ($($op:ident),*) => {$(
            pub fn $op(&self, v: u64, o: Ordering) -> u64 {
                touch();
                self.0.$op(v, o)
            }
        )*};
    }

    /// Counted forms of `AtomicU64`'s compare-exchanges.
    macro_rules! cas {
        ($($op:ident),*) => {$(
            pub fn $op(&self, a: u64, b: u64, s: Ordering, f: Ordering) -> Result<u64, u64> {
                touch();
                self.0.$op(a, b, s, f)
            }
        )*};
    }

    #[allow(dead_code)]
    impl AtomicU64 {
        pub const fn new(v: u64) -> Self {
            AtomicU64(std::sync::atomic::AtomicU64::new(v))
        }
        pub fn load(&self, o: Ordering) -> u64 {
            touch();
            self.0.load(o)
        }
        pub fn store(&self, v: u64, o: Ordering) {
            touch();
            self.0.store(v, o)
        }
        rmw!(swap, fetch_add, fetch_sub, fetch_and, fetch_or);
        cas!(compare_exchange, compare_exchange_weak);
    }
}
