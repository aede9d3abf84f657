//! Helpers shared by the integration tests: hwloc's expected-output parsers,
//! a minimal JSON reader, and a deadline that turns a hang into a failure.
#![allow(dead_code)]

pub mod deadline;
pub mod hwloc;
pub mod json;
pub mod snapshot;
