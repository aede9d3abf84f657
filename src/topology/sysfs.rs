//! Linux sysfs reader (placeholder: being written).
use super::{Topology, TopologyError};
use std::path::Path;

pub(super) fn read(root: &Path, _this_process: bool) -> Result<Topology, TopologyError> {
    Err(TopologyError::NoPus { source: format!("sysfs:{}", root.display()) })
}
