#!/usr/bin/env python3
"""The tables and the chart of docs/simulator-results.md (issue 29, item 3).

    python3 scripts/sim_results.py run [--runs 5] [--out DIR] [--only MACHINE,...]
                                       [--workloads SPEC,...] [--cost COST]
    python3 scripts/sim_results.py render [--out DIR] [--md FILE] [--svg FILE]
    python3 scripts/sim_results.py bound [--workloads SPEC,...] [--runs 5] [--seeds 0,5]

`run` simulates every workload on every machine class under the policies
hierarchical, flat and rayon-like with `--runs N` (seeds 0..N-1, every cost
within +-10%), one JSON report per machine and workload in DIR (default
target/sim-results; an existing report is kept, so an interrupted run
resumes). It needs the release build of the `simulate` example
(`cargo build --release --features sim --example simulate`) and hwloc's
snapshots in ../shared/topologies (or $LOCUS_TEST_TOPOLOGIES).

`render` reads the reports and prints Markdown tables (the headline matrices
of hierarchical's ratios to rayon-like and to flat; per workload: makespan, the
paired ratio to rayon-like, bytes read across LLCs, share of steals in the
thief's LLC: median [min-max] over the runs) to FILE or stdout, and writes
the SVG chart of the hierarchical/flat and hierarchical/rayon-like
makespan ratios (docs/simulator-results.svg).

`bound` asks how much any placement could gain on a workload
(docs/locality-bound.md): it runs the three policies on the multi-LLC
machines under each class's real costs and under two derived models:
"ideal locality" (every byte from another LLC costs what a byte from the
reader's own LLC costs, remote DRAM what local DRAM costs, no link limits;
the DRAM channels' shared bandwidth stays) and "memory free" (every
transfer and DRAM read costs nothing). It prints, per machine, the best
policy's makespan in each (never above the dearer models' best: a cheaper
price can give another, longer schedule) over rayon-like's and flat's real
makespan of the same seed, next to hierarchical's real ratios. Standard
library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

POLICIES = ["hierarchical", "flat", "rayon-like"]


def topologies():
    return os.environ.get("LOCUS_TEST_TOPOLOGIES", "../shared/topologies")


# (key, label, --machine, --cost)
def machines():
    t = os.path.join(topologies(), "hwloc-linux")
    return [
        ("kunpeng", "Kunpeng 920: 128 cores, 4 LLCs, 32 clusters of 4 (hwloc `128arm-2pa2n8cluster4co`)",
         os.path.join(t, "128arm-2pa2n8cluster4co.tar.bz2"), "kunpeng"),
        ("epyc96", "EPYC 9654-like: 96 cores, 12 CCX (`llc:12 core:8`)", "llc:12 core:8", "epyc"),
        ("epyc192", "2x EPYC 9654-like: 192 cores, 24 CCX, 2 nodes (`package:2 llc:12 core:8`)",
         "package:2 llc:12 core:8", "epyc"),
        ("xeon", "2x Xeon Gold 6230: 80 PUs, 4 LLCs (an L3 per socket, clipped to its SNC2 node), 4 NUMA nodes (hwloc `memorysidecaches`)",
         os.path.join(t, "memorysidecaches.tar.bz2"), "xeon"),
        ("laptop", "Core i7-1370P: 6 P (SMT) + 8 E cores, 20 PUs, 1 LLC (hwloc `20em64t-hybrid-1p6c2t+2ca4co1t`)",
         os.path.join(t, "20em64t-hybrid-1p6c2t+2ca4co1t.tar.bz2"), "laptop"),
    ]


# (spec, label, overhead only)
WORKLOADS = [
    ("fib:28", "fib:28 (scheduling overhead only)", True),
    ("spawn:100000", "spawn:100000 (scheduling overhead only)", True),
    ("stencil", "stencil (2048 x 2048, 8 sweeps)", False),
    ("stencil-replay", "stencil-replay (the same, with replay)", False),
    ("matmul", "matmul (2048 x 2048, 64 x 64 blocks)", False),
    ("matmul:8192", "matmul:8192 (8192 x 8192: three 512 MiB matrices, larger than every machine's L3s)", False),
    ("mergesort", "mergesort (4 Mi elements)", False),
    ("triad", "triad (3 x 4 Mi f64, 10 iterations)", False),
    ("reduce", "reduce (8 Mi f64, 8 runs)", False),
    ("pipeline", "pipeline (512 items, 4 packed stages)", False),
]

# The tiers of `sim::BYTE_TIERS` that are another LLC's cache.
ACROSS_LLC = ["same-node", "same-package", "other-node"]


def path(out, m, w):
    return os.path.join(out, f"{m}__{w.replace(':', '_')}.json")


def run(args):
    exe = "target/release/examples/simulate"
    if not os.path.exists(exe):
        sys.exit(f"{exe} missing: cargo build --release --features sim --example simulate")
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    wl_only = set(args.workloads.split(",")) if args.workloads else None
    for key, _, machine, cost in machines():
        if only and key not in only:
            continue
        cost = args.cost or f"published,src/sim/classes/{cost}.cost"
        for spec, _, _ in WORKLOADS:
            if wl_only and spec not in wl_only:
                continue
            p = path(args.out, key, spec)
            if os.path.exists(p):
                continue
            cmd = [exe, "--machine", machine, "--workload", spec, "--policy", ",".join(POLICIES),
                   "--runs", str(args.runs), "--cost", cost, "--json", p + ".tmp"]
            print(" ".join(repr(c) if " " in c else c for c in cmd), flush=True)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            os.replace(p + ".tmp", p)


def spread(xs, fmt):
    xs = sorted(xs)
    return f"{fmt(statistics.median(xs))} [{fmt(xs[0])}–{fmt(xs[-1])}]"


def cells(report):
    """Per policy: lists over the runs of makespan (ms), ratio to the same
    seed's rayon-like run, MB read across LLCs, MB from DRAM, share of steals
    in the thief's LLC, LLC moves."""
    runs = report["runs"]
    rayon = {r["seed"]: r["makespan_ns"] for r in runs if r["policy"] == "rayon-like"}
    flat = {r["seed"]: r["makespan_ns"] for r in runs if r["policy"] == "flat"}
    out = {}
    for r in runs:
        c = out.setdefault(r["policy"], {k: [] for k in ["ms", "rayon", "flat", "xllc", "dram", "inllc", "moves"]})
        c["ms"].append(r["makespan_ns"] / 1e6)
        c["rayon"].append(r["makespan_ns"] / rayon[r["seed"]])
        c["flat"].append(r["makespan_ns"] / flat[r["seed"]])
        tiers = r.get("bytes_by_tier")
        if tiers is not None:
            dram = sum(v for k, v in tiers.items() if "dram" in k)
            # Another LLC's cache or DRAM: the model reads a block from the
            # cheaper, and on one EPYC socket the two cost about the same
            # (the perturbed costs flip between them), so only the sum is
            # stable.
            c["xllc"].append((sum(tiers.get(t, 0) for t in ACROSS_LLC) + dram) / 1e6)
            c["dram"].append(dram / 1e6)
        st = r["steals"]
        c["inllc"].append(100.0 * st["within_llc"] / st["total"] if st["total"] else None)
        c["moves"].append(r["llc_moves"])
    return out


