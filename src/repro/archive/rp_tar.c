/* rp_tar.c: ustar header encoding and a streaming reader. See rp_tar.h.
 *
 * Field offsets and widths are those of POSIX.1-1988 ustar (pax(1)'s
 * "ustar Interchange Format"); numbers are octal text with a NUL.
 */
#include "rp_tar.h"

#include "cm_error.h"
#include "cm_str.h"

#include <string.h>

enum {
  OFF_NAME = 0,
  OFF_MODE = 100,
  OFF_UID = 108,
  OFF_GID = 116,
  OFF_SIZE = 124,
  OFF_MTIME = 136,
  OFF_CHKSUM = 148,
  OFF_TYPE = 156,
  OFF_MAGIC = 257,
  OFF_VERSION = 263,
  OFF_PREFIX = 345,
  LEN_NAME = 100,
  LEN_PREFIX = 155
};

enum { ST_HEADER, ST_DATA, ST_PAD, ST_ZERO2, ST_END, ST_FAILED };

/* Writes value as width-1 octal digits and a NUL at hdr+off. */
static int put_octal(unsigned char *hdr, size_t off, size_t width,
                     uint64_t value) {
  char tmp[24];
  int rc = cm_snprintf(tmp, sizeof tmp, "%0*llo", (int)(width - 1),
                       (unsigned long long)value);
  if (rc != CM_OK || strlen(tmp) != width - 1)
    return CM_ERANGE;
  memcpy(hdr + off, tmp, width);
  return CM_OK;
}

static unsigned header_sum(const unsigned char *hdr) {
  unsigned sum = 0;
  size_t i;
  /* The checksum field itself counts as eight spaces. */
  for (i = 0; i < RP__TAR_BLOCK; i++)
    sum += (i >= OFF_CHKSUM && i < OFF_CHKSUM + 8) ? (unsigned)' ' : hdr[i];
  return sum;
}

int rp__tar_header(unsigned char hdr[RP__TAR_BLOCK], const char *name,
                   uint64_t size, int64_t mtime_s) {
  size_t len = name != NULL ? strlen(name) : 0;
  size_t split = 0; /* index of the '/' between prefix and name; 0: none */
  char sum[8];
  int rc;
  if (len == 0)
    return CM_EINVAL;
  if (len > RP__TAR_NAME_MAX || size > RP__TAR_SIZE_MAX || mtime_s < 0 ||
      (uint64_t)mtime_s > RP__TAR_SIZE_MAX)
    return CM_ERANGE;
  if (len > LEN_NAME) {
    /* The first '/' that leaves at most 100 bytes for the name keeps the
     * prefix shortest; it must itself fit in 155. */
    size_t i;
    for (i = 1; i < len && split == 0; i++)
      if (name[i] == '/' && len - i - 1 <= LEN_NAME && len - i - 1 > 0)
        split = i;
    if (split == 0 || split > LEN_PREFIX)
      return CM_ERANGE;
  }
  memset(hdr, 0, RP__TAR_BLOCK);
  if (split == 0) {
    memcpy(hdr + OFF_NAME, name, len);
  } else {
    memcpy(hdr + OFF_PREFIX, name, split);
    memcpy(hdr + OFF_NAME, name + split + 1, len - split - 1);
  }
  rc = put_octal(hdr, OFF_MODE, 8, 0644);
  if (rc == CM_OK)
    rc = put_octal(hdr, OFF_UID, 8, 0);
  if (rc == CM_OK)
    rc = put_octal(hdr, OFF_GID, 8, 0);
  if (rc == CM_OK)
    rc = put_octal(hdr, OFF_SIZE, 12, size);
  if (rc == CM_OK)
    rc = put_octal(hdr, OFF_MTIME, 12, (uint64_t)mtime_s);
  if (rc != CM_OK)
    return rc;
  hdr[OFF_TYPE] = '0';
  memcpy(hdr + OFF_MAGIC, "ustar", 6); /* "ustar" and its NUL */
  memcpy(hdr + OFF_VERSION, "00", 2);
  /* Six octal digits, a NUL and a space, as POSIX and GNU tar write it. */
  rc = cm_snprintf(sum, sizeof sum, "%06o", header_sum(hdr));
  if (rc != CM_OK)
    return rc;
  memcpy(hdr + OFF_CHKSUM, sum, 7);
  hdr[OFF_CHKSUM + 7] = ' ';
  return CM_OK;
}

size_t rp__tar_pad(uint64_t size) {
  return (size_t)((RP__TAR_BLOCK - size % RP__TAR_BLOCK) % RP__TAR_BLOCK);
}

void rp__tar_reader_init(rp__tar_reader *r, const rp__tar_cbs *cbs, void *ud) {
  memset(r, 0, sizeof *r);
  r->cbs = *cbs;
  r->ud = ud;
  r->state = ST_HEADER;
}

static int fail(rp__tar_reader *r, int rc, const char *what) {
  cm_snprintf(r->why, sizeof r->why, "tar stream: %s at offset %llu", what,
              (unsigned long long)r->offset);
  r->state = ST_FAILED;
  return rc;
}

