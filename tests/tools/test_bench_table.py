#!/usr/bin/env python3
"""bench-table.py --compare on two small results files written here: the
speed ratio (old median over new), each run's fraction, the lines crossed,
the row-op counts per line, the per-op speed range, cases in one run only,
matmul's TFLOP/s and peer ratio, the same table from the files gzipped (as
results/h200/bounds/ keeps them), and the refusals (exit 2).

  test_bench_table.py BENCH_TABLE_PY TMPDIR
"""
import gzip
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import Checks, tool  # noqa: E402


def case(op, dt, shape, med_us, frac=None, tflops=None, peer=None,
         variant="fused"):
    c = {"op": op, "dtype": dt, "shape": shape, "variant": variant,
         "timing": {"median_s": med_us * 1e-6},
         "throughput": {"fraction_of_copy_bw": frac, "tflops": tflops}}
    if peer is not None:
        c["peer"] = {"ratio": peer, "name": "cublas"}
    return c


def run_doc(commit, ceiling, cases):
    return {"environment": {"git": {"commit": commit, "dirty": False},
                            "gpu": {"uuid": "GPU-0123456789ab"}},
            "ceilings": {"copy_bandwidth_gbps": ceiling}, "cases": cases}


def main(argv):
    script, tmp = argv[1], argv[2]
    os.makedirs(tmp, exist_ok=True)
    old = run_doc("aaaaaaa1111", 4200, [
        case("softmax", "bf16", "8192x8192", 100.0, 0.880),
        case("rmsnorm", "fp32", "2048x32768", 50.0, 0.905),
        case("row_sum", "fp16", "32x1048576", 30.0, 0.790),
        case("matmul", "bf16", "4096x4096x4096", 200.0, 0.1, 690.0, 0.98,
             "hopper"),
        case("softmax", "fp32", "256x262144", 10.0, 0.5),
        case("softmax_backward", "fp16", "16384x4096", 90.0, 0.85),
    ])
    new = run_doc("bbbbbbb2222", 4210, [
        case("softmax", "bf16", "8192x8192", 80.0, 0.910),
        case("rmsnorm", "fp32", "2048x32768", 62.5, 0.845),
        case("row_sum", "fp16", "32x1048576", 30.0, 0.790),
        case("matmul", "bf16", "4096x4096x4096", 190.0, 0.1, 726.0, 1.01,
             "hopper"),
        case("rmsnorm", "bf16", "65536x1024", 20.0, 0.95),
        case("softmax_backward", "fp16", "16384x4096", 85.0, 0.90),
        case("copy", "bf16", "67108864", 66.0, 0.94, variant="vector"),
        case("copy", "bf16", "33554432", 36.0, 0.871, variant="vector"),
        case("add", "bf16", "33554432", 50.0, 0.91, variant="vector"),
    ])
    po, pn = os.path.join(tmp, "old.json"), os.path.join(tmp, "new.json")
    json.dump(old, open(po, "w"))
    json.dump(new, open(pn, "w"))
    r = tool(script, "--compare", po, pn)
    out = r.stdout
    checks = Checks("test_bench_table")
    want = checks.want

    want(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    lines = out.splitlines()

    def row(op, dt):
        for ln in lines:
            if ln.startswith(f"| {op} | {dt} |"):
                return ln
        return ""

    sm = row("softmax", "bf16")
    want("100.0 -> 80.0" in sm and "1.250x" in sm, f"softmax speed: {sm}")
    want("0.880 -> 0.910" in sm and "up 0.90" in sm and "up 0.85" not in sm,
         f"softmax crossed: {sm}")
    rn = row("rmsnorm", "fp32")
    want("0.800x" in rn and "down 0.90" in rn and "down 0.85" in rn,
         f"rmsnorm down two lines: {rn}")
    rs = row("row_sum", "fp16")
    want("1.000x" in rs and rs.rstrip().endswith("|  |"),
         f"row_sum level, nothing crossed: {rs}")
    mm = row("matmul", "bf16")
    want("690 -> 726 TFLOP/s" in mm and "0.98x -> 1.01x peer" in mm
         and "up" not in mm, f"matmul: {mm}")
    sb = row("softmax_backward", "fp16")
    want("0.850 -> 0.900" in sb and sb.rstrip().endswith("| up 0.90 |"),
         f"a line reached exactly is crossed, one already met is not: {sb}")
    want("OLD: row ops at >= 0.90 / 0.85 / 0.80: 1 / 3 / 3 (of 5)" in out,
         "old counts")
    want("NEW: row ops at >= 0.90 / 0.85 / 0.80: 3 / 3 / 4 (of 5)" in out,
         "new counts")
    want("NEW: copy and add at >= 0.90: 2 (of 3); under: copy bf16 "
         "33554432 0.871" in out, "copy and add counted, the miss named")
    want("OLD: copy and add" not in out, "no line for a run without them")
    want("speed softmax: 1.250x (bf16 8192x8192) - 1.250x (bf16 8192x8192)"
         ", 1 cases" in out, "softmax range")
    want("in one run only: rmsnorm bf16 65536x1024" in out
         and "in one run only: softmax fp32 256x262144" in out,
         "cases in one run only")
    want("git aaaaaaa" in out and "git bbbbbbb" in out
         and "copy ceiling 4200 GB/s" in out, "the runs named")

    # the same files gzipped, as the evidence folders keep them: the same table
    gz = []
    for p in (po, pn):
        with open(p, "rb") as f, gzip.open(p + ".gz", "wb") as g:
            g.write(f.read())
        gz.append(p + ".gz")
    rg = tool(script, "--compare", *gz)
    want(rg.returncode == 0 and rg.stdout.replace(".json.gz", ".json") == out,
         f"gzipped files: exit {rg.returncode}, the same table: {rg.stderr}")
    bad = os.path.join(tmp, "bad.json.gz")
    with open(bad, "wb") as f:
        f.write(b"not gzip")
    rb = tool(script, "--compare", po, bad)
    want(rb.returncode == 2 and "bad.json.gz: unreadable" in rb.stderr,
         f"not gzip: 2, named: {rb.stderr}")
    cut = os.path.join(tmp, "cut.json.gz")
    with open(gz[1], "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:-12])
    rc = tool(script, "--compare", po, cut)
    want(rc.returncode == 2 and "cut.json.gz: unreadable" in rc.stderr
         and "Traceback" not in rc.stderr,
         f"a .gz cut short: 2, named, no traceback: {rc.stderr}")

    # refusals: a missing file, a wrong argument count, no shared case
    r2 = tool(script, "--compare", po)
    want(r2.returncode == 2 and "usage" in r2.stderr, "one file: usage, 2")
    r3 = tool(script, "--compare", po, os.path.join(tmp, "missing.json"))
    want(r3.returncode == 2 and "unreadable" in r3.stderr,
         "missing file: 2, named")
    other = run_doc("c", 1, [case("copy", "fp32", "268435456", 5.0, 1.0)])
    pc = os.path.join(tmp, "other.json")
    json.dump(other, open(pc, "w"))
    r4 = tool(script, "--compare", po, pc)
    want(r4.returncode == 2 and "share no timed case" in r4.stderr,
         "no shared case: 2")
    # the table modes: no file, a file they cannot read or that is not a
    # results file are exit 2, named, no traceback (they were exit 0)
    arr = os.path.join(tmp, "array.json")
    json.dump([1, 2], open(arr, "w"))
    for args, said in ((("--md",), "usage"), ((), "usage"),
                       (("--bogus", po), "usage"),
                       ((os.path.join(tmp, "missing.json"),), "unreadable"),
                       (("--md", arr), "not a cuda_portfolio --json results"),
                       (("--full", po, arr), "array.json: not a")):
        rt = tool(script, *args)
        want(rt.returncode == 2 and said in rt.stderr
             and "Traceback" not in rt.stderr,
             f"{args}: 2, '{said}': {rt.returncode} {rt.stderr[-200:]}")
    rok = tool(script, "--md", po)
    want(rok.returncode == 0 and "softmax" in rok.stdout, "--md of one file: 0")

    return checks.finish(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
