/* replay.c: runs one fuzz target over files, without libFuzzer.
 *
 *   fuzz_replay_<target> PATH...
 *
 * Each PATH is a file, or a folder whose files (recursively, README.md
 * excepted) are each one input. Every input goes through
 * LLVMFuzzerTestOneInput once; a broken invariant aborts with the input's
 * name printed first. Exit 0 after at least one input, 2 when a PATH
 * cannot be read or no input was found (a replay of nothing proves
 * nothing). ctest runs it over the seeds and tests/fuzz/regress/.
 * Built with oom.c (FUZZ_OOM), each input runs again with allocations
 * failing, and a finding exits 1.
 */
#include "fuzz.h"

#include "cm_error.h"
#include "cm_file.h"
#include "rp_fs.h"

#ifdef FUZZ_OOM
/* oom.c: the input again with each allocation failing in turn; 0 or 1 (a
 * finding, already said) */
int fuzz_oom_input(const char *name, const uint8_t *data, size_t size);
#endif

/* Inputs larger than this are refused rather than read. */
#define REPLAY_MAX ((size_t)64 << 20)

static int replay_file(const char *path, size_t *count) {
  char *buf = NULL;
  size_t len = 0;
  int rc = rp__fs_read_all(path, REPLAY_MAX, &buf, &len);
  if (rc != CM_OK) {
    fprintf(stderr, "replay: %s: %s\n", path, cm_strerror(rc));
    return 2;
  }
  fprintf(stderr, "replay: %s (%lu bytes)\n", path, (unsigned long)len);
#ifdef FUZZ_OOM
  rc = fuzz_oom_input(path, (const uint8_t *)buf, len);
#else
  (void)LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
#endif
  free(buf);
  (*count)++;
  return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  size_t count = 0;
  int i;
  cm_json_init(); /* as the programs do: jansson's refusals counted */
  for (i = 1; i < argc; i++) {
    rp__fs_info info;
    rp__strlist list = {0};
    size_t k;
    int rc = rp__fs_stat(argv[i], &info);
    if (rc != CM_OK) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], cm_strerror(rc));
      return 2;
    }
    if (info.kind != RP__FS_DIR) {
      int r = replay_file(argv[i], &count);
      if (r != 0)
        return r;
      continue;
    }
    rc = rp__fs_walk(argv[i], &list, NULL);
    for (k = 0; rc == CM_OK && k < list.count; k++) {
      char path[4096];
      const char *base = strrchr(list.items[k], '/');
      base = base != NULL ? base + 1 : list.items[k];
      if (strcmp(base, "README.md") == 0)
        continue;
      rc = rp__path_join(path, sizeof path, argv[i], list.items[k]);
      if (rc == CM_OK) {
        int r = replay_file(path, &count);
        if (r == 1) {
          rp__strlist_free(&list);
          return 1;
        }
        if (r != 0)
          rc = CM_EIO;
      }
    }
    rp__strlist_free(&list);
    if (rc != CM_OK) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], cm_strerror(rc));
      return 2;
    }
  }
  if (count == 0) {
    fprintf(stderr, "replay: no input found in the paths given\n");
    return 2;
  }
  printf("replay: %lu input(s), every invariant held\n", (unsigned long)count);
  return 0;
}
