//! Documents that belong to no single item: the proofs the runtime relies on.
//!
//! Nothing here is code. Each page renders a text that is kept next to the
//! code it is about (and is that code's module documentation), so the
//! published docs and the source say the same thing.
//!
//! - [`sleep_wake`]: how workers go to sleep and are woken, and why no
//!   wakeup is lost (`src/runtime/sleep_proof.md`, the module docs of the
//!   private `runtime::sleep`; loom models of it are in `loom-tests/`).

/// The sleep/wake protocol and the proof sketch that no wakeup is lost.
///
/// The text below is the module documentation of the runtime's private
/// `sleep` module. It names items of the runtime that are not public; they
/// are listed under [Names used above](#names-used-above).
///
#[doc = include_str!("runtime/sleep_proof.md")]
///
/// # Names used above
///
/// The runtime's private items the proof refers to, and where they are:
///
/// - `Sleep` (`src/runtime/sleep.rs`): a pool's sleep state: its idle
///   masks, one `Parker` per worker, the `searching` count and (with
///   several LLCs) one such count per LLC, `llc_searching`.
///   `Sleep::notify`, `Sleep::notify_in` and `Sleep::wake_in` wake a
///   worker after a push; `Sleep::prepare_sleep` takes a searching worker
///   to *idle*, `Sleep::cancel_sleep` back to *searching*;
///   `Sleep::stop_searching` leaves *searching* for *working*
///   (`Sleep::leave_searching` up to its hand-off, which the search loop
///   makes after a look at the queues); `Sleep::wake_all` unparks every
///   worker (the exit's wakeups);
///   `Sleep::wake_if_idle` claims and wakes one given worker if it is idle;
///   `Sleep::wake_another` wakes the nearest idle worker for a ramp-up's
///   fan-out (`search::rules::RAMP_FANOUT`, `search::Sources::more_behind`);
///   `Sleep::notify_queued` is `Sleep::notify` for a promoted `join`
///   half, which while the pool ramps up also wakes toward an empty LLC:
///   both are `Sleep::notify_with`, with and without its hook (the
///   pusher's deque length);
///   `Sleep::start_searching` enters *searching*, `Sleep::sleep` and
///   `Sleep::park` park.
///   `Sleep::born_idle` makes a new worker idle before its thread runs;
///   `Sleep::retire` gives that state back for a worker that never runs.
/// - `Idle` (`src/runtime/sleep.rs`): the token `prepare_sleep` (or
///   `born_idle`) returns, consumed by `cancel_sleep`, `sleep` or `retire`.
/// - `search::search` (`src/runtime/search.rs`): the workers' search and
///   sleep loop, generic over its sources so loom runs it too;
///   `search::first_search`, the first search of a worker born idle, which
///   parks before any pass.
/// - `private` (`src/runtime/private.rs`): each worker's stack of private
///   `join` halves, with the claim protocol and its proof.
/// - `Parker` (`src/runtime/sleep.rs`): one worker's place to sleep, a
///   wake token under a mutex and a condition variable.
/// - `IdleMasks` (`src/runtime/idle.rs`): the per-LLC bitmasks of idle
///   workers with an LLC summary; `IdleMasks::claim_nearest` clears the
///   bit of the idle worker nearest to the waker and returns it. Its module
///   docs state the invariants the proof cites ("invariant 3").
///
/// [`Sleep`]: #names-used-above
/// [`Sleep::sleep`]: #names-used-above
/// [`Sleep::park`]: #names-used-above
/// [`Sleep::start_searching`]: #names-used-above
/// [`Idle`]: #names-used-above
/// [`super::search::search`]: #names-used-above
/// [`super::private`]: #names-used-above
/// [`Sleep::notify`]: #names-used-above
/// [`Sleep::notify_in`]: #names-used-above
/// [`Sleep::wake_in`]: #names-used-above
/// [`Sleep::cancel_sleep`]: #names-used-above
/// [`Sleep::prepare_sleep`]: #names-used-above
/// [`Sleep::stop_searching`]: #names-used-above
/// [`Sleep::wake_if_idle`]: #names-used-above
/// [`Sleep::wake_another`]: #names-used-above
/// [`Sleep::notify_queued`]: #names-used-above
/// [`Sleep::notify_with`]: #names-used-above
/// [`Sleep::leave_searching`]: #names-used-above
/// [`Sleep::wake_all`]: #names-used-above
/// [`Parker`]: #names-used-above
/// [`IdleMasks`]: #names-used-above
/// [`IdleMasks::claim_nearest`]: #names-used-above
/// [`Sleep::born_idle`]: #names-used-above
/// [`Sleep::retire`]: #names-used-above
/// [`super::search::first_search`]: #names-used-above
pub mod sleep_wake {}
