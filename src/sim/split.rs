//! An indexed iterator's run on the simulated pool, with the runtime's
//! own first-split code (`iter::plumbing::run_split`): the pieces of
//! [`first_split`] for the depth of `run_split::split_depth`, grouped per
//! LLC, then per cluster, then one by one (`Ctx::groups`; each step the
//! decision of `run_group`, `Ctx::fan_out`), each level a
//! fan-out where the group that holds the running worker runs inline and
//! the others are aimed by `Ctx::aims`: `Aim::Llc` into the LLC's pack
//! queue with `notify_pack`'s wakeup, `Aim::Worker` (replay) as two
//! copies, one in the worker's targeted queue and one in its LLC's pack
//! queue, with the claim of that worker or the pack queue's wakeup: the
//! pool's own push, `aimed::push_aimed_to` (`Registry::push_aimed`). A
//! replayed run's aims come from `run_split::replay_targets` over the
//! runtime's own `ReplayCore` record, and the run is recorded there when it
//! returns, as `run_top` does.
//!
//! The fan-out's frame is the runtime's too: `run_aimed`'s steps
//! (`AimedFrame`: the start mark, the remote groups pushed, the inline one
//! run, the wait for the count latch), each step here one part of an
//! event, an inline group a frame above the fan-out's. A piece's own tree
//! is the workload's; `Iter`'s pieces split by the runtime's
//! `LengthSplitter` (`workload`).

use std::sync::Arc;

use crate::iter::plumbing::hierarchy::{Piece, first_split};
use crate::iter::plumbing::replay_record::ReplayKey;
use crate::iter::plumbing::run_split::{
    Ctx, FanOut, Level, first_split_applies, replay_targets, split_depth,
};
use crate::runtime::owner;
use crate::runtime::registry::{Aim, AimedFrame, AimedStep, push_aimed_to};

use super::counts::{IterStats, PieceStats};
use super::engine::Sim;
use super::job::{Fanout, Frame, JobId, Kind, Stage};
use super::split_run::SplitRun;
use super::workload::{Body, IterSpec, Node};

