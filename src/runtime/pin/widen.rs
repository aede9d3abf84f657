//! Letting a worker out of its one-CPU pin while the kernel keeps it
//! waiting (decision and measurements: `docs/loaded-pins.md`).
//!
//! A worker pinned to one CPU that is runnable while another process runs
//! there waits for that CPU, up to the next scheduler tick (milliseconds),
//! even when another CPU of its LLC is free; a parallel call ends only
//! when its last worker does, so one such wait makes the whole call slow.
//! Unpinned, the kernel would have run it elsewhere. On a quiet machine
//! the pin costs nothing and keeps the worker where the steal and wake
//! orders expect it.
//!
//! # Rule
//! A worker with a widening set (pinning `cluster`, its pin narrower than
//! the union of its LLC's pin sets, a thread of a normal scheduling policy)
//! samples its own scheduler statistics when it is idle (it parks, or
//! yields in a search), at most once per [`WINDOW_NS`]: the time it spent
//! runnable but waiting for a CPU (`run_delay`, the second field of
//! `/proc/thread-self/schedstat`). If that wait is at least
//! 1/[`WAIT_SHARE_DIV`] of the wall time since the last sample, it widens
//! its affinity to the wide set (its LLC's CPUs) for a hold, then returns
//! to its pin. A hold starts at [`MIN_HOLD_NS`]; when the worker widens
//! again within one hold of its return, the load is still there and the
//! hold doubles, up to [`MAX_HOLD_NS`]: under lasting load the worker is
//! back on its pin for one window per hold.
//!
//! A real-time thread (`chrt`) never widens: it preempts every task of a
//! normal policy on its CPU, so the wait this rule is for does not happen
//! to it, and the waits it has are behind real-time threads, which a
//! wider set would meet as well.
//!
//! This module is the decision alone, on samples and a clock in
//! nanoseconds given by the caller ([`Widener::step`]), so that it is
//! tested without timing; the worker reads the samples and sets the
//! affinity (`runtime::pin::LoadedPin`). Without a sample (not Linux,
//! `/proc` unreadable, a line that does not parse) the widener switches
//! itself off for good and the worker keeps its pin, as before the rule;
//! so does a worker whose affinity cannot be set.

/// The shortest wall time between two samples, in nanoseconds (and the
/// window a wait share is taken over): a few of the shortest parallel
/// calls that lose to a tick-long wait (1.3 ms each in
/// `docs/par-bridge.md`), one tick at `HZ=250`, and long enough that one
/// read of `/proc` (a few microseconds) is a small share of it.
pub(crate) const WINDOW_NS: u64 = 4_000_000;

/// The wait share (of wall time, over at least [`WINDOW_NS`]) at which a
/// worker widens, as a fraction `1 / WAIT_SHARE_DIV`: half a tick-long
/// wait per window.
pub(crate) const WAIT_SHARE_DIV: u64 = 8;

/// The first hold of a widening, in nanoseconds: longer than a short
/// program's run, so that a load it meets early is paid one window, not
/// one per hold (`docs/loaded-pins.md`: 50 ms lost to 200 ms).
pub(crate) const MIN_HOLD_NS: u64 = 200_000_000;

/// The longest hold, in nanoseconds: under lasting load a worker spends
/// one window in `MAX_HOLD_NS` back on its pin (about 0.1% of its time),
/// and a machine whose load went away gets the pin back within it.
pub(crate) const MAX_HOLD_NS: u64 = 3_200_000_000;

/// One reading of `/proc/thread-self/schedstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sample {
    /// Time spent on a CPU, in nanoseconds.
    pub(crate) run_ns: u64,
    /// Time spent runnable but waiting for a CPU, in nanoseconds.
    pub(crate) wait_ns: u64,
}

/// Parses a schedstat line: three unsigned decimal fields (time on a CPU,
/// time waiting, timeslices), blank-separated; anything else is `None`.
#[cfg(any(test, all(target_os = "linux", not(miri))))]
pub(crate) fn parse(line: &str) -> Option<Sample> {
    let mut fields = line.split_ascii_whitespace().map(str::parse::<u64>);
    let run_ns = fields.next()?.ok()?;
    let wait_ns = fields.next()?.ok()?;
    let _slices = fields.next()?.ok()?;
    fields
        .next()
        .is_none()
        .then_some(Sample { run_ns, wait_ns })
}

