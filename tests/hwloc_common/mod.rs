//! Helpers shared by the hwloc integration tests: where the fixtures are,
//! and tiny text scanners for hwloc XML, `lstopo` console output and the
//! JSON of `Topology::to_json` (no parser crates).
#![allow(dead_code)]

use locus::CpuSet;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `<CARGO_MANIFEST_DIR>/../shared/topologies`; fails the test with a clear
/// message when absent.
pub fn topologies_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/topologies");
    assert!(
        dir.is_dir(),
        "topology fixtures not found at {}: these tests need the shared hwloc test data \
         (../shared/topologies next to the crate, see its SOURCES.md)",
        dir.display()
    );
    dir
}

/// Files of `sub` (under [`topologies_dir`]) whose name ends with `suffix`, sorted.
pub fn fixture_files(sub: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = topologies_dir().join(sub);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no {suffix} file in {}", dir.display());
    v
}

/// The value of attribute `name` in the text of one tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let pat = format!(" {name}=\"");
    let start = tag.find(&pat)? + pat.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// What an hwloc XML file declares: object counts by type (`PU`, `Core`,
/// `L2Cache`, ...), and the root's allowed cpuset.
pub struct Declared {
    /// Number of `<object type="T">` elements per type T.
    pub counts: BTreeMap<String, usize>,
    /// `allowed_cpuset` of the `Machine` object.
    pub allowed: Option<CpuSet>,
}

impl Declared {
    /// Count of one object type (0 if absent).
    pub fn count(&self, ty: &str) -> usize {
        self.counts.get(ty).copied().unwrap_or(0)
    }

    /// The count locus is expected to report for one object type: the
    /// declared count, except that a machine without `Package` objects still
    /// has one package (the builder makes the whole machine the package).
    pub fn count_as_built(&self, ty: &str) -> usize {
        match (ty, self.count(ty)) {
            ("Package", 0) => 1,
            (_, n) => n,
        }
    }
}

/// Scans `<object ...>` tags of hwloc XML (one tag per object, attributes in
/// double quotes).
pub fn scan_xml(text: &str) -> Declared {
    let mut counts = BTreeMap::new();
    let mut allowed = None;
    let mut rest = text;
    while let Some(at) = rest.find("<object ") {
        let tag_end = rest[at..].find('>').map_or(rest.len(), |e| at + e);
        let tag = &rest[at..tag_end];
        if let Some(ty) = attr(tag, "type") {
            *counts.entry(ty.to_string()).or_insert(0) += 1;
            if ty == "Machine" && allowed.is_none() {
                allowed = attr(tag, "allowed_cpuset").map(hwloc_mask);
            }
        }
        rest = &rest[tag_end..];
    }
    Declared { counts, allowed }
}

/// Counts objects in `lstopo` console output, verbose (`L2Cache L#0`, one
/// object per line) or not (`L2 L#0 + L1d L#0 + Core L#0 + PU L#0`), under
/// the XML type names (`PU`, `Core`, `L2Cache`, `L3Cache`, `NUMANode`,
/// `Package`).
pub fn scan_console(text: &str) -> Declared {
    let mut counts = BTreeMap::new();
    // The object tree comes first: `Machine` then indented lines. It ends at
    // the first other line (level summaries `depth 0: ...`, distance
    // matrices, memory attributes, which name objects again).
    let tree = text.lines().enumerate().take_while(|(i, l)| {
        *i == 0
            || (l.starts_with(' ') && !l.trim_start().starts_with("depth ") && !l.trim().is_empty())
    });
    for (_, line) in tree {
        for token in line.trim_start().split(" + ") {
            let Some((ty, _)) = token.split_once(" L#") else {
                continue;
            };
            // Drop a subtype: `NUMANode(HBM)`, `Group0(Cluster)`.
            let ty = ty.split('(').next().unwrap_or(ty);
            let ty = match ty {
                "L2" | "L2d" | "L2dCache" => "L2Cache",
                "L3" | "L3d" | "L3dCache" => "L3Cache",
                t => t,
            };
            *counts.entry(ty.to_string()).or_insert(0) += 1;
        }
    }
    Declared {
        counts,
        allowed: None,
    }
}

