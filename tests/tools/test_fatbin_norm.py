#!/usr/bin/env python3
"""fatbin-norm.py on objects nvcc builds here from a small kernel, as the
build compiles the kernels (-lineinfo, sm_90 code and compute_80 PTX): the
output names both entries and the kernel; the same kernel with its lines
moved (a comment and blank lines above it) prints the same text; a kernel
that computes something else does not, in its sm_90 code; an object
without device code and a truncated one (as one still being written) are
refused (exit status not 0, nothing on standard output); and /dev/stdout
is left as it was throughout (objcopy removes its output path when it
fails, and the script once gave it /dev/stdout as that path: run as root,
the link was removed). Skips (77) where objcopy, zstd or nvcc is missing.

  test_fatbin_norm.py FATBIN_NORM_PY TMPDIR NVCC
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import Checks, tool  # noqa: E402

KERNEL = """__global__ void twice(float *p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * %s;
}
"""


def build(nvcc, tmp, name, src):
    cu = os.path.join(tmp, name + ".cu")
    obj = os.path.join(tmp, name + ".o")
    with open(cu, "w") as f:
        f.write(src)
    r = subprocess.run([nvcc, "-c", "-O2", "-lineinfo",
                        "-gencode", "arch=compute_90,code=sm_90",
                        "-gencode", "arch=compute_80,code=compute_80",
                        cu, "-o", obj], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        raise SystemExit(f"nvcc failed on {cu}")
    return obj


def sm90(text):
    """The lines of the sm_90 cubin entry."""
    out, keep = [], False
    for line in text.splitlines():
        if line.startswith("=== entry"):
            keep = " kind ELF arch 90 " in line
        if keep:
            out.append(line)
    return out


def link_state():
    p = "/dev/stdout"
    return (os.path.islink(p), os.readlink(p) if os.path.islink(p) else None)


def main():
    norm, tmp, nvcc = sys.argv[1], sys.argv[2], sys.argv[3]
    for t in ("objcopy", "zstd"):
        if shutil.which(t) is None:
            print(f"SKIP: {t} not found")
            return 77
    if not (os.path.isfile(nvcc) and os.access(nvcc, os.X_OK)):
        print(f"SKIP: nvcc not found at {nvcc}")
        return 77
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    c = Checks("test_fatbin_norm")
    a = build(nvcc, tmp, "a", KERNEL % "2.f")
    moved = build(nvcc, tmp, "moved",
                  "/* the same kernel, its lines moved */\n\n\n" +
                  KERNEL % "2.f")
    other = build(nvcc, tmp, "other", KERNEL % "3.f")
    before = link_state()
    ra, rm, ro = tool(norm, a), tool(norm, moved), tool(norm, other)
    c.want(link_state() == before,
           f"/dev/stdout changed: {before} -> {link_state()}")
    for name, r in (("a", ra), ("moved", rm), ("other", ro)):
        c.want(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr}")
    heads = [l for l in ra.stdout.splitlines() if l.startswith("=== entry")]
    c.want(any(" kind ELF arch 90 " in h for h in heads),
           f"no sm_90 cubin entry: {heads}")
    c.want(any(" kind PTX arch 80 " in h for h in heads),
           f"no compute_80 PTX entry: {heads}")
    c.want(any(l.startswith("SECTION .text.") and "twice" in l
               for l in ra.stdout.splitlines()),
           "the kernel's .text section is not printed")
    c.want(ra.stdout == rm.stdout,
           "moving the kernel's lines changed the output")
    c.want(sm90(ra.stdout) != sm90(ro.stdout),
           "another computation left the sm_90 entry equal")
    # an object without device code: no .nv_fatbin section
    host = os.path.join(tmp, "host.o")
    with open(os.path.join(tmp, "host.c"), "w") as f:
        f.write("int host_only(int x) { return x + 1; }\n")
    subprocess.run(["cc", "-c", os.path.join(tmp, "host.c"), "-o", host],
                   check=True)
    rh = tool(norm, host)
    c.want(rh.returncode != 0 and rh.stdout == "",
           f"an object without device code: exit {rh.returncode}, "
           f"output {rh.stdout[:200]!r}")
    c.want("no device code" in rh.stderr,
           f"the refusal does not say why: {rh.stderr!r}")
    # a truncated object: objcopy fails on it
    trunc = os.path.join(tmp, "trunc.o")
    with open(a, "rb") as f, open(trunc, "wb") as g:
        data = f.read()
        g.write(data[:len(data) // 2])
    rt = tool(norm, trunc)
    c.want(rt.returncode != 0 and rt.stdout == "",
           f"a truncated object: exit {rt.returncode}, "
           f"output {rt.stdout[:200]!r}")
    c.want(link_state() == before,
           f"/dev/stdout changed: {before} -> {link_state()}")
    return c.finish(ra.stdout[:2000])


if __name__ == "__main__":
    sys.exit(main())
