//! Which PUs get workers when the pool has a thread count of its own.
//!
//! # Rules (decisions)
//! - `n` workers on `m` allowed PUs: every allowed PU gets `n / m` workers
//!   (zero when `n < m`), and `n % m` PUs get one more. The layout numbers
//!   the workers depth-first afterwards, so several workers on one PU are
//!   neighbours and every domain stays a contiguous range.
//! - The extra PUs are chosen one SMT rank at a time: first at most one PU
//!   per core (the first allowed PU of each core); only when every core has
//!   one, the second PU of each core, and so on. So two workers never share
//!   a core while a whole core is free.
//! - Within a rank, the count is spread evenly over the tree, level by
//!   level, outermost first: packages (or NUMA nodes when they enclose
//!   packages), NUMA nodes, LLCs, clusters, cores. At each level every child
//!   gets the same share, capped by its candidates (water filling); when the
//!   share does not divide, the extra ones go first to children with the
//!   highest-capacity PUs (big cores), then to those with more room left,
//!   then to the lower index. Each child then spreads its share inside it.

use crate::topology::{Level, Topology, level_order};
use std::cmp::Reverse;
use std::ops::Range;

/// Number of workers per allowed PU. `allowed` holds positions in
/// [`Topology::pus`], ascending and non-empty; the result is parallel to it.
pub(super) fn multiplicities(topo: &Topology, allowed: &[usize], n: usize) -> Vec<usize> {
    let m = allowed.len();
    debug_assert!(m > 0);
    let mut mult = vec![n / m; m];
    let mut left = n % m;
    if left == 0 {
        return mult;
    }
    // Rank of each allowed PU within its core (cores are contiguous in
    // `pus`, so a core's allowed PUs are consecutive in `allowed`).
    let pus = topo.pus();
    let mut rank = vec![0usize; m];
    for i in 1..m {
        if pus[allowed[i]].core == pus[allowed[i - 1]].core {
            rank[i] = rank[i - 1] + 1;
        }
    }
    let levels = level_order(topo.package_inside_numa());
    let max_rank = rank.iter().copied().max().unwrap_or(0);
    for r in 0..=max_rank {
        let cands: Vec<usize> = (0..m).filter(|&i| rank[i] == r).collect();
        if left >= cands.len() {
            for &c in &cands {
                mult[c] += 1;
            }
            left -= cands.len();
        } else {
            // Positions in `pus` of the candidates, to descend the tree.
            let pos: Vec<usize> = cands.iter().map(|&c| allowed[c]).collect();
            let mut picked = Vec::with_capacity(left);
            spread(topo, &levels, 0..pus.len(), &pos, left, &mut picked);
            for p in picked {
                // `pos` is ascending and so is `allowed`.
                if let Ok(i) = allowed.binary_search(&p) {
                    mult[i] += 1;
                }
            }
            left = 0;
        }
        if left == 0 {
            break;
        }
    }
    mult
}

/// Picks `count` of the candidate positions `cands` (ascending, all inside
/// `range`), spread over the domains of `levels[0]` inside `range`, then
/// recursively inside each. `count <= cands.len()`.
fn spread(
    topo: &Topology,
    levels: &[Level],
    range: Range<usize>,
    cands: &[usize],
    count: usize,
    out: &mut Vec<usize>,
) {
    if count == 0 {
        return;
    }
    let Some((&level, inner)) = levels.split_first() else {
        out.extend_from_slice(&cands[..count]);
        return;
    };
    let doms = topo.domains(level);
    let first = doms.partition_point(|d| d.pus.start < range.start);
    let children: Vec<Range<usize>> = doms[first..]
        .iter()
        .take_while(|d| d.pus.start < range.end)
        .map(|d| d.pus.clone())
        .collect();
    if children.is_empty() {
        // Cannot happen with a well-formed topology; stay correct anyway.
        out.extend_from_slice(&cands[..count]);
        return;
    }
    let slices: Vec<&[usize]> = children
        .iter()
        .map(|c| {
            let a = cands.partition_point(|&p| p < c.start);
            let b = cands.partition_point(|&p| p < c.end);
            &cands[a..b]
        })
        .collect();
    let caps: Vec<usize> = slices.iter().map(|s| s.len()).collect();
    let best: Vec<u32> = slices
        .iter()
        .map(|s| s.iter().map(|&p| topo.pus()[p].capacity).max().unwrap_or(0))
        .collect();
    let shares = water_fill(&caps, &best, count);
    for ((child, slice), share) in children.into_iter().zip(slices).zip(shares) {
        spread(topo, inner, child, slice, share, out);
    }
}

