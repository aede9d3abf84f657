//! `update`: a [`Map`](super::Map) that modifies each item in place.

super::map::mapped_adapter! {
    /// Modifies every item through a closure. Made by
    /// [`ParallelIterator::update`](super::ParallelIterator::update).
    struct Update<I, F> { update_op };
    impl<I, F> where [F: Fn(&mut I::Item) + Sync + Send,];
    item = I::Item;
    map = |op| move |mut x| {
        op(&mut x);
        x
    };
}