def num(x):
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def render(args):
    reports = {}
    for key, _, _, _ in machines():
        for spec, _, _ in WORKLOADS:
            p = path(args.out, key, spec)
            if os.path.exists(p):
                with open(p) as f:
                    reports[(key, spec)] = cells(json.load(f))
    lines = headline(reports)
    for spec, label, _ in WORKLOADS:
        rows = [(k, lab) for k, lab, _, _ in machines() if (k, spec) in reports]
        if not rows:
            continue
        lines += [f"### {label}", "",
                  "| machine | policy | makespan (ms) | ÷ rayon-like | MB from other LLCs or DRAM | of which DRAM | steals in the thief's LLC |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for k, lab in rows:
            c = reports[(k, spec)]
            for i, pol in enumerate(POLICIES):
                x = c[pol]
                inllc = [v for v in x["inllc"] if v is not None]
                lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(
                    lab if i == 0 else "", pol,
                    spread(x["ms"], lambda v: f"{v:.3g}" if v < 10 else f"{v:.1f}"),
                    spread(x["rayon"], lambda v: f"{v:.2f}"),
                    spread(x["xllc"], num) if x["xllc"] else "n/a",
                    spread(x["dram"], num) if x["dram"] else "n/a",
                    spread(inllc, lambda v: f"{v:.0f}%") if inllc else "no steals"))
        lines.append("")
    text = "\n".join(lines)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(reports))


