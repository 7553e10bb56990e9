#!/usr/bin/env python3
"""stream-table.py on a small folder written here, as v49-session.sh lays
one out (plain and gzipped JSON): each case's stream picked by op, dtype
and element count, the case / stream ratio, cudaMemcpyAsync's fraction
from the copy's peer, row_sum's reference from its run's read ceiling and
launch floor, the misses' groups, a case with no stream, and the refusal
of a missing folder (exit 2).

  test_stream_table.py STREAM_TABLE_PY TMPDIR
"""
import gzip
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import Checks, tool  # noqa: E402

CEIL = 4000.0  # GB/s, every run's copy ceiling here


def case(op, dt, dims, frac, logical_bytes=0.0, peer_median_s=None):
    shape = "x".join(str(d) for d in dims)
    c = {"op": op, "dtype": dt, "shape": shape, "dims": dims,
         "variant": "fused", "logical_bytes": logical_bytes,
         "timing": {"median_s": 1e-4},
         "throughput": {"fraction_of_copy_bw": frac}}
    c["peer"] = ({"present": True, "median_s": peer_median_s}
                 if peer_median_s else {"present": False})
    return c


def doc(cases, read_gbps=None, read_bytes=None, floor_s=None):
    ce = {"copy_bandwidth_gbps": CEIL}
    if read_gbps:
        ce.update(read_bandwidth_gbps=read_gbps, read_bytes=read_bytes,
                  launch_floor_s=floor_s)
    return {"ceilings": ce, "cases": cases}


