//! loom models of the job-group additions to the sleep protocol
//! (`Sleep::notify_in`, "Queues of one LLC" in `runtime::sleep`), run
//! through the workers' real search loop.
//!
//! A packed group's queue of LLC `L` is taken by `L`'s workers, by others
//! only while `L` is overloaded; otherwise a searcher of another LLC that
//! sees it non-empty forwards a wakeup to `L` (`Sleep::wake_in`). A lost
//! wakeup leaves a worker parked forever with the job queued: loom reports
//! a deadlock.
#![cfg(loom)]

use locus::__loom::{IdleShape, LockLatch};
use locus_loom_tests::{Kind, Pool, builder};
use loom::sync::Arc;

/// One packed job pushed from outside into LLC 0's queue while worker 0
/// (LLC 0) goes to sleep and worker 1 (LLC 1) is searching: the pusher
/// claims a worker of LLC 0 whether or not someone searches. Worker 1 may
/// take the job only while LLC 0 is overloaded (worker 0 busy, worker 1
/// idle). The job runs once. (With `sleep.notify(None, 0)`, the injector's
/// rule, in place of `notify_in`, and no overload rule, loom found the
/// deadlock when the model was written.)
#[test]
fn pack_push_wakes_the_llc_even_with_a_searcher_elsewhere() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 1, 0), &[Kind::Pack(0)], 1).start(&[0, 1]);
        pool.push_pack(0, 0, None);
        pool.finish();
    });
}

/// A spread job pushed into a queue anyone may take, aimed at LLC 0 with
/// fallback: one of the two workers runs it.
#[test]
fn spread_push_is_taken_by_someone() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 1, 0), &[Kind::Shared], 1).start(&[0, 1]);
        pool.push(0);
        pool.sleep.notify_in(None, 0, false, true);
        pool.finish();
    });
}

/// The overload rule and the forward rule (rule 1 of "Queues of one LLC").
/// Two LLCs of two workers; workers 1 (LLC 0) and 3 (LLC 1) are busy
/// throughout. Worker 1 pushes a packed job on its own LLC's queue, which
/// skips the wakeup while someone searches. Worker 0 (LLC 0) goes to
/// sleep; worker 2 (LLC 1) searches: while worker 0 is busy LLC 0 is
/// overloaded and worker 2 may take the job; while worker 0 is idle it is
/// not, and worker 2 must forward a wakeup to LLC 0. (Without the forward,
/// loom finds the deadlock: checked when the model was written.)
#[test]
fn pack_queue_overload_and_forward_rules() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(4, 2, 0), &[Kind::Pack(0)], 1).start(&[0, 2]);
        pool.push_pack(0, 0, Some(1));
        pool.finish();
    });
}

/// The forward happens only in passes that find nothing. Same shape as the
/// previous model; worker 1 pushes a shared job (which blocks until the
/// packed job ran) and then the packed job, both skipping their wakeup
/// while worker 2 searches. Worker 2's pass may find the shared job
/// first, so it never reaches the pack queue in that pass and blocks in
/// the job: the hand-off of `stop_searching` (worker 2 was the last
/// searcher) wakes worker 0. (Without that notify loom finds the deadlock:
/// checked when the model was written.) It also runs the deferral of
/// `group_routing::helps`: worker 2 leaves the packed job while worker 0
/// (LLC 0) is counted as searching, and worker 0's pass may then return
/// the shared job, which blocks; the hand-off, or worker 2's later
/// re-check (worker 0 no longer counted), takes it. (With a helper that
/// always leaves the job, loom finds the deadlock here.)
#[test]
fn forward_skipped_by_a_pass_that_finds_a_job() {
    builder(2).check(|| {
        let pack_ran = Arc::new(LockLatch::new());
        let body = {
            let pack_ran = pack_ran.clone();
            move |_: &Pool, _, q: usize| {
                if q == 0 {
                    pack_ran.wait();
                } else {
                    pack_ran.set_now();
                }
            }
        };
        let kinds = [Kind::Shared, Kind::Pack(0)];
        let pool = Pool::new(IdleShape::uniform(4, 2, 0), &kinds, 2).with_body(body);
        let pool = pool.start(&[0, 2]);
        pool.push(0);
        pool.sleep.notify(Some(1), 0);
        pool.push_pack(1, 0, Some(1));
        pool.finish();
    });
}

/// A piece of a parallel iterator aimed at worker 0 (`registry::aimed`,
/// `Aim::Worker`): pushed into LLC 0's pack queue (the copy that matters
/// for progress; the copy in worker 0's targeted queue only helps
/// placement), then, after the pusher's fence, worker 0 itself is claimed
/// if idle (`Sleep::wake_if_idle`), else the pack queue's wakeup runs.
/// Both workers of LLC 0 run the real search loop: the piece runs once and
/// nobody stays parked with it queued. With `if_none_searching` as for a
/// pusher of the same LLC, and without.
#[test]
fn aimed_push_claims_its_worker_or_wakes_the_llc() {
    for own in [false, true] {
        builder(2).check(move || {
            let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Pack(0)], 1).start(&[0, 1]);
            pool.push(0);
            if pool
                .sleep
                .wake_if_idle(0, locus::__loom::Distance::Cluster)
                .is_none()
            {
                pool.sleep.notify_in(Some(0), 0, own, false);
            }
            pool.finish();
        });
    }
}
