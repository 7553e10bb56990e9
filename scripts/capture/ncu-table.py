#!/usr/bin/env python3
"""The counters table of docs/PERFORMANCE.md from an Nsight Compute batch.

  ncu-table.py [--ceiling GBPS] [--match REGEX] TIMED.json DIR...

Each DIR holds what counters-session.sh (batch-lib's ncu_bench) brought
back: ncu-TAG-details.csv[.gz] (ncu --page details as CSV, one profiled
launch per case) and ncu-TAG.json[.gz] (the profiled run's own results:
the cases in the order their launches were profiled); --match keeps the
TAGs it matches (a Python regular expression, searched). TIMED.json is an
uninstrumented benchmark run (bench-all.json) for the "timed" column;
GBPS (default: TIMED.json's copy ceiling) turns bytes over time into the
fraction of the copy ceiling.

A case's launches are its first kernel and the second kernels that follow
it (fused_dw_k, fused_dw2_k, rms_dw1_k, rms_dw2_k, *_split2_k); the
launches of each file must group into as many cases as its JSON profiled,
or the script says so and stops (exit 2). DRAM %, L2 %, occupancy,
registers and the scheduler's figures are the first kernel's; ncu us is
every kernel of the case.
"""
import csv
import gzip
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from results_json import present, read_json  # noqa: E402

SECOND = re.compile(r"::(fused_dw2?_k|rms_dw[12]_k|[a-z_]*split2_k)\b")
SCALE = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
         "s": 1e6, "second": 1e6, "nsecond": 1e-3}
WANT = {
    "Duration": "dur",
    "DRAM Throughput": "dram",
    "L2 Cache Throughput": "l2",
    "Achieved Occupancy": "occ",
    "Theoretical Occupancy": "tocc",
    "Registers Per Thread": "regs",
    "Issued Warp Per Scheduler": "issue",
    "Warp Cycles Per Issued Instruction": "cpi",
    "No Eligible": "noelig",
}


def opener(path):
    """A text reader of path, gunzipped where it ends in .gz (newline=''
    as the csv module asks)."""
    op = gzip.open if path.endswith(".gz") else open
    return op(path, "rt", newline="")


def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return None


def launches(path):
    out = {}
    order = []
    with opener(path) as f:
        rows = csv.reader(f)
        head = None
        for r in rows:
            if head is None:
                if r and r[0] == "ID":
                    head = {k: i for i, k in enumerate(r)}
                continue
            if len(r) <= head["Metric Value"]:
                continue
            lid = r[head["ID"]]
            if lid not in out:
                out[lid] = {"name": r[head["Kernel Name"]]}
                order.append(lid)
            key = WANT.get(r[head["Metric Name"]])
            if key is None or key in out[lid]:
                continue
            v = num(r[head["Metric Value"]])
            if v is None:
                continue
            if key == "dur":
                v *= SCALE.get(r[head["Metric Unit"]].strip(), float("nan"))
            out[lid][key] = v
    return [out[i] for i in order]


def short(name):
    m = re.search(r"::([a-z_0-9]+)(<[^(]*>)?\(", name)
    if not m:
        return name[:40]
    tpl = m.group(2) or ""
    tpl = re.sub(r"__nv_bfloat16|__half|float", "T", tpl)
    return m.group(1) + tpl


def main(argv):
    args = argv[1:]
    ceil = None
    match = None
    while args and args[0].startswith("--"):
        if len(args) < 2:
            break
        if args[0] == "--ceiling":
            ceil = float(args[1])
        elif args[0] == "--match":
            match = re.compile(args[1])
        else:
            break
        args = args[2:]
    if len(args) < 2 or args[0].startswith("--"):
        print(__doc__, file=sys.stderr)
        return 64
    timed = read_json(args[0])
    if ceil is None:
        ceil = timed["ceilings"]["copy_bandwidth_gbps"]
    tmed = {(c["op"], c["dtype"], c["shape"]): c["timing"]["median_s"]
            for c in timed.get("cases", []) if c.get("timing")}
    files = []
    for d in args[1:]:
        for f in sorted(os.listdir(d)):
            if not re.match(r"ncu-.*-details\.csv(\.gz)?$", f):
                continue
            tag = re.sub(r"^ncu-|-details\.csv(\.gz)?$", "", f)
            if match is None or match.search(tag):
                files.append((d, f, tag))
    print("| op | dtype | shape | kernels | DRAM % | L2 % | occupancy "
          "achieved / theoretical | regs | issued / scheduler / cycle | "
          "cycles / issued instr. | ncu us | timed us | kernel | timed |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | "
          "---: | ---: | ---: | ---: | ---: |")
    bad = 0
    for d, f, tag in files:
        jp = present(os.path.join(d, f"ncu-{tag}.json"))
        if jp is None:
            print(f"{f}: no ncu-{tag}.json beside it", file=sys.stderr)
            bad += 1
            continue
        cases = [c for c in read_json(jp).get("cases", [])
                 if c.get("timing")]
        groups = []
        for k in launches(os.path.join(d, f)):
            if SECOND.search(k["name"]) and groups:
                groups[-1].append(k)
            else:
                groups.append([k])
        if len(groups) != len(cases):
            print(f"{f}: {len(groups)} launch groups for {len(cases)} "
                  "timed cases: not tabulated", file=sys.stderr)
            bad += 1
            continue
        for c, g in zip(cases, groups):
            k0 = g[0]
            us = sum(k.get("dur", float("nan")) for k in g)
            by = c["logical_bytes"]
            t = tmed.get((c["op"], c["dtype"], c["shape"]))
            kf = by / (us * 1e-6) / 1e9 / ceil
            tf = by / t / 1e9 / ceil if t else float("nan")
            names = short(k0["name"]) + (f" +{len(g) - 1}" if len(g) > 1 else "")
            print(f"| {c['op']} | {c['dtype']} | {c['shape']} | {names} | "
                  f"{k0.get('dram', float('nan')):.0f} | "
                  f"{k0.get('l2', float('nan')):.0f} | "
                  f"{k0.get('occ', float('nan')):.1f} / "
                  f"{k0.get('tocc', float('nan')):.1f} | "
                  f"{k0.get('regs', float('nan')):.0f} | "
                  f"{k0.get('issue', float('nan')):.2f} | "
                  f"{k0.get('cpi', float('nan')):.1f} | {us:.1f} | "
                  f"{(t or float('nan')) * 1e6:.1f} | {kf:.2f} | {tf:.2f} |")
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
