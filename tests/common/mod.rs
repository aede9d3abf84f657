//! Helpers shared by the integration tests: hwloc's expected-output parsers
//! and a minimal JSON reader.
#![allow(dead_code)]

pub mod hwloc;
pub mod json;
pub mod snapshot;