def headline(reports):
    """Two matrices, workload by machine: hierarchical's makespan over
    rayon-like's and over flat's, median [min-max] over the runs."""
    ms = [(k, SHORT[k]) for k, _, _, _ in machines()]
    lines = []
    for what, title in [("rayon", "hierarchical ÷ rayon-like"), ("flat", "hierarchical ÷ flat")]:
        lines += [f"### {title}", "",
                  "| workload | " + " | ".join(m for _, m in ms) + " |",
                  "|---|" + "---:|" * len(ms)]
        for spec, label, _ in WORKLOADS:
            if not any((k, spec) in reports for k, _ in ms):
                continue
            name = label.split(" (")[0] + (" (overhead only)" if "overhead only" in label else "")
            row = [spread(reports[(k, spec)]["hierarchical"][what], lambda v: f"{v:.2f}")
                   if (k, spec) in reports else "" for k, _ in ms]
            lines.append(f"| {name} | " + " | ".join(row) + " |")
        lines.append("")
    return lines


SHORT = {"kunpeng": "Kunpeng 920, 128", "epyc96": "EPYC 12 CCX, 96", "epyc192": "2x EPYC 24 CCX, 192",
         "xeon": "2x Xeon 6230, 80", "laptop": "i7-1370P, 20"}


def svg(reports):
    """Grouped bars: per workload (rows) and machine (bars), the median
    hierarchical/flat and hierarchical/rayon-like makespan ratios on a log
    scale around 1 (left of 1: hierarchical faster)."""
    ms = [(k, SHORT[k]) for k, _, _, _ in machines()]
    wls = [(s, lab.split(" (")[0]) for s, lab, _ in WORKLOADS]
    colours = {"flat": "#4c78a8", "rayon": "#f58518"}
    bar, gap, left, width = 7, 6, 250, 420
    lo, hi = 0.25, 4.0
    import math

    def x(v):
        v = min(max(v, lo), hi)
        return left + width * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))

    rows = []
    y = 60
    for s, wname in wls:
        present = [(k, mname) for k, mname in ms if (k, s) in reports]
        if not present:
            continue
        rows.append(f'<text x="10" y="{y + 10}" font-weight="bold">{wname}</text>')
        y += 16
        for k, mname in present:
            c = reports[(k, s)]["hierarchical"]
            rows.append(f'<text x="30" y="{y + 2 * bar - 1}" font-size="10">{mname}</text>')
            for j, (what, vals) in enumerate([("flat", c["flat"]), ("rayon", c["rayon"])]):
                med = statistics.median(vals)
                x0, x1 = sorted([x(1.0), x(med)])
                yy = y + j * bar
                rows.append(f'<rect x="{x0:.1f}" y="{yy}" width="{max(x1 - x0, 0.5):.1f}" height="{bar - 1}" '
                            f'fill="{colours[what]}"><title>{wname} on {mname}: hierarchical / {what} = {med:.2f} '
                            f'(median; range {min(vals):.2f} to {max(vals):.2f})</title></rect>')
                lx = x1 + 3 if med >= 1 else x0 - 3
                anchor = "start" if med >= 1 else "end"
                rows.append(f'<text x="{lx:.1f}" y="{yy + bar - 1}" font-size="8" text-anchor="{anchor}">{med:.2f}</text>')
            y += 2 * bar + 3
        y += gap + 12
    ticks = []
    for v in [0.25, 0.5, 0.8, 1.0, 1.25, 2.0, 4.0]:
        ticks.append(f'<line x1="{x(v):.1f}" y1="45" x2="{x(v):.1f}" y2="{y}" stroke="#ccc" '
                     f'stroke-dasharray="{"" if v == 1.0 else "2,2"}"/>')
        ticks.append(f'<text x="{x(v):.1f}" y="40" font-size="10" text-anchor="middle">{v:g}</text>')
    h = y + 10
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" height="{h}" '
            f'font-family="sans-serif" font-size="11">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            f'<text x="10" y="16" font-weight="bold">Simulated makespan ratios, hierarchical over '
            f'<tspan fill="{colours["flat"]}">flat</tspan> and over '
            f'<tspan fill="{colours["rayon"]}">rayon-like</tspan> (median of the runs; log scale; '
            f'below 1: hierarchical faster)</text>\n')
    return head + "\n".join(ticks + rows) + "\n</svg>\n"


def class_costs(cls):
    """The fields of src/sim/classes/CLS.cost, as strings by name."""
    vals = {}
    for line in open(f"src/sim/classes/{cls}.cost"):
        line = line.split("#")[0].strip()
        if "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            vals[k] = v
    return vals


