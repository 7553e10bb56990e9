/* rp_archive.h: the run archive: gzip logs, manifest.json, bundle, verify,
 * and the filing of results JSON into clean and instrumented folders.
 *
 * A run lives in logs/<run-id>/ (or --out DIR). Every byte a step prints goes
 * through an rp_log into a .log.gz file; every file in the run folder is named
 * in manifest.json with its size and SHA-256. The manifest is written to a
 * temporary name and renamed, so a run that dies leaves no manifest claiming
 * completeness. The bundle <run-dir>.tar.gz is a standard ustar+gzip stream.
 * docs/AUDIT.md says how an auditor checks all of it.
 *
 * Paths: run_dir is a folder path as the OS takes it; relpath and every path
 * inside the manifest or a bundle is relative to the run folder with '/'
 * separators. All file access goes through libuv's synchronous fs calls, so
 * the same code runs on Windows.
 *
 * Ownership: rp_log objects are created and freed by this module.
 * All functions return CM_OK or a negative cm_error; none exits the process.
 * None is thread-safe on the same object; distinct objects are independent.
 */
#ifndef RP_ARCHIVE_H
#define RP_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* The manifest format's version, written as "schema_version". */
#define RP_MANIFEST_SCHEMA_VERSION 1

typedef struct rp_log rp_log;

/* Opens <run_dir>/<relpath> (relpath like "build/cmake-build.log.gz"; parent
 * folders are created; an existing file is truncated) as a streaming gzip
 * writer (one gzip member). */
int rp_log_open(const char *run_dir, const char *relpath, rp_log **out);
/* Appends len bytes, compressed on the fly. Safe to call with len == 0.
 * After an error every later call returns that same error. */
int rp_log_write(rp_log *log, const void *data, size_t len);
/* Pushes everything written so far to the file, byte-aligned (deflate's
 * Z_SYNC_FLUSH), so that if the run dies after it, `zcat` recovers all of
 * it. The member stays open (no CRC trailer yet): verify reports such a log
 * as truncated, which is what it is. */
int rp_log_flush(rp_log *log);
/* Finishes the gzip member (CRC-32 and length trailer), fsyncs, closes the
 * file and frees log, even on error. Returns the first error seen by any
 * call on log. Uncompressed bytes written -> *raw_bytes (may be NULL). */
int rp_log_close(rp_log *log, uint64_t *raw_bytes);

/* Reads the log <run_dir>/<relpath> whole, decompressed, into a malloc'd
 * buffer with a NUL after the last byte (*out; the caller frees it), its
 * length into *len. A log whose member was never finished (the run died;
 * rp_log_flush) or whose end is damaged gives what decompressed before the
 * end or the damage. Returns CM_OK, or cm_read_file's error, CM_ENOMEM, or
 * CM_EMISMATCH when nothing decompressed at all from a file that is not
 * empty (not gzip). */
int rp_log_read(const char *run_dir, const char *relpath, char **out,
                size_t *len);

/* Reads the gzip file at path (every member: CRC and length checked),
 * decompressed, into a malloc'd buffer with a NUL after the last byte (*out,
 * *len; the caller frees it), at most max bytes of it: past them CM_ERANGE,
 * with the first max bytes in *out (a caller's look at how a file begins).
 * Unlike rp_log_read, a damaged or unfinished end is an error (CM_EMISMATCH,
 * CM_ETRUNC): what is read is a document, not a log. Otherwise returns
 * CM_OK, cm_read_file's error or CM_ENOMEM, with nothing in *out. */
int rp_gz_read(const char *path, size_t max, char **out, size_t *len);

/* Writes buf to <run_dir>/<relpath> atomically: parent folders created,
 * then a temporary name beside it, fsync, and a rename over the target. */
int rp_write_file_atomic(const char *run_dir, const char *relpath,
                         const void *buf, size_t len);

/* Moves <run_dir>/<from_rel> to <run_dir>/<to_rel>, to_rel's parent
 * folders created: a file set aside inside the run, still archived. */
int rp_move_in_run(const char *run_dir, const char *from_rel,
                   const char *to_rel);

/* Builds <run_dir>.tar.gz (trailing separators of run_dir ignored) from
 * every file in run_dir, paths inside the tar prefixed by the run folder's
 * base name: "<run-id>/manifest.json" first, then the other files sorted.
 * Written through gzip to a temporary name and renamed when complete.
 * Entries are ustar regular files, mode 0644, uid/gid 0, mtime from the
 * file (0 for one dated before 1970). The bundle's path goes to
 * bundle_path[size]. Errors: CM_ENOENT (no manifest.json in run_dir:
 * finish the manifest first), CM_ERANGE (a path ustar cannot hold: its
 * last part over 100 bytes, or no '/' that leaves at most 100 bytes after
 * it and 155 before it; or a file of 8 GiB or more), CM_EMISMATCH (a file
 * changed size or stopped being a regular file while being read), I/O
 * errors; rp_archive_failed_path names the file when the error is about
 * one. */
int rp_bundle_write(const char *run_dir, char *bundle_path, size_t size);

