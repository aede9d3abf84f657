//! Which CPUs this process may use: its cpuset cgroup (found inside the
//! tree), and for the running machine its affinity mask.
//!
//! The cgroup is located as the kernel describes it, with every absolute
//! path mapped into the tree (snapshots keep their cpuset trees at e.g.
//! `<root>/dev/cpuset` or `<root>/cgroup/unified`):
//! - `proc/mounts` gives the cgroup v1 cpuset hierarchy (type `cpuset`, or
//!   type `cgroup` with the `cpuset` option) and the cgroup v2 hierarchy
//!   (type `cgroup2`);
//! - the process's cgroup path comes from `proc/self/cgroup` (the v1 line
//!   naming the `cpuset` controller; the v2 line `0::/path`), else from
//!   `proc/self/cpuset` (used for either hierarchy: the SLURM cgroup v2
//!   snapshot has only that file);
//! - in `<mount>/<path>` the first of `cpuset.cpus.effective`,
//!   `cpuset.effective_cpus`, `cpuset.cpus`, `effective_cpus`, `cpus`
//!   (v1 mounted with `noprefix` or as type `cpuset`) that gives a set
//!   wins; when the directory has none (cgroup v2 without the cpuset
//!   controller enabled at that level), its parents are tried up to the
//!   mount point, as the kernel inherits the parent's CPUs.
//!
//! v1 is tried before v2. No cgroup information means no restriction.
//! With `this_process` (the tree is `/`), the result is intersected with
//! `sched_getaffinity` (Linux only).
//!
//! # CPU bandwidth (quota)
//!
//! [`cpu_quota`] reads the CPU bandwidth limit of the process's cgroup the
//! same way, as `std::thread::available_parallelism` does: cgroup v2
//! `cpu.max` (`max 100000` is no limit, `150000 100000` is 1.5 CPUs) in
//! the v2 hierarchy, cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`
//! (`-1`: no limit) in the hierarchy of the v1 `cpu` controller (type
//! `cgroup` with the `cpu` option, path from the `/proc/self/cgroup` line
//! naming `cpu`). A limit applies to the whole subtree, so the cgroup and
//! each parent up to the mount point are read and the smallest limit wins.
//! A garbage file is noted and ignored.

use super::Tree;
use crate::topology::CpuSet;
use std::path::{Path, PathBuf};

/// The mount points of the cgroup hierarchies, from `/proc/mounts` text.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Mounts {
    /// cgroup v1 cpuset hierarchy.
    pub v1: Option<String>,
    /// cgroup v2 unified hierarchy.
    pub v2: Option<String>,
    /// cgroup v1 hierarchy of the `cpu` controller (bandwidth).
    pub v1_cpu: Option<String>,
}

/// The process's cgroup paths, from `/proc/self/cgroup` text.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SelfCgroup {
    /// In the v1 cpuset hierarchy.
    pub v1: Option<String>,
    /// In the v2 hierarchy.
    pub v2: Option<String>,
    /// In the v1 `cpu` controller's hierarchy.
    pub v1_cpu: Option<String>,
}

/// Decodes the octal escapes of `/proc/mounts` (`\040` is a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses `/proc/mounts`; the first hierarchy of each kind wins.
pub(crate) fn parse_mounts(text: &str) -> Mounts {
    let mut m = Mounts::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            continue;
        }
        let (dir, fstype, opts) = (f[1], f[2], f.get(3).copied().unwrap_or(""));
        let has = |opt: &str| opts.split(',').any(|o| o == opt);
        let is_v1 = fstype == "cpuset" || (fstype == "cgroup" && has("cpuset"));
        if is_v1 && m.v1.is_none() {
            m.v1 = Some(unescape(dir));
        } else if fstype == "cgroup2" && m.v2.is_none() {
            m.v2 = Some(unescape(dir));
        }
        if fstype == "cgroup" && has("cpu") && m.v1_cpu.is_none() {
            m.v1_cpu = Some(unescape(dir));
        }
    }
    m
}

