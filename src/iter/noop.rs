//! The reducer of consumers whose result is `()`.

use super::plumbing::Reducer;

/// Joins two `()` results.
pub(super) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    fn reduce(self, _left: (), _right: ()) {}
}
