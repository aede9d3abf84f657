//! jwalk, a directory walker that reads directories with rayon's `spawn`
//! and parallel iterators, on a pool it is given (a locus pool) and on a
//! pool it builds itself (through the shim's builder): it lists the same
//! entries as a serial walk, and its per-directory callback runs on the
//! pool's workers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deptree::Seen;
use jwalk::{Parallelism, WalkDir};

/// A directory tree under the system's temporary directory, removed on
/// drop: `fanout` directories a level, `depth` levels, three files in each.
struct Tree {
    root: PathBuf,
}

impl Tree {
    fn new(name: &str, fanout: usize, depth: usize) -> Tree {
        let root = std::env::temp_dir().join(format!("deptree-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        fn fill(dir: &Path, fanout: usize, depth: usize) {
            std::fs::create_dir_all(dir).unwrap();
            for f in 0..3 {
                std::fs::write(dir.join(format!("f{f}.txt")), b"x").unwrap();
            }
            if depth > 0 {
                for d in 0..fanout {
                    fill(&dir.join(format!("d{d}")), fanout, depth - 1);
                }
            }
        }
        fill(&root, fanout, depth);
        Tree { root }
    }

    /// Every path under the root, the root too, by a serial walk, sorted.
    fn serial(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            out.push(dir.to_path_buf());
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out.sort();
        out
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// jwalk's listing with `parallelism`, recording where its callback ran
/// for the directories it read (jwalk also calls it once, on the calling
/// thread and with no depth, for the root entry itself).
fn walk(tree: &Tree, parallelism: Parallelism, seen: &Arc<Seen>) -> Vec<PathBuf> {
    let seen = Arc::clone(seen);
    let mut paths: Vec<PathBuf> = WalkDir::new(&tree.root)
        .skip_hidden(false)
        .parallelism(parallelism)
        .process_read_dir(move |depth, _, _, _| {
            if depth.is_some() {
                seen.record();
            }
        })
        .into_iter()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
}

#[test]
fn jwalk_lists_a_tree_on_a_given_locus_pool() {
    let tree = Tree::new("given", 4, 3);
    let pool = deptree::pool("tree-walk-");
    let seen = Arc::new(Seen::default());
    let parallelism = Parallelism::RayonExistingPool {
        pool: Arc::new(pool),
        busy_timeout: Some(std::time::Duration::from_secs(60)),
    };
    let paths = walk(&tree, parallelism, &seen);
    // 1 + 4 + 16 + 64 directories, three files in each.
    assert_eq!(paths.len(), 85 * 4);
    assert_eq!(paths, tree.serial());
    seen.assert_all_on("tree-walk-");
}

#[test]
fn jwalk_builds_its_own_pool_through_the_shim() {
    let tree = Tree::new("new", 3, 3);
    let seen = Arc::new(Seen::default());
    let paths = walk(&tree, Parallelism::RayonNewPool(2), &seen);
    assert_eq!(paths.len(), 40 * 4);
    assert_eq!(paths, tree.serial());
    // jwalk names no threads: its pool's workers are locus's, with
    // locus's default names.
    assert_eq!(seen.outside(), 0, "a callback ran outside locus's workers");
    assert!(!seen.names().is_empty());
}