/// The process's cgroup paths from `/proc/self/cgroup` text.
pub(crate) fn parse_self_cgroup(text: &str) -> SelfCgroup {
    let mut cg = SelfCgroup::default();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(hier), Some(ctrls), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = super::trim_value(path).to_string();
        let has = |ctrl: &str| ctrls.split(',').any(|c| c == ctrl);
        if hier == "0" && ctrls.is_empty() {
            cg.v2.get_or_insert(path);
            continue;
        }
        if has("cpuset") {
            cg.v1.get_or_insert(path.clone());
        }
        if has("cpu") {
            cg.v1_cpu.get_or_insert(path);
        }
    }
    cg
}

/// What `/proc/mounts`, `/proc/self/cgroup` and `/proc/self/cpuset` of a
/// tree say about the process's cgroups (read once for the cpuset and the
/// quota).
#[derive(Debug, Default)]
pub(crate) struct Cgroups {
    mounts: Mounts,
    own: SelfCgroup,
    /// `/proc/self/cpuset`, when it holds an absolute path.
    self_cpuset: Option<String>,
}

/// Reads the process's cgroup description in `tree`.
pub(crate) fn cgroups(tree: &mut Tree<'_>) -> Cgroups {
    Cgroups {
        mounts: tree
            .read("proc/mounts")
            .map(|t| parse_mounts(&t))
            .unwrap_or_default(),
        own: tree
            .read("proc/self/cgroup")
            .map(|t| parse_self_cgroup(&t))
            .unwrap_or_default(),
        self_cpuset: tree
            .read("proc/self/cpuset")
            .map(|t| super::trim_value(&t).to_string())
            .filter(|p| p.starts_with('/')),
    }
}

/// Whether a cgroup path is safe to join under a mount (it never leaves
/// the tree: a cgroup path has no `..`); notes it when not.
fn safe_cgroup_path(tree: &mut Tree<'_>, path: &str) -> bool {
    if path.split('/').any(|c| c == "..") {
        let file = tree.path("proc/self/cgroup");
        tree.note(format!(
            "cgroup path {path:?} (from {}) contains \"..\": ignored",
            file.display()
        ));
        return false;
    }
    true
}

/// Parses cgroup v2 `cpu.max`: `Some(Some(cpus))` for a limit,
/// `Some(None)` for `max`, `None` for garbage.
pub(crate) fn parse_cpu_max(text: &str) -> Option<Option<f64>> {
    let mut words = super::trim_value(text).split_whitespace();
    let quota = words.next()?;
    let period = match words.next() {
        Some(p) => p.parse::<u64>().ok().filter(|&p| p > 0)?,
        None => 100_000, // the kernel's default period
    };
    if words.next().is_some() {
        return None;
    }
    if quota == "max" {
        return Some(None);
    }
    let quota = quota.parse::<u64>().ok().filter(|&q| q > 0)?;
    Some(Some(quota as f64 / period as f64))
}

/// The CPU bandwidth limit of the process's cgroup in CPUs (quota over
/// period; the smallest along the path to the mount point), with the file
/// it came from; `None` without a limit (module docs, "CPU bandwidth").
pub(crate) fn cpu_quota(tree: &mut Tree<'_>, cg: &Cgroups) -> Option<(f64, PathBuf)> {
    let mut best: Option<(f64, PathBuf)> = None;
    let mut consider = |q: f64, file: PathBuf| {
        if best.as_ref().is_none_or(|(b, _)| q < *b) {
            best = Some((q, file));
        }
    };
    if let (Some(m), Some(p)) = (&cg.mounts.v2, &cg.own.v2) {
        if safe_cgroup_path(tree, p) {
            for dir in with_parents(p) {
                let rel = Path::new(m)
                    .join(dir.trim_start_matches('/'))
                    .join("cpu.max");
                let Some(text) = tree.read(&rel) else {
                    continue;
                };
                match parse_cpu_max(&text) {
                    Some(Some(q)) => consider(q, tree.path(&rel)),
                    Some(None) => {}
                    None => {
                        let file = tree.path(&rel);
                        tree.note(format!(
                            "malformed {}: expected \"max\" or \"<quota> <period>\", found {:?}; ignored",
                            file.display(),
                            super::short(&text)
                        ));
                    }
                }
            }
        }
    }
    if let (Some(m), Some(p)) = (&cg.mounts.v1_cpu, &cg.own.v1_cpu) {
        if safe_cgroup_path(tree, p) {
            for dir in with_parents(p) {
                let dir = Path::new(m).join(dir.trim_start_matches('/'));
                let (Some(quota), Some(period)) = (
                    tree.int(dir.join("cpu.cfs_quota_us")),
                    tree.int(dir.join("cpu.cfs_period_us")),
                ) else {
                    continue;
                };
                if quota > 0 && period > 0 {
                    consider(
                        quota as f64 / period as f64,
                        tree.path(dir.join("cpu.cfs_quota_us")),
                    );
                }
            }
        }
    }
    best
}