/* The manifest. The engine (rp_stage.c & co.) builds the JSON object with
 * everything but files[]: schema_version, run_id, started/ended times,
 * status, host, os, git {commit, dirty}, tools, stages[] (docs/AUDIT.md
 * lists them). rp_manifest_finish then walks run_dir, hashes every file into
 * files[] as {"path", "bytes", "sha256"} (sorted by path, manifest.json
 * itself excluded), sets "schema_version" to RP_MANIFEST_SCHEMA_VERSION if
 * absent, and writes <run_dir>/manifest.json atomically (2-space indent,
 * keys in insertion order). `manifest` is a jansson json_t*, borrowed; its
 * "files" member is replaced. Errors: CM_EINVAL if manifest is not an object,
 * has no string "run_id", or its "status" is not one of "complete",
 * "interrupted", "failed" (a manifest must never claim a state that is not
 * final); I/O errors, the file they were at named by
 * rp_archive_failed_path. Symbolic links and special files (FIFO, socket,
 * device) in run_dir are never followed, hashed or bundled: they are
 * listed in "skipped" as {"path", "reason"} ("symbolic link to TARGET",
 * "FIFO"), a member absent when there are none.
 * Call it last: any file written into run_dir afterwards is "extra". */
struct json_t;
int rp_manifest_finish(const char *run_dir, struct json_t *manifest);

/* The path (inside the run where it can) that the last failing
 * rp_manifest_finish or rp_bundle_write stopped at, "" when the failure
 * was not about one file. */
const char *rp_archive_failed_path(void);

/* Verification result: the first problem found, for the caller to print. */
typedef struct {
  int ok;             /* 1 if everything matched */
  int files_checked;  /* files re-hashed */
  char problem[1024]; /* "build/x.log.gz: sha256 mismatch (manifest ...)" */
  char status[32];    /* the manifest's "status" ("" if absent) */
  char run_id[128];   /* the manifest's "run_id" ("" if absent) */
} rp_verify_result;

/* Verifies a run folder or a .tar.gz bundle (any path that is a regular
 * file is read as a bundle). Checks, naming the first problem in path order:
 * manifest.json parses and has schema_version and files[]; every file the
 * manifest names exists with its size and SHA-256; no file is present that
 * the manifest does not name (the manifest itself excepted); every *.gz file
 * decompresses completely with good CRCs; every results/clean/<name>.json says
 * "instrumented": false and every results/instrumented/<name>.json says true.
 * For a bundle also: the gzip stream and the ustar structure are intact and
 * every entry sits under one top folder. Returns CM_OK when the check ran
 * (see res->ok for the verdict; a corrupt bundle is a verdict, not an error),
 * an error otherwise: CM_ENOENT (no such path, or no manifest.json),
 * I/O errors. The manifest's status is reported, not judged: an
 * "interrupted" run whose files all match verifies ok. */
int rp_verify(const char *path, rp_verify_result *res);

/* Receives one file of a verified bundle: its path inside the run ('/'
 * separators) and its whole content (data[len] is a NUL, for parsers).
 * Returns CM_OK or an error, which stops the calls. */
typedef int (*rp_bundle_file_cb)(void *ud, const char *relpath,
                                 const char *data, size_t len);

/* Verifies the bundle at path as rp_verify does and, in the same pass over
 * it, keeps every file whose path inside the run starts with prefix and
 * has at most max bytes (larger ones are verified, not kept); kept files
 * over 4 x max together are a failed verdict naming the file that
 * crossed it (memory stays bounded whatever the bundle holds). Only when
 * the bundle verifies (res->ok) is each kept file handed to cb, in path
 * order, so the caller reads exactly the bytes that were verified. prefix
 * NULL keeps nothing (plain verification). Returns as rp_verify, or cb's
 * first error. */
int rp_verify_bundle_files(const char *path, const char *prefix, size_t max,
                           rp_bundle_file_cb cb, void *ud,
                           rp_verify_result *res);

/* Reads the top-level "instrumented" member of a results JSON document held
 * in buf[len]. *instrumented receives 1 (true) or 0 (false). Returns CM_OK,
 * or CM_EPARSE if buf is not a JSON object or has no boolean
 * "instrumented": a result that does not say what it is cannot be filed. */
int rp_results_read_flag(const char *buf, size_t len, int *instrumented);

/* Checks that the results JSON at json_path may sit among clean results.
 * Returns CM_OK for "instrumented": false, CM_EREFUSED for true, CM_EPARSE
 * if the flag is missing or not a boolean, I/O errors otherwise. */
int rp_results_check_clean(const char *json_path);

/* Files the results JSON at src_json into the run: its own "instrumented"
 * member decides <run_dir>/results/instrumented/<name> (true) or
 * <run_dir>/results/clean/<name> (false). The bytes are copied unchanged
 * (atomically: temporary name, then rename) and src_json is left in place.
 * The destination path goes to dst[dst_size] (dst may be NULL). Errors:
 * CM_EINVAL (name empty, ".", "..", or containing '/' or '\\'), CM_EPARSE
 * (no boolean "instrumented"), CM_EEXIST (the destination exists: results
 * are never silently replaced), CM_ERANGE (dst too small), I/O errors. */
int rp_results_file(const char *run_dir, const char *src_json, const char *name,
                    char *dst, size_t dst_size);

#endif
