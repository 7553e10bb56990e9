/* Stage `inspect`: PTX, SASS and per-kernel resources (issue 6). Needs no
 * GPU: every kernels/<name>.cu of the build's compile_commands.json is compiled
 * again with its own flags, once to PTX and once to a cubin for the build's
 * real architecture with ptxas -v (the resource report), then cuobjdump
 * gives SASS and its resource table where it is installed. Where it is
 * not, that part alone is skipped and the stage ends limited. The table is
 * written as inspect/resources.txt and .json; a kernel that spills is
 * flagged (a warning, not a failure).
 *
 * The compiler is the nvcc the preflight checked (path and version), never
 * the one the compile command names: the preflight refuses the stage when
 * the two are not the same file (a PATH nvcc beside the preset's toolkit),
 * since the tables would then describe another compiler's code than the
 * one checked, or than the one the build used.
 */
#include "archive/rp_archive.h"
#include "cm_file.h"
#include "cm_error.h"
#include "cm_path.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_resource_parse.h"
#include "rp_stage.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define RP__INSP_MAX_ARGS 128

/* The nvcc the preflight checked (preflight hook -> steps; one stage at a
 * time). */
static rp_tool_info rp__nvcc;

int rp_inspect_split(char *buf, char **words, int max, int windows_rules) {
  int n = 0;
  char *p = buf, *o;
  while (*p) {
    int q = 0;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p)
      break;
    if (n == max)
      return -1;
    words[n++] = o = p;
    while (*p && (q || (*p != ' ' && *p != '\t'))) {
      if (*p == '\\' && windows_rules) {
        /* A run of backslashes is literal unless a double quote ends it:
         * then each pair is one backslash and an odd one out makes the
         * quote literal. */
        size_t k = 0, i;
        while (p[k] == '\\')
          k++;
        if (p[k] != '"') {
          for (i = 0; i < k; i++)
            *o++ = '\\';
          p += k;
          continue;
        }
        for (i = 0; i < k / 2; i++)
          *o++ = '\\';
        p += k;
        if (k % 2) {
          *o++ = '"';
          p++;
        }
        continue;
      }
      if (*p == '"')
        q = !q;
      else if (*p == '\\' && p[1])
        *o++ = *++p;
      else
        *o++ = *p;
      p++;
    }
    if (*p)
      p++;
    *o = '\0';
  }
  return n;
}

static const char *rp__base(const char *path) {
  const char *s = strrchr(path, '/');
  const char *b = strrchr(path, '\\');
  if (b != NULL && (s == NULL || b > s))
    s = b;
  return s ? s + 1 : path;
}

/* 1 when a compile_commands.json entry's file is a kernels/<name>.cu. */
static int rp__is_kernel(const char *file) {
  size_t fl = strlen(file);
  return fl >= 4 && strcmp(file + fl - 3, ".cu") == 0 &&
         (strstr(file, "/kernels/") != NULL ||
          strstr(file, "\\kernels\\") != NULL);
}

/* The index of the compiler among a compile command's n words: the first
 * whose file name is nvcc (a launcher such as ccache may come before it),
 * else the first word. */
static int rp__compiler_word(char *const *words, int n) {
  int i;
  for (i = 0; i < n; i++) {
    const char *b = rp__base(words[i]);
    size_t j;
    /* nvcc, or nvcc.exe in any case (Windows) */
    for (j = 0; b[j] != '\0' && j < 8; j++)
      if (tolower((unsigned char)b[j]) != "nvcc.exe"[j])
        break;
    if ((j == 4 && b[4] == '\0') || (j == 8 && b[8] == '\0'))
      return i;
  }
  return 0;
}

/* Splits a copy of cmd into words; *buf receives the copy, which the caller
 * frees (NULL on failure). Returns the word count, <= 0 on failure. */
