//! The model pool the loom models run the real search loop on.

use locus::__loom::{
    CoreLatch, Found, Idle, IdleMasks, IdleShape, LatchOwner, LockLatch, Reach, RunLoop, Sleep,
    Sources, first_search, may_help_in, run,
};
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*, fence};
use loom::thread::{self, JoinHandle};
use std::time::Duration;

/// Who may take a queue's jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An injector or a spread-group queue: anyone.
    Shared,
    /// Worker `w`'s deque: `w` pops it outside the search (as `run` pops
    /// its deque), the others steal from it in their passes.
    Deque(usize),
    /// LLC `l`'s packed-group queue: taken by `l`'s workers (also outside
    /// the search, as `take_own_group` does); by the others only as the
    /// help rule allows (`l` overloaded, or saturated while the helper is
    /// idle), and otherwise they forward a wakeup to `l`.
    Pack(usize),
}

/// A queue: a count of visible jobs, pushed with Release and taken with
/// one CAS, like a crossbeam deque or injector (a lost race is a `Retry`);
/// the protocol's fences do the rest.
struct Queue {
    kind: Kind,
    jobs: AtomicUsize,
}

impl Queue {
    fn is_empty(&self) -> bool {
        self.jobs.load(Acquire) == 0
    }

    /// A thief's or a searcher's take: one attempt.
    fn steal(&self) -> Found<()> {
        let n = self.jobs.load(Acquire);
        if n == 0 {
            return Found::Nothing;
        }
        match self.jobs.compare_exchange(n, n - 1, AcqRel, Acquire) {
            Ok(_) => Found::Job(()),
            Err(_) => Found::Retry,
        }
    }

    /// The owner's pop (or the own LLC's pack queue, `take_own_group`):
    /// takes a job if there is one.
    fn pop(&self) -> bool {
        let mut n = self.jobs.load(Acquire);
        while n > 0 {
            match self.jobs.compare_exchange(n, n - 1, AcqRel, Acquire) {
                Ok(_) => return true,
                Err(m) => n = m,
            }
        }
        false
    }
}

/// The body of every job of a model: called with the pool, the worker
/// running it and the queue it came from.
type Body = Box<dyn Fn(&Pool, usize, usize) + Send + Sync>;

/// A model pool: its [`Sleep`], its queues, and the registry's exit words
/// (`terminating`, and `pending` for `Registry::detached`).
pub struct Pool {
    /// The sleep state, as the registry owns it.
    pub sleep: Arc<Sleep>,
    queues: Vec<Queue>,
    terminating: AtomicBool,
    pending: AtomicUsize,
    body: Body,
    /// Wakeups made by searchers leaving the searching state (hand-offs).
    handoffs: AtomicUsize,
    /// Every park is lazy, a latch waiter's too (see [`Pool::lazy_parks`]).
    lazy: bool,
}

impl Pool {
    /// A pool of the workers of `shape` with queues of the given kinds, and
    /// `pending` jobs announced (counted before they are pushed, as a
    /// detached spawn is). The pool is terminating from the start: a worker
    /// leaves once every pending job ran, so a model ends exactly when all
    /// its jobs ran, and a lost wakeup leaves some worker parked forever
    /// (loom reports the deadlock). Jobs do nothing unless [`Pool::with_body`].
    pub fn new(shape: IdleShape, queues: &[Kind], pending: usize) -> Pool {
        let workers = shape.capacity.len();
        Pool {
            sleep: Arc::new(Sleep::new(IdleMasks::new(shape), workers)),
            queues: queues
                .iter()
                .map(|&kind| Queue {
                    kind,
                    jobs: AtomicUsize::new(0),
                })
                .collect(),
            terminating: AtomicBool::new(true),
            pending: AtomicUsize::new(pending),
            body: Box::new(|_, _, _| {}),
            handoffs: AtomicUsize::new(0),
            lazy: false,
        }
    }

    /// The same pool, whose workers park lazily at every park, waiting for
    /// a latch or not (`Sources::lazy_park`), and whose lazy re-check sees
    /// no job at all: the worst its unfenced look at the private halves
    /// could do, extended to every queue. Only the fenced re-check the search makes
    /// when the timed park expires (under loom a timed park returns at
    /// once, at any point of the other threads' runs, with the token if
    /// one was left) keeps a job from being left while its worker parks
    /// for good ("The lazy park" in `runtime::sleep`).
    pub fn lazy_parks(mut self) -> Pool {
        self.lazy = true;
        self
    }

    /// The same pool, not yet terminating (see [`Pool::terminate`]).
    pub fn running(self) -> Pool {
        self.terminating.store(false, Relaxed);
        self
    }

