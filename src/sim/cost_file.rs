//! The cost model's parameters by name: the `key = value` file format
//! ([`CostModel::parse`], [`CostModel::with`], [`CostModel::from_file`],
//! [`CostModel::to_text`], errors as [`CostError`]) and the perturbation
//! of every parameter for repeated runs ([`CostModel::perturbed`]).
//!
//! Invariants: a parsed value is finite and non-negative, and the
//! bandwidths a price divides by are positive; `FIELDS` names every
//! parameter once, and its order is fixed (`perturbed` draws each
//! parameter's factor by its index, so a new parameter goes last and the
//! factors of the others stay those of earlier runs).

use std::fmt;
use std::path::Path;

use super::cost::CostModel;

impl CostModel {
    /// This model with every parameter scaled by its own factor, drawn
    /// uniformly from `1 ± pct / 100` by `seed` (the same seed gives the
    /// same factors); `pct` 0 gives the model unchanged. `pct` is clamped
    /// to 0..=99, so every cost stays positive.
    pub fn perturbed(&self, pct: f64, seed: u64) -> CostModel {
        let pct = if pct.is_finite() {
            pct.clamp(0.0, 99.0)
        } else {
            0.0
        };
        let mut m = self.clone();
        if pct == 0.0 {
            return m;
        }
        for (i, k) in FIELDS.iter().enumerate() {
            // The line size is the hardware's, not an uncertain cost.
            if *k == "line_bytes" {
                continue;
            }
            let r = crate::sim::workload::mix(mix_seed(seed) ^ (i as u64 + 1));
            // 53 random bits as a number in [-1, 1).
            let u = (r >> 11) as f64 / (1u64 << 52) as f64 - 1.0;
            if let Some(v) = m.field(k) {
                *v *= 1.0 + pct / 100.0 * u;
            }
        }
        m
    }

    /// The default model with the `key = value` lines of `text` applied.
    ///
    /// # Errors
    /// An unknown key, a value that is not a non-negative number, or a
    /// line without `=`: the error names the line.
    pub fn parse(text: &str) -> Result<CostModel, CostError> {
        CostModel::default().with(text)
    }

    /// This model with the `key = value` lines of `text` applied.
    ///
    /// # Errors
    /// As [`CostModel::parse`].
    pub fn with(mut self, text: &str) -> Result<CostModel, CostError> {
        let m = &mut self;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |message: String| CostError {
                line: i + 1,
                message,
            };
            let (k, v) = line
                .split_once('=')
                .ok_or_else(|| err(format!("expected `key = value`, found `{line}`")))?;
            let (k, v) = (k.trim(), v.trim());
            let value: f64 = v
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| err(format!("`{k}`: `{v}` is not a non-negative number")))?;
            let slot = m.field(k).ok_or_else(|| {
                err(format!(
                    "unknown key `{k}`; the keys are: {}",
                    FIELDS.join(", ")
                ))
            })?;
            in_range(k, value).map_err(|e| err(format!("`{k}`: `{v}` {e}")))?;
            *slot = value;
        }
        if [
            m.bw_llc,
            m.bw_node,
            m.bw_remote,
            m.bw_cluster,
            m.bw_dram,
            m.bw_dram_remote,
        ]
        .contains(&0.0)
        {
            return Err(CostError {
                line: 0,
                message: "bandwidths (bw_llc, bw_node, bw_remote, bw_cluster, bw_dram, \
                          bw_dram_remote) must be positive"
                    .into(),
            });
        }
        Ok(self)
    }

    /// [`CostModel::parse`] of a file.
    ///
    /// # Errors
    /// As `parse`, or the file cannot be read.
    pub fn from_file(path: impl AsRef<Path>) -> Result<CostModel, CostError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| CostError {
            line: 0,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        CostModel::parse(&text)
    }

    /// The parameters as `key = value` lines (the file format).
    pub fn to_text(&self) -> String {
        let mut m = self.clone();
        FIELDS
            .iter()
            .map(|k| format!("{k} = {}\n", m.field(k).map_or(0.0, |v| *v)))
            .collect()
    }

    fn field(&mut self, key: &str) -> Option<&mut f64> {
        Some(match key {
            "line_smt_ns" => &mut self.line_smt_ns,
            "line_cluster_ns" => &mut self.line_cluster_ns,
            "line_llc_ns" => &mut self.line_llc_ns,
            "line_node_ns" => &mut self.line_node_ns,
            "line_remote_ns" => &mut self.line_remote_ns,
            "bw_llc" => &mut self.bw_llc,
            "bw_node" => &mut self.bw_node,
            "bw_remote" => &mut self.bw_remote,
            "bw_cluster" => &mut self.bw_cluster,
            "l2_bytes" => &mut self.l2_bytes,
            "llc_bytes" => &mut self.llc_bytes,
            "dram_ns" => &mut self.dram_ns,
            "dram_remote_ns" => &mut self.dram_remote_ns,
            "bw_dram" => &mut self.bw_dram,
            "bw_dram_remote" => &mut self.bw_dram_remote,
            "bw_dram_package" => &mut self.bw_dram_package,
            "bw_llc_link" => &mut self.bw_llc_link,
            "bw_socket_link" => &mut self.bw_socket_link,
            "job_lines" => &mut self.job_lines,
            "line_bytes" => &mut self.line_bytes,
            "steal_ns" => &mut self.steal_ns,
            "probe_ns" => &mut self.probe_ns,
            "push_ns" => &mut self.push_ns,
            "pop_ns" => &mut self.pop_ns,
            "private_ns" => &mut self.private_ns,
            "fence_ns" => &mut self.fence_ns,
            "idle_word_ns" => &mut self.idle_word_ns,
            "heavy_fence_ns" => &mut self.heavy_fence_ns,
            "fence_interrupt_ns" => &mut self.fence_interrupt_ns,
            "fence_target_ns" => &mut self.fence_target_ns,
            "spin_ns" => &mut self.spin_ns,
            "yield_ns" => &mut self.yield_ns,
            "wake_ns" => &mut self.wake_ns,
            "park_ns" => &mut self.park_ns,
            "work_scale" => &mut self.work_scale,
            _ => return None,
        })
    }
}

