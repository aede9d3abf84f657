//! The traits to import for parallel iterators: `use locus::prelude::*;`
//! (the same set as `rayon::prelude`).
//!
//! ```
//! use locus::prelude::*;
//! let v = vec![3, 1, 2];
//! assert_eq!(v.par_iter().map(|x| x * 2).max(), Some(6));
//! ```

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
