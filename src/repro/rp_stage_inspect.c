/* Stage `inspect`: PTX, SASS and per-kernel resources (issue 6). Needs no
 * GPU: every kernels/<name>.cu of the build's compile_commands.json is compiled
 * again with its own flags, once to PTX and once to a cubin for the build's
 * real architecture with ptxas -v (the resource report), then cuobjdump
 * gives SASS and its resource table where it is installed. Where it is
 * not, that part alone is skipped and the stage ends limited. The table is
 * written as inspect/resources.txt and .json; a kernel that spills is
 * flagged (a warning, not a failure).
 */
#include "archive/rp_archive.h"
#include "cm_file.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "platform.h"
#include "rp_resource_parse.h"
#include "rp_stage.h"

#include <stdlib.h>
#include <string.h>

#define RP__INSP_MAX_ARGS 128

/* Splits a compile command on blanks, honouring double quotes. The words
 * point into buf (modified). Returns the count, or -1 if too many. */
static int rp__split(char *buf, char **words, int max) {
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

/* One kernels/<name>.cu: PTX and cubin (+ ptxas -v into t). Returns 0 when the
 * file was handled, -1 when the stage must stop. */
static int rp__inspect_file(rp_ctx *ctx, rp_stage_run *st, const char *cmd,
                            const char *file, const char *cuobjdump,
                            rp_res_table *t, json_t *files) {
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
  buf = malloc(strlen(cmd) + 1);
  if (buf == NULL)
    return -1;
  memcpy(buf, cmd, strlen(cmd) + 1);
  n = rp__split(buf, words, RP__INSP_MAX_ARGS);
  if (n <= 0) {
    rp_stage_set(st, RP_ST_FAILED, "%s: cannot split its compile command",
                 base);
    free(buf);
    return -1;
  }
  /* Keep the flags; drop the multi-target code generation (a cubin takes
   * one target) and the object output, remembering the first real arch. */
  for (i = 0; i < n; i++) {
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

static void rp__inspect_steps(rp_ctx *ctx, rp_stage_run *st) {
  char path[1200];
  json_t *cc, *files = json_array(), *e;
  json_error_t jerr;
  rp_res_table t;
  rp_tool_info cuob;
  size_t i, spilling;
  char *text = NULL;
  json_t *table;

  json_object_set_new(st->record, "files", files);
  cm_snprintf(path, sizeof path, "%s/compile_commands.json",
              ctx->opt.build_dir);
  cc = cm_json_load_file(path, 0, &jerr);
  if (!json_is_array(cc)) {
    rp_stage_set(st, RP_ST_FAILED,
                 "cannot read %s: %s (configure the "
                 "build first)",
                 path, jerr.text);
    json_decref(cc);
    return;
  }
  rp_tool_probe(&ctx->probe, "cuobjdump", &cuob);
  rp_res_table_init(&t);
  json_array_foreach(cc, i, e) {
    const char *file = json_string_value(json_object_get(e, "file"));
    const char *cmd = json_string_value(json_object_get(e, "command"));
    size_t fl;
    if (file == NULL || cmd == NULL)
      continue;
    fl = strlen(file);
    if (fl < 4 || strcmp(file + fl - 3, ".cu") != 0 ||
        (strstr(file, "/kernels/") == NULL &&
         strstr(file, "\\kernels\\") == NULL))
      continue;
    if (rp__inspect_file(ctx, st, cmd, file, cuob.found ? cuob.path : NULL, &t,
                         files) != 0 ||
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
    char *js = json_dumps(table, JSON_INDENT(1));
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
    "inspect", "PTX, SASS, registers/spills/shared memory per kernel", NULL,
    rp__inspect_steps, NULL};
