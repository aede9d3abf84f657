use locus::prelude::*;

#[test]
fn smoke() {
    let v: Vec<u64> = (0..100_000u64).into_par_iter().map(|x| x * 2).collect();
    assert_eq!(v.len(), 100_000);
    assert!(v.iter().enumerate().all(|(i, &x)| x == 2 * i as u64));
    let s: u64 = v.par_iter().sum();
    assert_eq!(s, v.iter().sum());
    assert_eq!((0..1000).into_par_iter().filter(|x| x % 3 == 0).count(), 334);
    let w: Vec<i32> = (0..10).into_par_iter().rev().skip(2).take(5).collect();
    assert_eq!(w, [7, 6, 5, 4, 3]);
    assert_eq!((0..1_000_000).into_par_iter().find_first(|&x| x > 500_000), Some(500_001));
    assert_eq!((0..1_000_000).into_par_iter().find_last(|&x| x < 500_000), Some(499_999));
}
