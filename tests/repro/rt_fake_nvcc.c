/* rt_fake_nvcc: a stand-in for nvcc and cuobjdump in the inspect stage
 * tests (test_repro_cli), which copy it into tool folders as nvcc(.exe)
 * and cuobjdump(.exe). It acts by the name it was copied to:
 *
 *   nvcc --version       prints nvcc's version lines (release 13.0), exit 0
 *   nvcc ... -o OUT      writes "fake nvcc <its own path>" into OUT; with
 *                        -cubin also prints $FAKE_NVCC_PTXAS (a real
 *                        ptxas -v capture, tests/fixtures/tools) to stderr,
 *                        where nvcc -Xptxas -v prints it; exit 0
 *   cuobjdump --version  prints cuobjdump's version line, exit 0
 *   cuobjdump -sass FILE prints one line naming FILE, exit 0
 *   cuobjdump --dump-resource-usage FILE  prints nothing, exit 0
 *
 * Every compile (not --version, which the preflight's probe runs) appends
 * its arguments as one line to ran.txt beside the executable, so that a
 * test sees which copy compiled and which never did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* The file name of path (either separator). */
static const char *rt__base(const char *path) {
  const char *s = strrchr(path, '/'), *b = strrchr(path, '\\');
  if (b != NULL && (s == NULL || b > s))
    s = b;
  return s != NULL ? s + 1 : path;
}

static int rt__cat_stderr(const char *path) {
  char buf[4096];
  size_t n;
  FILE *f = path != NULL ? fopen(path, "rb") : NULL;
  if (f == NULL) {
    fprintf(stderr, "fake nvcc: cannot read FAKE_NVCC_PTXAS (%s)\n",
            path != NULL ? path : "unset");
    return -1;
  }
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, n, stderr);
  fclose(f);
  return 0;
}

static int rt__cuobjdump(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("cuobjdump: NVIDIA (R) CUDA Object Utility\n"
           "Cuda compilation tools, release 13.0, V13.0.88\n");
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "-sass") == 0) {
    printf("fake SASS of %s\n", argv[2]);
    return 0;
  }
  return argc == 3 && strcmp(argv[1], "--dump-resource-usage") == 0 ? 0 : 2;
}

static int rt__nvcc(int argc, char **argv, const char *self) {
  char ran[1100];
  const char *out = NULL;
  int i, cubin = 0;
  FILE *f;
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("nvcc: NVIDIA (R) Cuda compiler driver\n"
           "Cuda compilation tools, release 13.0, V13.0.88\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (strcmp(argv[i], "-cubin") == 0)
      cubin = 1;
  }
  snprintf(ran, sizeof ran, "%.*s/ran.txt", (int)(rt__base(self) - self) - 1,
           self);
  f = fopen(ran, "a");
  if (f == NULL)
    return 3;
  for (i = 1; i < argc; i++)
    fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
  fputc('\n', f);
  fclose(f);
  if (out == NULL)
    return 2;
  f = fopen(out, "w");
  if (f == NULL)
    return 3;
  fprintf(f, "fake nvcc %s\n", self);
  fclose(f);
  if (cubin && rt__cat_stderr(getenv("FAKE_NVCC_PTXAS")) != 0)
    return 3;
  return 0;
}

int main(int argc, char **argv) {
  char self[1024];
  size_t n = sizeof self;
  if (uv_exepath(self, &n) != 0 || rt__base(self) == self)
    return 3;
  if (strncmp(rt__base(self), "cuobjdump", 9) == 0)
    return rt__cuobjdump(argc, argv);
  return rt__nvcc(argc, argv, self);
}