/// `path` and its parents (cgroup paths, `/`-separated), innermost first.
pub(crate) fn with_parents(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = path.trim_end_matches('/').to_string();
    loop {
        out.push(if p.is_empty() {
            "/".to_string()
        } else {
            p.clone()
        });
        match p.rfind('/') {
            Some(i) if !p.is_empty() => p.truncate(i),
            _ => break,
        }
    }
    out.dedup();
    out
}

/// The CPU set of the cgroup at `path` under `mount` (or the nearest parent
/// that has one), with the file it came from.
fn cgroup_cpus(tree: &mut Tree<'_>, mount: &str, path: &str) -> Option<(CpuSet, PathBuf)> {
    const FILES: [&str; 5] = [
        "cpuset.cpus.effective",
        "cpuset.effective_cpus",
        "cpuset.cpus",
        "effective_cpus",
        "cpus",
    ];
    if !safe_cgroup_path(tree, path) {
        return None;
    }
    for dir in with_parents(path) {
        let dir = Path::new(mount).join(dir.trim_start_matches('/'));
        for f in FILES {
            let rel = dir.join(f);
            if let Some(s) = tree.set(&rel, super::SetFormat::List) {
                return Some((s, tree.path(&rel)));
            }
        }
    }
    None
}

/// This process's affinity mask, if the kernel gives it.
#[cfg(target_os = "linux")]
pub(crate) fn affinity() -> Option<CpuSet> {
    let mut words = 16usize; // 1024 CPUs, glibc's cpu_set_t
    while words * 64 <= crate::topology::cpuset::MAX_CPU_ID {
        let mut buf = vec![0u64; words];
        let bytes = words * std::mem::size_of::<u64>();
        // SAFETY: `buf` is a live, writable buffer of exactly `bytes` bytes,
        // aligned for u64 (at least cpu_set_t's alignment); the kernel writes
        // at most `bytes` bytes into it. pid 0 is the calling thread.
        let r = unsafe {
            libc::sched_getaffinity(0, bytes, buf.as_mut_ptr().cast::<libc::cpu_set_t>())
        };
        if r == 0 {
            let mut set = CpuSet::new();
            for (i, w) in buf.iter().enumerate() {
                for b in 0..64 {
                    if w & (1u64 << b) != 0 {
                        set.insert(i * 64 + b);
                    }
                }
            }
            return (!set.is_empty()).then_some(set);
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
            return None;
        }
        words *= 2; // the kernel's mask is wider than the buffer
    }
    None
}

/// This process's affinity mask (not available on this OS).
#[cfg(not(target_os = "linux"))]
pub(crate) fn affinity() -> Option<CpuSet> {
    None
}

