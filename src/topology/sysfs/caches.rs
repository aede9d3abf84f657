//! L2 and L3 sharing from `cpuN/cache/indexK/{level,type,shared_cpu_map,shared_cpu_list}`.
//!
//! - L2: level 2, type `Unified` or `Data`; L3: level 3, type `Unified` or
//!   `Data`. `Instruction` caches are ignored (Itanium has separate L2d and
//!   L2i; Bulldozer shares its L1i per module). Other levels are ignored.
//! - Sharing: `shared_cpu_map` is preferred over `shared_cpu_list` when both
//!   parse and disagree, as hwloc does: the Bulldozer snapshot has an L2 list
//!   `0` but a map `0x3` (the module), and the map is right.
//! - An all-zero `shared_cpu_map` (Itanium L3 and L2i) means the kernel did
//!   not fill it: the cache is taken as private to the PU's core (its SMT
//!   siblings), as hwloc does. A cache without `level` or `type`, or without
//!   any sharing file, is skipped (a note names the file when it is garbage).

use super::cpus::cpu_dir;
use super::{SetFormat, Tree, parse_set, trim_value};
use crate::topology::CpuSet;
use crate::topology::build::PuFacts;
use std::path::Path;
use std::sync::Arc;

/// The kind of cache a `type` file names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheType {
    /// Data or unified: holds data.
    Data,
    /// Instruction only.
    Instruction,
}

/// Parses a `type` file (`Data`, `Unified`, `Instruction`).
pub(crate) fn parse_type(text: &str) -> Option<CacheType> {
    match trim_value(text) {
        "Data" | "Unified" => Some(CacheType::Data),
        "Instruction" => Some(CacheType::Instruction),
        _ => None,
    }
}

/// Where a cache's sharing came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// A usable set.
    Set(CpuSet),
    /// The map is all zeros (and the list absent or empty): private to the core.
    Unfilled,
    /// No usable file.
    Unknown,
}

/// Decides a cache's sharing from the texts of its map and list files;
/// `disagree` is set when both parse to different non-empty sets.
pub(crate) fn decide_sharing(
    map: Option<&str>,
    list: Option<&str>,
    disagree: &mut bool,
) -> Sharing {
    let map = map.map(|t| parse_set(t, SetFormat::Mask));
    let list = list.map(|t| parse_set(t, SetFormat::List));
    match (map, list) {
        (Some(Ok(m)), Some(Ok(l))) if !m.is_empty() => {
            if !l.is_empty() && l != m {
                *disagree = true;
            }
            Sharing::Set(m)
        }
        (Some(Ok(m)), _) if !m.is_empty() => Sharing::Set(m),
        (_, Some(Ok(l))) if !l.is_empty() => Sharing::Set(l),
        (Some(Ok(_)), _) => Sharing::Unfilled,
        _ => Sharing::Unknown,
    }
}

/// What one PU's reading of one cache index found, when it is a data L2
/// or L3 with a usable sharing set.
struct DataCache {
    level: i64,
    set: CpuSet,
    /// Its map and list parsed to different sets (the map is kept).
    disagree: bool,
    /// Its map was all zeros: the set is the PU's core.
    unfilled: bool,
}

/// Fills `l2` and `l3` of every PU.
pub(crate) fn read(tree: &mut Tree<'_>, pus: &mut [PuFacts]) {
    let mut disagreeing: Vec<String> = Vec::new();
    let mut unfilled = false;
    for p in pus.iter_mut() {
        let cache = cpu_dir(p.os).join("cache");
        for k in tree.numbered_entries(&cache, "index") {
            let Some(c) = read_index(tree, p, &cache.join(format!("index{k}"))) else {
                continue;
            };
            if c.disagree {
                disagreeing.push(format!("cpu{}/cache/index{k}", p.os));
            }
            unfilled |= c.unfilled;
            let slot = if c.level == 2 { &mut p.l2 } else { &mut p.l3 };
            // Two data caches at one level (never seen): keep the union.
            *slot = Some(Arc::new(match slot.take() {
                Some(prev) => prev.union(&c.set),
                None => c.set,
            }));
        }
    }
    if !disagreeing.is_empty() {
        let n = disagreeing.len();
        tree.note(format!(
            "shared_cpu_list and shared_cpu_map disagree for {} (and {} more): the map is used, as hwloc does",
            disagreeing[0],
            n - 1
        ));
    }
    if unfilled {
        tree.note("some caches have an all-zero shared_cpu_map: taken as private to their core, as hwloc does".into());
    }
}

