#!/usr/bin/env python3
"""torch-elem.py --table on a small folder written here (plain and gzipped
JSON): PyTorch's TB/s beside our two runs, as a fraction of each run's
copy ceiling, and our speed over PyTorch's; a case PyTorch's file lacks
fails the table, and a wrong argument prints the usage (exit 2).

  test_torch_elem.py TORCH_ELEM_PY TMPDIR
"""
import gzip
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import Checks, tool  # noqa: E402


def run_doc(ceiling, cases):
    return {"ceilings": {"copy_bandwidth_gbps": ceiling},
            "cases": [{"op": op, "dtype": dt, "shape": sh,
                       "throughput": {"fraction_of_copy_bw": gbps / ceiling,
                                      "gbps": gbps}}
                      for op, dt, sh, gbps in cases]}


def main(argv):
    script, tmp = argv[1], argv[2]
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with open(os.path.join(tmp, "torch-elem.txt"), "w") as f:
        f.write("copy bf16 33554432: 3.60 TB/s\nadd bf16 33554432: 4.00 TB/s\n")
    # run 1 at a 4000 GB/s ceiling, run 2 at 4500; ours 3600 / 3960 GB/s
    json.dump(run_doc(4000.0, [("copy", "bf16", "33554432", 3600.0)]),
              open(os.path.join(tmp, "ours1-copy.json"), "w"))
    with gzip.open(os.path.join(tmp, "ours2-copy.json.gz"), "wt") as f:
        json.dump(run_doc(4500.0, [("copy", "bf16", "33554432", 3960.0)]), f)
    json.dump(run_doc(4000.0, [("add", "bf16", "33554432", 4400.0)]),
              open(os.path.join(tmp, "ours1-add.json"), "w"))
    json.dump(run_doc(4000.0, [("add", "bf16", "33554432", 3800.0)]),
              open(os.path.join(tmp, "ours2-add.json"), "w"))
    r = tool(script, "--table", tmp)
    out = r.stdout
    checks = Checks("test_torch_elem")
    want = checks.want
    want(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    want("| copy | bf16 | 33554432 | 0.900 / 0.880 | 3.60 | 0.900 | 0.800 "
         "| 1.000 / 1.100 |" in out, "copy: fractions of each run's ceiling, "
         "PyTorch's of each, our speed over PyTorch's (gzipped run 2)")
    want("| add | bf16 | 33554432 | 1.100 / 0.950 | 4.00 | 1.000 | 1.000 "
         "| 1.100 / 0.950 |" in out, "add")
    # a case PyTorch's file does not have: the table fails, not a blank
    with open(os.path.join(tmp, "torch-elem.txt"), "w") as f:
        f.write("copy bf16 33554432: 3.60 TB/s\n")
    r2 = tool(script, "--table", tmp)
    want(r2.returncode != 0, "a case without PyTorch's figure fails")
    r3 = tool(script, "--tabel", tmp)
    want(r3.returncode == 2 and "--table DIR" in r3.stderr,
         "a wrong argument: the usage, exit 2")
    return checks.finish(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