/// The allowed CPUs; `None` means "no restriction found".
pub(crate) fn allowed(
    tree: &mut Tree<'_>,
    cg: &Cgroups,
    online: &CpuSet,
    this_process: bool,
) -> Option<CpuSet> {
    let (mounts, own) = (&cg.mounts, &cg.own);
    let self_cpuset = cg.self_cpuset.as_ref();
    let mut found: Option<(CpuSet, PathBuf)> = None;
    if let (Some(m), Some(p)) = (&mounts.v1, own.v1.as_ref().or(self_cpuset)) {
        found = cgroup_cpus(tree, m, p);
    }
    if found.is_none() {
        if let (Some(m), Some(p)) = (&mounts.v2, own.v2.as_ref().or(self_cpuset)) {
            found = cgroup_cpus(tree, m, p);
        }
    }
    let mut allowed = None;
    if let Some((set, file)) = found {
        if !online.is_subset(&set) {
            tree.note(format!(
                "cpuset cgroup ({}) allows CPUs {}",
                file.display(),
                set.intersection(online)
            ));
        }
        allowed = Some(set);
    }
    if this_process {
        if let Some(aff) = affinity() {
            if !online.is_subset(&aff) {
                tree.note(format!(
                    "affinity mask allows CPUs {}",
                    aff.intersection(online)
                ));
            }
            allowed = Some(match allowed {
                Some(a) => a.intersection(&aff),
                None => aff,
            });
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mounts() {
        let t = "none /dev/cpuset cpuset rw 0 0\nnone /cgroup/unified cgroup2 rw 0 0\n";
        assert_eq!(
            parse_mounts(t),
            Mounts {
                v1: Some("/dev/cpuset".into()),
                v2: Some("/cgroup/unified".into()),
                v1_cpu: None,
            }
        );
        let t = "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpuacct,cpu 0 0\n\
                 cgroup /sys/fs/cgroup/cpuset cgroup rw,nosuid,cpuset 0 0\nbad\n";
        assert_eq!(parse_mounts(t).v1.as_deref(), Some("/sys/fs/cgroup/cpuset"));
        assert_eq!(
            parse_mounts(t).v1_cpu.as_deref(),
            Some("/sys/fs/cgroup/cpu,cpuacct")
        );
        assert_eq!(
            parse_mounts("x /a\\040b cgroup2 rw 0 0").v2.as_deref(),
            Some("/a b")
        );
        assert_eq!(parse_mounts(""), Mounts::default());
    }

    #[test]
    fn self_cgroup() {
        let t = "9:blkio:/user.slice\n2:cpuset:/jjh\n0::/user.slice/session-1.scope\n";
        assert_eq!(
            parse_self_cgroup(t),
            SelfCgroup {
                v1: Some("/jjh".into()),
                v2: Some("/user.slice/session-1.scope".into()),
                v1_cpu: None,
            }
        );
        assert_eq!(parse_self_cgroup("garbage"), SelfCgroup::default());
        assert_eq!(
            parse_self_cgroup("7:cpuset,cpu:/a\n4:cpuacct:/b\n"),
            SelfCgroup {
                v1: Some("/a".into()),
                v2: None,
                v1_cpu: Some("/a".into()),
            }
        );
    }

    #[test]
    fn cpu_max() {
        assert_eq!(parse_cpu_max("max 100000\n"), Some(None));
        assert_eq!(parse_cpu_max("150000 100000\n"), Some(Some(1.5)));
        assert_eq!(parse_cpu_max("50000"), Some(Some(0.5)));
        for bad in ["", "x 100000", "100 0", "0 100000", "1 2 3", "-5 100000"] {
            assert_eq!(parse_cpu_max(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn parents() {
        assert_eq!(with_parents("/a/b"), vec!["/a/b", "/a", "/"]);
        assert_eq!(with_parents("/"), vec!["/"]);
        assert_eq!(with_parents("/a/"), vec!["/a", "/"]);
    }

    #[test]
    fn unescapes() {
        assert_eq!(unescape("/a\\040b"), "/a b");
        assert_eq!(unescape("/a\\04"), "/a\\04");
        assert_eq!(unescape("\\"), "\\");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn own_affinity_is_not_empty() {
        let a = affinity().expect("sched_getaffinity works on Linux");
        assert!(!a.is_empty());
    }
}
