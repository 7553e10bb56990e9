"""Each row of rmsnorm_backward's dumped outputs whose reference lies all
under atol (1e-5), with its error beside its size (docs/VALIDATION.md,
"Rows under atol"). Reads the .npy files of `cuda_portfolio --dump DIR`
for DIR in the arguments (default /tmp/dump-fp32 /tmp/dump-bf16)."""
import glob
import sys

import numpy as np

for d in sys.argv[1:] or ["/tmp/dump-fp32", "/tmp/dump-bf16"]:
    for ref in sorted(glob.glob(f"{d}/*_ref.npy")):
        act = np.load(ref.replace("_ref.npy", ".npy")).astype(np.float64)
        e = np.load(ref)
        name = ref.split("/")[-1][:-8]
        if e.ndim == 1:
            e, act = e[None, :], act[None, :]
        for r in range(e.shape[0]):
            m = np.abs(e[r]).max()
            err = np.abs(act[r] - e[r]).max()
            if m < 1e-5:
                rel = err / m if m > 0 else float("nan")
                print(f"{d} {name} row {r}: max|ref| {m:.3g} "
                      f"max|act-ref| {err:.3g} relative {rel:.3g}")
