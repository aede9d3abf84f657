//! `par_drain` on a `String` (rayon's `rayon::string`): the iterator type
//! lives in [`crate::str`] and is re-exported here under rayon's path.
//!
//! ```
//! use locus::prelude::*;
//! let mut s = String::from("hello");
//! let it: locus::string::Drain<'_> = s.par_drain(1..3);
//! assert_eq!(it.collect::<String>(), "el");
//! assert_eq!(s, "hlo");
//! ```

pub use crate::str::Drain;