/// Parses an hwloc bitmap string: comma-separated 32-bit hex words, most
/// significant first (`0x000000ff,0xffffffff`); an empty word is zero
/// (`0x3,,0x1`).
pub fn hwloc_mask(m: &str) -> CpuSet {
    let mut set = CpuSet::new();
    for (k, w) in m.split(',').rev().enumerate() {
        let w = w.trim_start_matches("0x");
        if w.is_empty() {
            continue;
        }
        let v =
            u32::from_str_radix(w, 16).unwrap_or_else(|e| panic!("bad hwloc mask word {w:?}: {e}"));
        for b in 0..32 {
            if v & (1 << b) != 0 {
                set.insert(k * 32 + b);
            }
        }
    }
    set
}

/// The raw text after `"key":` in a flat JSON object.
fn json_raw<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    Some(&json[json.find(&pat)? + pat.len()..])
}

/// A number field of `Topology::to_json`.
pub fn json_num(json: &str, key: &str) -> Option<usize> {
    let raw = json_raw(json, key)?;
    let end = raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len());
    raw[..end].parse().ok()
}

/// A string field of `Topology::to_json` (cpusets and names hold no quotes).
pub fn json_string(json: &str, key: &str) -> Option<String> {
    let raw = json_raw(json, key)?.strip_prefix('"')?;
    Some(raw[..raw.find('"')?].to_string())
}

/// An array-of-strings field of `Topology::to_json`.
pub fn json_strings(json: &str, key: &str) -> Option<Vec<String>> {
    let raw = json_raw(json, key)?.strip_prefix('[')?;
    let body = &raw[..raw.find(']')?];
    Some(
        body.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_matches('"').to_string())
            .collect(),
    )
}

/// The raw JSON text of a field (number, string, array or object), for
/// comparing fields as a whole.
pub fn json_value(json: &str, key: &str) -> Option<String> {
    let raw = json_raw(json, key)?;
    let (mut depth, mut in_str) = (0usize, false);
    for (i, ch) in raw.char_indices() {
        match ch {
            '"' => in_str = !in_str,
            _ if in_str => {}
            '[' | '{' => depth += 1,
            ']' | '}' if depth == 0 => return Some(raw[..i].to_string()),
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(raw[..=i].to_string());
                }
            }
            ',' if depth == 0 => return Some(raw[..i].to_string()),
            _ => {}
        }
    }
    Some(raw.to_string())
}

#[test]
fn scanners_work() {
    assert_eq!(hwloc_mask("0x0000f00f").to_string(), "0-3,12-15");
    assert_eq!(hwloc_mask("0x00000001,0x00000000").to_string(), "32");
    assert_eq!(hwloc_mask("0x1,,0x1").to_string(), "0,64");
    let d =
        scan_xml(r#"<object type="Machine" allowed_cpuset="0x3"><object type="PU" os_index="0"/>"#);
    assert_eq!(d.count("PU"), 1);
    assert_eq!(d.allowed.unwrap().to_string(), "0-1");
    let c = scan_console(
        "Machine\n  Package L#0\n    NUMANode(HBM) L#0 (P#4)\n    L2 L#0 + L1d L#0 + Core L#0 + PU L#0 (P#0)\n    \
         L2dCache L#1\n      L2iCache L#1\n depth 0: 1 Machine\nlatency:\n  NUMANode L#0 = 10\n",
    );
    let got = ["Package", "NUMANode", "L2Cache", "Core", "PU"].map(|t| c.count(t));
    assert_eq!(got, [1, 1, 2, 1, 1]);
    let j = r#"{"source":"hwloc","pus":12,"allowed":"0-3","llc_cpusets":["0-1","2-3"],"x":[]}"#;
    assert_eq!(json_num(j, "pus"), Some(12));
    assert_eq!(json_string(j, "allowed").as_deref(), Some("0-3"));
    assert_eq!(json_strings(j, "llc_cpusets").unwrap(), ["0-1", "2-3"]);
    assert_eq!(json_strings(j, "x").unwrap(), Vec::<String>::new());
    let k = r#"{"allowed":"0-3,8","kinds":[{"cpus":"0,2","capacity":1024}],"n":5}"#;
    assert_eq!(json_value(k, "allowed").unwrap(), "\"0-3,8\"");
    assert_eq!(
        json_value(k, "kinds").unwrap(),
        r#"[{"cpus":"0,2","capacity":1024}]"#
    );
    assert_eq!(json_value(k, "n").unwrap(), "5");
}
