//! Job memory: recycled fixed-size blocks for heap jobs.
//!
//! Every `spawn` and `Scope::spawn` puts its closure on the heap, and the
//! job is usually freed by another worker than the one that allocated it
//! (the producer pushes, a thief runs). That producer/consumer pattern is
//! the worst case of a thread-caching `malloc`: the consumer's cache
//! overflows, the producer's runs dry, and both go to the shared arena on
//! nearly every call. Profiles of 100k scope spawns showed about 45% of the
//! time in glibc `malloc`/`free`.
//!
//! This module is the magazine layer of Bonwick and Adams ("Magazines and
//! Vmem", USENIX 2001) in its simplest form, over the global allocator:
//!
//! - A *block* is [`BLOCK_SIZE`] bytes aligned to [`BLOCK_ALIGN`] (the
//!   allocator's natural alignment: an over-aligned layout sends every
//!   allocation that misses the magazines through `memalign`, see
//!   `docs/spawn-cost.md`), allocated with the one layout
//!   [`block_layout`]. Any thread may use or free any block.
//! - A *magazine* is a stack of at most [`MAGAZINE`] free blocks.
//! - Each worker holds two magazines, `loaded` and `previous`
//!   ([`JobCache`]); only that worker's thread touches them, so the fast
//!   path is a push or pop on a local stack, with no atomic operation.
//! - Each LLC has a [`Depot`]: a mutex-protected list of full magazines
//!   and one of empty magazines. A worker goes to its depot only when both
//!   of its magazines are empty (to allocate) or full (to free), so the
//!   lock is taken at most once per [`MAGAZINE`] operations, and the two
//!   halves of a producer/consumer pair trade whole magazines through it.
//!
//! Jobs whose closure does not fit a block (or needs more alignment) and
//! threads outside the pool use the global allocator directly; a block
//! allocated by such a thread can still end up in a worker's magazine,
//! because all blocks share one layout.
//!
//! Invariants:
//! 1. Every pointer held by a magazine or a depot is a block allocated
//!    with [`block_layout`], is not in use by any job, and is held exactly
//!    once (it moves between holders, it is never copied).
//! 2. A worker's [`JobCache`] is only accessed from that worker's thread.
//! 3. Memory is bounded: a worker holds at most `2 * MAGAZINE` blocks; a
//!    depot at most `cap` full magazines (see [`Depot::new`]), extra
//!    blocks go back to the global allocator. Everything still cached is
//!    freed when the worker exits or the pool is dropped.

use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

/// Bytes per block: room for a scope job's closure and its captures.
pub(crate) const BLOCK_SIZE: usize = 64;

/// Alignment of a block: the global allocator's own (16 on 64-bit
/// targets), so that a block from it is a plain `malloc`. A 64-byte
/// alignment made glibc serve every block through `memalign`, which
/// splits and later consolidates chunks: half of the time of 100k scope
/// spawns went there (`docs/spawn-cost.md`).
pub(crate) const BLOCK_ALIGN: usize = 16;

/// Blocks per magazine: the depot lock is taken once per this many
/// allocations or frees at most.
pub(crate) const MAGAZINE: usize = 32;

/// The layout of every block.
#[inline]
pub(crate) fn block_layout() -> Layout {
    // A power of two, and the size is a multiple of the alignment.
    Layout::from_size_align(BLOCK_SIZE, BLOCK_ALIGN).expect("valid block layout")
}

/// Whether a value of type `T` fits a block.
#[inline]
pub(crate) const fn fits<T>() -> bool {
    size_of::<T>() <= BLOCK_SIZE && align_of::<T>() <= BLOCK_ALIGN && size_of::<T>() > 0
}

/// A block from the global allocator (aborts on out-of-memory, as `Box`).
fn alloc_global() -> NonNull<u8> {
    let layout = block_layout();
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc::alloc(layout) };
    NonNull::new(p).unwrap_or_else(|| alloc::handle_alloc_error(layout))
}

/// Returns a block to the global allocator.
///
/// # Safety
/// `block` must be a block (invariant 1) that nobody uses any more.
unsafe fn free_global(block: NonNull<u8>) {
    // SAFETY: allocated with this layout (caller).
    unsafe { alloc::dealloc(block.as_ptr(), block_layout()) }
}

/// A stack of free blocks (capacity [`MAGAZINE`], never reallocated; the
/// `Default` one holds no buffer and only stands in while a magazine is
/// moved through the depot).
#[derive(Default)]
struct Magazine {
    blocks: Vec<NonNull<u8>>,
}

// SAFETY: a magazine owns its blocks (invariant 1): plain memory that no
// other thread references, so moving it to another thread is sound.
unsafe impl Send for Magazine {}

