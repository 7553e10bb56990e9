/* rt_fake_sanitizer: a stand-in for compute-sanitizer in the sanitize stage
 * tests (test_repro_sanitize), which copy it into a tool folder as
 * compute-sanitizer(.exe).
 *
 *   --version            prints a version banner, exit 0
 *   --tool T ... BIN ARGS
 *     hangs when FAKE_SAN_HANG_TOOL names T and the launch is the default
 *     one (no --target-processes), or always when FAKE_SAN_HANG_ALWAYS is
 *     set: the launcher stall the stall rule is for;
 *     otherwise prints the real capture $FAKE_SAN_FIXTURES/
 *     sanitize_<T>_smoke.txt (or sanitize_memcheck_negative.txt with
 *     --negative-control) and exits 0 (86 for the negative control, as
 *     compute-sanitizer does with --error-exitcode 86 when it finds errors).
 * The captures begin with cuda_portfolio's banner, so the stage confirms the
 * allocator from them as it does from the real thing; LD_PRELOAD and LD_AUDIT
 * in this process's environment are added to its markers, as the real
 * target, which inherits them, reports them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static int rt__cat(const char *path) {
  char buf[4096];
  size_t n;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "fake compute-sanitizer: cannot read %s\n", path);
    return -1;
  }
  /* The banner line, with the preload variables this process got (which
   * the real target inherits and reports) put first among the markers. */
  if (fgets(buf, sizeof buf, f) != NULL) {
    char *m = strstr(buf, " markers=");
    if (m != NULL) {
      m += strlen(" markers=");
      fwrite(buf, 1, (size_t)(m - buf), stdout);
      if (getenv("LD_PRELOAD") != NULL)
        fputs("LD_PRELOAD,", stdout);
      if (getenv("LD_AUDIT") != NULL)
        fputs("LD_AUDIT,", stdout);
      fputs(m, stdout);
    } else {
      fputs(buf, stdout);
    }
  }
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, n, stdout);
  fclose(f);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  const char *tool = NULL, *hang = getenv("FAKE_SAN_HANG_TOOL");
  const char *dir = getenv("FAKE_SAN_FIXTURES");
  int i, alt = 0, negative = 0;
  char path[2048];
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("NVIDIA (R) Compute Sanitizer\nVersion 2025.3.1 (fake)\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc)
      tool = argv[++i];
    else if (strcmp(argv[i], "--target-processes") == 0)
      alt = 1;
    else if (strcmp(argv[i], "--negative-control") == 0)
      negative = 1;
  }
  if (tool == NULL || dir == NULL)
    return 2;
  if (getenv("FAKE_SAN_HANG_ALWAYS") != NULL ||
      (hang != NULL && strcmp(hang, tool) == 0 && !alt))
    for (;;)
      uv_sleep(1000);
  if (negative)
    snprintf(path, sizeof path, "%s/sanitize_memcheck_negative.txt", dir);
  else
    snprintf(path, sizeof path, "%s/sanitize_%s_smoke.txt", dir, tool);
  if (rt__cat(path) != 0)
    return 3;
  return negative ? 86 : 0;
}
