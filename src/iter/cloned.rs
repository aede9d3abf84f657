//! `cloned`: a [`Map`](super::Map) with `Clone::clone`.

super::map::mapped_adapter! {
    /// Clones every borrowed item. Made by
    /// [`ParallelIterator::cloned`](super::ParallelIterator::cloned).
    struct Cloned<I>;
    impl<'a, T, I> where [I: crate::iter::ParallelIterator<Item = &'a T>, T: 'a + Clone + Send,];
    item = T;
    map = |_no_op| |x: &'a T| x.clone();
}
