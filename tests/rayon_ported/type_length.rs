//! The long adapter chains of rayon's `tests/issue671.rs` and
//! `tests/issue671-unzip.rs` (six `map`s into a `Result` collect;
//! `enumerate` into a nested `unzip`) build and give the right results.
//! rayon's versions also set a small `type_length_limit`, which today's
//! rustc no longer enforces (it needs `-Zenforce-type-length-limit`), so
//! the limit is left out here.

use locus::prelude::*;

#[test]
fn six_maps_into_a_result() {
    let r: Result<(), ()> = Vec::<Result<(), ()>>::new()
        .into_par_iter()
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .collect();
    assert_eq!(r, Ok(()));
}

#[test]
fn enumerate_into_a_nested_unzip() {
    let input = vec![1, 2, 3, 4, 5];
    let (indexes, (squares, cubes)): (Vec<usize>, (Vec<i32>, Vec<i32>)) = input
        .par_iter()
        .map(|x| (x * x, x * x * x))
        .enumerate()
        .unzip();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
    assert_eq!(squares, [1, 4, 9, 16, 25]);
    assert_eq!(cubes, [1, 8, 27, 64, 125]);
}
