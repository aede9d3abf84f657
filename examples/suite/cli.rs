//! The command line: `[--quick] [--scenario NAME]... [--threads N]
//! [--topology SPEC] [--json FILE] [--markdown FILE] [--svg DIR]`, `--help`.
//!
//! Parsing never panics: a bad argument is a [`CliError`] whose message says
//! what to fix; `main` prints it and exits with code 2.

use std::fmt;
use std::path::PathBuf;

/// The scenarios, in the order they run and are reported.
pub const SCENARIOS: [&str; 7] = [
    "stream",
    "working-set",
    "pingpong",
    "partitions",
    "wake",
    "asym",
    "forkjoin",
];

/// What the command line asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    /// Short runs: the whole suite in well under a minute on 2 cores.
    pub quick: bool,
    /// Scenarios to run, in [`SCENARIOS`] order, no repeats; all when none given.
    pub scenarios: Vec<&'static str>,
    /// Workers of every pool (locus, rayon, chili); `None`: one per CPU
    /// (per PU of the virtual topology with `--topology`).
    pub threads: Option<usize>,
    /// A synthetic topology spec for the locus pools (see `Topology::synthetic`).
    pub topology: Option<String>,
    /// Where to write the JSON report.
    pub json: Option<PathBuf>,
    /// Where to write the Markdown report.
    pub markdown: Option<PathBuf>,
    /// Directory for the SVG charts (created if missing).
    pub svg: Option<PathBuf>,
}

/// The result of parsing: run, or print the help.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Run the suite.
    Run(Args),
    /// `--help` / `-h`.
    Help,
}

/// A bad command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\nRun with --help for the usage.", self.0)
    }
}

/// The text printed by `--help`.
pub const HELP: &str = "\
locus benchmark suite: the kernel patches' scenarios, locus against rayon (and chili)

USAGE:
    cargo run --release --example suite -- [OPTIONS]

OPTIONS:
    --quick              short runs (under a minute on 2 cores)
    --scenario NAME      run only this scenario (repeatable); one of:
                         stream, working-set, pingpong, partitions, wake, asym, forkjoin
    --threads N          workers per pool (default: one per CPU, or per PU of --topology)
    --topology SPEC      run the locus pools on a virtual topology, e.g. \"llc:4 cluster:2 core:2\"
                         (workers unpinned; the counters show the policy, times cannot)
    --json FILE          write the full report as JSON (schema: docs/benchmark-suite.md)
    --markdown FILE      write the report as Markdown
    --svg DIR            write SVG charts into DIR (ratios per scenario, steals/wakeups by distance)
    -h, --help           print this help

Configurations: locus, locus-cluster-off, locus-flat, locus-group (where a group option
applies), rayon, chili (forkjoin). Ratios are against rayon measured in the same run;
above 1 means better than rayon.
";

fn value<'a>(flag: &str, it: &mut impl Iterator<Item = &'a str>) -> Result<&'a str, CliError> {
    match it.next() {
        Some(v) if !v.starts_with("--") => Ok(v),
        _ => Err(CliError(format!("{flag} needs a value"))),
    }
}

fn path(flag: &str, v: &str) -> Result<PathBuf, CliError> {
    if v.is_empty() {
        return Err(CliError(format!("{flag}: the path is empty")));
    }
    Ok(PathBuf::from(v))
}

/// Parses the arguments after the program name.
pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Command, CliError> {
    let mut a = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        // `--flag=value` is accepted as well as `--flag value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        let mut val = || -> Result<&'a str, CliError> {
            match inline {
                Some(v) => Ok(v),
                None => value(flag, &mut it),
            }
        };
        match flag {
            "-h" | "--help" => return Ok(Command::Help),
            "--quick" if inline.is_none() => a.quick = true,
            "--scenario" => {
                let v = val()?;
                let name = SCENARIOS.iter().find(|s| **s == v).ok_or_else(|| {
                    CliError(format!(
                        "--scenario {v:?}: unknown; accepted: {}",
                        SCENARIOS.join(", ")
                    ))
                })?;
                if !a.scenarios.contains(name) {
                    a.scenarios.push(name);
                }
            }
            "--threads" => {
                let v = val()?;
                let n: usize = v.parse().map_err(|_| {
                    CliError(format!(
                        "--threads {v:?}: not a number; give a count of at least 1"
                    ))
                })?;
                if n == 0 || n > locus::max_num_threads() {
                    return Err(CliError(format!(
                        "--threads {n}: give a count from 1 to {}",
                        locus::max_num_threads()
                    )));
                }
                a.threads = Some(n);
            }
            "--topology" => {
                let v = val()?;
                locus::Topology::synthetic(v).map_err(|e| CliError(format!("--topology: {e}")))?;
                a.topology = Some(v.to_string());
            }
            "--json" => a.json = Some(path(flag, val()?)?),
            "--markdown" => a.markdown = Some(path(flag, val()?)?),
            "--svg" => a.svg = Some(path(flag, val()?)?),
            _ => return Err(CliError(format!("unknown argument {arg:?}"))),
        }
    }
    a.scenarios
        .sort_by_key(|s| SCENARIOS.iter().position(|x| x == s));
    if a.scenarios.is_empty() {
        a.scenarios = SCENARIOS.to_vec();
    }
    Ok(Command::Run(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Args, CliError> {
        match parse(args.iter().copied())? {
            Command::Run(a) => Ok(a),
            Command::Help => panic!("unexpected help"),
        }
    }

    #[test]
    fn defaults_run_every_scenario() {
        let a = run(&[]).unwrap();
        assert!(!a.quick);
        assert_eq!(a.scenarios, SCENARIOS.to_vec());
        assert_eq!(a.threads, None);
    }

    #[test]
    fn options_parse() {
        let a = run(&[
            "--quick",
            "--scenario",
            "wake",
            "--scenario=stream",
            "--threads",
            "3",
            "--topology",
            "llc:2 core:2",
            "--json",
            "x.json",
            "--markdown=x.md",
            "--svg",
            "d",
        ])
        .unwrap();
        assert!(a.quick);
        assert_eq!(a.scenarios, vec!["stream", "wake"]);
        assert_eq!(a.threads, Some(3));
        assert_eq!(a.topology.as_deref(), Some("llc:2 core:2"));
        assert_eq!(a.json, Some(PathBuf::from("x.json")));
        assert_eq!(a.markdown, Some(PathBuf::from("x.md")));
        assert_eq!(a.svg, Some(PathBuf::from("d")));
        assert_eq!(parse(["--help"]), Ok(Command::Help));
    }

    #[test]
    fn bad_arguments_are_errors_that_say_what_to_fix() {
        for (args, needle) in [
            (&["--scenario", "nope"][..], "accepted: stream"),
            (&["--scenario"][..], "needs a value"),
            (&["--threads", "0"][..], "from 1 to"),
            (&["--threads", "x"][..], "not a number"),
            (&["--topology", "llc:0"][..], "--topology"),
            (&["--json", "--quick"][..], "needs a value"),
            (&["--json="][..], "empty"),
            (&["--frobnicate"][..], "unknown argument"),
            (&["--quick=1"][..], "unknown argument"),
        ] {
            let e = run(args).unwrap_err();
            assert!(e.0.contains(needle), "{args:?}: {e}");
        }
    }
}