static int rp__split_copy(const char *cmd, char **buf, char **words) {
  size_t len = strlen(cmd) + 1;
  *buf = malloc(len);
  if (*buf == NULL)
    return -1;
  memcpy(*buf, cmd, len);
#ifdef _WIN32
  return rp_inspect_split(*buf, words, RP__INSP_MAX_ARGS, 1);
#else
  return rp_inspect_split(*buf, words, RP__INSP_MAX_ARGS, 0);
#endif
}

/* One kernels/<name>.cu: PTX and cubin (+ ptxas -v into t), compiled by
 * nvcc with the flags of its compile command. Returns 0 when the file was
 * handled, -1 when the stage must stop. */
static int rp__inspect_file(rp_ctx *ctx, rp_stage_run *st, const char *nvcc,
                            const char *cmd, const char *file,
                            const char *cuobjdump, rp_res_table *t,
                            json_t *files) {
  char *buf = NULL, *words[RP__INSP_MAX_ARGS];
  const char *argv[RP__INSP_MAX_ARGS + 8];
  char arch[32] = "", archflag[48], out[1800], step[160], rel[400];
  char dir[1400];
  const char *base = rp__base(file);
  int n, i, k = 0, skip = 0;
  size_t len;
  rp_step_result res;
  json_t *rec = json_object();

  json_object_set_new(rec, "source", cm_json_text(file));
  json_array_append_new(files, rec);
  n = rp__split_copy(cmd, &buf, words);
  if (buf == NULL)
    return -1;
  if (n <= 0) {
    rp_stage_set(st, RP_ST_FAILED, "%s: cannot split its compile command",
                 base);
    free(buf);
    return -1;
  }
  /* The checked nvcc in the compiler's place (a launcher before it goes);
   * keep the flags; drop the multi-target code generation (a cubin takes
   * one target) and the object output, remembering the first real arch. */
  argv[k++] = nvcc;
  for (i = rp__compiler_word(words, n) + 1; i < n; i++) {
    const char *w = words[i];
    const char *sm;
    if (skip) {
      skip = 0;
      continue;
    }
    if (cm_starts_with(w, "--generate-code") || cm_starts_with(w, "-gencode")) {
      if (strcmp(w, "-gencode") == 0 || strcmp(w, "--generate-code") == 0)
        skip = 1, w = i + 1 < n ? words[i + 1] : "";
      sm = strstr(w, "code=[sm_");
      if (sm == NULL)
        sm = strstr(w, "code=sm_");
      if (sm != NULL && arch[0] == '\0') {
        const char *a = strstr(sm, "sm_");
        size_t m = 0;
        while (a[m] && a[m] != ']' && a[m] != ',' && m + 1 < sizeof arch)
          m++;
        memcpy(arch, a, m);
        arch[m] = '\0';
      }
      continue;
    }
    if (strcmp(w, "-c") == 0)
      continue;
    if (strcmp(w, "-o") == 0) {
      skip = 1;
      continue;
    }
    argv[k++] = w;
  }
  if (arch[0] == '\0')
    cm_strlcpy(arch, "sm_90", sizeof arch);
  cm_snprintf(archflag, sizeof archflag, "-arch=%s", arch);
  json_object_set_new(rec, "arch", cm_json_text(arch));

  /* PTX */
  cm_snprintf(dir, sizeof dir, "%s/inspect/ptx", ctx->run_dir);
  plat_mkdir_p(dir);
  cm_snprintf(out, sizeof out, "%s/%s.ptx", dir, base);
  argv[k] = archflag;
  argv[k + 1] = "-ptx";
  argv[k + 2] = "-o";
  argv[k + 3] = out;
  argv[k + 4] = NULL;
  cm_snprintf(step, sizeof step, "ptx-%s", base);
  if (rp_stage_step(ctx, st, step, argv, NULL, 0, &res) != CM_OK) {
    free(buf);
    return -1;
  }
  if (!rp_step_ok(&res))
    rp_stage_set(st, RP_ST_FAILED, "%s: nvcc -ptx exited %lld", base,
                 (long long)res.exit_code);
  cm_snprintf(rel, sizeof rel, "inspect/ptx/%s.ptx", base);
  json_object_set_new(rec, "ptx", cm_json_text(rel));
  rp_step_result_free(&res);

  /* cubin with ptxas -v */
  cm_snprintf(dir, sizeof dir, "%s/inspect/cubin", ctx->run_dir);
  plat_mkdir_p(dir);
  cm_snprintf(out, sizeof out, "%s/%s.cubin", dir, base);
  argv[k + 1] = "-cubin";
  argv[k + 2] = "-Xptxas";
  argv[k + 3] = "-v";
  argv[k + 4] = "-o";
  argv[k + 5] = out;
  argv[k + 6] = NULL;
  cm_snprintf(step, sizeof step, "cubin-%s", base);
  if (rp_stage_step(ctx, st, step, argv, NULL, 1, &res) != CM_OK) {
    free(buf);
    return -1;
  }
  if (!rp_step_ok(&res)) {
    rp_stage_set(st, RP_ST_FAILED, "%s: nvcc -cubin exited %lld", base,
                 (long long)res.exit_code);
  } else {
    char *text = rp_run_read_log(ctx, res.err_log, &len);
    if (text != NULL) {
      rp_res_parse_ptxas(text, len, t);
      free(text);
    }
    {
      char *owned;
      size_t olen;
      const char *o = rp_step_stdout(ctx, &res, &olen, &owned);
      if (o != NULL)
        rp_res_parse_ptxas(o, olen, t);
      free(owned);
    }
  }
  rp_step_result_free(&res);

  /* SASS and cuobjdump's own resource table */
  if (cuobjdump != NULL && st->status == RP_ST_PASSED) {
    const char *sargv[5];
    sargv[0] = cuobjdump;
    sargv[1] = "-sass";
    sargv[2] = out;
    sargv[3] = NULL;
    cm_snprintf(step, sizeof step, "sass-%s", base);
    if (rp_stage_step(ctx, st, step, sargv, NULL, 1, &res) == CM_OK) {
      char *owned;
      size_t olen;
      const char *o = rp_step_stdout(ctx, &res, &olen, &owned);
      cm_snprintf(rel, sizeof rel, "inspect/sass/%s.sass", base);
      if (rp_step_ok(&res) && o != NULL &&
          rp_write_file_atomic(ctx->run_dir, rel, o, olen) == CM_OK)
        json_object_set_new(rec, "sass", cm_json_text(rel));
      else
        rp_stage_set(st, RP_ST_FAILED, "%s: cuobjdump -sass failed", base);
      free(owned);
      rp_step_result_free(&res);
    }
    sargv[1] = "--dump-resource-usage";
    cm_snprintf(step, sizeof step, "resources-%s", base);
    if (rp_stage_step(ctx, st, step, sargv, NULL, 1, &res) == CM_OK) {
      char *owned;
      size_t olen;
      const char *o = rp_step_stdout(ctx, &res, &olen, &owned);
      if (rp_step_ok(&res) && o != NULL)
        rp_res_parse_cuobjdump(o, olen, t);
      free(owned);
      rp_step_result_free(&res);
    }
  }
  free(buf);
  return 0;
}