/// Reads one `indexK` directory of PU `p`: `None` for a level other than 2
/// or 3, an instruction cache, or a cache whose files are missing or
/// garbage (garbage gets a note naming the file).
fn read_index(tree: &mut Tree<'_>, p: &PuFacts, dir: &Path) -> Option<DataCache> {
    let level = tree.int(dir.join("level"))?;
    if level != 2 && level != 3 {
        return None;
    }
    let type_text = tree.read(dir.join("type"))?;
    match parse_type(&type_text) {
        Some(CacheType::Data) => {}
        Some(CacheType::Instruction) => return None,
        None => {
            let path = tree.path(dir.join("type"));
            tree.note(format!(
                "malformed {}: unknown cache type {:?}; ignored",
                path.display(),
                super::short(&type_text)
            ));
            return None;
        }
    }
    let map_rel = dir.join("shared_cpu_map");
    let list_rel = dir.join("shared_cpu_list");
    let map = tree.read(&map_rel);
    let list = tree.read(&list_rel);
    let mut disagree = false;
    let (set, unfilled) = match decide_sharing(map.as_deref(), list.as_deref(), &mut disagree) {
        Sharing::Set(s) => (s, false),
        Sharing::Unfilled => {
            let core = p.core.as_deref().cloned();
            (core.unwrap_or_else(|| CpuSet::from_ids([p.os])), true)
        }
        Sharing::Unknown => {
            if map.is_some() || list.is_some() {
                let path = tree.path(if map.is_some() { &map_rel } else { &list_rel });
                tree.note(format!(
                    "malformed {}: cache sharing unknown; ignored",
                    path.display()
                ));
            }
            return None;
        }
    };
    Some(DataCache {
        level,
        set,
        disagree,
        unfilled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types() {
        assert_eq!(parse_type("Unified\n"), Some(CacheType::Data));
        assert_eq!(parse_type("Data"), Some(CacheType::Data));
        assert_eq!(parse_type("Instruction\n\0"), Some(CacheType::Instruction));
        assert_eq!(parse_type("Tertiary"), None);
    }

    #[test]
    fn map_wins_over_list() {
        let mut d = false;
        let s = decide_sharing(Some("00000000,00000003\n"), Some("0\n"), &mut d);
        assert_eq!(s, Sharing::Set("0-1".parse().unwrap()));
        assert!(d);
        let mut d = false;
        assert_eq!(
            decide_sharing(Some("3"), Some("0-1"), &mut d),
            Sharing::Set("0-1".parse().unwrap())
        );
        assert!(!d);
        assert_eq!(
            decide_sharing(None, Some("4-7"), &mut d),
            Sharing::Set("4-7".parse().unwrap())
        );
        assert_eq!(
            decide_sharing(Some("garbage"), Some("4-7"), &mut d),
            Sharing::Set("4-7".parse().unwrap())
        );
        assert_eq!(
            decide_sharing(Some("00000000,00000000"), None, &mut d),
            Sharing::Unfilled
        );
        assert_eq!(
            decide_sharing(Some("00000000"), Some("2"), &mut d),
            Sharing::Set("2".parse().unwrap())
        );
        assert_eq!(
            decide_sharing(Some("x"), Some("y"), &mut d),
            Sharing::Unknown
        );
        assert_eq!(decide_sharing(None, None, &mut d), Sharing::Unknown);
    }
}