/// What the worker does with its affinity after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Nothing changes.
    Keep,
    /// Set the affinity to the wide set.
    Widen,
    /// Set the affinity back to the pin set.
    Narrow,
}

/// Where a widener is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Switched off: no sample could be read, or the affinity could not be
    /// set. Never leaves.
    Off,
    /// On its pin, with the last sample (none yet at the start or after a
    /// return) and when it was taken.
    Pinned(Option<(u64, Sample)>),
    /// On the wide set until the time given.
    Wide(u64),
}

/// The per-worker decision (see the module docs). Owned by its worker.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Widener {
    state: State,
    /// The hold of the last widening.
    hold_ns: u64,
    /// When the worker last returned to its pin.
    back_at: Option<u64>,
    /// Widenings so far.
    #[cfg(test)]
    widened: u64,
}

impl Widener {
    /// A widener on its pin (`on`), or one switched off (no wider set, pin
    /// not set, pinning other than `cluster`).
    pub(crate) fn new(on: bool) -> Self {
        Widener {
            state: if on { State::Pinned(None) } else { State::Off },
            hold_ns: MIN_HOLD_NS,
            back_at: None,
            #[cfg(test)]
            widened: 0,
        }
    }

    /// Whether a step at `now_ns` may act, so that the caller reads a
    /// sample (a pinned worker's window has passed, or a widened worker's
    /// hold has). Cheap: no clock, no system call.
    #[inline]
    pub(crate) fn due(&self, now_ns: u64) -> bool {
        match self.state {
            State::Off => false,
            State::Pinned(None) => true,
            State::Pinned(Some((at, _))) => now_ns.saturating_sub(at) >= WINDOW_NS,
            State::Wide(until) => now_ns >= until,
        }
    }

    /// Whether the widener is on (a worker whose widener is off reads no
    /// clock for it).
    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.state != State::Off
    }

    /// Whether the worker is widened now.
    pub(crate) fn is_wide(&self) -> bool {
        matches!(self.state, State::Wide(_))
    }

    /// How many times the worker widened.
    #[cfg(test)]
    pub(crate) fn widened(&self) -> u64 {
        self.widened
    }

    /// One step at `now_ns` with the sample read then (`None`: none could
    /// be read, which switches the widener off; a widened worker returns
    /// to its pin first).
    pub(crate) fn step(&mut self, now_ns: u64, sample: Option<Sample>) -> Action {
        let Some(s) = sample else {
            let was_wide = self.is_wide();
            self.state = State::Off;
            return if was_wide {
                Action::Narrow
            } else {
                Action::Keep
            };
        };
        match self.state {
            State::Off => Action::Keep,
            State::Wide(until) if now_ns >= until => {
                self.back_at = Some(now_ns);
                self.state = State::Pinned(Some((now_ns, s)));
                Action::Narrow
            }
            State::Wide(_) => Action::Keep,
            State::Pinned(None) => {
                self.state = State::Pinned(Some((now_ns, s)));
                Action::Keep
            }
            State::Pinned(Some((at, last))) => {
                let wall = now_ns.saturating_sub(at);
                if wall < WINDOW_NS {
                    return Action::Keep;
                }
                let waited = s.wait_ns.saturating_sub(last.wait_ns);
                if waited.saturating_mul(WAIT_SHARE_DIV) < wall {
                    self.state = State::Pinned(Some((now_ns, s)));
                    return Action::Keep;
                }
                // The load came back within one hold of the return: it
                // lasts, so the next hold is longer.
                self.hold_ns = match self.back_at {
                    Some(back) if now_ns.saturating_sub(back) < self.hold_ns => {
                        (self.hold_ns * 2).min(MAX_HOLD_NS)
                    }
                    _ => MIN_HOLD_NS,
                };
                #[cfg(test)]
                {
                    self.widened += 1;
                }
                self.state = State::Wide(now_ns + self.hold_ns);
                Action::Widen
            }
        }
    }

    /// The affinity could not be set: switch off for good.
    pub(crate) fn fail(&mut self) {
        self.state = State::Off;
    }
}

#[cfg(test)]
mod tests;
