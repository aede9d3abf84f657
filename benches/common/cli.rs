//! Command-line values the paired benches share (`#[path]` include).

/// The value of `bench`'s `--pairs` option: a positive number, or the
/// bench exits with status 2 and says what it needs.
pub fn pairs(bench: &str, value: Option<String>) -> usize {
    match value.and_then(|n| n.parse().ok()).filter(|&n| n > 0) {
        Some(n) => n,
        None => {
            eprintln!("{bench}: --pairs needs a positive number");
            std::process::exit(2);
        }
    }
}
