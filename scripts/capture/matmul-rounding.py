#!/usr/bin/env python3
"""The rounding check's statistic for matmul dumps (docs/VALIDATION.md,
"Rounding"), which the C check (pf_tol.c, pf_rounding_check) leaves out:
for every case folder under DUMPDIR written by `cuda_portfolio --op matmul
--dump`, the elements whose reference is finite and non-zero and whose
stored value is finite are counted against the reference rounded to the
dtype through fp32 (as the kernels round), away from it in magnitude or
toward. Sampled cases (a *_sample.npy) count the sampled elements.
A folder whose name holds "bf16" is bf16, any other fp16.

    python3 scripts/capture/matmul-rounding.py DUMPDIR
"""
import glob, math, os, sys
import numpy as np
def nearest(e, bf16):
    f = e.astype(np.float32)  # the kernels round fp32 to the dtype
    if not bf16:
        return f.astype(np.float16).astype(np.float64)
    u = f.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32).astype(np.float64)
for d in sorted(glob.glob(os.path.join(sys.argv[1], "*"))):
    for ref in sorted(glob.glob(os.path.join(d, "*_ref.npy"))):
        e = np.load(ref).ravel()
        a = np.load(ref.replace("_ref.npy", ".npy")).astype(np.float64).ravel()
        smp = glob.glob(os.path.join(d, "*_sample.npy"))
        if smp:
            idx = np.load(smp[0]).ravel()
            a = a[idx]
            if e.size != idx.size:
                e = e[idx]
        r = nearest(e, "bf16" in d)
        m = np.isfinite(a) & np.isfinite(e) & (e != 0)
        away = int(np.sum(np.abs(a[m]) > np.abs(r[m])))
        toward = int(np.sum(np.abs(a[m]) < np.abs(r[m])))
        off = away + toward
        print("%s: %d counted, off the nearest %.2e, one way %+.2f, z %.1f" % (
            os.path.basename(d), int(m.sum()), off / max(int(m.sum()), 1),
            (away - toward) / max(off, 1), (away - toward) / math.sqrt(max(off, 1))))
