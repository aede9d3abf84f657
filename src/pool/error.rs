//! [`BuildError`]: why a pool could not be built.

use std::fmt;
use std::io;

use crate::TopologyError;
use crate::layout::LayoutError;

/// Why [`crate::ThreadPoolBuilder::build`] or
/// [`crate::ThreadPoolBuilder::build_global`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// An environment variable holds a value that is not accepted.
    Env {
        /// The variable, e.g. `LOCUS_NUM_THREADS`.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is accepted.
        accepted: &'static str,
    },
    /// The synthetic topology in `LOCUS_TOPOLOGY` does not parse.
    Topology(TopologyError),
    /// The layout could not be computed (e.g. zero threads).
    Layout(LayoutError),
    /// A worker thread could not be started.
    Spawn {
        /// The worker index.
        index: usize,
        /// The error from the OS.
        error: io::Error,
    },
    /// `build_global` was called after the global pool already existed
    /// (built explicitly, or implicitly by a free function such as `join`).
    GlobalAlreadyInitialized,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Env {
                var,
                value,
                accepted,
            } => {
                write!(
                    f,
                    "environment variable {var}={value:?} is invalid; accepted: {accepted}"
                )
            }
            BuildError::Topology(e) => write!(f, "LOCUS_TOPOLOGY: {e}"),
            BuildError::Layout(e) => write!(f, "cannot lay out the pool: {e}"),
            BuildError::Spawn { index, error } => {
                write!(f, "cannot start worker thread {index}: {error}")
            }
            BuildError::GlobalAlreadyInitialized => write!(
                f,
                "the global pool is already initialized (call build_global before any \
                 locus::join/scope/spawn/current_num_threads that uses the global pool)"
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Topology(e) => Some(e),
            BuildError::Layout(e) => Some(e),
            BuildError::Spawn { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<LayoutError> for BuildError {
    fn from(e: LayoutError) -> Self {
        BuildError::Layout(e)
    }
}

impl From<TopologyError> for BuildError {
    fn from(e: TopologyError) -> Self {
        BuildError::Topology(e)
    }
}