impl Sim<'_> {
    /// `bridge_producer_consumer` on worker `w`, in the frame of `job`:
    /// the first split where the runtime makes one, else the whole
    /// iterator's adaptive tree inline.
    pub(super) fn start_iter(&mut self, w: usize, spec: IterSpec) {
        let split = self.splits.len() as u32;
        let pieces = self.first_pieces(&spec);
        let top = self.workers[w].frames.len() - 1;
        self.workers[w].frames[top].stage = Stage::AfterIter { split };
        let mut run = SplitRun {
            pieces: Vec::new(),
            targets: None,
            ran: Vec::new(),
            key: None,
            tag: spec.piece,
            then: spec.then,
            stats: IterStats::default(),
        };
        let job = if pieces.len() < 2 {
            if spec.replay {
                self.replay.unsplit();
                run.stats.replay = Some(self.replay.stats());
            }
            self.splits.push(run);
            let node = Node::new(0, spec.len, spec.piece);
            self.new_job(node, None, w as u32, None, Kind::Inline)
        } else {
            let all = 0..pieces.len();
            self.fill_split(&mut run, pieces, &spec);
            self.splits.push(run);
            // `run_top`: the whole split is one group at the pool level,
            // run inline.
            let id = self.new_job(Node::default(), None, w as u32, None, Kind::Inline);
            self.jobs[id as usize].fanout = Some(Fanout {
                split,
                pieces: all,
                level: Level::Pool,
                aimed: None,
            });
            id
        };
        self.workers[w].frames.push(Frame {
            job,
            stage: Stage::Start,
        });
    }

    /// The pieces of the runtime's first split of `spec` (fewer than two:
    /// no split).
    fn first_pieces(&self, spec: &IterSpec) -> Vec<Piece> {
        // `bridge`: one LLC (replayed or not, `first_split_applies`) is
        // the adaptive tree at once; `first_split_cold`: fewer than two
        // pieces too.
        // Rayon-like: rayon's bridge never cuts by domain.
        let rayon = self.rayon.is_some();
        if rayon || !first_split_applies(self.layout.llc_ranges().len()) {
            return Vec::new();
        }
        let len = usize::try_from(spec.len).unwrap_or(usize::MAX);
        let depth = split_depth(spec.replay, self.policy.cluster_aware());
        let min = usize::try_from(spec.min_len).unwrap_or(usize::MAX);
        first_split(&self.layout, len, min, depth)
    }

    /// `run` of the split `pieces` of `spec`: with replay, the targets of
    /// the record and its key; the pieces' stats; none ran yet.
    fn fill_split(&self, run: &mut SplitRun, pieces: Vec<Piece>, spec: &IterSpec) {
        let layout = &self.layout;
        if spec.replay {
            let key = ReplayKey {
                pool: 0,
                len: usize::try_from(spec.len).unwrap_or(usize::MAX),
                pieces: pieces.len(),
            };
            run.targets = Some(replay_targets(&self.replay, key, &pieces, layout));
            run.key = Some(key);
        }
        run.stats.pieces = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| PieceStats {
                items: p.range.clone(),
                llc: p.domain.llc(layout).unwrap_or(0),
                aimed_at: run.targets.as_ref().map(|t| t[i]),
                ..PieceStats::default()
            })
            .collect();
        run.ran = vec![usize::MAX; pieces.len()];
        run.pieces = pieces;
    }

    /// `run_group` on worker `w` for the fan-out job `job` (the top frame):
    /// a single piece runs (`run_piece`); a single group goes a level
    /// down; else the groups are aimed, the remote ones pushed, the inline
    /// one run, and the frame waits for the remote ones.
    pub(super) fn fan_out(&mut self, w: usize, job: JobId) {
        // `run_aimed`'s `starting`, and its `start_piece` for the inline
        // group: the mark lasts until the next private push or the end of
        // the fan-out job (`advance`, `Stage::Finish`).
        owner::start_piece(&mut self.owner(w));
        let top = self.workers[w].frames.len() - 1;
        let f = self.jobs[job as usize]
            .fanout
            .clone()
            .expect("a fan-out job");
        let run = &self.splits[f.split as usize];
        let ctx = Ctx {
            layout: &self.layout,
            pieces: &run.pieces,
            targets: run.targets.as_deref(),
            ran: &[],
            clusters: self.policy.cluster_aware(),
        };
        let (groups, aims) = match ctx.fan_out(w, f.pieces.clone(), f.level) {
            FanOut::Piece(i) => {
                // `run_piece`: record who started it, then its tree inline.
                let p = &run.pieces[i];
                let node = Node::new(p.range.start as u64, p.range.len() as u64, run.tag);
                self.splits[f.split as usize].ran[i] = w;
                let now = self.now;
                let st = &mut self.splits[f.split as usize].stats.pieces[i];
                st.ran_on = w;
                st.started_ns = now;
                let id = self.new_job(node, None, w as u32, None, Kind::Inline);
                self.jobs[id as usize].piece = Some((f.split, i as u32));
                // `run_placed`.
                self.jobs[id as usize].placed = true;
                self.placed[self.workers[w].llc] += 1;
                self.workers[w].frames[top].stage = Stage::Finish;
                self.workers[w].frames.push(Frame {
                    job: id,
                    stage: Stage::Start,
                });
                return;
            }
            FanOut::Below => {
                let below = f.level.below();
                self.jobs[job as usize]
                    .fanout
                    .as_mut()
                    .expect("a fan-out job")
                    .level = below;
                return;
            }
            FanOut::Aimed { groups, aims } => (groups, aims),
        };
        // `run_aimed`: the count latch (the job's pending children) and
        // its waiter, then the frame's steps.
        let frame = AimedFrame::new(&aims);
        let j = &mut self.jobs[job as usize];
        j.pending = frame.remote() as u32;
        j.waiter = Some(w as u32);
        j.fanout.as_mut().expect("a fan-out job").aimed = Some((groups, aims));
        self.aimed(w, job, frame);
    }

    /// The steps of `run_aimed`'s frame ([`AimedFrame`]) for the fan-out
    /// job `job` on `w` (the top frame), until an inline group runs (a
    /// frame above this one, after which `Stage::Aimed` steps again), the
    /// wait for the pushed groups, or the end.
    pub(super) fn aimed(&mut self, w: usize, job: JobId, mut frame: AimedFrame) {
        let top = self.workers[w].frames.len() - 1;
        let f = self.jobs[job as usize]
            .fanout
            .clone()
            .expect("a fan-out job");
        let (groups, aims) = f.aimed.as_ref().expect("a fanned-out job");
        let below = f.level.below();
        let group = |i: usize| Fanout {
            split: f.split,
            pieces: groups[i].clone(),
            level: below,
            aimed: None,
        };
        loop {
            match frame.step(aims) {
                // The mark before the pushes (set already at the group's
                // start, as the `starting` wrapper of its task does).
                AimedStep::Start => owner::start_piece(&mut self.owner(w)),
                AimedStep::Push(i) => {
                    let id =
                        self.new_job(Node::default(), None, w as u32, Some(job), Kind::Spawned);
                    self.jobs[id as usize].fanout = Some(group(i));
                    self.push_aimed(w, aims[i], id);
                }
                AimedStep::Run(i) => {
                    self.workers[w].frames[top].stage = Stage::Aimed { frame };
                    let id = self.new_job(Node::default(), None, w as u32, None, Kind::Inline);
                    self.jobs[id as usize].fanout = Some(group(i));
                    self.workers[w].frames.push(Frame {
                        job: id,
                        stage: Stage::Start,
                    });
                    return;
                }
                AimedStep::Wait => {
                    self.workers[w].frames[top].stage = Stage::Wait {
                        latch: job,
                        join: None,
                    };
                    return;
                }
                AimedStep::Done => {
                    self.workers[w].frames[top].stage = Stage::Finish;
                    return;
                }
            }
        }
    }

    /// `Registry::push_aimed` from worker `from` (`aimed::push_aimed_to`).
    fn push_aimed(&mut self, from: usize, aim: Aim, id: JobId) {
        push_aimed_to(&mut self.shared(Some(from)), aim, id);
    }

    /// `run_top` after the pieces returned: the replay record, then what
    /// follows the iterator (inline in the frame).
    pub(super) fn end_iter(&mut self, w: usize, split: u32) {
        let top = self.workers[w].frames.len() - 1;
        let layout = Arc::clone(&self.layout);
        let run = &mut self.splits[split as usize];
        if let Some(key) = run.key {
            let ran = run.ran.clone();
            self.replay.record(key, ran, |x| {
                layout.workers().get(x).map_or(usize::MAX, |p| p.llc)
            });
            run.stats.replay = Some(self.replay.stats());
        }
        self.workers[w].frames[top].stage = Stage::Finish;
        if let Some(node) = run.then {
            let id = self.new_job(node, None, w as u32, None, Kind::Inline);
            self.workers[w].frames.push(Frame {
                job: id,
                stage: Stage::Start,
            });
        }
    }

    /// Counts `work` ns of job `id`, run on `w`, for its piece if it is a
    /// leaf (the items' work; splits are not counted).
    pub(super) fn piece_work(&mut self, w: usize, id: JobId, work: u64) {
        let Some((s, i)) = self.jobs[id as usize].piece else {
            return;
        };
        if self.task(id).body != Body::Leaf {
            return;
        }
        let in_llc = self.workers[w].llc;
        let p = &mut self.splits[s as usize].stats.pieces[i as usize];
        p.work_ns += work;
        if p.llc == in_llc {
            p.in_llc_ns += work;
        }
    }
}
