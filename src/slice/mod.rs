pub(crate) mod sort;
