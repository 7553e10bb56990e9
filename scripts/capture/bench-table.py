#!/usr/bin/env python3
"""Tables of cuda_portfolio --json results.

  bench-table.py FILE.json...        one line per timed case: op, variant,
                                     dtype, shape, median, GB/s, fraction of
                                     the same run's copy ceiling, TFLOP/s,
                                     peer ratio
  bench-table.py --md FILE.json...   Markdown: per op and shape, the variant
                                     and the fraction of the copy ceiling (row
                                     ops) or TFLOP/s and the ratio to the
                                     library peer (matmul), per dtype
  bench-table.py --full FILE.json...  Markdown: one row per case (variant,
                                     median, cv, rate, fraction of the copy
                                     ceiling or of cuBLAS, ratio to the peer
                                     named), docs/BENCHMARKING.md's full set
  bench-table.py --torch TORCH.txt FILE.json...
                                     Markdown: our TB/s (logical bytes over the
                                     median) beside PyTorch's from the output
                                     of ../shared/tools/torch_baseline.py
"""
import re
import json
import sys


def load(paths):
    out = []
    for path in paths:
        try:
            d = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable: {e}", file=sys.stderr)
            continue
        out.append((path, d))
    return out


def lines(runs):
    for path, d in runs:
        ceil = (d.get("ceilings") or {}).get("copy_bandwidth_gbps")
        print(f"# {path}: copy ceiling {ceil or 0:.0f} GB/s, clean={d.get('clean')}")
        for c in d.get("cases", []):
            t = c.get("throughput") or {}
            tm = c.get("timing") or {}
            peer = (c.get("peer") or {}).get("ratio")
            ok = (c.get("correctness") or {}).get("passed")
            print(f"{c['op']:17s} {c['variant']:10s} {c['dtype']:5s} "
                  f"{c['shape']:18s} {(tm.get('median_s') or 0) * 1e6:10.1f}us "
                  f"{t.get('gbps') or 0:7.0f}GB/s "
                  f"frac={t.get('fraction_of_copy_bw') or 0:.3f} "
                  f"tf={t.get('tflops') or 0:6.1f} "
                  f"peer={peer if peer is None else round(peer, 3)} ok={ok}")


def markdown(runs):
    rows = {}
    order = []
    for _, d in runs:
        for c in d.get("cases", []):
            key = (c["op"], c["shape"])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key][c["dtype"]] = c
    dts = ["fp32", "fp16", "bf16"]
    print("| op | shape | " + " | ".join(dts) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in dts) + " |")
    for key in order:
        cells = []
        for dt in dts:
            c = rows[key].get(dt)
            if c is None:
                cells.append("")
                continue
            t = c.get("throughput") or {}
            tm = c.get("timing") or {}
            us = (tm.get("median_s") or 0) * 1e6
            if c["op"] == "matmul":
                peer = (c.get("peer") or {}).get("ratio")
                ptxt = f", {peer:.2f}x peer" if peer else ""
                cells.append(f"{c['variant']} {t.get('tflops') or 0:.0f} TFLOP/s{ptxt}")
            else:
                cells.append(f"{c['variant']} {t.get('fraction_of_copy_bw') or 0:.2f} ({us:.1f} us)")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


def full(runs):
    print("| op | variant | dtype | shape | median (us) | cv | GB/s or TFLOP/s "
          "| fraction of copy bw (memory) or of cuBLAS (matmul) | ratio to peer |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for _, d in runs:
        for c in d.get("cases", []):
            t = c.get("throughput") or {}
            tm = c.get("timing") or {}
            peer = c.get("peer") or {}
            us = (tm.get("median_s") or 0) * 1e6
            cv = (tm.get("cv") or 0) * 100
            if c["op"] == "matmul":
                rate = f"{t.get('tflops') or 0:.1f} TFLOP/s"
                frac = t.get("fraction_of_peer") or 0
            else:
                rate = f"{t.get('gbps') or 0:.0f} GB/s"
                frac = t.get("fraction_of_copy_bw") or 0
            ftxt = f"{frac:.3f}" + (" (throttled)" if tm.get("throttled") else "")
            r = peer.get("ratio")
            ptxt = f"{r:.2f} ({peer.get('name')})" if r else "none"
            print(f"| {c['op']} | {c['variant']} | {c['dtype']} | {c['shape']} "
                  f"| {us:.1f} | {cv:.1f}% | {rate} | {ftxt} | {ptxt} |")


def torch_table(tpath, runs):
    tb = {}
    names = {"softmax_bwd": "softmax_backward", "rmsnorm_bwd": "rmsnorm_backward"}
    dts = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
    for line in open(tpath):
        m = re.match(r"(float32|float16|bfloat16)\s+(\d+x\d+):(.*)TB/s", line)
        if not m:
            continue
        for op, v in re.findall(r"(\w+) ([\d.]+)", m.group(3)):
            tb[(names.get(op, op), dts[m.group(1)], m.group(2))] = float(v)
    print("| op | dtype | shape | ours TB/s | PyTorch TB/s | ours / PyTorch |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for _, d in runs:
        for c in d.get("cases", []):
            key = (c["op"], c["dtype"], c["shape"])
            if key not in tb:
                continue
            ours = ((c.get("throughput") or {}).get("gbps") or 0) / 1000
            print(f"| {key[0]} | {key[1]} | {key[2]} | {ours:.2f} | {tb[key]:.2f} | {ours / tb[key]:.2f} |")


def main(argv):
    if len(argv) > 1 and argv[0] == "--torch":
        torch_table(argv[1], load(argv[2:]))
    elif argv and argv[0] == "--full":
        full(load(argv[1:]))
    elif argv and argv[0] == "--md":
        markdown(load(argv[1:]))
    else:
        lines(load(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
