#!/usr/bin/env python3
"""PyTorch's copy and add at the benchmark set's element counts (v50b).

  python3 scripts/capture/torch-elem.py      (on the GPU machine: torch, triton)
  python3 scripts/capture/torch-elem.py --table DIR
                                             (anywhere: DIR's torch-elem.txt
                                             beside ours1-OP.json[.gz] and
                                             ours2-OP.json[.gz], OP copy and
                                             add: a Markdown table)

../shared/tools/torch_baseline.py times PyTorch's copy and add at 2^28 fp32
elements only; the benchmark set (since v50) times ours at 2^28, 2^26 and
2^25 elements in every dtype. This prints PyTorch's figure for each of those
18 cases by the baseline's method (Triton's do_bench median, warm-up 25 ms,
150 ms of repetitions; do_bench zeroes a 256 MB buffer before each
repetition, a write flush as the benchmark's default): `c.copy_(a)` and
`torch.add(a, b, out=c)`, logical bytes (copy 2 n es, add 3 n es) over the
median, TB/s. One line a case: `OP DTYPE N: X.XX TB/s`. --table puts
each beside our two runs of the same case (`cuda_portfolio --bench --op OP
--json ours1-OP.json`, before, and ours2-OP.json, after): our fractions of
each run's copy ceiling, PyTorch's TB/s as a fraction of each, and our
speed over PyTorch's.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from results_json import present, read_json  # noqa: E402

COUNTS = (1 << 28, 1 << 26, 1 << 25)


def median_s(fn):
    from triton.testing import do_bench
    return do_bench(fn, warmup=25, rep=150, return_mode="median") * 1e-3


def load(path):
    p = present(path)
    if p is None:
        raise FileNotFoundError(path)
    return read_json(p)


def table(d):
    tor = {}
    with open(os.path.join(d, "torch-elem.txt")) as f:
        for ln in f:
            m = re.match(r"(\w+) (\w+) (\d+): ([\d.]+) TB/s", ln)
            if m:
                tor[m.group(1, 2, 3)] = float(m.group(4))
    print("| op | dtype | elements | ours (run 1 / run 2) | PyTorch TB/s "
          "| PyTorch / run 1 ceiling | PyTorch / run 2 ceiling "
          "| ours / PyTorch (run 1 / run 2) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for op in ("copy", "add"):
        d1 = load(os.path.join(d, f"ours1-{op}.json"))
        d2 = load(os.path.join(d, f"ours2-{op}.json"))
        k1 = d1["ceilings"]["copy_bandwidth_gbps"]
        k2 = d2["ceilings"]["copy_bandwidth_gbps"]
        first = {(c["dtype"], c["shape"]): c for c in d1["cases"]}
        for c2 in d2["cases"]:
            c1 = first[(c2["dtype"], c2["shape"])]
            t = tor[(op, c2["dtype"], c2["shape"])]
            f1, f2 = (c["throughput"]["fraction_of_copy_bw"] for c in (c1, c2))
            g1, g2 = (c["throughput"]["gbps"] for c in (c1, c2))
            if None in (f1, f2, g1, g2, k1, k2):
                # a case whose timing failed has null statistics
                print(f"| {op} | {c2['dtype']} | {c2['shape']} | not timed "
                      f"in both runs | {t:.2f} | | | |")
                continue
            g1, g2 = g1 / 1000, g2 / 1000
            print(f"| {op} | {c2['dtype']} | {c2['shape']} | {f1:.3f} / {f2:.3f} "
                  f"| {t:.2f} | {t * 1000 / k1:.3f} | {t * 1000 / k2:.3f} "
                  f"| {g1 / t:.3f} / {g2 / t:.3f} |")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        return table(sys.argv[2])
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    import torch
    DTYPES = (("fp32", torch.float32), ("fp16", torch.float16),
              ("bf16", torch.bfloat16))
    for name, dt in DTYPES:
        es = torch.tensor([], dtype=dt).element_size()
        for n in COUNTS:
            a = torch.randn(n, device="cuda", dtype=dt)
            b = torch.randn(n, device="cuda", dtype=dt)
            c = torch.empty_like(a)
            t = median_s(lambda: c.copy_(a))
            print(f"copy {name} {n}: {2 * n * es / t / 1e12:.2f} TB/s", flush=True)
            t = median_s(lambda: torch.add(a, b, out=c))
            print(f"add {name} {n}: {3 * n * es / t / 1e12:.2f} TB/s", flush=True)
            del a, b, c
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
