/* rp_tar.h: POSIX ustar headers and a push-style ustar reader.
 *
 * Internal to src/repro/archive. The writer side only encodes headers; the
 * bundle code (rp_bundle.c) streams them and the file contents through gzip.
 * The reader is fed the decompressed tar stream in pieces of any size and
 * calls back per entry, so a bundle is checked without a temporary tar.
 */
#ifndef RP_TAR_H
#define RP_TAR_H

#include <stddef.h>
#include <stdint.h>

#define RP__TAR_BLOCK 512
/* Tar's historic record: 20 blocks; archives are padded to a whole record. */
#define RP__TAR_RECORD (20 * RP__TAR_BLOCK)
/* ustar: prefix (155) + '/' + name (100). */
#define RP__TAR_NAME_MAX 255
/* 11 octal digits in the size field. */
#define RP__TAR_SIZE_MAX ((uint64_t)077777777777)

/* Encodes a ustar header for a regular file, mode 0644, uid/gid 0, into
 * hdr[512]. name uses '/' separators; paths over 100 bytes are split at a
 * '/' into prefix and name. Returns CM_OK, CM_ERANGE (the path cannot be
 * split to fit 255 bytes, or size > RP__TAR_SIZE_MAX, or mtime_s outside
 * 0..8^11-1) or CM_EINVAL (empty name). */
int rp__tar_header(unsigned char hdr[RP__TAR_BLOCK], const char *name,
                   uint64_t size, int64_t mtime_s);

/* Zero bytes that follow size bytes of data to fill the last block. */
size_t rp__tar_pad(uint64_t size);

/* Reader callbacks. Each returns CM_OK or an error that stops the reader. */
typedef struct {
  /* An entry starts. type is the ustar typeflag ('0' file, '5' folder...);
   * name is prefix/name, valid during the call only. */
  int (*entry)(void *ud, const char *name, char type, uint64_t size);
  /* Data of the current entry, in order; the pieces add up to size. */
  int (*data)(void *ud, const unsigned char *data, size_t len);
  /* The current entry's data is complete. */
  int (*entry_end)(void *ud);
} rp__tar_cbs;

typedef struct {
  rp__tar_cbs cbs;
  void *ud;
  int state;
  unsigned char block[RP__TAR_BLOCK];
  size_t fill;        /* bytes collected in block */
  uint64_t remaining; /* data bytes left in the current entry */
  uint64_t pad;       /* padding bytes left after it */
  uint64_t offset;    /* bytes of tar stream consumed */
  char why[160];      /* what was wrong with the stream, if anything */
} rp__tar_reader;

void rp__tar_reader_init(rp__tar_reader *r, const rp__tar_cbs *cbs, void *ud);
/* Feeds tar bytes. Returns CM_OK, a callback's error, or CM_EPARSE for a
 * malformed stream (bad header checksum, bad number, data after the end
 * marker that is not zero); r->why says which. */
int rp__tar_reader_feed(rp__tar_reader *r, const unsigned char *data,
                        size_t len);
/* Declares the end of the stream: CM_OK only if the end-of-archive marker
 * (two zero blocks) was seen, CM_ETRUNC otherwise. */
int rp__tar_reader_finish(rp__tar_reader *r);

#endif
