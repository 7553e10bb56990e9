/* archive_fixture.c: see archive_fixture.h. */
#include "archive_fixture.h"

#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "rp_archive.h"
#include "rp_test_util.h"

#include <jansson.h>
#include <stdlib.h>
#include <uv.h>

int fx_fresh_dir(const char *name, char *out, size_t size) {
  uv_fs_t req;
  int r;
  if (cm_snprintf(out, size, "%s/%s", cm_test_tmpdir(), name) != 0)
    return -1;
  (void)rt_remove_tree(out);
  r = uv_fs_mkdir(NULL, &req, out, 0755, NULL);
  uv_fs_req_cleanup(&req);
  return r < 0 ? -1 : 0;
}

int fx_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (f == NULL)
    return -1;
  ok = fwrite(data, 1, len, f) == len;
  ok = fclose(f) == 0 && ok;
  return ok ? 0 : -1;
}

char *fx_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (f == NULL)
    return NULL;
  for (;;) {
    size_t got;
    if (cap - n < 4096) {
      char *p = realloc(buf, cap + 65536 + 1);
      if (p == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = p;
      cap += 65536;
    }
    got = fread(buf + n, 1, cap - n, f);
    if (got == 0)
      break;
    n += got;
  }
  fclose(f);
  buf[n] = '\0';
  if (len != NULL)
    *len = n;
  return buf;
}

int fx_flip_byte(const char *path, long offset) {
  size_t len;
  char *buf = fx_read(path, &len);
  int rc;
  if (buf == NULL || offset < 0 || (size_t)offset >= len) {
    free(buf);
    return -1;
  }
  buf[offset] = (char)(buf[offset] ^ 0xff);
  rc = fx_write(path, buf, len);
  free(buf);
  return rc;
}

int fx_truncate(const char *path, size_t len) {
  size_t have;
  char *buf = fx_read(path, &have);
  int rc;
  if (buf == NULL || len > have) {
    free(buf);
    return -1;
  }
  rc = fx_write(path, buf, len);
  free(buf);
  return rc;
}

/* Says which fixture step failed and how; returns -1. */
static int fx_say(const char *step, int rc) {
  fprintf(stderr, "fixture: %s failed: %d (%s)\n", step, rc, cm_err_name(rc));
  return -1;
}

static int write_log(const char *dir, const char *rel, int lines) {
  rp_log *log;
  char line[512];
  int i, rc = rp_log_open(dir, rel, &log);
  if (rc != 0)
    return fx_say(rel, rc);
  for (i = 0; i < lines; i++) {
    if (cm_snprintf(line, sizeof line, "%s line %d: value %d\n", rel, i,
                    i * 7919 % 1000) != 0 ||
        rp_log_write(log, line, strlen(line)) != 0) {
      rp_log_close(log, NULL);
      return -1;
    }
    if (i % 500 == 0 && rp_log_flush(log) != 0) {
      rp_log_close(log, NULL);
      return -1;
    }
  }
  rc = rp_log_close(log, NULL);
  return rc == 0 ? 0 : fx_say("rp_log_close", rc);
}

int fx_make_run(const char *dir) {
  static const char long_rel[] =
      "inspect/a-folder-name-long-enough-to-need-the-ustar-prefix-field/"
      "another-deliberately-long-folder-name/sass.log.gz";
  static const char clean[] = "{\"instrumented\": false, \"cases\": []}\n";
  char path[4096];
  json_t *m;
  int rc;
  if (write_log(dir, "build/cmake-build.log.gz", 3000) != 0 ||
      write_log(dir, long_rel, 40) != 0)
    return fx_say("write_log", -1);
  rc = rp_write_file_atomic(dir, "notes.txt", "hello\n", 6);
  if (rc != 0)
    return fx_say("rp_write_file_atomic", rc);
  /* The source sits beside the run folder: filing copies, never moves. */
  if (cm_snprintf(path, sizeof path, "%s.clean-src.json", dir) != 0 ||
      fx_write(path, clean, sizeof clean - 1) != 0)
    return fx_say("fx_write", -1);
  rc = rp_results_file(dir, path, "time.json", NULL, 0);
  if (rc != 0)
    return fx_say("rp_results_file", rc);
  m = json_pack("{s:s, s:s, s:s, s:s}", "run_id", "fixture-run", "started",
                "2026-01-01T00:00:00Z", "ended", "2026-01-01T00:01:00Z",
                "status", "complete");
  if (m == NULL)
    return fx_say("json_pack", -1);
  rc = rp_manifest_finish(dir, m);
  json_decref(m);
  return rc == 0 ? 0 : fx_say("rp_manifest_finish", rc);
}

typedef struct {
  int64_t status;
  int done;
} spawn_state;

static void on_exit_cb(uv_process_t *p, int64_t status, int sig) {
  spawn_state *s = (spawn_state *)p->data;
  s->status = sig != 0 ? 128 + sig : status;
  s->done = 1;
  uv_close((uv_handle_t *)p, NULL);
}

int fx_spawn(const char *const *argv, const char *cwd, const char *out_path) {
  uv_loop_t loop;
  uv_process_t proc;
  uv_process_options_t opt;
  uv_stdio_container_t stdio[3];
  spawn_state st = {-1, 0};
  uv_fs_t req;
  int out_fd = -1, r;
  if (uv_loop_init(&loop) != 0)
    return -1;
  if (out_path != NULL) {
    out_fd =
        uv_fs_open(NULL, &req, out_path,
                   UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_TRUNC, 0644, NULL);
    uv_fs_req_cleanup(&req);
    if (out_fd < 0) {
      uv_loop_close(&loop);
      return -1;
    }
  }
  memset(&opt, 0, sizeof opt);
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_INHERIT_FD;
  stdio[1].data.fd = out_fd >= 0 ? out_fd : 1;
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = 2;
  opt.file = argv[0];
  opt.args = (char **)argv;
  opt.cwd = cwd;
  opt.exit_cb = on_exit_cb;
  opt.stdio = stdio;
  opt.stdio_count = 3;
  proc.data = &st;
  r = uv_spawn(&loop, &proc, &opt);
  if (r != 0) {
    uv_close((uv_handle_t *)&proc, NULL);
    st.status = -1;
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  if (out_fd >= 0) {
    uv_fs_close(NULL, &req, out_fd, NULL);
    uv_fs_req_cleanup(&req);
  }
  return (int)st.status;
}
