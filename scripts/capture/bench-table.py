#!/usr/bin/env python3
"""Tables of cuda_portfolio --json results (each FILE.json as written, or
gzipped, FILE.json.gz, as results/h200/bounds/ keeps them).

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
  bench-table.py --compare OLD.json NEW.json
                                     Markdown: the cases of both runs side
                                     by side (median, speed as OLD's median
                                     over NEW's, fraction of each run's own
                                     copy ceiling, the lines 0.90 / 0.85 /
                                     0.80 crossed), then the row ops' counts
                                     at each line, copy's and add's count at
                                     0.90 with those under it, and the
                                     speed's range per op; how
                                     docs/PERFORMANCE.md compares a
                                     final run with the previous one (the
                                     per-case verdict with a bootstrap
                                     interval is `repro compare`,
                                     docs/REPORT.md; this is the docs'
                                     fractions, lines and counts)
"""
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from results_json import read_json  # noqa: E402


def load(paths):
    """Each results file (plain, or gzipped as NAME.json.gz under
    results/h200/) with its path; one that cannot be read is named on
    stderr and left out."""
    out = []
    for path in paths:
        try:
            d = read_json(path)
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable: {e}", file=sys.stderr)
            continue
        if not isinstance(d, dict) or not isinstance(d.get("cases"), list):
            print(f"{path}: not a cuda_portfolio --json results file (no "
                  "cases[])", file=sys.stderr)
            continue
        out.append((path, d))
    return out


def case_key(c):
    return (c["op"], c["dtype"], c["shape"])


def median_s(c):
    return (c.get("timing") or {}).get("median_s") or 0


def frac(c):
    return (c.get("throughput") or {}).get("fraction_of_copy_bw")


