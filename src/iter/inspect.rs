//! `inspect`: a [`Map`](super::Map) that shows each item to a closure.

super::map::mapped_adapter! {
    /// Calls a closure on a reference to every item. Made by
    /// [`ParallelIterator::inspect`](super::ParallelIterator::inspect).
    struct Inspect<I, OP> { inspect_op };
    impl<I, OP> where [OP: Fn(&I::Item) + Sync + Send,];
    item = I::Item;
    map = |op| move |x| {
        op(&x);
        x
    };
}