/* Readable names from c++filt, when it is installed. */
static void rp__demangle(rp_ctx *ctx, rp_stage_run *st, rp_res_table *t) {
  static const char *names[1024];
  const char *argv[1026];
  rp_tool_info cf;
  rp_step_result res;
  size_t n, i;
  rp_tool_probe(&ctx->probe, "c++filt", &cf);
  if (!cf.found)
    return;
  n = rp_res_mangled_names(t, names, 1024);
  if (n == 0)
    return;
  argv[0] = cf.path;
  for (i = 0; i < n; i++)
    argv[i + 1] = names[i];
  argv[n + 1] = NULL;
  if (rp_stage_step(ctx, st, "c++filt", argv, NULL, 1, &res) != CM_OK)
    return;
  if (rp_step_ok(&res) && res.out != NULL)
    rp_res_apply_demangled(t, res.out, res.out_len);
  rp_step_result_free(&res);
}

/* The build's compile_commands.json, parsed (the caller owns it; NULL or a
 * non-array when it cannot be read, jerr then says why). Its path goes to
 * path[size]. */
static json_t *rp__compile_commands(const rp_ctx *ctx, char *path, size_t size,
                                    json_error_t *jerr) {
  if (cm_snprintf(path, size, "%s/compile_commands.json", ctx->opt.build_dir) !=
      CM_OK)
    return NULL;
  return cm_json_load_file(path, 0, jerr);
}

