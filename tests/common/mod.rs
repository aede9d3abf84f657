//! Helpers shared by the integration tests: where hwloc's test data is and
//! how to read it (`snapshot`), parsers for hwloc's expected outputs
//! (`hwloc`), and a minimal JSON reader (`json`).
#![allow(dead_code)]

pub mod hwloc;
pub mod json;
pub mod snapshot;
