//! Helpers shared by the integration tests: the pools, `fib` and the
//! bounded wait they use (`work`), where hwloc's test data is and how to
//! extract it (`fixtures`) and read it (`snapshot`), parsers for hwloc's
//! expected outputs (`hwloc`), a minimal JSON reader (`json`), seeded
//! random numbers for the random tests (`rng`), steal tiers
//! as plain values (`tiers`), and a deadline that turns a hang into a
//! failure (`deadline`).
#![allow(dead_code)]

pub mod deadline;
pub mod fixtures;
pub mod hwloc;
pub mod json;
pub mod rng;
pub mod snapshot;
pub mod tiers;
pub mod work;
