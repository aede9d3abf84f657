//! The benchmark suite: the scenarios of the Linux scheduler patches locus
//! is built on, run on your machine, locus side by side with rayon (and
//! chili for fork-join), in the same run.
//!
//! ```text
//! cargo run --release --example suite -- [--quick] [--scenario NAME]... [--threads N]
//!     [--topology SPEC] [--json FILE] [--markdown FILE] [--svg DIR]
//! ```
//!
//! Scenarios (each names the patch result it reproduces): `stream`,
//! `working-set`, `pingpong`, `partitions`, `wake`, `asym`, `forkjoin`; see
//! each module. Configurations: `locus` (defaults), `locus-cluster-off`
//! (`cluster_aware(false)`), `locus-flat` (`StealOrder::Flat`, rayon-like
//! victims), `locus-group` (the scenario's job-group option, where one
//! applies), `rayon`, `chili` (forkjoin). Each case runs its
//! configurations in alternation until every median is stable, the time
//! budget is spent or the round limit is reached (see `measure`). The table
//! goes to stdout, a progress bar to stderr (only on a terminal).
//!
//! # The JSON report (`--json FILE`)
//!
//! ```text
//! {
//!   "machine": { "source", "virtual_topology" (spec or null), "real_cpus", "threads",
//!                "pus", "cores", "clusters", "clusters_reported", "llcs", "numa_nodes",
//!                "packages", "smt_width", "core_kinds": [{"capacity", "cpus"}],
//!                "l2_bytes", "llc_bytes", "size" ("quick" or "full") },
//!   "scenarios": [{
//!     "name": "stream" | "working-set" | "pingpong" | "partitions" | "wake" | "asym" | "forkjoin",
//!     "seed": the kernel patch result it reproduces,
//!     "unit": "GB/s" | "jobs/s" | "round trips/s" | "steps/s" | "ns" | "runs/s",
//!     "better": "higher" | "lower",
//!     "runs": [{ "config": "locus" | "locus-cluster-off" | "locus-flat" | "locus-group"
//!                          | "rayon" | "chili",
//!                "case", "median", "ratio_vs_rayon" (above 1 = better than rayon; null
//!                without a rayon run in the case), "min", "max", "spread_pct",
//!                "samples", "stable" }],
//!     "counters": { "<locus config>": { "jobs_run", "injected",
//!                   "steals": {"same-core","same-cluster","same-llc","same-node","same-package","other-node"},
//!                   "wakeups": {"same-cluster","same-llc","other-llc"}, "parks",
//!                   "groups": [{"id","options","jobs_per_llc","preferred_llc",
//!                               "preference_changes"}],
//!                   optional "replay": {"pieces","same_worker","same_llc"},
//!                   optional "big_share" } },
//!     "comparisons": [{ "case", "unit", "locus", "baseline", "baseline_name", "ratio" }],
//!     "note": what the workload is and what this machine can and cannot show,
//!     "counter_notes": [one line per configuration's counters, with what they cannot show]
//!   }]
//! }
//! ```
//!
//! Configurations per scenario: `locus`, `locus-cluster-off`, `locus-flat`
//! and `rayon` everywhere; `locus-group` in stream, working-set, pingpong
//! and partitions; `chili` in forkjoin ([`expected_configs`]). `.ci/run`
//! checks this on every run of `--quick`, and the tests below on a report
//! built from every scenario's code path.

mod asym;
mod charts;
mod cli;
// The benches' shared inputs (the same pseudo-random data).
#[path = "../../benches/common/mod.rs"]
mod common;
mod env;
mod forkjoin;
mod measure;
mod partitions;
mod pingpong;
mod report;
mod stream;
mod wake;
mod working_set;

use std::process::ExitCode;

use cli::Command;
use env::Env;
use report::{Report, Scenario};

/// The configurations each scenario reports, by scenario name.
pub fn expected_configs(scenario: &str) -> &'static [&'static str] {
    const BASE: [&str; 4] = ["locus", "locus-cluster-off", "locus-flat", "rayon"];
    match scenario {
        "stream" | "working-set" | "pingpong" | "partitions" => &[
            "locus",
            "locus-cluster-off",
            "locus-flat",
            "locus-group",
            "rayon",
        ],
        "forkjoin" => &["locus", "locus-cluster-off", "locus-flat", "rayon", "chili"],
        _ => &BASE,
    }
}

