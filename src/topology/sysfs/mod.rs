//! Linux sysfs/procfs reader: gathers [`Facts`] from a directory tree laid
//! out like `/` (the running machine, or an extracted snapshot such as
//! hwloc's `hwloc-gather-topology` tarballs) and hands them to
//! [`super::build`].
//!
//! Submodules, one concept each: [`cpus`] (online PUs; core, cluster and
//! package sets), [`caches`] (L2 and L3 sharing), [`numa`] (nodes and
//! distances), [`capacity`] (relative PU performance), [`allowed`] (CPUs this
//! process may use).
//!
//! # Rules (decisions, with the machines that demanded them)
//!
//! - Every file may be missing, empty, truncated or garbage, and values may
//!   end with `"\n\0"` (Kunpeng 920). Nothing here panics. A garbage file
//!   costs only the fact it held, and adds a note naming the file
//!   ([`Topology::notes`]). Only when the set of online PUs itself cannot be
//!   known is the read an error: [`TopologyError::Parse`] naming
//!   `cpu/online` when that file is garbage and no `cpuN` directory tells
//!   otherwise, [`TopologyError::NoPus`] when the tree shows no CPU at all
//!   (an empty root, a root that is not a sysfs tree).
//! - Online PUs: `cpu/online` when present and parseable; else the `cpuN`
//!   directories whose `online` file says `1`, or, without that file, that
//!   have a `topology/` directory (offline CPUs have none). Old kernels lack
//!   `online`/`possible` (POWER7, Itanium, x3950 snapshots); some write an
//!   `offline` wider than `possible` (ignored: it is never read).
//!   When `cpu/online` names CPUs that have no `cpuN` directory while others
//!   do (an edited snapshot), those CPUs are dropped with a note.
//! - A hex mask that is all zeros means "unknown", like a missing file,
//!   except for cache sharing (see [`caches`]).
//! - Notes are deduplicated and capped at [`MAX_NOTES`], so that a file
//!   broken on all 1024 CPUs does not make 1024 notes.
//!
//! See the submodules for the per-level rules.

pub(super) mod allowed;
mod caches;
mod capacity;
mod cpus;
mod numa;

use super::build::{self, Facts, PuFacts};
use super::{CpuSet, Source, Topology, TopologyError};
use std::path::{Path, PathBuf};

impl Topology {
    /// Reads a Linux sysfs/procfs tree under `root` (a directory holding
    /// `sys/` and optionally `proc/`): `/` for this machine, or an extracted
    /// snapshot. The affinity mask of this process is not applied (it belongs
    /// to the running machine, not the snapshot); cpuset restrictions found in
    /// the tree are.
    ///
    /// A `root` that is not a directory is a [`TopologyError::Io`] naming
    /// it (not "no online CPU found"), so a mistyped path says so:
    ///
    /// ```
    /// let e = locus::Topology::from_sysfs("/no/such/snapshot").unwrap_err();
    /// assert!(e.to_string().contains("/no/such/snapshot"), "{e}");
    /// assert!(matches!(e, locus::TopologyError::Io { .. }));
    /// ```
    pub fn from_sysfs(root: impl AsRef<Path>) -> Result<Topology, TopologyError> {
        let root = root.as_ref();
        match std::fs::metadata(root) {
            Ok(m) if m.is_dir() => read(root, false),
            Ok(_) => Err(TopologyError::Io {
                path: root.to_path_buf(),
                error: std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    "not a directory: give the directory that holds sys/ (and proc/)",
                ),
            }),
            Err(error) => Err(TopologyError::Io {
                path: root.to_path_buf(),
                error,
            }),
        }
    }
}

/// Most notes kept; the rest are counted in a last note.
pub(crate) const MAX_NOTES: usize = 24;

/// The sysfs directory holding `cpuN`, relative to the root.
pub(crate) const CPU_DIR: &str = "sys/devices/system/cpu";
/// The sysfs directory holding `nodeN`, relative to the root.
pub(crate) const NODE_DIR: &str = "sys/devices/system/node";

/// How a CPU set is written in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetFormat {
    /// A cpulist: `0-3,8`.
    List,
    /// A hex mask: `0000000f,00000000`.
    Mask,
}

/// A file read in a tree, with the notes taken while reading.
pub(crate) struct Tree<'a> {
    root: &'a Path,
    notes: Vec<String>,
}

// Values are trimmed as the CpuSet parsers trim them: whitespace, newlines, NULs.
pub(crate) use super::cpuset::trim_value;

/// Parses a decimal integer as written in sysfs (`"36\n\0"`), signed so that
/// `-1` ("unknown") can be recognized.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    trim_value(text).parse().ok()
}