    /// The same pool, whose jobs run `body` (with the pool, the worker and
    /// the index of the queue the job came from).
    pub fn with_body(mut self, body: impl Fn(&Pool, usize, usize) + Send + Sync + 'static) -> Pool {
        self.body = Box::new(body);
        self
    }

    /// The same pool, whose first job to start blocks until a second job
    /// ran: a job waiting where the pool cannot see (as an owner's `join`
    /// waits for its stolen or dealt half). So two idle workers must each
    /// run one, and a worker parked for good while a job is queued is a
    /// deadlock loom reports.
    pub fn first_job_waits_for_second(self) -> Pool {
        let second_ran = LockLatch::new();
        let started = AtomicBool::new(false);
        self.with_body(move |_, _, _| {
            if !started.swap(true, SeqCst) {
                second_ran.wait();
            } else {
                second_ran.set_now();
            }
        })
    }

    /// The LLC of worker `w`.
    pub fn llc_of(&self, w: usize) -> usize {
        self.sleep.idle().llc_of(w)
    }

    /// Makes one job visible in queue `q` (the caller then notifies, as
    /// pushers do).
    pub fn push(&self, q: usize) {
        self.queues[q].jobs.fetch_add(1, Release);
    }

    /// The jobs queue `q` holds (a deque's `len`, as the hook of a
    /// promotion's notify asks it: `Sleep::notify_queued`).
    pub fn queued(&self, q: usize) -> usize {
        self.queues[q].jobs.load(SeqCst)
    }

    /// Announces one more job, as `Registry::spawn_detached_in` does
    /// (before its push).
    pub fn announce(&self) {
        self.pending.fetch_add(1, SeqCst);
    }

    /// Pushes a job of a packed group on LLC `llc`'s queue `q` from worker
    /// `from` (`None`: from outside the pool), with the wakeups of the
    /// `Destination::Pack` case of `Registry::push_group`.
    pub fn push_pack(&self, q: usize, llc: usize, from: Option<usize>) {
        self.push(q);
        let own = from.is_some_and(|w| self.llc_of(w) == llc);
        let _ = self.sleep.notify_in(from, llc, own, false).or_else(|| {
            // `group_routing::notify_pack`: a helper if the help rule would
            // let one take the job.
            if may_help_in(self.sleep.idle(), llc, None) {
                self.sleep.notify(from, llc)
            } else {
                None
            }
        });
    }

    /// The wakeups searchers made when they left the searching state.
    pub fn handoffs(&self) -> usize {
        self.handoffs.load(SeqCst)
    }

    /// Jobs announced and not finished yet.
    pub fn unfinished(&self) -> usize {
        self.pending.load(SeqCst)
    }

    /// `Registry::terminate`.
    pub fn terminate(&self) {
        self.terminating.store(true, SeqCst);
        fence(SeqCst);
        self.sleep.wake_all();
    }

    /// `Registry::may_exit`.
    fn may_exit(&self) -> bool {
        self.terminating.load(SeqCst) && self.pending.load(SeqCst) == 0
    }

    /// Runs a job taken from queue `q`, then `Registry::detached_done`.
    fn execute(&self, w: usize, q: usize) {
        (self.body)(self, w, q);
        let before = self.pending.fetch_sub(1, SeqCst);
        assert!(before > 0, "more jobs ran than were announced");
        if before == 1 {
            fence(SeqCst);
            if self.terminating.load(SeqCst) {
                self.sleep.wake_all();
            }
        }
    }

    /// The start of a pass of worker `w`: its deque, then its LLC's pack
    /// queue (`take_local`, `take_own_group`). Returns the queue taken from.
    fn take_own(&self, w: usize) -> Option<usize> {
        let llc = self.llc_of(w);
        self.queues.iter().position(|q| match q.kind {
            Kind::Deque(o) => o == w && q.pop(),
            Kind::Pack(l) => l == llc && q.pop(),
            Kind::Shared => false,
        })
    }

    /// `WorkerThread::run` for worker `w`: with a latch, until it is set;
    /// without, until the pool may exit. Runs the real run loop and search
    /// loop (`run`).
    pub fn run(&self, w: usize, latch: Option<&CoreLatch>) {
        let mut me = Searcher {
            pool: self,
            w,
            llc: self.llc_of(w),
        };
        run(&mut me, w, self.llc_of(w), latch, |me, q| {
            me.pool.execute(me.w, q)
        });
    }

    /// `worker::main_loop` for worker `w` born idle with `idle`: its first
    /// search parks at once (`WorkerThread::run_born`), then `run`.
    pub fn run_born(&self, w: usize, idle: Idle) {
        let mut me = Searcher {
            pool: self,
            w,
            llc: self.llc_of(w),
        };
        if let Some(q) = first_search(&mut me, w, self.llc_of(w), idle) {
            self.execute(w, q);
        }
        self.run(w, None);
    }