/// Splits `count` (at most the sum of `caps`) into shares as equal as the
/// caps allow; leftovers go by (highest `best` capacity, most room left,
/// lowest index).
fn water_fill(caps: &[usize], best: &[u32], count: usize) -> Vec<usize> {
    let mut share = vec![0usize; caps.len()];
    let mut left = count;
    while left > 0 {
        let mut open: Vec<usize> = (0..caps.len()).filter(|&i| share[i] < caps[i]).collect();
        if open.is_empty() {
            break; // count exceeded the caps: cannot happen, see callers
        }
        if left >= open.len() {
            // A whole round: raise the level by as much as every open child allows.
            let step = open
                .iter()
                .map(|&i| caps[i] - share[i])
                .min()
                .unwrap_or(1)
                .min(left / open.len())
                .max(1);
            for &i in &open {
                share[i] += step;
            }
            left -= step * open.len();
        } else {
            open.sort_by_key(|&i| (Reverse(best[i]), Reverse(caps[i] - share[i]), i));
            for &i in &open[..left] {
                share[i] += 1;
            }
            left = 0;
        }
    }
    share
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn water_fill_even_then_by_priority() {
        assert_eq!(water_fill(&[4, 4], &[1024, 1024], 3), [2, 1]);
        assert_eq!(water_fill(&[1, 8], &[1024, 1024], 5), [1, 4]);
        assert_eq!(water_fill(&[8, 4], &[1024, 1024], 1), [1, 0]);
        assert_eq!(
            water_fill(&[4, 8], &[1024, 1024], 1),
            [0, 1],
            "more room wins"
        );
        assert_eq!(
            water_fill(&[4, 1, 1], &[512, 1024, 1024], 2),
            [0, 1, 1],
            "big cores win"
        );
        assert_eq!(water_fill(&[3, 3, 3], &[1, 1, 1], 9), [3, 3, 3]);
        assert_eq!(water_fill(&[0, 2], &[0, 1], 2), [0, 2]);
    }

    fn mult_of(spec: &str, n: usize) -> Vec<usize> {
        let t = Topology::synthetic(spec).unwrap();
        let allowed: Vec<usize> = (0..t.pus().len()).collect();
        let m = multiplicities(&t, &allowed, n);
        assert_eq!(m.iter().sum::<usize>(), n, "{spec} n={n}");
        m
    }

    #[test]
    fn smt_siblings_last() {
        // 4 cores x 2 PUs: 4 workers take the first PU of each core.
        assert_eq!(mult_of("core:4 smt:2", 4), [1, 0, 1, 0, 1, 0, 1, 0]);
        // 6 workers: then the second PU of two cores, lowest index first.
        assert_eq!(mult_of("core:4 smt:2", 6), [1, 1, 1, 1, 1, 0, 1, 0]);
        // 9 workers on 8 PUs: one each, and a second on the first PU.
        assert_eq!(mult_of("core:4 smt:2", 9), [2, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(mult_of("core:4 smt:2", 16), [2; 8]);
    }

    #[test]
    fn spread_over_llcs_then_clusters() {
        // 2 LLCs x 2 clusters x 2 cores: 4 workers, one per cluster.
        let m = mult_of("llc:2 cluster:2 core:2", 4);
        assert_eq!(m, [1, 0, 1, 0, 1, 0, 1, 0]);
        // 2 workers on 2 nodes x 2 LLCs: one per node, not both in node 0.
        let m = mult_of("numa:2 llc:2 core:2", 2);
        assert_eq!(m, [1, 0, 0, 0, 1, 0, 0, 0]);
        // 3 workers: two in the first LLC (different clusters), one in the second.
        let m = mult_of("llc:2 cluster:2 core:2", 3);
        assert_eq!(m, [1, 0, 1, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn big_cores_first() {
        // Two clusters of 4 cores, the first core of each big: 2 workers go on them.
        let m = mult_of("cluster:2 core:4 big:1", 2);
        assert_eq!(m, [1, 0, 0, 0, 1, 0, 0, 0]);
        // Without the big core first in index order: allow only PUs 1-3 of
        // cluster 0 (little) and all of cluster 1; 1 worker goes to cluster
        // 1's big core although cluster 0 comes first.
        let t = Topology::synthetic("cluster:2 core:4 big:1").unwrap();
        let allowed = [1, 2, 3, 4, 5, 6, 7];
        assert_eq!(multiplicities(&t, &allowed, 1), [0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn subset_of_allowed() {
        let t = Topology::synthetic("llc:2 core:4").unwrap();
        // Only PUs 2, 3 (LLC 0) and 4, 5, 6, 7 (LLC 1) allowed; 2 workers: one per LLC.
        let allowed = [2, 3, 4, 5, 6, 7];
        assert_eq!(multiplicities(&t, &allowed, 2), [1, 0, 1, 0, 0, 0]);
    }
}
