//! Prints a CPU topology as a tree, or as one JSON object.
//!
//! ```text
//! cargo run --example topology -- [--sysfs-root DIR | --synthetic SPEC | --hwloc-xml FILE] [--json]
//! cargo run --example topology -- --help
//! ```
//!
//! Without a source option it detects this machine. `--help` prints the
//! usage on stdout and exits with status 0; bad input (an unknown option, a
//! missing directory or file, a malformed spec) exits with status 2 and a
//! message on stderr.

use locus::Topology;
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "\
usage: topology [--sysfs-root DIR | --synthetic SPEC | --hwloc-xml FILE] [--json]

Prints a CPU topology as an indented tree (like lstopo), or as one JSON object.
Without a source option it reads this machine (sysfs on Linux, else hwloc or a
flat machine; the tree's notes say which).

  --sysfs-root DIR   read the Linux sysfs tree under DIR (DIR/sys/devices/system/...),
                     e.g. an extracted hwloc snapshot
  --synthetic SPEC   a virtual machine, e.g. \"numa:2 llc:2 cluster:2 core:4 smt:2\"
  --hwloc-xml FILE   an hwloc XML file (needs --features hwloc)
  --json             print JSON instead of the tree
  -h, --help         print this and exit
";

/// Where the topology comes from.
#[derive(Debug, PartialEq)]
enum From {
    Detect,
    Sysfs(String),
    Synthetic(String),
    HwlocXml(String),
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Command {
    Help,
    Show { from: From, json: bool },
}

/// The first line of [`USAGE`], for error messages.
fn usage_line() -> &'static str {
    USAGE.lines().next().unwrap_or(USAGE)
}

fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut from = From::Detect;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value; {}", usage_line()))
        };
        let next = match a.as_str() {
            "--json" => {
                json = true;
                continue;
            }
            "--sysfs-root" => From::Sysfs(value(a)?),
            "--synthetic" => From::Synthetic(value(a)?),
            "--hwloc-xml" => From::HwlocXml(value(a)?),
            "-h" | "--help" => return Ok(Command::Help),
            other => return Err(format!("unknown argument {other:?}; {}", usage_line())),
        };
        if from != From::Detect {
            return Err(format!("give only one source option; {}", usage_line()));
        }
        from = next;
    }
    Ok(Command::Show { from, json })
}

fn load(from: From) -> Result<Topology, String> {
    match from {
        From::Detect => Ok(Topology::detect()),
        From::Sysfs(dir) => Topology::from_sysfs(&dir).map_err(|e| format!("--sysfs-root: {e}")),
        From::Synthetic(spec) => Topology::synthetic(&spec).map_err(|e| e.to_string()),
        #[cfg(feature = "hwloc")]
        From::HwlocXml(file) => Topology::from_hwloc_xml(&file).map_err(|e| e.to_string()),
        #[cfg(not(feature = "hwloc"))]
        From::HwlocXml(file) => Err(format!(
            "--hwloc-xml needs the `hwloc` feature: \
             cargo run --features hwloc --example topology -- --hwloc-xml {file}"
        )),
    }
}

/// Runs the command line `args`, writing to `out` and `err`; returns the
/// exit status.
fn run(args: &[String], out: &mut impl Write, err: &mut impl Write) -> u8 {
    let shown = parse_args(args).and_then(|cmd| match cmd {
        Command::Help => Ok(USAGE.to_string()),
        Command::Show { from, json } => {
            let t = load(from)?;
            Ok(if json {
                format!("{}\n", t.to_json())
            } else {
                t.to_string()
            })
        }
    });
    let written = match &shown {
        Ok(text) => write!(out, "{text}"),
        Err(msg) => writeln!(err, "topology: {msg}"),
    };
    match (shown, written) {
        (Ok(_), Ok(())) => 0,
        _ => 2,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = run(
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    ExitCode::from(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `args`; returns (status, stdout, stderr).
    fn run_with(args: &[&str]) -> (u8, String, String) {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = run(&args, &mut out, &mut err);
        let text = |v: Vec<u8>| String::from_utf8(v).expect("UTF-8 output");
        (status, text(out), text(err))
    }

    #[test]
    fn help_goes_to_stdout_with_status_0() {
        for flag in ["--help", "-h"] {
            let (status, out, err) = run_with(&[flag]);
            assert_eq!(status, 0, "{flag}: {err}");
            assert!(out.starts_with("usage: topology"), "{out}");
            assert!(out.contains("--sysfs-root DIR"), "{out}");
            assert!(err.is_empty(), "{err}");
        }
    }

    #[test]
    fn a_missing_sysfs_root_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-root");
        let (status, out, err) = run_with(&["--sysfs-root", missing.to_str().unwrap()]);
        assert_eq!(status, 2);
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(missing.to_str().unwrap()), "{err}");
        if cfg!(unix) {
            assert!(err.contains("No such file or directory"), "{err}");
        }
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let (status, _, err) = run_with(&["--sysfs-root", file.to_str().unwrap()]);
        assert_eq!(status, 2);
        assert!(err.contains("not a directory"), "{err}");
    }

    #[test]
    fn bad_arguments_exit_2_with_the_usage_line() {
        for args in [
            &["--bogus"][..],
            &["--synthetic"],
            &["--synthetic", "core:2", "--sysfs-root", "/"],
        ] {
            let (status, out, err) = run_with(args);
            assert_eq!(status, 2, "{args:?}");
            assert!(
                out.is_empty() && err.contains(usage_line()),
                "{args:?}: {err}"
            );
        }
        let (status, _, err) = run_with(&["--synthetic", "core:0"]);
        assert_eq!(status, 2);
        assert!(err.contains("core:0"), "{err}");
    }

    #[test]
    fn synthetic_prints_the_tree_or_json() {
        let (status, out, _) = run_with(&["--synthetic", "llc:2 core:2"]);
        assert_eq!(status, 0);
        assert!(out.contains("LLC #1"), "{out}");
        let (status, out, _) = run_with(&["--synthetic", "llc:2 core:2", "--json"]);
        assert_eq!(status, 0);
        assert!(out.starts_with('{') && out.contains("\"pus\":4"), "{out}");
    }
}
