#!/usr/bin/env python3
"""PyTorch's copy and add at the benchmark set's element counts (v50).

  python3 scripts/capture/torch-elem.py      (on the GPU machine: torch, triton)

../shared/tools/torch_baseline.py times PyTorch's copy and add at 2^28 fp32
elements only; the benchmark set (since v50) times ours at 2^28, 2^26 and
2^25 elements in every dtype. This prints PyTorch's figure for each of those
18 cases by the baseline's method (Triton's do_bench median, warm-up 25 ms,
150 ms of repetitions; do_bench zeroes a 256 MB buffer before each
repetition, a write flush as the benchmark's default): `c.copy_(a)` and
`torch.add(a, b, out=c)`, logical bytes (copy 2 n es, add 3 n es) over the
median, TB/s. One line a case: `OP DTYPE N: X.XX TB/s`.
"""
import torch
from triton.testing import do_bench

DTYPES = (("fp32", torch.float32), ("fp16", torch.float16),
          ("bf16", torch.bfloat16))
COUNTS = (1 << 28, 1 << 26, 1 << 25)


def median_s(fn):
    return do_bench(fn, warmup=25, rep=150, return_mode="median") * 1e-3


def main():
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