    /// `WorkerThread::wait_until`: runs jobs until `latch` is set.
    pub fn wait_until(&self, w: usize, latch: &CoreLatch) {
        if !latch.probe() {
            self.run(w, Some(latch));
        }
    }
}

/// Worker `w` of a [`Pool`] as the search loop sees it.
struct Searcher<'a> {
    pool: &'a Pool,
    w: usize,
    llc: usize,
}

/// The run loop's own queues of worker `w`: its deque, then its LLC's
/// pack queue (`take_local`, `take_own_group`).
impl RunLoop for Searcher<'_> {
    fn take_local(&mut self) -> Option<usize> {
        self.pool.take_own(self.w)
    }
}

impl Sources for Searcher<'_> {
    /// The index of the queue the job came from.
    type Job = usize;
    type Latch = CoreLatch;

    fn sleep(&self) -> &Sleep {
        &self.pool.sleep
    }

    fn probe(&self, latch: &CoreLatch) -> bool {
        latch.probe()
    }

    /// `WorkerThread::sees_work`: any queue holding a job, idle workers'
    /// deques skipped.
    fn sees_work(&mut self) -> bool {
        let idle = self.pool.sleep.idle();
        self.pool.queues.iter().any(|q| {
            !q.is_empty()
                && match q.kind {
                    Kind::Deque(o) => !idle.is_idle(o),
                    _ => true,
                }
        })
    }

    fn woke(&mut self, _: (usize, locus::Distance)) {
        self.pool.handoffs.fetch_add(1, SeqCst);
    }

    fn try_sleep(&self, latch: &CoreLatch) -> bool {
        latch.try_sleep()
    }

    fn wake_up(&self, latch: &CoreLatch) -> bool {
        latch.wake_up()
    }

    /// `WorkerThread::more_behind` looks at the victim's deque; the model
    /// says yes while any queue still holds a job, so that every woken
    /// searcher that finds a job with another one left makes the ramp-up's
    /// extra claims (`Sleep::wake_another`) in the interleavings checked.
    fn more_behind(&mut self) -> bool {
        self.pool.queues.iter().any(|q| !q.is_empty())
    }

    /// `WorkerThread::find_work`: the queues it may take from in their
    /// order (deques of others, shared queues, its LLC's pack queue), then
    /// the other LLCs' pack queues: taken only while none of their LLC's
    /// workers searches and the help rule allows (`may_help_in`), else a
    /// wakeup is forwarded to that LLC.
    fn find_work(&mut self, reach: Reach) -> Found<usize> {
        let pool = self.pool;
        let mut retry = false;
        for (i, q) in pool.queues.iter().enumerate() {
            let mine = match q.kind {
                Kind::Shared => true,
                // A near pass steals only inside the worker's LLC; no pass
                // looks at an idle worker's deque (`PassQueues::awake_bits`:
                // idle workers hold no jobs). The pool skips them only while
                // most workers are idle; the model always does, the case
                // that relies most on the argument.
                Kind::Deque(o) => {
                    o != self.w
                        && (reach == Reach::Far || pool.llc_of(o) == self.llc)
                        && !pool.sleep.idle().is_idle(o)
                }
                Kind::Pack(l) => l == self.llc,
            };
            if mine {
                match q.steal() {
                    Found::Job(()) => return Found::Job(i),
                    Found::Retry => retry = true,
                    Found::Nothing => {}
                }
            }
        }
        if reach == Reach::Near {
            return if retry { Found::Retry } else { Found::Nothing };
        }
        for (i, q) in pool.queues.iter().enumerate() {
            let Kind::Pack(l) = q.kind else { continue };
            if l == self.llc || q.is_empty() {
                continue;
            }
            // `group_routing::helps`, in its order: while a worker of `l`
            // searches, leave the job to it; else as the help rule says
            // (`may_help_in`: `l` overloaded, or saturated while this
            // worker is idle, in its re-check); a refusal forwards.
            if pool.sleep.searching_in(l) > 0 || !may_help_in(pool.sleep.idle(), l, Some(self.w)) {
                pool.sleep.wake_in(None, l);
                continue;
            }
            match q.steal() {
                Found::Job(()) => return Found::Job(i),
                Found::Retry => retry = true,
                Found::Nothing => {}
            }
        }
        if retry { Found::Retry } else { Found::Nothing }
    }

    fn may_exit(&self) -> bool {
        self.pool.may_exit()
    }

    fn lazy_park(&mut self) -> Option<Duration> {
        self.pool.lazy.then_some(Duration::from_micros(1))
    }

    /// Sees nothing (see [`Pool::lazy_parks`]).
    fn find_work_lazily(&mut self) -> Found<usize> {
        Found::Nothing
    }

    fn max_spinners(&self) -> isize {
        0
    }
}

