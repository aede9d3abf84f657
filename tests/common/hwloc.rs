//! Parsers for hwloc's expected outputs: `lstopo -v` console text and hwloc
//! XML (v3), reduced to what the sysfs reader is compared on: objects with
//! their kind, OS index and CPU set; NUMA latencies by node OS index; the
//! allowed CPUs; CPU kinds.
//!
//! Console: one object per line, indented two spaces per tree level, e.g.
//! `    L3Cache L#0 (size=32MiB ...)`, `      NUMANode L#0 (P#0 local=...)`,
//! `  PU L#4 (P#4) (disallowed)`. The tree ends at the `depth 0:` summary.
//! An object's CPU set is the set of PU OS indexes under it; a NUMANode
//! (a memory child) gets its parent's set, as hwloc defines it. Then a
//! `Relative latency matrix` block, indexed by NUMANode logical index.
//!
//! XML: `<object type=".." os_index=".." cpuset="0x..,0x..">`, nested; the
//! `cpuset` attribute is used (hwloc's allowed view), `allowed_cpuset` of the
//! Machine gives the allowed CPUs; `<distances2 indexing="os">` gives
//! latencies; `<cpukind cpuset=.. forced_efficiency=..>` the kinds.

use locus::CpuSet;
use std::collections::BTreeMap;

/// One hwloc object.
#[derive(Debug, Clone)]
pub struct Obj {
    /// `Package`, `L3Cache`, `L2Cache`, `L2dCache`, `NUMANode`, `Core`, `PU`, `Group`...
    pub kind: String,
    /// `P#` / `os_index`.
    pub os: Option<usize>,
    /// Its CPUs.
    pub cpuset: CpuSet,
    /// Marked `(disallowed)` (console with `--disallowed`).
    pub disallowed: bool,
}

/// What hwloc printed for a machine.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    /// All objects, in document order.
    pub objs: Vec<Obj>,
    /// NUMA latencies by (from OS index, to OS index).
    pub latencies: BTreeMap<(usize, usize), u64>,
    /// Allowed CPUs, when the output says.
    pub allowed: Option<CpuSet>,
    /// CPU kinds: (cpuset, efficiency), when given.
    pub kinds: Vec<(CpuSet, u64)>,
}

impl Expected {
    /// Objects of one of these kinds.
    pub fn of<'a>(&'a self, kinds: &'a [&str]) -> impl Iterator<Item = &'a Obj> + 'a {
        self.objs
            .iter()
            .filter(move |o| kinds.contains(&o.kind.as_str()))
    }

    /// Number of objects of these kinds.
    pub fn count(&self, kinds: &[&str]) -> usize {
        self.of(kinds).count()
    }

    /// The count locus is expected to report for objects of these kinds:
    /// their number, except that a machine without `Package` objects still
    /// has one package (the topology builder makes the whole machine the
    /// package when none is reported).
    pub fn count_as_built(&self, kinds: &[&str]) -> usize {
        match self.count(kinds) {
            0 if kinds == ["Package"] => 1,
            n => n,
        }
    }

    /// The PUs.
    pub fn pus(&self) -> CpuSet {
        self.of(&["PU"]).filter_map(|o| o.os).collect()
    }
}

/// hwloc's names of a unified or data L2 cache (XML writes `L2Cache`,
/// `lstopo -v` writes `L2dCache` when the instruction cache is separate).
pub const L2: &[&str] = &["L2Cache", "L2dCache"];
/// hwloc's names of a unified or data L3 cache.
pub const L3: &[&str] = &["L3Cache", "L3dCache"];

/// Parses `0x0000ffff,0xffffffff` (hwloc bitmap: 32-bit words, most
/// significant first, each with or without `0x`). An empty word is zero, as
/// hwloc writes it (`0x3,,0x1` is CPUs 0, 64 and 65).
pub fn parse_hwloc_bitmap(s: &str) -> Option<CpuSet> {
    let words: Vec<&str> = s
        .split(',')
        .map(|w| w.trim().trim_start_matches("0x"))
        .map(|w| if w.is_empty() { "0" } else { w })
        .collect();
    if words.iter().any(|w| w.len() > 8) {
        return None;
    }
    CpuSet::from_hex_mask(&words.join(",")).ok()
}