def lines(runs):
    for path, d in runs:
        ceil = (d.get("ceilings") or {}).get("copy_bandwidth_gbps")
        print(f"# {path}: copy ceiling {ceil or 0:.0f} GB/s, clean={d.get('clean')}")
        for c in d.get("cases", []):
            t = c.get("throughput") or {}
            peer = (c.get("peer") or {}).get("ratio")
            ok = (c.get("correctness") or {}).get("passed")
            print(f"{c['op']:17s} {c['variant']:10s} {c['dtype']:5s} "
                  f"{c['shape']:18s} {median_s(c) * 1e6:10.1f}us "
                  f"{t.get('gbps') or 0:7.0f}GB/s "
                  f"frac={frac(c) or 0:.3f} "
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
            us = median_s(c) * 1e6
            if c["op"] == "matmul":
                peer = (c.get("peer") or {}).get("ratio")
                ptxt = f", {peer:.2f}x peer" if peer else ""
                cells.append(f"{c['variant']} {t.get('tflops') or 0:.0f} TFLOP/s{ptxt}")
            else:
                cells.append(f"{c['variant']} {frac(c) or 0:.2f} ({us:.1f} us)")
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
            us = median_s(c) * 1e6
            cv = (tm.get("cv") or 0) * 100
            if c["op"] == "matmul":
                rate = f"{t.get('tflops') or 0:.1f} TFLOP/s"
                fr = t.get("fraction_of_peer") or 0
            else:
                rate = f"{t.get('gbps') or 0:.0f} GB/s"
                fr = frac(c) or 0
            ftxt = f"{fr:.3f}" + (" (throttled)" if tm.get("throttled") else "")
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
            key = case_key(c)
            if key not in tb:
                continue
            ours = ((c.get("throughput") or {}).get("gbps") or 0) / 1000
            print(f"| {key[0]} | {key[1]} | {key[2]} | {ours:.2f} | {tb[key]:.2f} | {ours / tb[key]:.2f} |")


ROW_OPS = ("row_sum", "softmax", "softmax_backward", "rmsnorm",
           "rmsnorm_backward")
ELEM_OPS = ("copy", "add")
LINES = (0.90, 0.85, 0.80)


def crossed(fo, fn):
    """The lines a fraction crossed from fo to fn: "up 0.90", "down 0.85"."""
    if fo is None or fn is None:
        return []
    out = []
    for ln in LINES:
        if fo < ln <= fn:
            out.append(f"up {ln:.2f}")
        elif fn < ln <= fo:
            out.append(f"down {ln:.2f}")
    return out


def compare(old, new):
    """Markdown side by side of two runs; returns 0, or 2 when a file holds
    no cases or the two share none."""
    (opath, od), (npath, nd) = old, new
    ocases = {case_key(c): c for c in od.get("cases", [])}
    ncases = nd.get("cases", [])
    both = [c for c in ncases if case_key(c) in ocases]
    if not ocases or not ncases or not both:
        print(f"bench-table: {opath} and {npath} share no timed case",
              file=sys.stderr)
        return 2
    oc = (od.get("ceilings") or {}).get("copy_bandwidth_gbps") or 0
    nc = (nd.get("ceilings") or {}).get("copy_bandwidth_gbps") or 0
    def who(d):
        e = d.get("environment") or {}
        g = e.get("git") or {}
        return (f"git {(g.get('commit') or '?')[:7]}"
                f"{' dirty' if g.get('dirty') else ''}, "
                f"{(e.get('gpu') or {}).get('uuid', '?')[:12]}")
    print(f"OLD {opath} ({who(od)}, copy ceiling {oc:.0f} GB/s); "
          f"NEW {npath} ({who(nd)}, copy ceiling {nc:.0f} GB/s)")
    print()
    print("| op | dtype | shape | variant | median us (old -> new) "
          "| speed (old / new median) | fraction of copy ceiling (matmul: "
          "TFLOP/s, ratio to peer), old -> new "
          "| crossed |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | --- |")
    speeds = {}
    for c in both:
        o = ocases[case_key(c)]
        mo, mn = median_s(o), median_s(c)
        sp = mo / mn if mo > 0 and mn > 0 else None
        fo, fn = frac(o), frac(c)
        var = c["variant"] if c["variant"] == o["variant"] else \
            f"{o['variant']} -> {c['variant']}"
        if c["op"] == "matmul":
            fo = fn = None  # compute-bound: TFLOP/s and the peer instead
            to, tn = ((x.get("throughput") or {}).get("tflops") or 0
                      for x in (o, c))
            po, pn = ((x.get("peer") or {}).get("ratio") for x in (o, c))
            ftxt = f"{to:.0f} -> {tn:.0f} TFLOP/s" + (
                f", {po:.2f}x -> {pn:.2f}x peer" if po and pn else "")
        elif fo is not None and fn is not None:
            ftxt = f"{fo:.3f} -> {fn:.3f}"
        else:
            ftxt = ""
        print(f"| {c['op']} | {c['dtype']} | {c['shape']} | {var} "
              f"| {mo * 1e6:.1f} -> {mn * 1e6:.1f} "
              f"| {'' if sp is None else f'{sp:.3f}x'} | {ftxt} "
              f"| {', '.join(crossed(fo, fn))} |")
        if sp is not None:
            speeds.setdefault(c["op"], []).append((sp, c))
    print()
    for name, d in (("OLD", od), ("NEW", nd)):
        rows = [c for c in d.get("cases", []) if c["op"] in ROW_OPS
                and frac(c) is not None]
        counts = " / ".join(str(sum(1 for c in rows if frac(c) >= ln))
                            for ln in LINES)
        print(f"{name}: row ops at >= 0.90 / 0.85 / 0.80: {counts} "
              f"(of {len(rows)})")
        el = [c for c in d.get("cases", []) if c["op"] in ELEM_OPS
              and frac(c) is not None]
        if el:  # since v50 at the row shapes' element counts too
            miss = ", ".join(f"{c['op']} {c['dtype']} {c['shape']} "
                             f"{frac(c):.3f}" for c in el if frac(c) < 0.90)
            print(f"{name}: copy and add at >= 0.90: "
                  f"{sum(1 for c in el if frac(c) >= 0.90)} (of {len(el)})"
                  + (f"; under: {miss}" if miss else ""))
    for op in sorted(speeds):
        lo = min(speeds[op], key=lambda t: t[0])
        hi = max(speeds[op], key=lambda t: t[0])
        print(f"speed {op}: {lo[0]:.3f}x ({lo[1]['dtype']} {lo[1]['shape']})"
              f" - {hi[0]:.3f}x ({hi[1]['dtype']} {hi[1]['shape']}), "
              f"{len(speeds[op])} cases")
    only = sorted(set(ocases) ^ {case_key(c) for c in ncases})
    for k in only:
        print(f"in one run only: {' '.join(k)}")
    return 0


def main(argv):
    """Exit 0 with the table; 2 with the usage for no file or an unknown
    option, and, after the table of those it could read, for a file it
    could not (each named on stderr)."""
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    mode = argv[0] if argv and argv[0].startswith("--") else None
    paths = argv[1:] if mode else argv
    torch = None
    if mode == "--torch" and paths:
        torch, paths = paths[0], paths[1:]
    if (mode not in (None, "--compare", "--torch", "--full", "--md")
            or not paths or (mode == "--compare" and len(paths) != 2)):
        print("usage:" + __doc__.split("\n\n", 1)[1], file=sys.stderr)
        return 2
    runs = load(paths)
    if mode == "--compare":
        return compare(runs[0], runs[1]) if len(runs) == 2 else 2
    if mode == "--torch":
        try:
            torch_table(torch, runs)
        except OSError as e:
            print(f"{torch}: unreadable: {e}", file=sys.stderr)
            return 2
    elif mode == "--full":
        full(runs)
    elif mode == "--md":
        markdown(runs)
    else:
        lines(runs)
    return 0 if len(runs) == len(paths) else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