/// Parses a `cpuN` / `nodeN` / `indexN` directory name: the number after
/// `prefix`, digits only.
pub(crate) fn numbered(name: &str, prefix: &str) -> Option<usize> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse()
        .ok()
        .filter(|&n| n <= super::cpuset::MAX_CPU_ID)
}

/// Parses a whitespace-separated row of NUMA distances.
pub(crate) fn parse_distances(text: &str) -> Option<Vec<u32>> {
    let t = trim_value(text);
    if t.is_empty() {
        return None;
    }
    t.split_whitespace()
        .map(|w| w.parse::<u32>().ok())
        .collect()
}

/// Parses a CPU set in the given format; an all-zero mask is returned as the
/// empty set (callers decide what "empty" means).
pub(crate) fn parse_set(text: &str, format: SetFormat) -> Result<CpuSet, String> {
    let r = match format {
        SetFormat::List => CpuSet::from_cpulist(text),
        SetFormat::Mask => CpuSet::from_hex_mask(text),
    };
    r.map_err(|e| e.to_string())
}

impl<'a> Tree<'a> {
    /// A tree rooted at `root`.
    pub(crate) fn new(root: &'a Path) -> Self {
        Tree {
            root,
            notes: Vec::new(),
        }
    }

    /// The absolute path of `rel` in the tree.
    pub(crate) fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        let rel = rel.as_ref();
        // Absolute paths (mount points from /proc/mounts) are mapped into the
        // tree: `/dev/cpuset` under root `/snap` is `/snap/dev/cpuset`.
        let rel = rel.strip_prefix("/").unwrap_or(rel);
        self.root.join(rel)
    }

    /// Records a remark for the user.
    pub(crate) fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The text of a file, or `None` when it is missing or unreadable (a
    /// directory, permission denied, invalid UTF-8: noted).
    pub(crate) fn read(&mut self, rel: impl AsRef<Path>) -> Option<String> {
        let p = self.path(rel);
        match std::fs::read(&p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(s) => Some(s),
                Err(_) => {
                    self.note(format!("{} is not text: ignored", p.display()));
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                // Reading a directory, EACCES, EIO: the fact is unknown.
                if !p.is_dir() {
                    self.note(format!("cannot read {}: {e}", p.display()));
                }
                None
            }
        }
    }

    /// Whether `rel` exists (file, directory or symlink).
    pub(crate) fn exists(&self, rel: impl AsRef<Path>) -> bool {
        let p = self.path(rel);
        p.symlink_metadata().is_ok()
    }

    /// Whether `rel` is a directory.
    pub(crate) fn is_dir(&self, rel: impl AsRef<Path>) -> bool {
        self.path(rel).is_dir()
    }

    /// Names of the entries of a directory (empty when it is missing).
    pub(crate) fn list(&self, rel: impl AsRef<Path>) -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(self.path(rel)) else {
            return Vec::new();
        };
        let mut v: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        v.sort();
        v
    }

    /// Numbered entries `prefixN` of a directory, sorted by number.
    pub(crate) fn numbered_entries(&self, rel: impl AsRef<Path>, prefix: &str) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .list(rel)
            .iter()
            .filter_map(|n| numbered(n, prefix))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A CPU set from a file: `None` when missing, empty, all-zero (mask), or
    /// garbage (noted).
    pub(crate) fn set(&mut self, rel: impl AsRef<Path>, format: SetFormat) -> Option<CpuSet> {
        let rel = rel.as_ref();
        let text = self.read(rel)?;
        if trim_value(&text).is_empty() {
            return None;
        }
        match parse_set(&text, format) {
            Ok(s) if s.is_empty() => None,
            Ok(s) => Some(s),
            Err(e) => {
                let p = self.path(rel);
                self.note(format!("malformed {}: {e}; ignored", p.display()));
                None
            }
        }
    }

    /// The first of several (file, format) candidates that gives a set.
    pub(crate) fn first_set(
        &mut self,
        dir: &Path,
        candidates: &[(&str, SetFormat)],
    ) -> Option<CpuSet> {
        candidates
            .iter()
            .find_map(|(name, f)| self.set(dir.join(name), *f))
    }

    /// A decimal integer from a file: `None` when missing or garbage (noted).
    pub(crate) fn int(&mut self, rel: impl AsRef<Path>) -> Option<i64> {
        let rel = rel.as_ref();
        let text = self.read(rel)?;
        if trim_value(&text).is_empty() {
            return None;
        }
        let v = parse_int(&text);
        if v.is_none() {
            let p = self.path(rel);
            self.note(format!(
                "malformed {}: expected an integer, found {:?}; ignored",
                p.display(),
                short(&text)
            ));
        }
        v
    }

    /// The notes, capped at [`MAX_NOTES`].
    pub(crate) fn into_notes(self) -> Vec<String> {
        let mut notes = self.notes;
        if notes.len() > MAX_NOTES {
            let more = notes.len() - (MAX_NOTES - 1);
            notes.truncate(MAX_NOTES - 1);
            notes.push(format!("... and {more} more notes about the sysfs files"));
        }
        notes
    }
}

