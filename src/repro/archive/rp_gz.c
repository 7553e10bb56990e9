/* rp_gz.c: gzip streams over zlib. See rp_gz.h. */
#include "rp_gz.h"

#include "cm_error.h"
#include "cm_str.h"

#include <string.h>

/* zlib's avail_in is a uInt: feed huge buffers in pieces. */
#define RP__GZ_CHUNK ((size_t)1 << 30)

int rp__gzip_init(rp__gzip *z, int level, rp__gz_sink sink, void *ud) {
  int r;
  memset(&z->zs, 0, sizeof z->zs);
  z->sink = sink;
  z->ud = ud;
  z->raw_bytes = 0;
  /* 15 + 16: a 32 KiB window and a gzip (not zlib) wrapper. */
  r = deflateInit2(&z->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  if (r == Z_MEM_ERROR)
    return CM_ENOMEM;
  return r == Z_OK ? CM_OK : CM_EINVAL;
}

/* Runs deflate over whatever is in next_in with the given flush mode until
 * zlib has nothing more to give. */
static int gzip_run(rp__gzip *z, int flush) {
  int r;
  for (;;) {
    size_t have;
    z->zs.next_out = z->buf;
    z->zs.avail_out = (uInt)sizeof z->buf;
    r = deflate(&z->zs, flush);
    if (r == Z_STREAM_ERROR)
      return CM_EINTERNAL;
    have = sizeof z->buf - z->zs.avail_out;
    if (have > 0) {
      int rc = z->sink(z->ud, z->buf, have);
      if (rc != CM_OK)
        return rc;
    }
    if (flush == Z_FINISH) {
      if (r == Z_STREAM_END)
        return CM_OK;
      continue;
    }
    /* A full output buffer means deflate may have more pending. */
    if (z->zs.avail_out != 0 && z->zs.avail_in == 0)
      return CM_OK;
  }
}

int rp__gzip_write(rp__gzip *z, const void *data, size_t len) {
  const unsigned char *p = (const unsigned char *)data;
  while (len > 0) {
    size_t n = len > RP__GZ_CHUNK ? RP__GZ_CHUNK : len;
    int rc;
    z->zs.next_in = (unsigned char *)p;
    z->zs.avail_in = (uInt)n;
    rc = gzip_run(z, Z_NO_FLUSH);
    if (rc != CM_OK)
      return rc;
    z->raw_bytes += n;
    p += n;
    len -= n;
  }
  return CM_OK;
}

int rp__gzip_flush(rp__gzip *z, int mode) {
  z->zs.next_in = NULL;
  z->zs.avail_in = 0;
  return gzip_run(z, mode);
}

void rp__gzip_end(rp__gzip *z) {
  deflateEnd(&z->zs);
}

int rp__gunzip_init(rp__gunzip *g, rp__gz_sink sink, void *ud) {
  int r;
  memset(&g->zs, 0, sizeof g->zs);
  g->sink = sink;
  g->ud = ud;
  g->in_member = 0;
  g->members = 0;
  g->out_bytes = 0;
  g->in_bytes = 0;
  g->why[0] = '\0';
  /* 15 + 16 accepts gzip members only, which is what `gzip -t` accepts: a
   * bare zlib stream in a .gz file is a defect, not a variant. */
  r = inflateInit2(&g->zs, 15 + 16);
  if (r == Z_MEM_ERROR)
    return CM_ENOMEM;
  return r == Z_OK ? CM_OK : CM_EINVAL;
}

static int gunzip_fail(rp__gunzip *g, int rc, const char *what) {
  if (g->why[0] == '\0')
    cm_snprintf(g->why, sizeof g->why,
                "gzip data corrupt at compressed byte %llu (%s)",
                (unsigned long long)(g->in_bytes - g->zs.avail_in), what);
  return rc;
}

int rp__gunzip_feed(rp__gunzip *g, const void *data, size_t len) {
  const unsigned char *p = (const unsigned char *)data;
  while (len > 0) {
    size_t n = len > RP__GZ_CHUNK ? RP__GZ_CHUNK : len;
    g->zs.next_in = (unsigned char *)p;
    g->zs.avail_in = (uInt)n;
    g->in_bytes += n;
    while (g->zs.avail_in > 0) {
      int r;
      size_t have;
      if (!g->in_member) {
        /* The next member of a concatenation: gzip(1) allows them, and a
         * log reopened for append would produce them. */
        if (g->members > 0 && inflateReset(&g->zs) != Z_OK)
          return gunzip_fail(g, CM_EINTERNAL, "inflateReset");
        g->in_member = 1;
      }
      g->zs.next_out = g->buf;
      g->zs.avail_out = (uInt)sizeof g->buf;
      r = inflate(&g->zs, Z_NO_FLUSH);
      if (r == Z_MEM_ERROR)
        return gunzip_fail(g, CM_ENOMEM, "out of memory");
      if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR)
        return gunzip_fail(g, CM_EMISMATCH,
                           g->zs.msg != NULL ? g->zs.msg : "bad data");
      have = sizeof g->buf - g->zs.avail_out;
      g->out_bytes += have;
      if (have > 0 && g->sink != NULL) {
        int rc = g->sink(g->ud, g->buf, have);
        if (rc != CM_OK)
          return rc;
      }
      if (r == Z_STREAM_END) {
        /* inflate has checked the trailer's CRC-32 and ISIZE here. */
        g->in_member = 0;
        g->members++;
      } else if (r == Z_BUF_ERROR && have == 0) {
        return gunzip_fail(g, CM_EINTERNAL, "no progress");
      }
    }
    p += n;
    len -= n;
  }
  return CM_OK;
}

int rp__gunzip_finish(rp__gunzip *g) {
  if (g->in_member) {
    cm_snprintf(g->why, sizeof g->why,
                "gzip stream truncated: ends inside a member after %llu "
                "compressed bytes (no CRC trailer)",
                (unsigned long long)g->in_bytes);
    return CM_ETRUNC;
  }
  if (g->members == 0) {
    cm_strlcpy(g->why, "empty file: no gzip member", sizeof g->why);
    return CM_ETRUNC;
  }
  return CM_OK;
}

void rp__gunzip_end(rp__gunzip *g) {
  inflateEnd(&g->zs);
}