/* The file a command word names, as the OS resolves it (a bare name looked
 * up in PATH, links followed), into buf[size]; 0 when it cannot be found. */
static int rp__real_path(const char *word, char *buf, size_t size) {
  char found[1024], os[4096];
  uv_fs_t req;
  int ok;
  if (plat_find_executable(word, NULL, found, sizeof found) != CM_OK ||
      cm_path_os(found, os, sizeof os) != CM_OK)
    return 0;
  ok = uv_fs_realpath(NULL, &req, os, NULL) == 0 &&
       cm_strlcpy(buf, req.ptr, size) == CM_OK;
  uv_fs_req_cleanup(&req);
  return ok;
}

void rp_inspect_nvcc_check(const rp_ctx *ctx, rp_checks *out,
                           rp_tool_info *nvcc) {
  static const char name[] = "nvcc of the build";
  char path[1200], mine[1024], theirs[1024], *buf, *words[RP__INSP_MAX_ARGS];
  char built[1024] = "";
  rp_tool_info local;
  json_t *cc, *e;
  size_t i;
  int kernels = 0, same = 1, mine_ok;
  if (nvcc == NULL)
    nvcc = &local;
  rp_tool_probe(&ctx->probe, "nvcc", nvcc);
  mine_ok = nvcc->found && rp__real_path(nvcc->path, mine, sizeof mine);
  cc = rp__compile_commands(ctx, path, sizeof path, NULL);
  json_array_foreach(cc, i, e) {
    const char *file = json_string_value(json_object_get(e, "file"));
    const char *cmd = json_string_value(json_object_get(e, "command"));
    int n;
    if (file == NULL || cmd == NULL || !rp__is_kernel(file))
      continue;
    n = rp__split_copy(cmd, &buf, words);
    if (n > 0) {
      const char *w = words[rp__compiler_word(words, n)];
      kernels++;
      /* every kernel names one compiler as a rule: look it up once (the
       * loop ends at the first that differs) */
      if (strcmp(w, built) != 0) {
        cm_strlcpy(built, w, sizeof built);
        same = mine_ok && rp__real_path(w, theirs, sizeof theirs) &&
               strcmp(mine, theirs) == 0;
      }
    }
    free(buf);
    if (!same)
      break;
  }
  json_decref(cc);
  /* No build yet, or no kernel in it: the steps say so. */
  if (kernels == 0)
    return;
  if (nvcc->found && !mine_ok)
    rp_checks_add(out, name, RP_CHECK_FAIL, RP_EFFECT_REFUSE,
                  "cannot resolve the nvcc checked, %s, to its file (links "
                  "followed), so it cannot be compared with the build's, %s; "
                  "make the first a readable file of under 1024 characters",
                  nvcc->path, built);
  else if (!nvcc->found)
    rp_checks_add(out, name, RP_CHECK_FAIL, RP_EFFECT_SKIP,
                  "no nvcc found in PATH or the CUDA folders to check; the "
                  "build compiled the kernels with %s: put its folder on PATH",
                  built);
  else if (!same)
    rp_checks_add(out, name, RP_CHECK_FAIL, RP_EFFECT_REFUSE,
                  "the build compiled the kernels with %s, but the nvcc "
                  "checked is %s; make them one: put the first's folder "
                  "first on PATH, or build with the second "
                  "(-DCMAKE_CUDA_COMPILER)",
                  built, nvcc->path);
  else
    rp_checks_add(out, name, RP_CHECK_PASS, RP_EFFECT_NONE,
                  "%s, version %s, is the nvcc the build compiled the "
                  "kernels with",
                  nvcc->path, nvcc->version[0] ? nvcc->version : "unknown");
}

