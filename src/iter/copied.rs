//! `copied`: a [`Map`](super::Map) that dereferences.

super::map::mapped_adapter! {
    /// Copies every borrowed item. Made by
    /// [`ParallelIterator::copied`](super::ParallelIterator::copied).
    struct Copied<I>;
    impl<'a, T, I> where [I: crate::iter::ParallelIterator<Item = &'a T>, T: 'a + Copy + Send,];
    item = T;
    map = |_no_op| |x: &'a T| *x;
}
