//! The simulator's error for a simulation that cannot be set up
//! ([`SimError`]): an unknown policy, a layout that cannot be built, a
//! workload group the machine does not have.

use std::fmt;

/// A simulation that could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimError(pub String);

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimError {}
