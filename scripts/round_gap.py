#!/usr/bin/env python3
"""Where a policy's default `matmul` makespan goes above the round bound
(docs/locality-bound.md, session 44, "where hierarchical's `matmul` time goes"),
from the traces `scripts/round_bound.py` keeps (run that first, same --out).

    python3 scripts/round_gap.py [--machines epyc192,kunpeng] [--seeds 0,5] [--runs 5]
                                 [--out DIR] [--policies hierarchical,rayon-like]

For one worker of a run, with its leaves in start order, its first start s1,
its n blocks, its last leaf's end e (start + work + refill) and the run's
makespan M, the round bound B = t0 + k (work + floor) splits exactly as

    M - B = (s1 - t0)                      late first start
          + sum(refill - floor)            refill above the floor, of which
                = bandwidth wait           (the trace's bw_wait_ns)
                + tiers beyond the floor   (each transfer's price alone, by the
                                            tier it came from, minus the floor)
                + copies still arriving    (the rest: waits for a copy on its way)
          + sum(gaps between its leaves)   searches, steals, pops, parks
          + (n - k) (work + floor)         blocks beyond k (negative: fewer)
          + (M - e)                        after its last leaf, to the makespan

for the worker whose last leaf ends last and for the median worker (the
lower median, by their last leaf's end, of the workers that run at least k
blocks: those the bound is about). Every term is measured from the
trace except the prices (the seed's, as round_bound.py replays them). The
price of a cache-to-cache read from another package takes the smallest NUMA
distance from the reader's node to that package (the holder is not traced),
so a larger distance's extra lands in "copies still arriving"; a remote DRAM
read's distance is exact (the panel's home is its first reader's node). The
script checks that the leaves' arrival waits add up to the run's
`arrival_wait_ns` within that. Standard library only.
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from round_bound import (BLOCKS, CBLOCK, LEAF_WORK, PANEL, cold_extra, floor_refill,  # noqa: E402
                         first_refill_end, prices,
                         trace_leaves)
from sim_results import machines, spread  # noqa: E402

# NUMA distances (10 = local) and each worker's node. The Kunpeng's are its
# hwloc snapshot's (sys/devices/system/node/node*/distance of
# 128arm-2pa2n8cluster4co: nodes of 32 cores, two per package); the 2x EPYC's
# spec names no NUMA level, so a node per package at distance 20
# (Topology::numa_distance); one node elsewhere.
DISTANCES = {"kunpeng": [[10, 16, 32, 33], [16, 10, 25, 32], [32, 25, 10, 16], [33, 32, 16, 10]],
             "epyc192": [[10, 20], [20, 10]]}
PER_NODE = {"kunpeng": 32, "epyc192": 96}


def price(p, tier, d):
    """A 1 MiB panel's price alone from `tier` at NUMA distance `d`
    (`CostModel::transfer`, `CostModel::dram`, src/sim/cost.rs)."""
    if tier == "own-cache":
        return 0.0
    if tier in ("same-core", "same-cluster"):
        line = p["line_smt_ns"] if tier == "same-core" else p["line_cluster_ns"]
        return line + PANEL / p["bw_cluster"]
    if tier == "same-llc":
        return p["line_llc_ns"] + PANEL / p["bw_llc"]
    if tier.startswith("dram"):
        lat = p["dram_ns"] + (p["dram_remote_ns"] - p["dram_ns"]) * (d - 10) / 10
        bw = p["bw_dram"] if d <= 10 else min(p["bw_dram_remote"] * 20 / d, p["bw_dram"])
        return max(lat, 0.0) + PANEL / bw
    if d <= 10:
        return p["line_node_ns"] + PANEL / p["bw_node"]
    return p["line_remote_ns"] * d / 20 + PANEL / (p["bw_remote"] * 20 / d)


def load(path):
    """The leaves of every (seed, policy) of a trace, in event order."""
    out = {}
    for seed, policy, x, tiers in trace_leaves(path):
        out.setdefault((seed, policy), []).append(dict(
            start=float(x["start_ns"]), worker=int(x["worker"]),
            a=int(x["a"]) & 0xFFFFFFFF, b=int(x["b"]) & 0xFFFFFFFF,
            work=float(x["work_ns"]), refill=float(x["refill_ns"]),
            bw=float(x["bw_wait_ns"]), tiers=tiers))
    return out


def split_refills(key, p, leaves):
    """Adds each leaf's price alone (`alone`) and arrival wait (`arrive`)."""
    dist = DISTANCES.get(key, [[10]])
    node = lambda w: w // PER_NODE[key] if key in PER_NODE else 0  # noqa: E731
    home = {}
    c = p["dram_ns"] + CBLOCK / p["bw_dram"]
    for l in leaves:
        me = node(l["worker"])
        for panel in (("a", l["a"]), ("b", l["b"])):
            home.setdefault(panel, me)
        t = dict(l["tiers"])
        assert t["dram-local"] % PANEL == CBLOCK, l  # the C block: a first touch
        t["dram-local"] -= CBLOCK
        alone = c
        far = [dist[me][h] for h in range(len(dist)) if dist[me][h] > 10]
        remote_homes = [dist[me][home[pn]] for pn in (("a", l["a"]), ("b", l["b"]))
                        if home[pn] != me]
        for tier, b in t.items():
            n = b // PANEL
            assert b == n * PANEL, l
            if not n:
                continue
            if tier == "dram-remote":
                ds = sorted(remote_homes)
                alone += sum(price(p, tier, d) for d in (ds[:n] if len(ds) >= n else ds + [min(far)] * n))
                continue
            d = {"same-package": min(far or [10]), "other-node": min(far or [10])}.get(tier, 10)
            if key == "kunpeng" and tier == "other-node":
                d = min(dist[me][h] for h in range(4) if h // 2 != me // 2)
            if key == "kunpeng" and tier == "same-package":
                d = dist[me][me ^ 1]
            alone += n * price(p, tier, d)
        l["alone"] = alone
        l["arrive"] = l["refill"] - l["bw"] - alone


def check_link(p, leaves, llcs, workers, t0):
    """The link bound's premise, checked on a run: in each LLC, the r-th of
    its workers to end its first refill ends it no sooner than the link and
    the cold first read allow (round_bound.first_refill_end)."""
    if p["bw_llc_link"] <= 0:
        return
    per_llc = workers // llcs
    first = {}
    for l in sorted(leaves, key=lambda l: l["start"]):
        first.setdefault(l["worker"], l["start"] + l["refill"])
    floor = floor_refill(p)[0]
    for llc in range(llcs):
        ends = sorted(e for w, e in first.items() if w // per_llc == llc)
        for r, e in enumerate(ends, 1):
            low = max(floor + cold_extra(p), first_refill_end(p, r))
            assert e - t0 >= low - 2, (llc, r, e - t0, low)


def decompose(leaves, w, t0, k, work, floor, makespan):
    ls = sorted((l for l in leaves if l["worker"] == w), key=lambda l: l["start"])
    end = lambda l: l["start"] + l["work"] + l["refill"]  # noqa: E731
    gaps = sum(b["start"] - end(a) for a, b in zip(ls, ls[1:]))
    d = dict(late=ls[0]["start"] - t0,
             bw=sum(l["bw"] for l in ls),
             tiers=sum(l["alone"] for l in ls) - len(ls) * floor,
             arrive=sum(l["arrive"] for l in ls),
             gaps=gaps, extra=(len(ls) - k) * (work + floor), tail=makespan - end(ls[-1]),
             blocks=len(ls))
    d["total"] = makespan - (t0 + k * (work + floor))
    parts = d["late"] + d["bw"] + d["tiers"] + d["arrive"] + d["gaps"] + d["extra"] + d["tail"]
    assert abs(parts - d["total"]) < 2 * len(ls) + 2, (parts, d)
    return d


ROWS = [("makespan − round bound", "total"), ("late first start", "late"),
        ("refill above floor: bandwidth wait", "bw"), ("refill above floor: tiers beyond the floor", "tiers"),
        ("refill above floor: copies still arriving", "arrive"), ("gaps between its leaves", "gaps"),
        ("blocks beyond k", "extra"), ("after its last leaf", "tail"), ("blocks run", "blocks")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machines", default="epyc192,kunpeng")
    ap.add_argument("--seeds", default="0,5")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default="target/round-bound")
    ap.add_argument("--policies", default="hierarchical,rayon-like")
    a = ap.parse_args()
    pols = a.policies.split(",")
    for key, _, _, cls in machines():
        if key not in a.machines.split(","):
            continue
        got = {(pol, who): [] for pol in pols for who in ("last", "median")}
        extra = {pol: [] for pol in pols}
        for first in (int(s) for s in a.seeds.split(",")):
            base = os.path.join(a.out, f"{key}__seed{first}")
            report, traces = json.load(open(base + ".json")), load(base + ".tsv")
            llcs = report["machine"]["llcs"]
            for seed in range(first, first + a.runs):
                p = prices(cls, seed)
                floor, _ = floor_refill(p)
                work = LEAF_WORK * p["work_scale"]
                runs = {r["policy"]: r for r in report["runs"] if r["seed"] == seed}
                t0 = min(l["start"] for pol in runs for l in traces[(seed, pol)])
                workers = next(iter(runs.values()))["workers"]
                k = -(-BLOCKS // workers)
                for pol in pols:
                    ls, run = traces[(seed, pol)], runs[pol]
                    split_refills(key, p, ls)
                    arrive = sum(l["arrive"] for l in ls)
                    # Exact where every distance is known; above by the
                    # unknown holders' distances otherwise.
                    assert arrive >= run["arrival_wait_ns"] - 2 * len(ls), (key, seed, pol)
                    assert arrive <= 1.25 * run["arrival_wait_ns"] + 2 * len(ls), (key, seed, pol)
                    ends = {}
                    for l in ls:
                        ends[l["worker"]] = max(ends.get(l["worker"], 0), l["start"] + l["work"] + l["refill"])
                    per = {}
                    for l in ls:
                        per[l["worker"]] = per.get(l["worker"], 0) + 1
                    order = sorted(ends, key=ends.get)
                    full = [w for w in order if per[w] >= k]
                    for who, w in (("last", order[-1]), ("median", full[(len(full) - 1) // 2])):
                        got[(pol, who)].append(decompose(ls, w, t0, k, work, floor, run["makespan_ns"]))
                    extra[pol].append((sum(n > k for n in per.values()), sum(n < k for n in per.values()),
                                       arrive / 1e3, run["arrival_wait_ns"] / 1e3,
                                       sum(l["bw"] for l in ls) / 1e3))
                    check_link(p, ls, llcs, workers, t0)
        print(f"\n{key} (seeds {a.seeds} + {a.runs} each): us, median [min–max] over seeds\n")
        print("| | " + " | ".join(f"{pol}: {who} worker" for pol in pols for who in ("last", "median")) + " |")
        print("|---|" + "---:|" * (2 * len(pols)))
        for label, f in ROWS:
            cells = []
            for pol in pols:
                for who in ("last", "median"):
                    xs = [d[f] / (1 if f == "blocks" else 1e3) for d in got[(pol, who)]]
                    cells.append(spread(xs, lambda v: f"{v:.0f}"))
            print(f"| {label} | " + " | ".join(cells) + " |")
        for pol in pols:
            xs = extra[pol]
            print(f"{pol}: workers with more than k blocks {spread([x[0] for x in xs], str)}, fewer "
                  f"{spread([x[1] for x in xs], str)}; arrival waits from the trace {spread([x[2] for x in xs], lambda v: f'{v:.0f}')} us "
                  f"vs the run's {spread([x[3] for x in xs], lambda v: f'{v:.0f}')}; bandwidth waits {spread([x[4] for x in xs], lambda v: f'{v:.0f}')} us")


if __name__ == "__main__":
    main()