/// The number after the first `marker` (`P#`, `L#`) in `line`.
fn index_after(line: &str, marker: &str) -> Option<usize> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Parses `lstopo -v` console output.
pub fn parse_console(text: &str) -> Expected {
    struct Node {
        kind: String,
        os: Option<usize>,
        lidx: Option<usize>,
        disallowed: bool,
        parent: Option<usize>,
        set: CpuSet,
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (indent, node)
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.peek() {
        if line.starts_with("depth ") || line.trim().is_empty() {
            break;
        }
        let line = lines.next().unwrap_or_default();
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        let token = body.split_whitespace().next().unwrap_or("");
        let kind: String = token
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        while stack.last().is_some_and(|&(ind, _)| ind >= indent) {
            stack.pop();
        }
        let parent = stack.last().map(|&(_, n)| n);
        // `NUMANode(DRAM) L#0 (P#0 local=...)`: P# is in the parenthesis
        // after the L# token (the Machine line has no L#).
        let after = body.find("L#").map(|i| &body[i..]).unwrap_or(body);
        let paren = after.find('(').map(|i| &after[i..]).unwrap_or("");
        let os = index_after(paren.split(')').next().unwrap_or(""), "P#");
        let disallowed = body.trim_end().ends_with("(disallowed)");
        nodes.push(Node {
            kind,
            os,
            lidx: index_after(body, "L#"),
            disallowed,
            parent,
            set: CpuSet::new(),
        });
        stack.push((indent, nodes.len() - 1));
    }
    // PU sets bottom-up.
    for i in (0..nodes.len()).rev() {
        if nodes[i].kind == "PU" {
            if let Some(os) = nodes[i].os {
                nodes[i].set.insert(os);
            }
        }
        if let Some(p) = nodes[i].parent {
            let s = nodes[i].set.clone();
            nodes[p].set = nodes[p].set.union(&s);
        }
    }
    // Memory children (NUMANode, possibly under a MemCache) take the set of
    // their nearest normal ancestor.
    let is_memory = |k: &str| k == "NUMANode" || k == "MemCache";
    for i in 0..nodes.len() {
        if nodes[i].kind == "NUMANode" {
            let mut p = nodes[i].parent;
            while let Some(j) = p {
                if !is_memory(&nodes[j].kind) {
                    break;
                }
                p = nodes[j].parent;
            }
            nodes[i].set = p.map(|j| nodes[j].set.clone()).unwrap_or_default();
        }
    }
    let mut e = Expected::default();
    let numa_by_l: BTreeMap<usize, usize> = nodes
        .iter()
        .filter(|n| n.kind == "NUMANode")
        .filter_map(|n| Some((n.lidx?, n.os?)))
        .collect();
    let all_pus: CpuSet = nodes
        .iter()
        .filter(|n| n.kind == "PU")
        .filter_map(|n| n.os)
        .collect();
    let disallowed: CpuSet = nodes
        .iter()
        .filter(|n| n.kind == "PU" && n.disallowed)
        .filter_map(|n| n.os)
        .collect();
    e.allowed = Some(all_pus.difference(&disallowed));
    e.objs = nodes
        .into_iter()
        .map(|n| Obj {
            kind: n.kind,
            os: n.os,
            cpuset: n.set,
            disallowed: n.disallowed,
        })
        .collect();
    // Latency matrix.
    let rest: Vec<&str> = lines.collect();
    if let Some(start) = rest
        .iter()
        .position(|l| l.starts_with("Relative latency matrix"))
    {
        let header: Vec<usize> = rest
            .get(start + 1)
            .map(|h| {
                h.split_whitespace()
                    .skip(1)
                    .filter_map(|w| w.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        for row in rest.iter().skip(start + 2).take(header.len()) {
            let v: Vec<u64> = row
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            let Some((&from_l, vals)) = v.split_first() else {
                continue;
            };
            for (k, &d) in vals.iter().enumerate() {
                if let (Some(&a), Some(&b)) = (
                    numa_by_l.get(&(from_l as usize)),
                    header.get(k).and_then(|l| numa_by_l.get(l)),
                ) {
                    e.latencies.insert((a, b), d);
                }
            }
        }
    }
    e
}

/// The value of attribute `name` in the text of one tag.
pub fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let pat = format!(" {name}=\"");
    let i = tag.find(&pat)? + pat.len();
    let end = tag[i..].find('"')?;
    Some(&tag[i..i + end])
}

/// Parses hwloc XML (the subset lstopo writes: one element per line).
pub fn parse_xml(text: &str) -> Expected {
    let mut e = Expected::default();
    let lines = text.lines();
    let mut dist_indexes: Vec<usize> = Vec::new();
    let mut dist_values: Vec<u64> = Vec::new();
    let mut in_numa_distances = false;
    let mut kind_pending: Option<(CpuSet, u64)> = None;
    for line in lines {
        let t = line.trim();
        if t.starts_with("<object ") {
            let kind = attr(t, "type").unwrap_or("").to_string();
            let os = attr(t, "os_index").and_then(|v| v.parse().ok());
            let cpuset = attr(t, "cpuset")
                .and_then(parse_hwloc_bitmap)
                .unwrap_or_default();
            if kind == "Machine" {
                e.allowed = attr(t, "allowed_cpuset").and_then(parse_hwloc_bitmap);
            }
            e.objs.push(Obj {
                kind,
                os,
                cpuset,
                disallowed: false,
            });
        } else if t.starts_with("<distances2 ") {
            in_numa_distances =
                attr(t, "type") == Some("NUMANode") && attr(t, "indexing") == Some("os");
            dist_indexes.clear();
            dist_values.clear();
        } else if in_numa_distances && t.starts_with("<indexes") {
            let inner = element_text(t);
            dist_indexes.extend(
                inner
                    .split_whitespace()
                    .filter_map(|w| w.parse::<usize>().ok()),
            );
        } else if in_numa_distances && t.starts_with("<u64values") {
            let inner = element_text(t);
            dist_values.extend(
                inner
                    .split_whitespace()
                    .filter_map(|w| w.parse::<u64>().ok()),
            );
        } else if t.starts_with("</distances2") {
            if in_numa_distances {
                let n = dist_indexes.len();
                for (k, &v) in dist_values.iter().enumerate().take(n * n) {
                    e.latencies
                        .insert((dist_indexes[k / n], dist_indexes[k % n]), v);
                }
            }
            in_numa_distances = false;
        } else if t.starts_with("<cpukind ") {
            let set = attr(t, "cpuset")
                .and_then(parse_hwloc_bitmap)
                .unwrap_or_default();
            let eff = attr(t, "forced_efficiency")
                .or(attr(t, "efficiency"))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            kind_pending = Some((set, eff));
            if t.ends_with("/>") {
                e.kinds.extend(kind_pending.take());
            }
        } else if t.starts_with("</cpukind") {
            e.kinds.extend(kind_pending.take());
        }
    }
    e
}

#[test]
fn parses_console_and_xml_samples() {
    let console = "Machine (P#0 total=1GiB)\n  Package L#0 (P#3 CPUModel=x)\n    NUMANode(DRAM) L#0 (P#7 local=1GiB)\n    L2Cache L#0 (size=1KiB)\n      Core L#0 (P#0)\n        PU L#0 (P#4)\n        PU L#1 (P#5) (disallowed)\ndepth 0: 1 Machine\nRelative latency matrix (name NUMALatency kind 5) between 1 NUMANodes (depth -3) by logical indexes:\n index     0\n     0    10\n";
    let e = parse_console(console);
    assert_eq!(e.count(&["PU"]), 2);
    let numa = e.of(&["NUMANode"]).next().unwrap();
    assert_eq!(
        (numa.os, numa.cpuset.to_string()),
        (Some(7), "4-5".to_string())
    );
    assert_eq!(e.of(&["Package"]).next().unwrap().os, Some(3));
    assert_eq!(e.allowed.as_ref().unwrap().to_string(), "4");
    assert_eq!(e.latencies.get(&(7, 7)), Some(&10));
    let xml = "<topology>\n<object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000003f\" allowed_cpuset=\"0x00000003\">\n<object type=\"PU\" os_index=\"0\" cpuset=\"0x1,0x00000001\"/>\n</object>\n<distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" name=\"x\" indexing=\"os\">\n<indexes length=\"4\">0 3 </indexes>\n<u64values length=\"10\">10 20 20 10 </u64values>\n</distances2>\n<cpukind cpuset=\"0x0000000c\" forced_efficiency=\"7\">\n</cpukind>\n</topology>\n";
    let e = parse_xml(xml);
    assert_eq!(e.allowed.as_ref().unwrap().to_string(), "0-1");
    assert_eq!(e.of(&["PU"]).next().unwrap().cpuset.to_string(), "0,32");
    assert_eq!(e.latencies.get(&(3, 0)), Some(&20));
    assert_eq!(e.kinds, vec![("2-3".parse().unwrap(), 7)]);
    assert_eq!(e.count_as_built(&["Package"]), 1, "no Package element");
}

#[test]
fn bitmaps_read_like_hwloc() {
    let set = |m: &str| parse_hwloc_bitmap(m).map(|s| s.to_string());
    assert_eq!(set("0x0000f00f").as_deref(), Some("0-3,12-15"));
    assert_eq!(set("0x00000001,0x00000000").as_deref(), Some("32"));
    assert_eq!(set("0x1,,0x1").as_deref(), Some("0,64"));
    assert_eq!(set("0x123456789"), None, "a word wider than 32 bits");
}

/// The text between an element's start tag and the next tag: `"1 2"` for
/// `<indexes length="2">1 2</indexes>`.
fn element_text(t: &str) -> &str {
    t.split('>')
        .nth(1)
        .unwrap_or("")
        .split('<')
        .next()
        .unwrap_or("")
}
