//! [`Hole`]: one element held outside its slice while its slot is empty.
//!
//! The sequential sorts that move elements by copies (insertion, the
//! partitions) keep exactly one slot logically empty at a time and hold the
//! element that belongs nowhere yet in a `Hole`. Whatever happens next, a
//! comparator's panic included, dropping the `Hole` writes the element into
//! the empty slot, so the slice again holds every element exactly once.

use std::mem::ManuallyDrop;
use std::ptr;

/// An element taken out of a slice; `pos` is the slot that is logically
/// empty. Dropping it writes the element into `pos`.
pub(super) struct Hole<T> {
    /// The empty slot. Whoever moves the hole keeps this up to date
    /// before the next call that may unwind.
    pub(super) pos: *mut T,
    value: ManuallyDrop<T>,
}

impl<T> Hole<T> {
    /// Reads the element at `pos` out, leaving its slot empty.
    ///
    /// # Safety
    /// `pos` must point to an initialized element of a slice that the
    /// caller owns for the life of the `Hole`, and nothing may read `pos`
    /// as an element until the `Hole` fills it (when dropped).
    #[inline]
    pub(super) unsafe fn take(pos: *mut T) -> Self {
        Hole {
            pos,
            // SAFETY: `pos` is initialized (caller); its slot now counts as
            // empty, so the element is owned once, by the hole.
            value: ManuallyDrop::new(unsafe { ptr::read(pos) }),
        }
    }

    /// The element held out of the slice.
    #[inline]
    pub(super) fn value(&self) -> &T {
        &self.value
    }
}

impl<T> Drop for Hole<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `pos` is the one empty slot of the slice, and `value` is
        // the one element missing from it.
        unsafe { ptr::copy_nonoverlapping(&*self.value, self.pos, 1) };
    }
}