/// At most 40 characters of `text`, trimmed, for messages.
pub(crate) fn short(text: &str) -> String {
    let t = trim_value(text);
    let mut s: String = t.chars().take(40).collect();
    if t.chars().count() > 40 {
        s.push_str("...");
    }
    s
}

/// Reads the tree under `root`; with `this_process`, also applies this
/// process's affinity mask (only meaningful when `root` is `/`).
pub(super) fn read(root: &Path, this_process: bool) -> Result<Topology, TopologyError> {
    let source = Source::Sysfs(root.to_path_buf());
    let mut tree = Tree::new(root);
    let online = cpus::online(&mut tree, &source)?;
    let mut pus: Vec<PuFacts> = online
        .iter()
        .map(|os| PuFacts {
            os,
            ..Default::default()
        })
        .collect();
    let saw_cluster = cpus::read_topology(&mut tree, &mut pus);
    caches::read(&mut tree, &mut pus);
    let numa = numa::read(&mut tree, &mut pus);
    capacity::read(&mut tree, &mut pus);
    let cgroups = allowed::cgroups(&mut tree);
    let allowed = allowed::allowed(&mut tree, &cgroups, &online, this_process);
    let quota = allowed::cpu_quota(&mut tree, &cgroups);
    if let Some((q, file)) = &quota {
        tree.note(format!(
            "cgroup CPU bandwidth limit ({}): {q} CPUs; a pool's default worker count is \
             {} at most",
            file.display(),
            super::quota_workers(*q)
        ));
    }
    let facts = Facts {
        pus,
        nodes: numa.nodes,
        distances: numa.distances,
        allowed,
        saw_cluster,
        notes: tree.into_notes(),
    };
    let mut t = build::build(facts, source)?;
    t.cpu_quota = quota.map(|(q, _)| q);
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_trimmed() {
        assert_eq!(trim_value("0-3\n\0"), "0-3");
        assert_eq!(parse_int("36\n\0"), Some(36));
        assert_eq!(parse_int("-1\n"), Some(-1));
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("x1"), None);
    }

    #[test]
    fn numbered_names() {
        assert_eq!(numbered("cpu12", "cpu"), Some(12));
        assert_eq!(numbered("cpufreq", "cpu"), None);
        assert_eq!(numbered("cpu", "cpu"), None);
        assert_eq!(numbered("node-1", "node"), None);
        assert_eq!(numbered("index99999999999999999999", "index"), None);
    }

    #[test]
    fn distance_rows() {
        assert_eq!(
            parse_distances("10 16 32 33\n\0"),
            Some(vec![10, 16, 32, 33])
        );
        assert_eq!(parse_distances(""), None);
        assert_eq!(parse_distances("10 x"), None);
        assert_eq!(parse_distances("10 -1"), None);
    }

    #[test]
    fn sets_in_both_formats() {
        assert_eq!(
            parse_set("0-3\n\0", SetFormat::List).unwrap().to_string(),
            "0-3"
        );
        assert_eq!(
            parse_set("00000000,00000003", SetFormat::Mask)
                .unwrap()
                .to_string(),
            "0-1"
        );
        assert!(parse_set("00000000", SetFormat::Mask).unwrap().is_empty());
        assert!(parse_set("zz", SetFormat::Mask).is_err());
    }

    #[test]
    fn tree_reads_missing_and_garbage() {
        let dir = std::env::temp_dir().join(format!("locus-sysfs-unit-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join("list"), "0-3\n\0").unwrap();
        std::fs::write(dir.join("zero"), "00000000,00000000\n").unwrap();
        std::fs::write(dir.join("junk"), "\u{1}\u{2}garbage").unwrap();
        std::fs::write(dir.join("num"), "-1\n").unwrap();
        let mut t = Tree::new(&dir);
        assert_eq!(t.set("list", SetFormat::List).unwrap().to_string(), "0-3");
        assert_eq!(t.set("zero", SetFormat::Mask), None);
        assert_eq!(t.set("junk", SetFormat::List), None);
        assert_eq!(t.set("missing", SetFormat::List), None);
        assert_eq!(t.int("num"), Some(-1));
        assert_eq!(t.int("junk"), None);
        assert_eq!(t.path("/dev/cpuset"), dir.join("dev/cpuset"));
        let notes = t.into_notes();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes.iter().all(|n| n.contains("junk")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
