//! The environment variables of the builder: how each is read, and what an
//! invalid value gives.
//!
//! | variable | accepted values | meaning |
//! |---|---|---|
//! | `LOCUS_NUM_THREADS` | a non-negative integer (`0` = default) | number of workers |
//! | `RAYON_NUM_THREADS` | as rayon: a non-negative integer (`0` = default), anything else ignored | number of workers, when `LOCUS_NUM_THREADS` is unset |
//! | `RAYON_RS_NUM_CPUS` | as rayon (deprecated there): a positive integer, anything else ignored | number of workers, when neither of the above gives one |
//! | `LOCUS_PINNING` | `cluster`, `core`, `cpu`, `none` | pinning granularity |
//! | `LOCUS_TOPOLOGY` | a synthetic spec, e.g. `llc:2 core:4` | run a virtual pool on this topology |
//! | `LOCUS_CLUSTER` | `0`, `1` | cluster awareness off/on |
//! | `LOCUS_CPUS` | a cpulist of allowed CPUs, e.g. `0-7,16-23` | workers only on these CPUs (as [`crate::ThreadPoolBuilder::cpus`]) |
//! | `LOCUS_SMT` | `0`, `1` | `0`: one worker per core, SMT siblings left out |
//!
//! Rules:
//! - a `LOCUS_*` variable that is empty (or blank) counts as unset; any
//!   other value that is not accepted, including one that is not valid
//!   UTF-8, is an error naming the variable and what it accepts
//!   ([`BuildError::Env`], or [`BuildError::Topology`] for a spec that does
//!   not parse): a typo must not silently give a pool of another shape;
//! - the `RAYON_*` variables are read exactly as rayon-core 1.13 reads
//!   them (`default_num_threads` in its `lib.rs`): the value must parse as
//!   a `usize` as it is (no trimming); `RAYON_NUM_THREADS=0` means the
//!   default, and then `RAYON_RS_NUM_CPUS` is not read; a value that does
//!   not parse (not a number, not UTF-8, empty) is ignored, and
//!   `RAYON_RS_NUM_CPUS` is read instead, where only a positive number
//!   counts. A program that ran on rayon gets the same pool size;
//! - `LOCUS_NUM_THREADS`, when set, decides alone (`0`: the default).

use std::ffi::OsString;

use crate::runtime::error::BuildError;

/// How the builder reads the environment: the process's
/// ([`process_env`]), or a test's table.
pub(crate) type Lookup<'a> = dyn Fn(&str) -> Option<OsString> + 'a;

/// The process environment.
pub(crate) fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// What `LOCUS_NUM_THREADS` accepts.
const NUM_THREADS_ACCEPTED: &str = "a non-negative integer (0 = one worker per allowed CPU)";

/// The value of `LOCUS_*` variable `var`: `None` if unset or blank, an
/// error naming `accepted` if it is not valid UTF-8.
pub(crate) fn locus_var(
    env: &Lookup<'_>,
    var: &'static str,
    accepted: &'static str,
) -> Result<Option<String>, BuildError> {
    match env(var).map(OsString::into_string) {
        None => Ok(None),
        Some(Ok(v)) if v.trim().is_empty() => Ok(None),
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(raw)) => Err(BuildError::Env {
            var,
            value: raw.to_string_lossy().into_owned(),
            accepted,
        }),
    }
}

/// A `RAYON_*` count as rayon reads it: the value parsed as it is, `None`
/// when unset or when it does not parse.
fn rayon_count(env: &Lookup<'_>, var: &str) -> Option<usize> {
    env(var)?.into_string().ok()?.parse().ok()
}

/// The thread count the environment asks for (`None`: the default), and
/// the variable it came from (see the module docs for the precedence).
pub(crate) fn num_threads(env: &Lookup<'_>) -> Result<Option<(usize, &'static str)>, BuildError> {
    const LOCUS: &str = "LOCUS_NUM_THREADS";
    if let Some(v) = locus_var(env, LOCUS, NUM_THREADS_ACCEPTED)? {
        let n: usize = v.trim().parse().map_err(|_| BuildError::Env {
            var: LOCUS,
            value: v.clone(),
            accepted: NUM_THREADS_ACCEPTED,
        })?;
        return Ok((n != 0).then_some((n, LOCUS)));
    }
    Ok(match rayon_count(env, "RAYON_NUM_THREADS") {
        Some(0) => None,
        Some(n) => Some((n, "RAYON_NUM_THREADS")),
        None => rayon_count(env, "RAYON_RS_NUM_CPUS")
            .filter(|&n| n != 0)
            .map(|n| (n, "RAYON_RS_NUM_CPUS")),
    })
}

