//! Prints a CPU topology as a tree, or as one JSON object.
//!
//! ```text
//! cargo run --example topology -- [--sysfs-root DIR | --synthetic SPEC | --hwloc-xml FILE] [--json]
//! ```
//!
//! Without a source option it detects this machine. Bad input exits with
//! status 2 and a one-line message.

use locus::Topology;
use std::process::ExitCode;

const USAGE: &str =
    "usage: topology [--sysfs-root DIR | --synthetic SPEC | --hwloc-xml FILE] [--json]";

enum From {
    Detect,
    Sysfs(String),
    Synthetic(String),
    HwlocXml(String),
}

fn parse_args(args: &[String]) -> Result<(From, bool), String> {
    let mut from = From::Detect;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next().cloned().ok_or_else(|| format!("{name} needs a value; {USAGE}"))
        };
        let next = match a.as_str() {
            "--json" => {
                json = true;
                continue;
            }
            "--sysfs-root" => From::Sysfs(value(a)?),
            "--synthetic" => From::Synthetic(value(a)?),
            "--hwloc-xml" => From::HwlocXml(value(a)?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        };
        if !matches!(from, From::Detect) {
            return Err(format!("give only one source option; {USAGE}"));
        }
        from = next;
    }
    Ok((from, json))
}

fn load(from: From) -> Result<Topology, String> {
    match from {
        From::Detect => Ok(Topology::detect()),
        From::Sysfs(dir) => Topology::from_sysfs(&dir).map_err(|e| e.to_string()),
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = parse_args(&args).and_then(|(from, json)| Ok((load(from)?, json)));
    match result {
        Ok((t, true)) => {
            println!("{}", t.to_json());
            ExitCode::SUCCESS
        }
        Ok((t, false)) => {
            print!("{t}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("topology: {msg}");
            ExitCode::from(2)
        }
    }
}
