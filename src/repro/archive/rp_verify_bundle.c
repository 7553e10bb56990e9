/* rp_verify_bundle.c: rp_verify_bundle_files (rp_archive.h): rp_verify for
 * a .tar.gz bundle, and compare's reading of one.
 *
 * The bundle is streamed once: file bytes -> gunzip (CRC-checked) -> ustar
 * reader -> one rp__check per entry. Entries may come in any order, so the
 * digests are kept and the manifest, wherever it appears, is judged against
 * them at the end; the files the caller asked to keep are held in memory
 * meanwhile and handed over only after that judgement. Nothing is
 * extracted to disk.
 */
#include "rp_verify.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "rp_fs.h"
#include "rp_gz.h"
#include "rp_tar.h"

#include <stdlib.h>
#include <string.h>

/* Returned by a callback that has recorded its own problem in ctx. */
#define STOP CM_EMISMATCH

/* A file kept for the caller of rp_verify_bundle_files. */
typedef struct {
  char *rel;  /* path inside the run; owned */
  char *data; /* content, NUL-terminated; owned */
  size_t len;
} kept_file;

typedef struct {
  rp__tar_reader tar;
  rp__gunzip gz;
  rp__seenlist seen;
  const char *keep_prefix; /* files to keep ("" none) */
  size_t keep_max;
  kept_file *kept; /* kept[nkept] is the current entry's while it is read */
  size_t nkept, kcap;
  size_t kept_bytes;              /* all kept files together */
  int keeping;                    /* the current entry is being kept */
  char top[RP__TAR_NAME_MAX + 1]; /* the run folder's name in the bundle */
  char rel[RP__TAR_NAME_MAX + 1]; /* current entry, relative to top */
  int kind;                       /* current entry: 0 skip, 1 file, 2 mfst */
  rp__check check;
  char *manifest;
  size_t mlen;
  int have_manifest;
  char problem[600];
  unsigned char io[65536];
} bundle_ctx;

static int stop(bundle_ctx *x, const char *what, const char *name) {
  if (x->problem[0] == '\0')
    cm_snprintf(x->problem, sizeof x->problem, "%s: %s", name, what);
  return STOP;
}

static int on_entry(void *ud, const char *name, char type, uint64_t size) {
  bundle_ctx *x = (bundle_ctx *)ud;
  const char *slash = strchr(name, '/');
  size_t tlen = slash != NULL ? (size_t)(slash - name) : strlen(name);
  x->kind = 0;
  if (tlen == 0 || tlen >= sizeof x->top)
    return stop(x, "entry outside a run folder", name);
  /* "." and ".." name no folder of their own: extracted, such a bundle's
   * files land in or above the folder it is extracted into */
  if ((tlen == 1 && name[0] == '.') ||
      (tlen == 2 && name[0] == '.' && name[1] == '.') ||
      memchr(name, '\\', tlen) != NULL)
    return stop(x,
                "the run folder's name is \".\", \"..\" or has a "
                "backslash (not a bundle repro writes)",
                name);
  if (x->top[0] == '\0') {
    memcpy(x->top, name, tlen);
    x->top[tlen] = '\0';
  } else if (strlen(x->top) != tlen || strncmp(x->top, name, tlen) != 0) {
    return stop(x, "entry outside the bundle's run folder", name);
  }
  /* A folder entry too: repro's bundles hold files only, and one named
   * as a file replaced that file when tar extracted the bundle (the file
   * verified, the folder extracted), one named with ".." went above it. */
  if (type != '0')
    return stop(x,
                type == '5' ? "a folder entry (a bundle holds files only)"
                            : "not a regular file (only files are archived)",
                name);
  if (slash == NULL || slash[1] == '\0')
    return stop(x, "file at the top of the bundle", name);
  cm_strlcpy(x->rel, slash + 1, sizeof x->rel);
  if (strcmp(x->rel, "manifest.json") == 0) {
    if (x->have_manifest)
      return stop(x, "present twice", name);
    if (size > RP__MANIFEST_MAX)
      return stop(x, "too large", name);
    x->manifest = malloc((size_t)size + 1);
    if (x->manifest == NULL)
      return CM_ENOMEM;
    x->mlen = 0;
    x->have_manifest = 1;
    x->kind = 2;
    return CM_OK;
  }
  x->kind = 1;
  x->keeping = 0;
  if (x->keep_prefix[0] != '\0' && cm_starts_with(x->rel, x->keep_prefix) &&
      size <= x->keep_max) {
    kept_file *k;
    /* each file is bounded by keep_max, their sum by four times that
     * (compare's reader: 64 MiB, 256 MiB): a bundle of many large kept
     * files would otherwise be held in memory whole before its verdict
     * (a real run's results are kilobytes) */
    if (size > 4 * x->keep_max - x->kept_bytes) {
      char what[160];
      cm_snprintf(what, sizeof what,
                  "the files kept for the reader exceed %zu bytes together "
                  "(extract the bundle and give the results JSON)",
                  4 * x->keep_max);
      return stop(x, what, name);
    }
    x->kept_bytes += (size_t)size;
    if (cm_grow(&x->kept, &x->kcap, x->nkept, sizeof *x->kept, 8) != CM_OK)
      return CM_ENOMEM;
    k = &x->kept[x->nkept];
    k->len = 0;
    k->rel = malloc(strlen(x->rel) + 1);
    k->data = malloc((size_t)size + 1);
    if (k->rel == NULL || k->data == NULL) {
      free(k->rel);
      free(k->data);
      return CM_ENOMEM;
    }
    memcpy(k->rel, x->rel, strlen(x->rel) + 1);
    x->keeping = 1;
  }
  return rp__check_begin(&x->check, x->rel);
}