def derived_costs(cls, out):
    """The override files of `bound` for machine class `cls`, in `out`."""
    vals = class_costs(cls)
    ideal = {
        "line_node_ns": vals["line_llc_ns"], "line_remote_ns": vals["line_llc_ns"],
        "bw_node": vals["bw_llc"], "bw_remote": vals["bw_llc"],
        "dram_remote_ns": vals["dram_ns"], "bw_dram_remote": vals["bw_dram"],
        "bw_llc_link": "0", "bw_socket_link": "0",
    }
    fast = "1000000"
    free = {k: "0" for k in ["line_smt_ns", "line_cluster_ns", "line_llc_ns", "line_node_ns",
                             "line_remote_ns", "dram_ns", "dram_remote_ns"]}
    free.update({k: fast for k in ["bw_cluster", "bw_llc", "bw_node", "bw_remote", "bw_dram",
                                   "bw_dram_remote", "bw_dram_package", "bw_llc_link",
                                   "bw_socket_link"]})
    files = {}
    for name, kv in [("ideal", ideal), ("free", free)]:
        f = os.path.join(out, f"{cls}-{name}.cost")
        with open(f, "w") as fh:
            fh.write(f"# {name}: derived from src/sim/classes/{cls}.cost by scripts/sim_results.py bound\n")
            fh.writelines(f"{k} = {v}\n" for k, v in kv.items())
        files[name] = f
    return files


def bound(args):
    exe = "target/release/examples/simulate"
    if not os.path.exists(exe):
        sys.exit(f"{exe} missing: cargo build --release --features sim --example simulate")
    os.makedirs(args.out, exist_ok=True)
    seeds = [int(x) for x in args.seeds.split(",")]
    print("| workload | machine | hierarchical ÷ rayon-like | hierarchical ÷ flat "
          "| ideal locality, best ÷ rayon-like | ideal locality, best ÷ flat | memory free, best ÷ rayon-like |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for spec in args.workloads.split(","):
        for key, _, machine, cls in machines():
            if key == "laptop":  # one LLC: nothing to place
                continue
            files = derived_costs(cls, args.out)
            real = f"published,src/sim/classes/{cls}.cost"
            runs = {}
            for kind, cost in [("real", real), ("ideal", real + "," + files["ideal"]),
                               ("free", real + "," + files["free"])]:
                runs[kind] = []
                for seed in seeds:
                    p = os.path.join(args.out, f"{key}__{spec.replace(':', '_')}__{kind}__{seed}.json")
                    if not os.path.exists(p):
                        cmd = [exe, "--machine", machine, "--workload", spec, "--policy",
                               ",".join(POLICIES), "--runs", str(args.runs), "--seed", str(seed),
                               "--cost", cost, "--json", p + ".tmp"]
                        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
                        os.replace(p + ".tmp", p)
                    runs[kind] += json.load(open(p))["runs"]

            def ms(kind, policy):
                return {r["seed"]: r["makespan_ns"] for r in runs[kind] if r["policy"] == policy}

            rayon, flat, hier = ms("real", "rayon-like"), ms("real", "flat"), ms("real", "hierarchical")

            def best(kind):
                per = [ms(kind, p) for p in POLICIES]
                return {s: min(m[s] for m in per) for s in rayon}

            # A cheaper price can still give a longer run (another schedule), so
            # each bound is also the lowest makespan of the dearer models.
            real_best = best("real")
            ideal = {s: min(v, real_best[s]) for s, v in best("ideal").items()}
            free = {s: min(v, ideal[s]) for s, v in best("free").items()}
            f = lambda xs: spread(xs, lambda x: f"{x:.2f}")
            print(f"| {spec} | {key} | {f([hier[s] / rayon[s] for s in rayon])} "
                  f"| {f([hier[s] / flat[s] for s in rayon])} | {f([ideal[s] / rayon[s] for s in rayon])} "
                  f"| {f([ideal[s] / flat[s] for s in rayon])} | {f([free[s] / rayon[s] for s in rayon])} |",
                  flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--runs", type=int, default=5)
    r.add_argument("--out", default="target/sim-results")
    r.add_argument("--only", default="", help="machines (keys), comma-separated")
    r.add_argument("--workloads", default="", help="workload specs, comma-separated")
    r.add_argument("--cost", default="", help="one --cost for every machine instead of its class")
    d = sub.add_parser("render")
    d.add_argument("--out", default="target/sim-results")
    d.add_argument("--md", default="")
    d.add_argument("--svg", default="")
    b = sub.add_parser("bound")
    b.add_argument("--runs", type=int, default=5)
    b.add_argument("--seeds", default="0,5", help="first seeds of each set of --runs runs")
    b.add_argument("--out", default="target/sim-bound")
    b.add_argument("--workloads", default="matmul")
    a = ap.parse_args()
    {"run": run, "render": render, "bound": bound}[a.cmd](a)


if __name__ == "__main__":
    main()