def main(argv):
    script, tmp = argv[1], argv[2]
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    def put(name, d, gz=False):
        p = os.path.join(tmp, name)
        if gz:
            with gzip.open(p + ".gz", "wt") as f:
                json.dump(d, f)
        else:
            with open(p, "w") as f:
                json.dump(d, f)

    n26, n25 = 1 << 26, 1 << 25
    put("bench-write-softmax.json", doc([
        case("softmax", "bf16", [8192, 8192], 0.903),    # met
        case("softmax", "bf16", [32, 1048576], 0.72),    # its stream < 0.90
        case("softmax", "bf16", [2048, 32768], 0.86),    # 0.917 of its stream
    ]))
    # row_sum's reference: read ceiling 4400 GB/s over 440e6 bytes (100 us)
    # with a 3 us floor: 97 us of streaming; a case of 220e6 bytes takes
    # 55 us at the copy ceiling and 48.5 + 3 us as that stream, 1.068
    put("bench-write-row_sum.json", doc([
        case("row_sum", "bf16", [8192, 8192], 0.85, logical_bytes=220e6),
    ], read_gbps=4400.0, read_bytes=440e6, floor_s=3e-6), gz=True)
    put("bench-write-rmsnorm_backward.json", doc([
        case("rmsnorm_backward", "fp16", [8192, 8192], 0.83),  # no add here
    ]))
    # the copy of 2^26 bf16 elements: ours 0.938, its peer at 0.94
    b = float(n26 * 2 * 2)
    put("s-write-copy-bf16-67108864.json", doc([
        case("copy", "bf16", [1, n26], 0.938, logical_bytes=b,
             peer_median_s=b / (0.94 * CEIL * 1e9))]), gz=True)
    put("s-write-copy-bf16-33554432.json", doc([
        case("copy", "bf16", [1, n25], 0.885)]))
    # a stream of another dtype and flush must not be picked
    put("s-write-copy-fp16-67108864.json", doc([
        case("copy", "fp16", [1, n26], 0.5)]))
    put("s-read-copy-bf16-67108864.json", doc([
        case("copy", "bf16", [1, n26], 0.1)]))

    r = tool(script, tmp)
    out = r.stdout
    checks = Checks("test_stream_table")
    want = checks.want

    want(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")

    def row(op, shape, text=None):
        for ln in (out if text is None else text).splitlines():
            if ln.startswith(f"| {op} |") and f"| {shape} |" in ln:
                return [x.strip() for x in ln.strip().strip("|").split("|")]
        return []

    sm = row("softmax", "8192x8192")
    want(sm[4:] == ["copy 2^26", "0.938", "0.940", "0.963"],
         f"softmax 8192x8192 against the bf16 copy of 2^26: {sm}")
    sw = row("softmax", "32x1048576")
    want(sw[4:] == ["copy 2^25", "0.885", "-", "0.814"],
         f"softmax 32x1048576 against the copy of 2^25, no peer: {sw}")
    rs = row("row_sum", "8192x8192")
    want(rs[4:] == ["read + floor", "1.068", "-", "0.796"],
         f"row_sum's reference 55 / 51.5 us: {rs}")
    rb = row("rmsnorm_backward", "8192x8192")
    want(rb[3:] == ["0.830", "add 2^26", "-", "-", "-"],
         f"no add stream in the folder: {rb}")
    want("5 cases: 1 at >= 0.90 of the copy ceiling; 3 whose stream reaches "
         "0.90; 2 at >= 0.90 of their stream; of the 4 under 0.90, 1 whose "
         "stream is under 0.90 too, 1 more at >= 0.90 of their stream, and 1 "
         "under 0.90 of a stream that reaches 0.90; 1 without a stream in DIR"
         in out, "the counts and the misses' groups")
    want("- softmax: case / stream 0.814-0.963" in out, "softmax's range")
    want("### write flush" in out and "### read flush" not in out,
         "only the flush with benchmark files is tabled")

    r2 = tool(script, os.path.join(tmp, "none"))
    want(r2.returncode == 2 and "stream-table.py DIR" in r2.stderr,
         "a missing folder: the usage, exit 2")

    # One results file, its own streams (v50's benchmark set): the add of
    # 2^26 fp32 elements at 1.0, of 2^25 at 0.95; the 2^28 add and a copy
    # of 2^26 are not softmax_backward's stream
    run = doc([
        case("add", "fp32", [1, 1 << 28], 0.5),
        case("add", "fp32", [1, n26], 1.0),
        case("add", "fp32", [1, n25], 0.95),
        case("copy", "fp32", [1, n26], 0.2),
        case("softmax_backward", "fp32", [256, 262144], 0.891),
        case("softmax_backward", "fp32", [32, 1048576], 0.86),
        case("rmsnorm", "fp32", [32, 1048576], 0.85),  # no copy of 2^25
    ])
    run["settings"] = {"flush": "read"}
    fpath = os.path.join(tmp, "bench-all.json")
    with open(fpath, "w") as f:
        json.dump(run, f)
    r3 = tool(script, fpath)
    out3 = r3.stdout
    want(r3.returncode == 0, f"a results file: exit {r3.returncode}: {r3.stderr}")

    def row3(op, shape):
        return row(op, shape, out3)

    want(row3("softmax_backward", "256x262144")[4:] ==
         ["add 2^26", "1.000", "-", "0.891"],
         f"the file's own add of 2^26: {row3('softmax_backward', '256x262144')}")
    want(row3("softmax_backward", "32x1048576")[4:] ==
         ["add 2^25", "0.950", "-", "0.905"],
         f"the file's own add of 2^25: {row3('softmax_backward', '32x1048576')}")
    want(row3("rmsnorm", "32x1048576")[4:] == ["copy 2^25", "-", "-", "-"],
         f"no copy of 2^25 in the file: {row3('rmsnorm', '32x1048576')}")
    want(f"### read flush ({fpath}, its own copy and add)" in out3,
         "the file's flush names its table")
    want("3 cases: 0 at >= 0.90 of the copy ceiling; 2 whose stream reaches "
         "0.90; 1 at >= 0.90 of their stream; of the 3 under 0.90, 0 whose "
         "stream is under 0.90 too, 1 more at >= 0.90 of their stream, and 1 "
         "under 0.90 of a stream that reaches 0.90; 1 without a stream in FILE"
         in out3, f"the file's counts: {out3[-600:]}")
    with open(os.path.join(tmp, "not-results.json"), "w") as f:
        json.dump({"cases": {}}, f)
    r4 = tool(script, os.path.join(tmp, "not-results.json"))
    want(r4.returncode == 2 and "FILE.json" in r4.stderr,
         "a file that is not a results document: the usage, exit 2")

    return checks.finish(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