static int on_data(void *ud, const unsigned char *data, size_t len) {
  bundle_ctx *x = (bundle_ctx *)ud;
  if (x->kind == 1) {
    if (x->keeping) {
      /* bounded by the header's size, as the manifest's below */
      kept_file *k = &x->kept[x->nkept];
      memcpy(k->data + k->len, data, len);
      k->len += len;
    }
    return rp__check_feed(&x->check, data, len);
  }
  if (x->kind == 2) {
    /* The header's size bounded the allocation; the reader never passes
     * more than that size. */
    memcpy(x->manifest + x->mlen, data, len);
    x->mlen += len;
  }
  return CM_OK;
}

static int on_entry_end(void *ud) {
  bundle_ctx *x = (bundle_ctx *)ud;
  int rc = CM_OK;
  if (x->kind == 1) {
    rc = rp__check_end(&x->check);
    if (rc == CM_OK)
      rc = rp__seen_add(&x->seen, x->rel, &x->check);
    rp__check_free(&x->check);
    if (x->keeping) {
      x->kept[x->nkept].data[x->kept[x->nkept].len] = '\0';
      x->nkept++;
      x->keeping = 0;
    }
  } else if (x->kind == 2) {
    x->manifest[x->mlen] = '\0';
  }
  x->kind = 0;
  return rc;
}

static int tar_sink(void *ud, const unsigned char *data, size_t len) {
  bundle_ctx *x = (bundle_ctx *)ud;
  return rp__tar_reader_feed(&x->tar, data, len);
}

/* The stream's first problem, from whichever layer saw it. */
static const char *stream_problem(bundle_ctx *x) {
  if (x->problem[0] != '\0')
    return x->problem;
  if (x->tar.why[0] != '\0')
    return x->tar.why;
  return x->gz.why[0] != '\0' ? x->gz.why : "unreadable stream";
}

static int cmp_kept(const void *a, const void *b) {
  return strcmp(((const kept_file *)a)->rel, ((const kept_file *)b)->rel);
}

int rp_verify_bundle_files(const char *path, const char *prefix, size_t max,
                           rp_bundle_file_cb cb, void *ud,
                           rp_verify_result *res) {
  static const rp__tar_cbs cbs = {on_entry, on_data, on_entry_end};
  bundle_ctx *x;
  uv_file fd = -1;
  int rc, io_error = 0;
  size_t i;
  if (path == NULL || res == NULL || (cb == NULL && prefix != NULL))
    return CM_EINVAL;
  memset(res, 0, sizeof *res);
  x = calloc(1, sizeof *x);
  if (x == NULL)
    return CM_ENOMEM;
  x->keep_prefix = prefix != NULL ? prefix : "";
  x->keep_max = max;
  rp__tar_reader_init(&x->tar, &cbs, x);
  rc = rp__gunzip_init(&x->gz, tar_sink, x);
  if (rc != CM_OK) {
    free(x);
    return rc;
  }
  rc = rp__fs_open_read(path, &fd);
  if (rc == CM_OK) {
    for (;;) {
      size_t got = 0;
      int r = rp__fs_read(fd, x->io, sizeof x->io, &got);
      if (r != CM_OK) {
        rc = r;
        io_error = 1;
        break;
      }
      if (got == 0)
        break;
      rc = rp__gunzip_feed(&x->gz, x->io, got);
      if (rc != CM_OK)
        break;
    }
    rp__fs_close(fd);
    if (rc == CM_OK)
      rc = rp__gunzip_finish(&x->gz);
    if (rc == CM_OK)
      rc = rp__tar_reader_finish(&x->tar);
  } else {
    io_error = 1;
  }
  if (x->kind == 1)
    rp__check_free(&x->check); /* an entry cut short by a failure */
  if (x->keeping) {            /* likewise */
    free(x->kept[x->nkept].rel);
    free(x->kept[x->nkept].data);
  }
  if (rc == CM_ENOMEM || io_error) {
    rp__verify_fail(res, "%s: cannot be read (%s)", path, cm_strerror(rc));
  } else if (rc != CM_OK) {
    /* A damaged bundle is a verdict, not an error. */
    rp__verify_fail(res, "bundle: %s", stream_problem(x));
    rc = CM_OK;
  } else if (!x->have_manifest) {
    rp__verify_fail(res, "bundle: no %s/manifest.json", x->top);
    rc = CM_ENOENT;
  } else {
    rc = rp__verify_judge(x->manifest, x->mlen, &x->seen, res);
  }
  /* What was kept reaches the caller only from a bundle that verifies. */
  if (rc == CM_OK && res->ok && x->nkept > 0) {
    qsort(x->kept, x->nkept, sizeof *x->kept, cmp_kept);
    for (i = 0; i < x->nkept && rc == CM_OK; i++)
      rc = cb(ud, x->kept[i].rel, x->kept[i].data, x->kept[i].len);
  }
  for (i = 0; i < x->nkept; i++) {
    free(x->kept[i].rel);
    free(x->kept[i].data);
  }
  free(x->kept);
  rp__gunzip_end(&x->gz);
  rp__seen_free(&x->seen);
  free(x->manifest);
  free(x);
  return rc;
}
