/* Test runner: `suite NAME` runs one test, `suite --list` lists them,
 * `suite --helper NAME args...` runs a helper (a fake child process). The
 * table comes from the generated <suite>_list.h (see tests/CMakeLists.txt). */
#include "cm_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <direct.h>
#else
#include <sys/stat.h>
#endif

#include CM_TEST_LIST_HEADER

typedef struct {
  const char *name;
  int (*fn)(void);
} test_entry;
typedef struct {
  const char *name;
  int (*fn)(int, char **);
} helper_entry;

#define TEST_ENTRY(n) {#n, test_##n},
#define HELPER_ENTRY(n) {#n, helper_##n},
static const test_entry tests[] = {CM_TEST_LIST(TEST_ENTRY){NULL, NULL}};
static const helper_entry helpers[] = {
    CM_HELPER_LIST(HELPER_ENTRY){NULL, NULL}};

static const char *self_path;

const char *cm_test_self_path(void) {
  return self_path;
}

const char *cm_test_tmpdir(void) {
  return CM_TEST_TMPDIR;
}

#define CM_ON_SUCCESS_MAX 4 /* cm_test.h: "at most 4 functions" */
static void (*on_success[CM_ON_SUCCESS_MAX])(void);

void cm_test_on_success(void (*fn)(void)) {
  int i;
  for (i = 0; i < CM_ON_SUCCESS_MAX; i++)
    if (on_success[i] == NULL || on_success[i] == fn) {
      on_success[i] = fn;
      return;
    }
}

/* The suite's scratch folder is made at configure time; a build folder
 * copied without it (a trimmed copy carried to another machine) gets it
 * back here, so a test that writes there fails only for its own reasons. */
static void make_tmpdir(void) {
#ifdef _WIN32
  const int r = _mkdir(CM_TEST_TMPDIR);
#else
  const int r = mkdir(CM_TEST_TMPDIR, 0777);
#endif
  if (r != 0 && errno != EEXIST)
    fprintf(stderr, "cm_test: cannot make the scratch folder %s: %s\n",
            CM_TEST_TMPDIR, strerror(errno));
}

int main(int argc, char **argv) {
  int i;
  self_path = argv[0];
  make_tmpdir();
  if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
    for (i = 0; tests[i].name != NULL; i++)
      printf("%s\n", tests[i].name);
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "--helper") == 0) {
    for (i = 0; helpers[i].name != NULL; i++)
      if (strcmp(helpers[i].name, argv[2]) == 0)
        return helpers[i].fn(argc - 3, argv + 3);
    fprintf(stderr, "no helper named %s\n", argv[2]);
    return 2;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: %s TEST | --list | --helper NAME [ARGS]\n",
            argv[0]);
    return 2;
  }
  for (i = 0; tests[i].name != NULL; i++) {
    if (strcmp(tests[i].name, argv[1]) == 0) {
      int rc = tests[i].fn(), k;
      if (rc == 0)
        printf("ok %s\n", tests[i].name);
      else if (rc == TEST_SKIP)
        printf("skip %s\n", tests[i].name);
      else
        printf("not ok %s\n", tests[i].name);
      fflush(stdout);
      if (rc == 0 || rc == TEST_SKIP)
        for (k = 0; k < CM_ON_SUCCESS_MAX && on_success[k] != NULL; k++)
          on_success[k]();
      return rc;
    }
  }
  fprintf(stderr, "no test named %s\n", argv[1]);
  return 2;
}
