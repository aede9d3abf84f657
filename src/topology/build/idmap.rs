//! The hash map of the builder, keyed by ids, pointers and CPU sets.
//!
//! Invariant: the keys come from the kernel or the program, never from an
//! adversary, so a fast non-keyed hash (no flooding resistance) is safe.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of the builder's maps, whose keys are ids, pointers and CPU
/// sets (FxHash's multiply-rotate: several times faster than SipHash here,
/// and the keys come from the kernel or the program, so flooding is not a
/// concern).
#[derive(Default, Clone, Copy)]
pub(super) struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map with [`IdHasher`].
pub(super) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
