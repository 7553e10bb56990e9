#!/usr/bin/env python3
"""Each row-op case beside a stream of its own bytes (docs/PERFORMANCE.md, v49).

  stream-table.py DIR
  stream-table.py FILE.json[.gz]

A results FILE of `cuda_portfolio --bench` (since v50 its set has the copy
and add of 2^26 and 2^25 elements, the row shapes' counts) is its own
source: its row-op cases beside its own copy and add cases, one table under
the file's flush. DIR holds what scripts/capture/v49-session.sh wrote (as written, or each
JSON gzipped as in results/h200/bounds/): bench-FLUSH-OP.json
(the row ops' benchmark set under each flush) and s-FLUSH-OP-DTYPE-N.json
(the copy and add of N elements as one 1xN row). A row op of R x W
elements moves them once in and once out (softmax, rmsnorm: the bytes of
a copy of R x W elements, w's one row aside) or twice in and once out
(softmax_backward, rmsnorm_backward: an add's), so that copy or add, timed
under the same flush in the same lease, is what a stream of the case's
bytes reaches without the rows' dependencies. row_sum only reads: its
reference is the run's own read ceiling (evict-first loads of 8 x L2,
under the same flush) scaled to the case's bytes, as a fraction of the
copy ceiling: (bytes / copy_bw) / (bytes x (t_read - floor) / read_bytes
+ floor), t_read the read ceiling's median and floor the run's launch
floor (a reference, computed, not a timed stream of the case's size).

Prints, per flush, a Markdown table: the case's fraction of its run's copy
ceiling, the stream's (its own run's), their ratio, and for the copy
streams cudaMemcpyAsync's fraction (the copy's peer, sampled in
alternation); then the counts at 0.90, each case under 0.90 in one
group (its stream under 0.90 too; at >= 0.90 of its stream; under 0.90
of a stream that reaches 0.90; no stream in DIR), and the ratios' range
per op. Exit 2 (the usage) where the argument is neither a folder nor a
readable results file.
"""
import glob
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from results_json import present, read_json  # noqa: E402

ROW_OPS = ["row_sum", "softmax", "softmax_backward", "rmsnorm", "rmsnorm_backward"]
STREAM_OF = {"softmax": "copy", "rmsnorm": "copy",
             "softmax_backward": "add", "rmsnorm_backward": "add"}
DTYPES = ["fp32", "fp16", "bf16"]


def load(path):
    path = present(path) or path
    try:
        return read_json(path)
    except (OSError, ValueError) as e:
        print(f"{path}: unreadable: {e}", file=sys.stderr)
        return None


def elements(c):
    n = 1
    for d in c.get("dims") or []:
        n *= d
    return n


def frac(c):
    return (c.get("throughput") or {}).get("fraction_of_copy_bw")


def peer_frac(c, doc):
    """cudaMemcpyAsync's fraction of the run's copy ceiling (copy cases)."""
    p = c.get("peer") or {}
    ceil = (doc.get("ceilings") or {}).get("copy_bandwidth_gbps")
    if not p.get("present") or not p.get("median_s") or not ceil:
        return None
    return c["logical_bytes"] / p["median_s"] / 1e9 / ceil


def doc_streams(doc, out):
    """Adds the copy and add cases of a results document to out:
    {(op, dtype, n): (fraction, memcpy fraction or None)}."""
    for c in doc.get("cases", []):
        if c.get("op") in ("copy", "add") and c.get("timing") and frac(c) is not None:
            out[(c["op"], c["dtype"], elements(c))] = (frac(c), peer_frac(c, doc))
    return out


def streams(d, flush):
    """The streams of the folder's s-FLUSH-*.json files."""
    out = {}
    for path in sorted(glob.glob(os.path.join(d, f"s-{flush}-*.json"))
                       + glob.glob(os.path.join(d, f"s-{flush}-*.json.gz"))):
        doc = load(path)
        if doc:
            doc_streams(doc, out)
    return out


def row_sum_bound(c, doc):
    """The read ceiling's stream scaled to the case's bytes: its median
    less one launch floor is the streaming, the case's floor is added."""
    ce = doc.get("ceilings") or {}
    cb, rb, rbytes, fl = (ce.get("copy_bandwidth_gbps"), ce.get("read_bandwidth_gbps"),
                          ce.get("read_bytes"), ce.get("launch_floor_s"))
    if not (cb and rb and rbytes and fl):
        return None
    stream_s = rbytes / (rb * 1e9) - fl
    b = c["logical_bytes"]
    return (b / (cb * 1e9)) / (b / rbytes * stream_s + fl)