/* Parses an octal field (leading spaces, digits, then NUL or space). */
static int get_octal(const unsigned char *f, size_t width, uint64_t *out) {
  size_t i = 0;
  uint64_t v = 0;
  int digits = 0;
  while (i < width && f[i] == ' ')
    i++;
  for (; i < width && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
    if (v > (UINT64_MAX >> 3))
      return CM_ERANGE;
    v = (v << 3) | (uint64_t)(f[i] - '0');
  }
  if (digits == 0 || (i < width && f[i] != '\0' && f[i] != ' '))
    return CM_EPARSE;
  *out = v;
  return CM_OK;
}

static int is_zero_block(const unsigned char *b) {
  size_t i;
  for (i = 0; i < RP__TAR_BLOCK; i++)
    if (b[i] != 0)
      return 0;
  return 1;
}

/* A full header block is in r->block: check it and start its entry. */
static int take_header(rp__tar_reader *r) {
  const unsigned char *b = r->block;
  char name[RP__TAR_NAME_MAX + 2];
  size_t plen = 0, nlen = 0;
  uint64_t sum, size;
  char type;
  int rc;
  if (is_zero_block(b)) {
    r->state = ST_ZERO2;
    return CM_OK;
  }
  if (get_octal(b + OFF_CHKSUM, 8, &sum) != CM_OK || sum != header_sum(b))
    return fail(r, CM_EPARSE, "header checksum mismatch");
  /* POSIX ustar exactly ("ustar" and its NUL, version "00"), as the writer
   * makes it. GNU tar's own format ("ustar  ") keeps other data where
   * ustar has the name's prefix, so GNU tar would extract such an entry
   * under another name than the one checked here. */
  if (memcmp(b + OFF_MAGIC, "ustar", 6) != 0 ||
      memcmp(b + OFF_VERSION, "00", 2) != 0)
    return fail(r, CM_EPARSE,
                "not a POSIX ustar header (magic \"ustar\" with its NUL, "
                "version \"00\"; repro writes only that format)");
  if (get_octal(b + OFF_SIZE, 12, &size) != CM_OK)
    return fail(r, CM_EPARSE, "bad size field");
  while (plen < LEN_PREFIX && b[OFF_PREFIX + plen] != '\0')
    plen++;
  while (nlen < LEN_NAME && b[OFF_NAME + nlen] != '\0')
    nlen++;
  if (nlen == 0)
    return fail(r, CM_EPARSE, "entry without a name");
  if (plen > 0) {
    memcpy(name, b + OFF_PREFIX, plen);
    name[plen++] = '/';
  }
  memcpy(name + plen, b + OFF_NAME, nlen);
  name[plen + nlen] = '\0';
  type = b[OFF_TYPE] == '\0' ? '0' : (char)b[OFF_TYPE];
  /* Links and folders carry no data whatever their size field says. */
  if (type == '1' || type == '2' || type == '5')
    size = 0;
  rc = r->cbs.entry(r->ud, name, type, size);
  if (rc != CM_OK) {
    r->state = ST_FAILED;
    return rc;
  }
  r->remaining = size;
  r->pad = rp__tar_pad(size);
  r->state = ST_DATA;
  if (size == 0) {
    r->state = ST_HEADER;
    rc = r->cbs.entry_end(r->ud);
    if (rc != CM_OK)
      r->state = ST_FAILED;
  }
  return rc;
}

int rp__tar_reader_feed(rp__tar_reader *r, const unsigned char *data,
                        size_t len) {
  while (len > 0) {
    size_t n;
    int rc = CM_OK;
    switch (r->state) {
    case ST_HEADER:
    case ST_ZERO2:
      n = RP__TAR_BLOCK - r->fill;
      if (n > len)
        n = len;
      memcpy(r->block + r->fill, data, n);
      r->fill += n;
      if (r->fill == RP__TAR_BLOCK) {
        r->fill = 0;
        if (r->state == ST_ZERO2) {
          if (!is_zero_block(r->block))
            return fail(r, CM_EPARSE, "lone zero block before an entry");
          r->state = ST_END;
        } else {
          rc = take_header(r);
        }
      }
      break;
    case ST_DATA:
      n = r->remaining < len ? (size_t)r->remaining : len;
      rc = r->cbs.data(r->ud, data, n);
      r->remaining -= n;
      if (rc == CM_OK && r->remaining == 0) {
        r->state = r->pad > 0 ? ST_PAD : ST_HEADER;
        rc = r->cbs.entry_end(r->ud);
      }
      if (rc != CM_OK)
        r->state = ST_FAILED;
      break;
    case ST_PAD:
      n = r->pad < len ? (size_t)r->pad : len;
      r->pad -= n;
      if (r->pad == 0)
        r->state = ST_HEADER;
      break;
    case ST_END:
      /* After the end marker only the zeros of record padding may come. */
      for (n = 0; n < len; n++)
        if (data[n] != 0)
          return fail(r, CM_EPARSE, "data after the end-of-archive marker");
      break;
    default:
      return CM_EINVAL;
    }
    if (rc != CM_OK)
      return rc;
    r->offset += n;
    data += n;
    len -= n;
  }
  return CM_OK;
}

int rp__tar_reader_finish(rp__tar_reader *r) {
  if (r->state == ST_END)
    return CM_OK;
  if (r->state != ST_FAILED)
    fail(r, CM_ETRUNC, "ends before the end-of-archive marker");
  return CM_ETRUNC;
}
