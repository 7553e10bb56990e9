/* rp_gz.h: streaming gzip compression and checked decompression over zlib.
 *
 * Internal to src/repro/archive. Both directions are push-style: the caller
 * feeds bytes and a sink callback receives what comes out, so the same code
 * serves log files, the bundle writer, the bundle reader and the check of a
 * .gz file nested inside a bundle. The structs are caller-owned (they may be
 * large; allocate them on the heap) and must be released with the matching
 * _end call once _init has succeeded.
 */
#ifndef RP_GZ_H
#define RP_GZ_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#define RP__GZ_BUF 65536

/* Receives len output bytes; returns CM_OK or a cm_error, which stops the
 * stream and is returned by the call that produced the bytes. */
typedef int (*rp__gz_sink)(void *ud, const unsigned char *data, size_t len);

/* ---- Compression: one gzip member (deflate, windowBits 15+16). ---- */
typedef struct {
  z_stream zs;
  rp__gz_sink sink;
  void *ud;
  uint64_t raw_bytes; /* uncompressed bytes accepted so far */
  unsigned char buf[RP__GZ_BUF];
} rp__gzip;

/* level: zlib level 0..9 (Z_DEFAULT_COMPRESSION for the default). */
int rp__gzip_init(rp__gzip *z, int level, rp__gz_sink sink, void *ud);
/* Compresses len bytes; output reaches the sink as the buffer fills. */
int rp__gzip_write(rp__gzip *z, const void *data, size_t len);
/* Z_SYNC_FLUSH: everything so far reaches the sink, byte-aligned, so a
 * reader can decompress it even if the member is never finished.
 * Z_FINISH: writes the CRC-32 and length trailer; no write may follow. */
int rp__gzip_flush(rp__gzip *z, int mode);
void rp__gzip_end(rp__gzip *z);

/* ---- Checked decompression: any number of concatenated gzip members. ---- */
typedef struct {
  z_stream zs;
  rp__gz_sink sink; /* may be NULL: output is only counted */
  void *ud;
  int in_member;      /* a member has started and not yet ended */
  uint64_t members;   /* complete members seen (CRC and length checked) */
  uint64_t out_bytes; /* decompressed bytes */
  uint64_t in_bytes;  /* compressed bytes fed */
  char why[160];      /* what went wrong, for the first error */
  unsigned char buf[RP__GZ_BUF];
} rp__gunzip;

int rp__gunzip_init(rp__gunzip *g, rp__gz_sink sink, void *ud);
/* Feeds compressed bytes. Returns CM_OK, CM_EMISMATCH (corrupt data or a
 * CRC/length mismatch; g->why says which), CM_ENOMEM, or the sink's error.
 * After an error the object may only be ended. */
int rp__gunzip_feed(rp__gunzip *g, const void *data, size_t len);
/* Declares the end of input: CM_OK only if at least one member was seen and
 * the input ended exactly on a member boundary; CM_ETRUNC otherwise. */
int rp__gunzip_finish(rp__gunzip *g);
void rp__gunzip_end(rp__gunzip *g);

#endif
