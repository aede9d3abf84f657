//! Command-line values the paired benches share (`#[path]` include).

/// The most pairs or runs a bench takes: far more than any spread needs,
/// and small enough that the counts derived from it (pairs raised to an
/// even number, batches times calls) cannot overflow.
pub const MAX_COUNT: usize = 1_000_000;

/// The value of `bench`'s option `flag` (`--pairs`, `--runs`): a number
/// from 1 to [`MAX_COUNT`], or the bench exits with status 2 and says what
/// it needs.
pub fn count(bench: &str, flag: &str, value: Option<String>) -> usize {
    match value
        .and_then(|n| n.parse().ok())
        .filter(|n| (1..=MAX_COUNT).contains(n))
    {
        Some(n) => n,
        None => {
            eprintln!("{bench}: {flag} needs a number from 1 to {MAX_COUNT}");
            std::process::exit(2);
        }
    }
}

/// [`count`] for `--pairs`.
#[allow(dead_code)]
pub fn pairs(bench: &str, value: Option<String>) -> usize {
    count(bench, "--pairs", value)
}
