/* rp_archive.h: the run archive: gzip logs, manifest.json, bundle, verify.
 *
 * A run lives in logs/<run-id>/ (or --out DIR). Every byte a step prints goes
 * through an rp_log into a .log.gz file; every file in the run folder is named
 * in manifest.json with its size and SHA-256. The manifest is written to a
 * temporary name and renamed, so a run that dies leaves no manifest claiming
 * completeness. The bundle <run-dir>.tar.gz is a standard ustar+gzip stream.
 *
 * Ownership: rp_log and rp_run objects are created and freed by this module.
 * All functions return CM_OK or a negative cm_error; none exits the process.
 */
#ifndef RP_ARCHIVE_H
#define RP_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_log rp_log;

/* Opens <run_dir>/<relpath> (relpath like "build/cmake-build.log.gz"; parent
 * folders are created) as a streaming gzip writer. */
int rp_log_open(const char *run_dir, const char *relpath, rp_log **out);
/* Appends len bytes, compressed on the fly. Safe to call with len == 0. */
int rp_log_write(rp_log *log, const void *data, size_t len);
/* Flushes everything written so far as a complete gzip member boundary
 * (Z_SYNC_FLUSH), so a crash after it still leaves readable data. */
int rp_log_flush(rp_log *log);
/* Finishes the gzip stream, closes the file, frees log. Returns the first
 * error seen by any write. Uncompressed bytes written -> *raw_bytes (may be
 * NULL). */
int rp_log_close(rp_log *log, uint64_t *raw_bytes);

/* Writes buf to <run_dir>/<relpath> atomically (temp name + rename). */
int rp_write_file_atomic(const char *run_dir, const char *relpath,
                         const void *buf, size_t len);

/* Builds <run_dir>.tar.gz (temp name + rename) from every file in run_dir,
 * paths inside the tar prefixed by the run folder's base name. */
int rp_bundle_write(const char *run_dir, char *bundle_path, size_t size);

/* The manifest. The engine (rp_stage.c & co.) builds the JSON object with
 * everything but files[]; rp_manifest_finish walks run_dir, hashes every file
 * (SHA-256, bytes) into files[] (sorted by path, manifest.json excluded) and
 * writes manifest.json atomically. `manifest` is a jansson json_t*, borrowed.
 */
struct json_t;
int rp_manifest_finish(const char *run_dir, struct json_t *manifest);

/* Verification result: the first problem found, for the caller to print. */
typedef struct {
  int ok;              /* 1 if everything matched */
  int files_checked;   /* files re-hashed */
  char problem[1024];  /* "logs/x/y.log.gz: sha256 mismatch (manifest ...)" */
} rp_verify_result;

/* Verifies a run folder or a .tar.gz bundle: every file in the manifest exists
 * with its size and SHA-256, every .gz member decompresses, no file is present
 * that the manifest does not name (the manifest itself excepted). Returns
 * CM_OK when the check ran (see res->ok for the verdict), an error otherwise
 * (unreadable path, no manifest). */
int rp_verify(const char *path, rp_verify_result *res);

#endif