/// The variable that sets the thread count, if one does (for the global
/// pool's fallback, which drops it when that count cannot be built).
pub(crate) fn count_source(env: &Lookup<'_>) -> Option<&'static str> {
    match num_threads(env) {
        Ok(n) => n.map(|(_, var)| var),
        // An invalid LOCUS_NUM_THREADS is reported as such (`BuildError::Env`).
        Err(_) => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An environment holding only `pairs`.
    pub(crate) fn env_of<'a>(
        pairs: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    /// An environment where `var` holds bytes that are not UTF-8.
    #[cfg(unix)]
    pub(crate) fn not_utf8(var: &'static str) -> impl Fn(&str) -> Option<OsString> {
        use std::os::unix::ffi::OsStringExt;
        move |k| (k == var).then(|| OsString::from_vec(b"4\xff".to_vec()))
    }

    fn count(pairs: &[(&str, &str)]) -> Option<usize> {
        num_threads(&env_of(pairs)).unwrap().map(|(n, _)| n)
    }

    #[test]
    fn rayon_variables_are_read_as_rayon_reads_them() {
        const RNT: &str = "RAYON_NUM_THREADS";
        const RRS: &str = "RAYON_RS_NUM_CPUS";
        assert_eq!(count(&[(RNT, "3")]), Some(3));
        assert_eq!(count(&[(RRS, "5")]), Some(5));
        assert_eq!(
            count(&[(RNT, "3"), (RRS, "5")]),
            Some(3),
            "the new name wins"
        );
        // Zero means the default, without a look at the old name.
        assert_eq!(count(&[(RNT, "0"), (RRS, "5")]), None);
        // What does not parse is ignored, and the old name is read.
        for bad in ["lots", "-2", " 3", "3 ", ""] {
            assert_eq!(count(&[(RNT, bad), (RRS, "5")]), Some(5), "{bad:?}");
        }
        assert_eq!(count(&[(RRS, "0")]), None);
        assert_eq!(count(&[(RRS, "x")]), None);
        // LOCUS_NUM_THREADS decides alone when set.
        assert_eq!(count(&[("LOCUS_NUM_THREADS", "0"), (RNT, "3")]), None);
        assert_eq!(count(&[("LOCUS_NUM_THREADS", " 4 "), (RNT, "3")]), Some(4));
        assert_eq!(count(&[("LOCUS_NUM_THREADS", " "), (RNT, "3")]), Some(3));
    }

    #[test]
    fn count_source_names_the_variable_that_took_effect() {
        let src = |pairs: &[(&str, &str)]| count_source(&env_of(pairs));
        assert_eq!(
            src(&[("RAYON_NUM_THREADS", "x"), ("RAYON_RS_NUM_CPUS", "9")]),
            Some("RAYON_RS_NUM_CPUS")
        );
        assert_eq!(
            src(&[("RAYON_NUM_THREADS", "9")]),
            Some("RAYON_NUM_THREADS")
        );
        assert_eq!(
            src(&[("LOCUS_NUM_THREADS", "9")]),
            Some("LOCUS_NUM_THREADS")
        );
        assert_eq!(src(&[("LOCUS_NUM_THREADS", "0")]), None);
        assert_eq!(src(&[]), None);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_values_are_invalid_for_locus_and_ignored_for_rayon() {
        let e = num_threads(&not_utf8("LOCUS_NUM_THREADS")).unwrap_err();
        match e {
            BuildError::Env { var, value, .. } => {
                assert_eq!(var, "LOCUS_NUM_THREADS");
                assert_eq!(value, "4\u{fffd}");
            }
            e => panic!("unexpected {e:?}"),
        }
        assert!(
            num_threads(&not_utf8("RAYON_NUM_THREADS"))
                .unwrap()
                .is_none()
        );
        assert!(
            num_threads(&not_utf8("RAYON_RS_NUM_CPUS"))
                .unwrap()
                .is_none()
        );
    }
}
