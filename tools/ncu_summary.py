#!/usr/bin/env python3
"""One line per kernel launch from an Nsight Compute CSV (tools/gpu_bench.sh
profile-all): time, SM / memory / DRAM throughput as % of peak, achieved
occupancy, grid and block, longest first, with each kernel's share of the
total. Reads both of ncu's CSV layouts: `--page raw` (a column per metric, a
units row under the header) and `--page details` (a row per metric).

usage: ncu_summary.py NCU.csv [--top N]
"""
import argparse
import csv
import sys
from collections import OrderedDict

METRICS = OrderedDict([
    ("gpu__time_duration.sum", "us"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm%"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "mem%"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram%"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%"),
])
TIME_SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3,
              "ms": 1e3, "second": 1e6, "s": 1e6}


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def read(path):
    """[{'name', 'grid', 'block', metric: value (time in us)}] in launch order."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
    if not rows:
        sys.exit(f"ncu_summary.py: error: {path}: no CSV rows")
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    for need in ("ID", "Kernel Name"):
        if need not in col:
            sys.exit(f"ncu_summary.py: error: {path}: no '{need}' column (not an ncu CSV?)")
    launches = OrderedDict()

    def launch(r):
        key = r[col["ID"]]
        if key not in launches:
            launches[key] = {"name": r[col["Kernel Name"]],
                             "grid": r[col["Grid Size"]] if "Grid Size" in col else "",
                             "block": r[col["Block Size"]] if "Block Size" in col else ""}
        return launches[key]

    if "Metric Name" in col:  # --page details: a row per metric
        for r in rows[1:]:
            m = r[col["Metric Name"]]
            if m in METRICS:
                v = number(r[col["Metric Value"]])
                if m == "gpu__time_duration.sum" and v is not None:
                    v *= TIME_SCALE.get(r[col["Metric Unit"]], 1.0)
                launch(r)[m] = v
    else:  # --page raw: a column per metric, units in the second row
        units = rows[1] if len(rows) > 1 and not number(rows[1][col["ID"]]) else None
        for r in rows[2 if units else 1:]:
            entry = launch(r)
            for m in METRICS:
                if m in col:
                    v = number(r[col[m]])
                    if m == "gpu__time_duration.sum" and v is not None and units:
                        v *= TIME_SCALE.get(units[col[m]], 1.0)
                    entry[m] = v
    return list(launches.values())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--top", type=int, default=30)
    args = p.parse_args()
    launches = read(args.csv)
    total = sum(l.get("gpu__time_duration.sum") or 0 for l in launches)
    print(f"{len(launches)} launches, {total:.1f} us in all")
    print(f"{'us':>8} {'share':>6} " + " ".join(f"{h:>6}" for h in list(METRICS.values())[1:])
          + f" {'grid':>14} {'block':>12}  kernel")
    ranked = sorted(launches, key=lambda l: -(l.get("gpu__time_duration.sum") or 0))
    for l in ranked[:args.top]:
        t = l.get("gpu__time_duration.sum") or 0
        cells = " ".join(f"{l[m]:6.1f}" if l.get(m) is not None else f"{'-':>6}"
                         for m in list(METRICS)[1:])
        print(f"{t:8.1f} {100 * t / total if total else 0:5.1f}% {cells}"
              f" {l['grid']:>14} {l['block']:>12}  {l['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