impl Magazine {
    fn empty() -> Self {
        Magazine {
            blocks: Vec::with_capacity(MAGAZINE),
        }
    }

    #[inline]
    fn is_full(&self) -> bool {
        self.blocks.len() == MAGAZINE
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Returns every block to the global allocator.
    fn drain_global(&mut self) {
        for b in self.blocks.drain(..) {
            // SAFETY: held blocks are free blocks (invariant 1).
            unsafe { free_global(b) };
        }
    }
}

impl Drop for Magazine {
    fn drop(&mut self) {
        self.drain_global();
    }
}

/// The magazines of one LLC that no worker holds.
pub(crate) struct Depot {
    inner: Mutex<DepotInner>,
    /// How many full magazines `inner` holds, written under the lock and
    /// read without it: a worker whose magazines ran dry skips the lock
    /// when the depot has nothing for it (a producer that allocates far
    /// ahead of its consumers would otherwise lock once per job).
    full_hint: AtomicUsize,
    /// At most this many full (and this many empty) magazines are kept.
    cap: usize,
}

struct DepotInner {
    full: Vec<Magazine>,
    empty: Vec<Magazine>,
}

impl Depot {
    /// A depot for an LLC of `workers` workers: it keeps up to 16 full
    /// magazines per worker (at least 32): 32 KB of blocks per worker, so
    /// that a scope of up to `512 * workers` spawns (1 024 at least) finds
    /// its blocks here on its next call instead of in the global allocator
    /// (with two per worker, 1k spawns in a 2-thread pool took 1.3 times
    /// rayon's CPU; see `docs/spawn-cost.md`).
    pub(crate) fn new(workers: usize) -> Self {
        Depot {
            inner: Mutex::new(DepotInner {
                full: Vec::new(),
                empty: Vec::new(),
            }),
            full_hint: AtomicUsize::new(0),
            cap: (16 * workers).max(32),
        }
    }

    /// Trades an empty magazine for a full one, if there is one.
    fn exchange_empty(&self, empty: Magazine) -> Result<Magazine, Magazine> {
        if self.full_hint.load(Ordering::Relaxed) == 0 {
            return Err(empty);
        }
        let mut d = self.inner.lock();
        match d.full.pop() {
            Some(full) => {
                self.full_hint.store(d.full.len(), Ordering::Relaxed);
                if d.empty.len() < self.cap {
                    d.empty.push(empty);
                }
                Ok(full)
            }
            None => Err(empty),
        }
    }

    /// Trades a full magazine for an empty one. When the depot already
    /// holds `cap` full magazines, the blocks go back to the global
    /// allocator and the same magazine comes back empty.
    fn exchange_full(&self, mut full: Magazine) -> Magazine {
        let mut d = self.inner.lock();
        if d.full.len() >= self.cap {
            drop(d);
            full.drain_global();
            return full;
        }
        d.full.push(full);
        self.full_hint.store(d.full.len(), Ordering::Relaxed);
        let empty = d.empty.pop();
        drop(d);
        empty.unwrap_or_else(Magazine::empty)
    }
}

/// The two magazines of one worker (invariant 2: only its thread uses
/// them). `RefCell` costs one flag check; the methods never call out, so
/// a borrow can never be held twice.
pub(crate) struct JobCache {
    mags: RefCell<(Magazine, Magazine)>,
}

impl JobCache {
    /// An empty cache; the first allocations come from the global allocator.
    pub(crate) fn new() -> Self {
        JobCache {
            mags: RefCell::new((Magazine::empty(), Magazine::empty())),
        }
    }

    /// A block: from the loaded magazine, else the previous one if full,
    /// else a full magazine of the depot, else the global allocator.
    #[inline]
    pub(crate) fn alloc(&self, depot: &Depot) -> NonNull<u8> {
        let mut m = self.mags.borrow_mut();
        let (loaded, previous) = &mut *m;
        if let Some(b) = loaded.blocks.pop() {
            return b;
        }
        if previous.is_full() {
            std::mem::swap(loaded, previous);
        } else {
            let empty = std::mem::take(previous);
            match depot.exchange_empty(empty) {
                Ok(full) => {
                    // `loaded` is empty: it becomes `previous`.
                    *previous = std::mem::replace(loaded, full);
                }
                Err(empty) => {
                    *previous = empty;
                    return alloc_global();
                }
            }
        }
        loaded.blocks.pop().expect("a full magazine was loaded")
    }