/// Runs worker `w`'s main loop on a new loom thread.
pub fn spawn_worker(pool: &Arc<Pool>, w: usize) -> JoinHandle<()> {
    let pool = pool.clone();
    thread::spawn(move || pool.run(w, None))
}

/// A pool whose workers run on loom threads (see [`Pool::start`]).
pub struct Running {
    pool: Arc<Pool>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts the main loops of `workers` on loom threads.
    pub fn start(self, workers: &[usize]) -> Running {
        let pool = Arc::new(self);
        let threads = workers.iter().map(|&w| spawn_worker(&pool, w)).collect();
        Running { pool, threads }
    }

    /// Makes `workers` idle before any of them runs, as `Registry::new`
    /// does (`Sleep::born_idle`), then starts `run` (their main loops, which
    /// park first) on loom threads for those in `started`; the tokens of
    /// the others are returned, for workers whose thread never runs.
    pub fn start_born(self, workers: &[usize], started: &[usize]) -> (Running, Vec<Idle>) {
        let tokens: Vec<(usize, Idle)> = workers
            .iter()
            .map(|&w| (w, self.sleep.born_idle(w)))
            .collect();
        let pool = Arc::new(self);
        let mut threads = Vec::new();
        let mut unrun = Vec::new();
        for (w, idle) in tokens {
            if started.contains(&w) {
                let p = pool.clone();
                threads.push(thread::spawn(move || p.run_born(w, idle)));
            } else {
                unrun.push(idle);
            }
        }
        (Running { pool, threads }, unrun)
    }
}

impl Running {
    /// The pool, to share with other threads of the model.
    pub fn shared(&self) -> Arc<Pool> {
        self.pool.clone()
    }

    /// Waits until every started worker left (all jobs ran: see
    /// [`Pool::new`]), then checks that the searcher count is balanced and
    /// that no worker left an idle bit armed.
    pub fn finish(self) {
        for t in self.threads {
            t.join().unwrap();
        }
        assert_eq!(self.pool.unfinished(), 0, "a worker left before a job ran");
        assert_eq!(self.pool.sleep.searching(), 0, "searcher count balanced");
        for l in 0..self.pool.sleep.idle().num_llcs() {
            assert_eq!(
                self.pool.sleep.searching_in(l),
                0,
                "LLC {l}'s count balanced"
            );
        }
        assert!(!self.pool.sleep.idle().any_idle(), "an idle bit left armed");
    }
}

impl std::ops::Deref for Running {
    type Target = Pool;
    fn deref(&self) -> &Pool {
        &self.pool
    }
}

/// A stack frame holding a latch, whose freeing loom can see: reading it
/// after the owner freed it, without being ordered before the free, is a
/// data race loom reports.
pub struct Frame(UnsafeCell<bool>);

// SAFETY: every access goes through loom's cell, which reports unordered
// concurrent accesses instead of letting them race.
unsafe impl Sync for Frame {}

impl Default for Frame {
    fn default() -> Self {
        Frame(UnsafeCell::new(true))
    }
}

impl Frame {
    /// A setter reads the frame.
    pub fn read(&self) {
        // SAFETY: loom's cell checks the access.
        self.0
            .with(|p| assert!(unsafe { *p }, "latch read after its frame was freed"));
    }

    /// The owner frees the frame (it returned from its wait).
    pub fn free(&self) {
        // SAFETY: loom's cell checks the access.
        self.0.with_mut(|p| unsafe { *p = false });
    }
}

/// The owner of a model `CountLatch`: worker `worker` of `sleep`, whose
/// latch lives in `frame`. Copying it out of the latch reads the frame.
pub struct FrameOwner {
    /// The pool's sleep state.
    pub sleep: Arc<Sleep>,
    /// The owner.
    pub worker: usize,
    /// The frame the latch lives in.
    pub frame: Arc<Frame>,
}

impl Clone for FrameOwner {
    fn clone(&self) -> Self {
        self.frame.read();
        FrameOwner {
            sleep: self.sleep.clone(),
            worker: self.worker,
            frame: self.frame.clone(),
        }
    }
}

impl LatchOwner for FrameOwner {
    unsafe fn release(this: *const Self, core: *const CoreLatch) {
        // Copy out before the set, as the runtime's owner does: the clone
        // reads the frame, which loom checks is still live.
        // SAFETY: valid on entry (the caller's contract).
        let owner = unsafe { (*this).clone() };
        // SAFETY: last access to the latch's frame.
        if unsafe { CoreLatch::set(core) } {
            owner.sleep.wake_worker(owner.worker);
        }
    }
}
