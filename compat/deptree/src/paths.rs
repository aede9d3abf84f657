//! Every public path of rayon 1.12 and rayon-core 1.13, imported through
//! the shims: this module compiles only if each one resolves (a path the
//! shims lose is a compile error of the CI step that builds this crate).
//! The names are those of rayon's and rayon-core's documentation (their
//! `all.html`), one module per rayon module, and rayon's prelude.
#![allow(unused_imports, deprecated)]

mod rayon_root {
    use rayon::{
        BroadcastContext, FnContext, Scope, ScopeFifo, ThreadBuilder, ThreadPool,
        ThreadPoolBuildError, ThreadPoolBuilder, Yield, broadcast, current_num_threads,
        current_thread_index, in_place_scope, in_place_scope_fifo, join, join_context,
        max_num_threads, scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo, yield_local,
        yield_now,
    };
}

mod rayon_array {
    use rayon::array::IntoIter;
}

mod rayon_collections_binary_heap {
    use rayon::collections::binary_heap::{Drain, IntoIter, Iter};
}

mod rayon_collections_btree_map {
    use rayon::collections::btree_map::{IntoIter, Iter, IterMut};
}

mod rayon_collections_btree_set {
    use rayon::collections::btree_set::{IntoIter, Iter};
}

mod rayon_collections_hash_map {
    use rayon::collections::hash_map::{Drain, IntoIter, Iter, IterMut};
}

mod rayon_collections_hash_set {
    use rayon::collections::hash_set::{Drain, IntoIter, Iter};
}

mod rayon_collections_linked_list {
    use rayon::collections::linked_list::{IntoIter, Iter, IterMut};
}

mod rayon_collections_vec_deque {
    use rayon::collections::vec_deque::{Drain, IntoIter, Iter, IterMut};
}

mod rayon_iter {
    use rayon::iter::{
        Chain, Chunks, Cloned, Copied, Either, Empty, Enumerate, ExponentialBlocks, Filter,
        FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldChunks, FoldChunksWith,
        FoldWith, FromParallelIterator, IndexedParallelIterator, Inspect, Interleave,
        InterleaveShortest, Intersperse, IntoParallelIterator, IntoParallelRefIterator,
        IntoParallelRefMutIterator, IterBridge, Map, MapInit, MapWith, MaxLen, MinLen, MultiZip,
        Once, PanicFuse, ParallelBridge, ParallelDrainFull, ParallelDrainRange, ParallelExtend,
        ParallelIterator, Positions, Repeat, RepeatN, Rev, Skip, SkipAny, SkipAnyWhile, Split,
        StepBy, Take, TakeAny, TakeAnyWhile, TryFold, TryFoldWith, UniformBlocks, Update, WalkTree,
        WalkTreePostfix, WalkTreePrefix, WhileSome, Zip, ZipEq, empty, once, repeat, repeat_n,
        repeatn, split, walk_tree, walk_tree_postfix, walk_tree_prefix,
    };
}

mod rayon_iter_plumbing {
    use rayon::iter::plumbing::{
        Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
        UnindexedProducer, bridge, bridge_producer_consumer, bridge_unindexed,
    };
}

mod rayon_option {
    use rayon::option::{IntoIter, Iter, IterMut};
}

mod rayon_range {
    use rayon::range::Iter;
}

mod rayon_range_inclusive {
    use rayon::range_inclusive::Iter;
}

mod rayon_result {
    use rayon::result::{IntoIter, Iter, IterMut};
}

mod rayon_slice {
    use rayon::slice::{
        ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact, ChunksExactMut, ChunksMut, Iter,
        IterMut, ParallelSlice, ParallelSliceMut, RChunks, RChunksExact, RChunksExactMut,
        RChunksMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
    };
}

mod rayon_str {
    use rayon::str::{
        Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString,
        Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
    };
}

mod rayon_string {
    use rayon::string::Drain;
}

mod rayon_vec {
    use rayon::vec::{Drain, IntoIter};
}

mod rayon_core_root {
    use rayon_core::{
        BroadcastContext, Configuration, FnContext, Scope, ScopeFifo, ThreadBuilder, ThreadPool,
        ThreadPoolBuildError, ThreadPoolBuilder, Yield, broadcast, current_num_threads,
        current_thread_has_pending_tasks, current_thread_index, in_place_scope,
        in_place_scope_fifo, initialize, join, join_context, max_num_threads, scope, scope_fifo,
        spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now,
    };
}

mod rayon_prelude {
    use rayon::prelude::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
        ParallelString,
    };
}
