//! The pipeline of job groups ([`Pipeline`]): items passed through packed
//! stages, one job group per stage. Work figures and data names: the
//! [module docs](super).

use crate::groups::{Affinity, GroupOptions, Placement};

use crate::sim::workload::{Body, Node, Root, Task, Touch, Workload};

use super::common::{id, leaf, read, task, write};

/// A pipeline of `stages` stages, each a job group placed with `Pack`
/// (its jobs go to one LLC, `Affinity::Auto`): `items` items of
/// [`Pipeline::ITEM`] bytes, [`Pipeline::BATCH`] entering every period;
/// stage `s` of an item reads the item (written by stage `s - 1`) and
/// the stage's own state ([`Pipeline::STATE`] bytes: its tables, its
/// model) and writes the item, 1 ns per 16 bytes of the item. Batch
/// `b`'s first stage is injected at `b` periods (a period is twice a
/// stage's work); each stage's task then spawns the item's next stage
/// into the next stage's group ([`Body::Spawn`]), as a program's stage
/// hands its item on. Until the simulator had that spawn, every stage was
/// injected from outside the pool on the same schedule, which is not how
/// a pipeline runs: each `Auto` group learned its LLC from the injectors'
/// round robin, not from where its items were (docs/cache-model.md,
/// "The pipeline's loss").
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Items.
    pub items: u64,
    /// Stages.
    pub stages: u64,
}

impl Pipeline {
    /// Bytes of an item.
    pub const ITEM: u64 = 64 << 10;
    /// Bytes of a stage's state.
    pub const STATE: u64 = 256 << 10;
    /// Items entering per period.
    pub const BATCH: u64 = 8;
    /// Default items.
    pub const ITEMS: u64 = 512;
    /// Default stages.
    pub const STAGES: u64 = 4;
    const KIND: u64 = 6;

    fn work_ns() -> u64 {
        Self::ITEM / 16
    }
}

impl Workload for Pipeline {
    fn name(&self) -> String {
        format!("pipeline:{}:{}", self.items, self.stages)
    }
    // A task is (item, stage, 0).
    fn roots(&self) -> Vec<Root> {
        let period = 2 * Self::work_ns();
        (0..self.items)
            .map(|i| Root {
                at_ns: i / Self::BATCH * period,
                node: Node::new(i, 0, 0),
                group: Some(0),
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupOptions> {
        (0..self.stages)
            .map(|_| GroupOptions {
                placement: Placement::Pack,
                affinity: Affinity::Auto,
            })
            .collect()
    }
    fn task(&self, node: &Node) -> Task {
        let (item, next) = (node.a, node.b + 1);
        if next < self.stages {
            task(
                Self::work_ns(),
                Body::Spawn(Node::new(item, next, 0), next as u32),
            )
        } else {
            leaf(Self::work_ns())
        }
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let (item, stage) = (node.a, node.b);
        let mut t = vec![read(id(Self::KIND, 1, stage), Self::STATE)];
        if stage > 0 {
            t.push(read(id(Self::KIND, 0, item), Self::ITEM));
        }
        t.push(write(id(Self::KIND, 0, item), Self::ITEM));
        t
    }
}