/// A seed spread over all bits before it picks the factors.
fn mix_seed(seed: u64) -> u64 {
    crate::sim::workload::mix(seed.wrapping_mul(0xD1B5_4A32_D192_ED03))
}

const FIELDS: &[&str] = &[
    "line_smt_ns",
    "line_cluster_ns",
    "line_llc_ns",
    "line_node_ns",
    "line_remote_ns",
    "bw_llc",
    "bw_node",
    "bw_remote",
    "bw_cluster",
    "l2_bytes",
    "llc_bytes",
    "dram_ns",
    "dram_remote_ns",
    "bw_dram",
    "bw_dram_remote",
    "job_lines",
    "steal_ns",
    "probe_ns",
    "push_ns",
    "pop_ns",
    "private_ns",
    "fence_ns",
    "idle_word_ns",
    "heavy_fence_ns",
    "spin_ns",
    "yield_ns",
    "wake_ns",
    "park_ns",
    "work_scale",
    // Last, so that `perturbed` draws the same factors for the fields
    // before them as it did before these were added.
    "bw_dram_package",
    "bw_llc_link",
    "bw_socket_link",
    "line_bytes",
    "fence_interrupt_ns",
    "fence_target_ns",
];

/// Whether `value` is one the simulator can price with, for key `k`:
/// a latency or per-event cost at most a second, a bandwidth (bytes a
/// ns) from 0.001 to 10^6 (0 is "absent" for the links, refused later
/// for the others), sizes up to a PiB, `work_scale` up to 1000. Beyond
/// these, times summed over 2^24 tasks overflow the simulator's
/// nanosecond clock (a wrong makespan, or a transfer that never ends);
/// no machine is that far from the defaults.
fn in_range(k: &str, value: f64) -> Result<(), &'static str> {
    let (ok, why) = if k.starts_with("bw_") {
        (
            value == 0.0 || (1e-3..=1e6).contains(&value),
            "is outside 0.001 to 1e6 bytes a ns (0 only where a link is absent)",
        )
    } else if k.ends_with("_ns") {
        (
            value <= 1e9,
            "is above 1e9 ns, the largest cost the simulator's clock takes",
        )
    } else if k.ends_with("_bytes") {
        (value <= 2f64.powi(50), "is above 2^50 bytes")
    } else if k == "work_scale" {
        (value <= 1e3, "is above 1000")
    } else {
        (value <= 1e9, "is above 1e9")
    };
    if ok { Ok(()) } else { Err(why) }
}

/// A cost file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostError {
    /// The line (from 1; 0 for the file as a whole).
    pub line: usize,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "cost model: {}", self.message)
        } else {
            write!(f, "cost model, line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for CostError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_overrides_and_round_trips() {
        let m = CostModel::parse("# comment\nwake_ns = 2500 # faster\n\nline_llc_ns=33").unwrap();
        assert_eq!(m.wake_ns, 2500.0);
        assert_eq!(m.line_llc_ns, 33.0);
        assert_eq!(CostModel::parse(&m.to_text()).unwrap(), m);
    }

    #[test]
    fn perturbed_costs_stay_within_the_band() {
        let m = CostModel::default();
        assert_eq!(m.perturbed(0.0, 3), m);
        let p = m.perturbed(10.0, 3);
        assert_eq!(p, m.perturbed(10.0, 3), "same seed, same costs");
        assert_ne!(p, m.perturbed(10.0, 4));
        let (mut a, mut b) = (m.clone(), p.clone());
        let mut changed = 0;
        for k in FIELDS {
            let (x, y) = (*a.field(k).unwrap(), *b.field(k).unwrap());
            assert!((y - x).abs() <= 0.1 * x + 1e-9, "{k}: {x} -> {y}");
            assert!(*k != "line_bytes" || x == y, "the line size stays");
            changed += usize::from(x != y);
        }
        assert!(changed > FIELDS.len() / 2);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = CostModel::parse("wake_ns = 1\nwake = 3").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown key `wake`"), "{e}");
        let e = CostModel::parse("wake_ns = -1").unwrap_err();
        assert!(e.message.contains("non-negative"), "{e}");
        assert!(CostModel::parse("bw_llc = 0").is_err());
        assert!(CostModel::parse("just words").is_err());
    }

    /// Values the simulator's clock cannot take (a wrong makespan or a
    /// panic in the bandwidth model before) are refused by name.
    #[test]
    fn values_out_of_range_are_refused() {
        for bad in [
            "dram_ns = 1e30",
            "steal_ns = 1e12",
            "bw_dram = 1e-300",
            "bw_llc_link = 1e-9",
            "bw_node = 1e9",
            "work_scale = 1e12",
            "job_lines = 1e12",
            "l2_bytes = 1e18",
        ] {
            let e = CostModel::parse(bad).unwrap_err();
            let key = bad.split(' ').next().unwrap();
            assert!(e.message.contains(&format!("`{key}`")), "{bad}: {e}");
        }
        // A link of 0 is a link the machine does not have.
        assert!(CostModel::parse("bw_llc_link = 0").is_ok());
    }
}
