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

use super::Tree;
use crate::topology::CpuSet;
use std::path::{Path, PathBuf};

/// The mount points of the cpuset hierarchies, from `/proc/mounts` text.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Mounts {
    /// cgroup v1 cpuset hierarchy.
    pub v1: Option<String>,
    /// cgroup v2 unified hierarchy.
    pub v2: Option<String>,
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
        let is_v1 =
            fstype == "cpuset" || (fstype == "cgroup" && opts.split(',').any(|o| o == "cpuset"));
        if is_v1 && m.v1.is_none() {
            m.v1 = Some(unescape(dir));
        } else if fstype == "cgroup2" && m.v2.is_none() {
            m.v2 = Some(unescape(dir));
        }
    }
    m
}

/// The process's cgroup paths from `/proc/self/cgroup` text: (v1 cpuset, v2).
pub(crate) fn parse_self_cgroup(text: &str) -> (Option<String>, Option<String>) {
    let (mut v1, mut v2) = (None, None);
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(hier), Some(ctrls), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = super::trim_value(path).to_string();
        if hier == "0" && ctrls.is_empty() {
            v2.get_or_insert(path);
        } else if ctrls.split(',').any(|c| c == "cpuset") {
            v1.get_or_insert(path);
        }
    }
    (v1, v2)
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
    if path.split('/').any(|c| c == "..") {
        // Never leave the tree: a cgroup path has no `..`.
        let file = tree.path("proc/self/cgroup");
        tree.note(format!(
            "cgroup path {path:?} (from {}) contains \"..\": ignored",
            file.display()
        ));
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
pub(crate) fn allowed(tree: &mut Tree<'_>, online: &CpuSet, this_process: bool) -> Option<CpuSet> {
    let mounts = tree
        .read("proc/mounts")
        .map(|t| parse_mounts(&t))
        .unwrap_or_default();
    let (cg_v1, cg_v2) = tree
        .read("proc/self/cgroup")
        .map(|t| parse_self_cgroup(&t))
        .unwrap_or_default();
    let self_cpuset = tree
        .read("proc/self/cpuset")
        .map(|t| super::trim_value(&t).to_string())
        .filter(|p| p.starts_with('/'));
    let mut found: Option<(CpuSet, PathBuf)> = None;
    if let (Some(m), Some(p)) = (&mounts.v1, cg_v1.as_ref().or(self_cpuset.as_ref())) {
        found = cgroup_cpus(tree, m, p);
    }
    if found.is_none() {
        if let (Some(m), Some(p)) = (&mounts.v2, cg_v2.as_ref().or(self_cpuset.as_ref())) {
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
                v2: Some("/cgroup/unified".into())
            }
        );
        let t = "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpuacct,cpu 0 0\n\
                 cgroup /sys/fs/cgroup/cpuset cgroup rw,nosuid,cpuset 0 0\nbad\n";
        assert_eq!(parse_mounts(t).v1.as_deref(), Some("/sys/fs/cgroup/cpuset"));
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
            (
                Some("/jjh".into()),
                Some("/user.slice/session-1.scope".into())
            )
        );
        assert_eq!(parse_self_cgroup("garbage"), (None, None));
        assert_eq!(
            parse_self_cgroup("7:cpuset,cpu:/a\n"),
            (Some("/a".into()), None)
        );
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
