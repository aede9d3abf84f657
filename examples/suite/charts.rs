//! SVG charts (`--svg DIR`): per scenario `NAME.svg`, one horizontal bar
//! per (case, configuration) with its ratio to rayon (a line marks 1.0);
//! `distances.svg`, where the steals and wakeups of each locus
//! configuration went, by distance, summed over the scenarios run.

use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;

use crate::report::{Report, Scenario};

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn color(config: &str) -> RGBColor {
    let i = [
        "locus",
        "locus-cluster-off",
        "locus-flat",
        "locus-group",
        "rayon",
        "chili",
    ]
    .iter()
    .position(|c| *c == config)
    .unwrap_or(5);
    COLORS[i]
}

/// Horizontal bars: `(label, value, color)`, with a reference line at `mark`.
fn bars(
    path: &Path,
    title: &str,
    axis: &str,
    rows: &[(String, f64, RGBColor)],
    mark: Option<f64>,
) -> Result<(), String> {
    let err = |e: String| format!("{}: {e}", path.display());
    let n = rows.len().max(1);
    let height = 80 + 22 * n as u32;
    let root = SVGBackend::new(path, (820, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let top = rows
        .iter()
        .map(|r| r.1)
        .fold(mark.unwrap_or(0.0), f64::max)
        .max(1e-9)
        * 1.1;
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(300)
        .build_cartesian_2d(0.0..top, (0..n).into_segmented())
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(axis)
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(|e| err(e.to_string()))?;
    chart
        .draw_series(rows.iter().enumerate().map(|(i, (_, v, c))| {
            Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (*v, SegmentValue::Exact(i + 1)),
                ],
                c.filled(),
            )
        }))
        .map_err(|e| err(e.to_string()))?;
    if let Some(m) = mark {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(m, SegmentValue::Exact(0)), (m, SegmentValue::Exact(n))],
                BLACK.stroke_width(2),
            )))
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

fn ratios(s: &Scenario, dir: &Path) -> Result<(), String> {
    let mut rows: Vec<(String, f64, RGBColor)> = s
        .runs
        .iter()
        .filter_map(|r| {
            r.ratio_vs_rayon
                .map(|x| (format!("{} · {}", r.case, r.config), x, color(r.config)))
        })
        .collect();
    for c in &s.comparisons {
        rows.push((
            format!("{} · locus vs {}", c.case, c.baseline_name),
            c.ratio,
            color("locus"),
        ));
    }
    let title = format!(
        "{}: ratio to rayon in the same run (above 1 is better)",
        s.name
    );
    bars(
        &dir.join(format!("{}.svg", s.name)),
        &title,
        "ratio vs rayon",
        &rows,
        Some(1.0),
    )
}

/// Steals by tier kind and wakeups by distance, per locus configuration,
/// summed over the scenarios.
fn distances(r: &Report, dir: &Path) -> Result<(), String> {
    let configs = ["locus", "locus-cluster-off", "locus-flat", "locus-group"];
    let kinds = [
        ("steals", "same-core"),
        ("steals", "same-cluster"),
        ("steals", "same-llc"),
        ("steals", "same-node"),
        ("steals", "same-package"),
        ("steals", "other-node"),
        ("wakeups", "same-cluster"),
        ("wakeups", "same-llc"),
        ("wakeups", "other-llc"),
    ];
    let mut rows = Vec::new();
    for cfg in configs {
        let cs: Vec<&Value> = r
            .scenarios
            .iter()
            .filter_map(|s| s.counters.get(cfg))
            .collect();
        if cs.is_empty() {
            continue;
        }
        for (what, d) in kinds {
            let sum: u64 = cs.iter().filter_map(|c| c[what][d].as_u64()).sum();
            rows.push((format!("{cfg} · {what} {d}"), sum as f64, color(cfg)));
        }
    }
    bars(
        &dir.join("distances.svg"),
        "where steals and wakeups went, by distance (counts)",
        "count",
        &rows,
        None,
    )
}

/// Writes every chart into `dir` (created if missing).
pub fn write_all(r: &Report, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    for s in &r.scenarios {
        ratios(s, dir)?;
    }
    distances(r, dir)
}
