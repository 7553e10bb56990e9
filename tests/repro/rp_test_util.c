/* Helpers for the repro test suites (POSIX where noted). */
#include "rp_test_util.h"
#include "cm_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int rt_fresh_dir(const char *name, char *out, size_t size) {
  int n =
      snprintf(out, size, "%s/%s-%ld", cm_test_tmpdir(), name, (long)getpid());
  if (n < 0 || (size_t)n >= size)
    return -1;
  if (mkdir(out, 0777) != 0)
    return -1;
  return 0;
}

int rt_write(const char *path, const char *text, int exec) {
  FILE *f = fopen(path, "wb");
  size_t n = strlen(text);
  if (f == NULL)
    return -1;
  if (fwrite(text, 1, n, f) != n) {
    fclose(f);
    return -1;
  }
  if (fclose(f) != 0)
    return -1;
  return exec ? chmod(path, 0755) : 0;
}

char *rt_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  if (f == NULL)
    return NULL;
  do {
    if (n + 4096 + 1 > cap) {
      char *nb = realloc(buf, cap = (cap + 4096) * 2);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, 4096, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = '\0';
  if (len != NULL)
    *len = n;
  return buf;
}

int rt_gunzip_count(const char *path, uint64_t *n, uint64_t *n_expect,
                    char expect) {
  static char buf[65536];
  gzFile g = gzopen(path, "rb");
  int got, i, err;
  *n = *n_expect = 0;
  if (g == NULL)
    return -1;
  while ((got = gzread(g, buf, sizeof buf)) > 0) {
    *n += (uint64_t)got;
    for (i = 0; i < got; i++)
      *n_expect += buf[i] == expect;
  }
  gzerror(g, &err);
  gzclose(g);
  return got < 0 || (err != Z_OK && err != Z_STREAM_END) ? -1 : 0;
}

int rt_find_run(const char *dir, char *out, size_t size) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int rc = -1;
  if (d == NULL)
    return -1;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (e->d_name[0] == '.' ||
        (l > 7 && strcmp(e->d_name + l - 7, ".tar.gz") == 0))
      continue;
    if (snprintf(out, size, "%s/%s", dir, e->d_name) < (int)size)
      rc = 0;
    break;
  }
  closedir(d);
  return rc;
}
