//! The STREAM triad kernel and its chunking, shared by `benches/groups.rs`
//! and the suite's `stream` scenario (`#[path]` include).

/// `a = b + 3 c`, element by element.
pub fn triad(a: &mut [f64], b: &[f64], c: &[f64]) {
    for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
        *x = y + 3.0 * z;
    }
}

/// The three arrays cut in `parts` matching chunks.
pub fn chunks<'a>(
    a: &'a mut [f64],
    b: &'a [f64],
    c: &'a [f64],
    parts: usize,
) -> impl Iterator<Item = (&'a mut [f64], &'a [f64], &'a [f64])> {
    let len = a.len().div_ceil(parts).max(1);
    a.chunks_mut(len)
        .zip(b.chunks(len))
        .zip(c.chunks(len))
        .map(|((x, y), z)| (x, y, z))
}