def folder_docs(d, flush):
    """The folder's benchmark files under one flush, in ROW_OPS's order."""
    docs = []
    for op in ROW_OPS:
        path = present(os.path.join(d, f"bench-{flush}-{op}.json"))
        if not path:
            continue  # an op the session did not run
        doc = load(path)
        if doc:
            docs.append(doc)
    return docs


def table(title, docs, st, where):
    """One table: the row-op cases of docs, each beside its stream in st
    (row_sum beside its own document's read ceiling); where names the
    streams' source in the count of cases without one."""
    rows, ratios = [], {}
    counts = {"case": 0, "stream": 0, "ratio": 0, "n": 0, "miss": 0, "miss_near": 0,
              "miss_stream_under": 0, "miss_far": 0, "miss_none": 0}
    for doc in docs:
        for c in doc.get("cases", []):
            f, op = frac(c), c.get("op")
            if op not in ROW_OPS or f is None or not c.get("timing"):
                continue
            n = elements(c)
            if op == "row_sum":
                s, mp, sname = row_sum_bound(c, doc), None, "read + floor"
            else:
                sname = STREAM_OF[op]
                s, mp = st.get((sname, c["dtype"], n), (None, None))
                sname = f"{sname} 2^{n.bit_length() - 1}"
            r = f / s if s else None
            counts["n"] += 1
            counts["case"] += f >= 0.90
            counts["stream"] += bool(s and s >= 0.90)
            counts["ratio"] += bool(r and r >= 0.90)
            if f < 0.90:  # each miss in one group
                counts["miss"] += 1
                if not s:
                    counts["miss_none"] += 1
                elif s < 0.90:
                    counts["miss_stream_under"] += 1
                elif r >= 0.90:
                    counts["miss_near"] += 1
                else:
                    counts["miss_far"] += 1
            if r:
                ratios.setdefault(op, []).append(r)
            rows.append((op, c["dtype"], c["shape"], f, sname, s, mp, r))
    print(f"### {title}\n")
    print("| op | dtype | shape | case | stream | stream's fraction | cudaMemcpyAsync | case / stream |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: | ---: |")
    key = {o: i for i, o in enumerate(ROW_OPS)}
    for op, dt, sh, f, sname, s, mp, r in sorted(
            rows, key=lambda x: (key[x[0]], DTYPES.index(x[1]) if x[1] in DTYPES else 9)):
        fmt = lambda v: "-" if v is None else f"{v:.3f}"
        print(f"| {op} | {dt} | {sh} | {f:.3f} | {sname} | {fmt(s)} | {fmt(mp)} | {fmt(r)} |")
    print(f"\n{counts['n']} cases: {counts['case']} at >= 0.90 of the copy ceiling; "
          f"{counts['stream']} whose stream reaches 0.90; "
          f"{counts['ratio']} at >= 0.90 of their stream; of the {counts['miss']} "
          f"under 0.90, {counts['miss_stream_under']} whose stream is under 0.90 too, "
          f"{counts['miss_near']} more at >= 0.90 of their stream, and "
          f"{counts['miss_far']} under 0.90 of a stream that reaches 0.90"
          + (f"; {counts['miss_none']} without a stream in {where}"
             if counts["miss_none"] else ""))
    for op in ROW_OPS:
        if op in ratios:
            print(f"- {op}: case / stream {min(ratios[op]):.3f}-{max(ratios[op]):.3f}")
    print()


def main():
    arg = sys.argv[1] if len(sys.argv) == 2 else None
    if arg and os.path.isdir(arg):
        found = 0
        for flush in ("write", "read"):
            if glob.glob(os.path.join(arg, f"bench-{flush}-*.json*")):
                found += 1
                table(f"{flush} flush ({arg})", folder_docs(arg, flush),
                      streams(arg, flush), "DIR")
        if not found:
            print(f"{arg}: no bench-write-*.json or bench-read-*.json "
                  "(v49's folder form)", file=sys.stderr)
            return 2
        return 0
    doc = load(arg) if arg and os.path.isfile(arg) else None
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        print(__doc__, file=sys.stderr)
        return 2
    flush = (doc.get("settings") or {}).get("flush") or "hot"
    table(f"{flush} flush ({arg}, its own copy and add)", [doc],
          doc_streams(doc, {}), "FILE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