fn run_one(name: &str, env: &Env) -> Result<Scenario, String> {
    match name {
        "stream" => stream::run(env),
        "working-set" => working_set::run(env),
        "pingpong" => pingpong::run(env),
        "partitions" => partitions::run(env),
        "wake" => wake::run(env),
        "asym" => asym::run(env),
        "forkjoin" => forkjoin::run(env),
        other => Err(format!("no scenario {other:?}")),
    }
}

fn write(path: &std::path::Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = match cli::parse(args.iter().map(String::as_str)) {
        Ok(Command::Help) => {
            print!("{}", cli::HELP);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(a)) => a,
        Err(e) => {
            eprintln!("suite: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = measure::progress(a.scenarios.len());
    let env = Env::new(a.quick, a.threads, a.topology.clone(), progress);
    let mut report = Report {
        machine: env.machine(),
        scenarios: Vec::new(),
    };
    for name in &a.scenarios {
        env.progress.set_message(name.to_string());
        match run_one(name, &env) {
            Ok(s) => report.scenarios.push(s),
            Err(e) => {
                env.progress.finish_and_clear();
                eprintln!("suite: {name}: {e}");
                return ExitCode::from(2);
            }
        }
        env.progress.inc(1);
    }
    env.progress.finish_and_clear();
    println!("{}", report::text(&report));
    let outputs = || -> Result<(), String> {
        if let Some(p) = &a.json {
            let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
            write(p, &text)?;
        }
        if let Some(p) = &a.markdown {
            write(p, &report::markdown(&report))?;
        }
        if let Some(d) = &a.svg {
            charts::write_all(&report, d)?;
        }
        Ok(())
    };
    match outputs() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("suite: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Runs every scenario at the smallest size on a 2-worker virtual
    /// topology of 2 LLCs, and checks the JSON against the documented
    /// schema: a schema change must update the docs, `docs/benchmark-suite.md` and `.ci/run`.
    #[test]
    fn every_scenario_reports_every_configuration_in_the_documented_schema() {
        let env = Env::tiny();
        let mut report = Report {
            machine: env.machine(),
            scenarios: Vec::new(),
        };
        for name in cli::SCENARIOS {
            report.scenarios.push(run_one(name, &env).unwrap());
        }
        let v: Value = serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
        for k in ["source", "threads", "pus", "llcs", "clusters", "core_kinds"] {
            assert!(v["machine"].get(k).is_some(), "machine.{k}");
        }
        let scenarios = v["scenarios"].as_array().unwrap();
        assert_eq!(scenarios.len(), cli::SCENARIOS.len());
        for (s, name) in scenarios.iter().zip(cli::SCENARIOS) {
            assert_eq!(s["name"], name);
            for k in ["seed", "unit", "better", "note"] {
                assert!(s[k].as_str().is_some_and(|x| !x.is_empty()), "{name}.{k}");
            }
            let runs = s["runs"].as_array().unwrap();
            for cfg in expected_configs(name) {
                assert!(
                    runs.iter().any(|r| r["config"] == *cfg),
                    "{name}: no {cfg} run"
                );
            }
            for r in runs {
                assert!(r["median"].as_f64().is_some_and(|m| m > 0.0), "{name}: {r}");
                for k in ["case", "min", "max", "spread_pct", "samples", "stable"] {
                    assert!(r.get(k).is_some(), "{name}: run without {k}");
                }
                assert!(
                    r["ratio_vs_rayon"].as_f64().is_some() || r["config"] == "chili",
                    "{name}: {r}"
                );
            }
            let counters = s["counters"].as_object().unwrap();
            for cfg in expected_configs(name)
                .iter()
                .filter(|c| c.starts_with("locus"))
            {
                let c = &counters[*cfg];
                assert!(
                    c["steals"]["same-llc"].is_u64() && c["wakeups"]["other-llc"].is_u64(),
                    "{name}/{cfg}"
                );
                assert!(
                    c["jobs_run"].as_u64().is_some_and(|j| j > 0),
                    "{name}/{cfg}: no jobs counted"
                );
            }
            assert!(s["counter_notes"].as_array().is_some_and(|n| !n.is_empty()));
        }
        let md = report::markdown(&report);
        assert!(md.starts_with("| scenario | case | config |"));
        let dir = std::env::temp_dir().join(format!("locus-suite-test-{}", std::process::id()));
        charts::write_all(&report, &dir).unwrap();
        assert!(
            std::fs::read_to_string(dir.join("stream.svg"))
                .unwrap()
                .contains("<svg")
        );
        assert!(dir.join("distances.svg").exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