static void rp__inspect_preflight(rp_ctx *ctx, rp_stage_run *st) {
  rp_inspect_nvcc_check(ctx, &st->checks, &rp__nvcc);
}

static void rp__inspect_steps(rp_ctx *ctx, rp_stage_run *st) {
  char path[1200];
  json_t *cc, *files = json_array(), *e, *nv;
  json_error_t jerr;
  rp_res_table t;
  rp_tool_info cuob;
  size_t i, spilling;
  char *text = NULL;
  json_t *table;

  json_object_set_new(st->record, "files", files);
  cc = rp__compile_commands(ctx, path, sizeof path, &jerr);
  if (!json_is_array(cc)) {
    rp_stage_set(st, RP_ST_FAILED,
                 "cannot read %s: %s (configure the "
                 "build first)",
                 path, jerr.text);
    json_decref(cc);
    return;
  }
  /* The compiler every step below runs: the one the preflight checked. */
  nv = json_object();
  json_object_set_new(
      nv, "path", rp__nvcc.found ? cm_json_text(rp__nvcc.path) : json_null());
  json_object_set_new(nv, "version",
                      rp__nvcc.version[0] ? cm_json_text(rp__nvcc.version)
                                          : json_null());
  json_object_set_new(st->record, "nvcc", nv);
  rp_tool_probe(&ctx->probe, "cuobjdump", &cuob);
  rp_res_table_init(&t);
  json_array_foreach(cc, i, e) {
    const char *file = json_string_value(json_object_get(e, "file"));
    const char *cmd = json_string_value(json_object_get(e, "command"));
    if (file == NULL || cmd == NULL || !rp__is_kernel(file))
      continue;
    if (!rp__nvcc.found) { /* the preflight skips the stage first */
      rp_stage_set(st, RP_ST_FAILED, "no nvcc was checked to compile %s", file);
      break;
    }
    if (rp__inspect_file(ctx, st, rp__nvcc.path, cmd, file,
                         cuob.found ? cuob.path : NULL, &t, files) != 0 ||
        rp_runner_interrupted())
      break;
  }
  json_decref(cc);
  rp__demangle(ctx, st, &t);
  if (rp_res_table_text(&t, &text) == CM_OK) {
    rp_write_file_atomic(ctx->run_dir, "inspect/resources.txt", text,
                         strlen(text));
    free(text);
  }
  table = rp_res_table_json(&t);
  if (table != NULL) {
    char *js = cm_json_dumps(table, JSON_INDENT(1));
    if (js != NULL) {
      rp_write_file_atomic(ctx->run_dir, "inspect/resources.json", js,
                           strlen(js));
      free(js);
    }
    json_object_set_new(st->record, "resources", table);
  }
  spilling = rp_res_spilling(&t);
  json_object_set_new(st->record, "kernels", json_integer((json_int_t)t.count));
  json_object_set_new(st->record, "spilling",
                      json_integer((json_int_t)spilling));
  if (spilling > 0)
    json_object_set_new(st->record, "warning",
                        cm_json_text("some kernels spill registers to local "
                                     "memory (SPILLS in resources.txt)"));
  /* whatever else limited the stage: no kernel inspected is a failure */
  if (t.count == 0 && st->status < RP_ST_FAILED)
    rp_stage_set(st, RP_ST_FAILED, "no kernel found in the ptxas reports");
  if (!cuob.found)
    rp_stage_set(st, RP_ST_LIMITED,
                 "cuobjdump not found: SASS skipped "
                 "(PTX and the ptxas resource table were made)");
  rp_res_table_free(&t);
}

const rp_stage_desc rp_stage_inspect = {
    "inspect", "PTX, SASS, registers/spills/shared memory per kernel",
    rp__inspect_preflight, rp__inspect_steps, NULL};