    /// Takes back a block: into the loaded magazine, else the previous one
    /// if empty, else the full previous magazine goes to the depot.
    ///
    /// # Safety
    /// `block` must be a block (invariant 1) that nobody uses any more.
    #[inline]
    pub(crate) unsafe fn free(&self, block: NonNull<u8>, depot: &Depot) {
        let mut m = self.mags.borrow_mut();
        let (loaded, previous) = &mut *m;
        if !loaded.is_full() {
            loaded.blocks.push(block);
            return;
        }
        if previous.is_empty() {
            std::mem::swap(loaded, previous);
        } else {
            let full = std::mem::take(previous);
            let empty = depot.exchange_full(full);
            // `loaded` is full: it becomes `previous`.
            *previous = std::mem::replace(loaded, empty);
        }
        loaded.blocks.push(block);
    }
}

/// Allocates a block for a job created by the worker `cache` (with its
/// LLC's depot), or by a thread outside the pool (`None`).
#[inline]
pub(crate) fn alloc(cache: Option<(&JobCache, &Depot)>) -> NonNull<u8> {
    match cache {
        Some((c, d)) => c.alloc(d),
        None => alloc_global(),
    }
}

/// Frees a block on the worker `cache` or, outside the pool, to the global
/// allocator.
///
/// # Safety
/// `block` must be a block (invariant 1) that nobody uses any more.
#[inline]
pub(crate) unsafe fn free(block: NonNull<u8>, cache: Option<(&JobCache, &Depot)>) {
    match cache {
        // SAFETY: forwarded contract.
        Some((c, d)) => unsafe { c.free(block, d) },
        // SAFETY: forwarded contract.
        None => unsafe { free_global(block) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Frees `blocks` (unused blocks of these tests) into `cache`.
    fn free_all(cache: &JobCache, depot: &Depot, blocks: impl IntoIterator<Item = NonNull<u8>>) {
        for b in blocks {
            // SAFETY: the tests only pass blocks they allocated and no
            // longer use, each once.
            unsafe { cache.free(b, depot) };
        }
    }

    #[test]
    fn blocks_are_reused_through_the_magazines() {
        let depot = Depot::new(1);
        let cache = JobCache::new();
        let first: Vec<_> = (0..10).map(|_| cache.alloc(&depot)).collect();
        let set: HashSet<_> = first.iter().copied().collect();
        assert_eq!(set.len(), 10, "distinct blocks");
        assert!(
            first.iter().all(|b| b.as_ptr() as usize % BLOCK_ALIGN == 0),
            "aligned"
        );
        free_all(&cache, &depot, first);
        let again: HashSet<_> = (0..10).map(|_| cache.alloc(&depot)).collect();
        assert_eq!(again, set, "freed blocks come back");
        free_all(&cache, &depot, again);
    }

    #[test]
    fn producer_and_consumer_trade_magazines_through_the_depot() {
        let depot = Depot::new(2);
        let producer = JobCache::new();
        let consumer = JobCache::new();
        let mut seen = HashSet::new();
        // Round 1: the producer allocates from the global allocator, the
        // consumer frees into its magazines and deposits full ones.
        let n = 10 * MAGAZINE;
        let blocks: Vec<_> = (0..n).map(|_| producer.alloc(&depot)).collect();
        seen.extend(blocks.iter().copied());
        free_all(&consumer, &depot, blocks);
        let full = depot.inner.lock().full.len();
        assert!(
            full >= 1 && full <= depot.cap,
            "full magazines in the depot: {full}"
        );
        // Round 2: the producer's allocations come from deposited blocks.
        let reused: Vec<_> = (0..full * MAGAZINE)
            .map(|_| producer.alloc(&depot))
            .collect();
        assert!(reused.iter().all(|b| seen.contains(b)), "blocks recycled");
        free_all(&consumer, &depot, reused);
    }

    #[test]
    fn depot_keeps_at_most_cap_magazines() {
        let depot = Depot::new(1);
        let cache = JobCache::new();
        let n = (depot.cap + 4) * MAGAZINE;
        free_all(&cache, &depot, (0..n).map(|_| alloc_global()));
        let d = depot.inner.lock();
        assert_eq!(d.full.len(), depot.cap);
        assert!(d.empty.len() <= depot.cap);
    }

    #[test]
    fn fits_checks_size_and_alignment() {
        assert!(fits::<[u8; BLOCK_SIZE]>());
        assert!(!fits::<[u8; BLOCK_SIZE + 1]>());
        assert!(!fits::<()>());
        #[repr(align(512))]
        struct Wide(#[allow(dead_code)] u8);
        assert!(!fits::<Wide>());
        // Small but more aligned than a block: boxed instead.
        #[repr(align(32))]
        struct Aligned(#[allow(dead_code)] u8);
        assert!(!fits::<Aligned>());
    }
}
