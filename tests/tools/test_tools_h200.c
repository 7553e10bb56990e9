/* Every tool parser over the real captures of tests/fixtures/h200-probe/
 * (raw NVIDIA tool output from the H200, one planted defect per tool; see
 * its README.md). The expected values are read off those files by hand and
 * are what the parsers must find; exit codes come from its COMMANDS.txt.
 * These captures are never placeholders, so none of these tests skips. */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "fixture.h"
#include "platform.h"
#include "rp_ncu_parse.h"
#include "rp_nsys_check.h"
#include "rp_resource_parse.h"
#include "rp_sanitize_parse.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The exit status COMMANDS.txt recorded for a capture ("name\trc=N\t..."),
 * or -1000 when the line is missing. */
static int probe_rc(const char *capture) {
  char *text, *p;
  size_t len, n = strlen(capture);
  int rc = -1000;
  if (fx_load_probe("COMMANDS.txt", &text, &len) != 0)
    return rc;
  for (p = text; p != NULL && *p;
       p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, capture, n) == 0 && strncmp(p + n, "\trc=", 4) == 0) {
      char num[16];
      size_t k = 0;
      int64_t v;
      const char *q = p + n + 4;
      while (q[k] >= '0' && q[k] <= '9' && k + 1 < sizeof num)
        k++;
      memcpy(num, q, k);
      num[k] = '\0';
      if (cm_parse_i64(num, &v) == CM_OK)
        rc = (int)v;
      break;
    }
  }
  free(text);
  return rc;
}

static size_t count_class(const rp_san_report *r, rp_san_class c) {
  size_t i, n = 0;
  for (i = 0; i < r->count; i++)
    n += r->items[i].cls == c;
  return n;
}

/* Parses a sanitizer capture; the caller frees both. */
static int san_load(const char *name, char **text, rp_san_report *r) {
  size_t len;
  if (fx_load_probe(name, text, &len) != 0)
    return 1;
  return rp_san_parse(*text, len, r) != CM_OK;
}

TEST_IMPL(h200_memcheck_oob) {
  char *text, why[1024];
  rp_san_report r;
  const rp_san_finding *f;
  int rc = probe_rc("memcheck-oob.txt");
  ASSERT_EQ(san_load("memcheck-oob.txt", &text, &r), 0);
  ASSERT_EQ(rc, 86);
  ASSERT_EQ(r.banner, 1);
  ASSERT_EQ(r.tool_failed, 0);
  ASSERT_EQ(r.target_failed, 1);
  ASSERT_EQ(r.error_summary, 28);
  ASSERT_EQ(r.errors_not_printed, -1);
  ASSERT_EQ(r.findings_total, 28);
  ASSERT_EQ(count_class(&r, RP_SAN_ACCESS), 24);
  ASSERT_EQ(count_class(&r, RP_SAN_API), 2);
  ASSERT_EQ(count_class(&r, RP_SAN_LEAK), 2);
  ASSERT_EQ(r.leaked_bytes, 8000);
  ASSERT_EQ(r.leak_allocs, 2);
  f = &r.items[0];
  ASSERT_EQ(f->cls, RP_SAN_ACCESS);
  ASSERT_STR_EQ(f->kind, "Invalid __global__ write of size 4 bytes");
  ASSERT_STR_EQ(f->kernel, "probe_copy(const float *, float *, int, int)");
  ASSERT_STR_EQ(f->location, "probe.cu:24");
  ASSERT_STR_EQ(f->pc, "0x110");
  ASSERT_STR_EQ(f->thread, "(232,0,0)");
  ASSERT_STR_EQ(f->block, "(3,0,0)");
  ASSERT_STR_EQ(f->address, "0x7f7b4a801fa0");
  ASSERT_STR_EQ(f->detail, "is out of bounds");
  ASSERT_EQ(f->bytes, 4);
  /* the last out-of-bounds write, then the API errors the launch failure
   * caused, then the two leaks memcheck found at exit */
  ASSERT_STR_EQ(r.items[23].thread, "(255,0,0)");
  ASSERT_CONTAINS(r.items[24].kind, "cudaErrorLaunchFailure (error 719)");
  ASSERT_EQ(r.items[26].bytes, 4000);
  ASSERT_STR_EQ(r.items[27].address, "0x7f7b4a801000");
  /* as the negative control it is caught; as a smoke run it fails */
  ASSERT_EQ(rp_san_verdict_negative(&r, rc, 86, why, sizeof why), 1);
  ASSERT_CONTAINS(why, "caught: Invalid __global__ write of size 4 bytes in "
                       "probe_copy");
  ASSERT_CONTAINS(why, "probe.cu:24");
  ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "28 finding(s); first: Invalid __global__ write");
  /* the same report without --error-exitcode's exit proves nothing */
  ASSERT_EQ(rp_san_verdict_negative(&r, 0, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "not its error exit code 86");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(h200_memcheck_leak) {
  char *text, why[1024];
  rp_san_report r;
  int rc = probe_rc("memcheck-leak.txt");
  ASSERT_EQ(san_load("memcheck-leak.txt", &text, &r), 0);
  ASSERT_EQ(rc, 86);
  ASSERT_EQ(r.error_summary, 1);
  ASSERT_EQ(r.count, 1);
  ASSERT_EQ(r.items[0].cls, RP_SAN_LEAK);
  ASSERT_EQ(r.items[0].bytes, 4096);
  ASSERT_STR_EQ(r.items[0].address, "0x7f1682802000");
  ASSERT_EQ(r.leaked_bytes, 4096);
  ASSERT_EQ(r.leak_allocs, 1);
  ASSERT_EQ(r.target_failed, 0);
  ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "Leaked 4,096 bytes");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(h200_racecheck_race) {
  char *text, why[1024];
  rp_san_report r;
  const rp_san_finding *f;
  int rc = probe_rc("racecheck-race.txt");
  ASSERT_EQ(san_load("racecheck-race.txt", &text, &r), 0);
  ASSERT_EQ(rc, 86);
  ASSERT_EQ(r.error_summary, -1); /* racecheck prints no ERROR SUMMARY */
  ASSERT_EQ(r.hazards, 1);
  ASSERT_EQ(r.hazard_errors, 1);
  ASSERT_EQ(r.hazard_warnings, 0);
  ASSERT_EQ(r.count, 1);
  f = &r.items[0];
  ASSERT_EQ(f->cls, RP_SAN_HAZARD);
  ASSERT_STR_EQ(f->severity, "error");
  ASSERT_STR_EQ(f->kind, "Race reported between Write access and Read access");
  ASSERT_STR_EQ(f->kernel, "probe_race(float *)");
  ASSERT_STR_EQ(f->location, "probe.cu:29");
  ASSERT_STR_EQ(f->pc, "0x160");
  ASSERT_CONTAINS(f->detail, "probe.cu:31");
  ASSERT_CONTAINS(f->detail, "[1024 hazards]");
  ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "Race reported between Write access and Read access");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(h200_initcheck_uninit) {
  char *text, why[1024];
  rp_san_report r;
  const rp_san_finding *f;
  int rc = probe_rc("initcheck-uninit.txt");
  ASSERT_EQ(san_load("initcheck-uninit.txt", &text, &r), 0);
  ASSERT_EQ(rc, 86);
  /* 1000 errors, of which only the first 100 (--print-limit) printed */
  ASSERT_EQ(r.error_summary, 1000);
  ASSERT_EQ(r.errors_not_printed, 900);
  ASSERT_EQ(r.findings_total, 100);
  ASSERT_EQ(count_class(&r, RP_SAN_ACCESS), 100);
  f = &r.items[0];
  ASSERT_STR_EQ(f->kind, "Uninitialized __global__ memory read of size 4 "
                         "bytes");
  ASSERT_STR_EQ(f->kernel, "probe_uninit(const float *, float *, int)");
  ASSERT_STR_EQ(f->location, "probe.cu:37");
  ASSERT_STR_EQ(f->pc, "0xc0");
  ASSERT_STR_EQ(f->thread, "(96,0,0)");
  ASSERT_STR_EQ(f->block, "(0,0,0)");
  ASSERT_STR_EQ(f->address, "0x7faad6802180");
  ASSERT_EQ(f->bytes, 4);
  ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 0);
  ASSERT_EQ(rp_san_verdict_negative(&r, rc, 86, why, sizeof why), 0);
  ASSERT_CONTAINS(why, "the sanitizer is not working");
  rp_san_report_free(&r);
  free(text);
  return 0;
}

TEST_IMPL(h200_synccheck_sync) {
  char *text, why[1024];
  rp_san_report r;
  const rp_san_finding *f;
  int rc = probe_rc("synccheck-sync.txt");
  ASSERT_EQ(san_load("synccheck-sync.txt", &text, &r), 0);
  ASSERT_EQ(rc, 86);
  ASSERT_EQ(r.error_summary, 16);
  ASSERT_EQ(r.count, 16);
  ASSERT_EQ(count_class(&r, RP_SAN_BARRIER), 16);
  ASSERT_EQ(r.target_failed, 1);
  f = &r.items[15];
  ASSERT_STR_EQ(f->kind, "Barrier error detected. Divergent thread(s) in "
                         "warp.");
  ASSERT_STR_EQ(f->kernel, "probe_sync(float *)");
  ASSERT_STR_EQ(f->location, "probe.cu:44");
  ASSERT_STR_EQ(f->pc, "0xd0");
  ASSERT_STR_EQ(f->thread, "(15,0,0)");
  ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 0);
  rp_san_report_free(&r);
  free(text);
  return 0;
}

/* The four clean runs: finished, nothing found, exit 0 -> clean. */
TEST_IMPL(h200_clean_runs) {
  static const char *const names[] = {
      "memcheck-clean.txt", "racecheck-clean.txt", "initcheck-clean.txt",
      "synccheck-clean.txt"};
  size_t i;
  for (i = 0; i < 4; i++) {
    char *text, why[1024];
    rp_san_report r;
    int rc = probe_rc(names[i]);
    ASSERT_EQ(san_load(names[i], &text, &r), 0);
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(r.count, 0);
    ASSERT_EQ(r.tool_failed, 0);
    ASSERT_EQ(r.target_failed, 0);
    if (i == 1) {
      ASSERT_EQ(r.error_summary, -1);
      ASSERT_EQ(r.hazards, 0);
    } else {
      ASSERT_EQ(r.error_summary, 0);
    }
    if (i == 0) {
      ASSERT_EQ(r.leaked_bytes, 0);
      ASSERT_EQ(r.leak_allocs, 0);
    }
    ASSERT_EQ(rp_san_verdict_clean(&r, rc, 86, why, sizeof why), 1);
    ASSERT_STR_EQ(why, "clean: 0 errors");
    rp_san_report_free(&r);
    free(text);
  }
  return 0;
}

static const rp_kernel_res *res_row(const rp_res_table *t, const char *m) {
  size_t i;
  for (i = 0; i < t->count; i++)
    if (strcmp(t->rows[i].mangled, m) == 0)
      return &t->rows[i];
  return NULL;
}

/* ptxas -v and cuobjdump --dump-resource-usage of the same probe. */
TEST_IMPL(h200_resources) {
  static const struct {
    const char *mangled;
    int64_t regs, smem, cuob_shared, barriers, const0;
  } want[] = {{"_Z10probe_syncPf", 12, 1024, 2048, 1, 536},
              {"_Z12probe_uninitPKfPfi", 10, 0, 0, 0, 548},
              {"_Z10probe_racePf", 12, 1024, 2048, 0, 536},
              {"_Z10probe_copyPKfPfii", 10, 0, 0, 0, 552}};
  char *pt, *cu;
  size_t pl, cl, i;
  rp_res_table a, b, m;
  FX_PROBE("probe-ptxas.txt", &pt, &pl);
  FX_PROBE("cuobjdump-resource-usage.txt", &cu, &cl);
  rp_res_table_init(&a);
  rp_res_table_init(&b);
  rp_res_table_init(&m);
  ASSERT_OK(rp_res_parse_ptxas(pt, pl, &a));
  ASSERT_OK(rp_res_parse_cuobjdump(cu, cl, &b));
  ASSERT_OK(rp_res_parse_ptxas(pt, pl, &m));
  ASSERT_OK(rp_res_parse_cuobjdump(cu, cl, &m));
  ASSERT_EQ(a.count, 4);
  ASSERT_EQ(b.count, 4);
  ASSERT_EQ(m.count, 4);
  ASSERT_EQ(rp_res_spilling(&m), 0);
  for (i = 0; i < 4; i++) {
    const rp_kernel_res *p = res_row(&a, want[i].mangled);
    const rp_kernel_res *c = res_row(&b, want[i].mangled);
    const rp_kernel_res *x = res_row(&m, want[i].mangled);
    ASSERT_TRUE(p != NULL && c != NULL && x != NULL);
    ASSERT_STR_EQ(p->arch, "sm_90");
    ASSERT_STR_EQ(c->arch, "sm_90");
    ASSERT_EQ(p->registers, want[i].regs);
    ASSERT_EQ(c->registers, want[i].regs);
    ASSERT_EQ(p->stack_frame, 0);
    ASSERT_EQ(c->stack_frame, 0);
    ASSERT_EQ(p->spill_stores, 0);
    ASSERT_EQ(p->spill_loads, 0);
    ASSERT_EQ(p->barriers, want[i].barriers);
    ASSERT_EQ(p->shared, want[i].smem);
    /* cuobjdump's SHARED adds the 1 KiB the driver reserves per block on
     * sm_80 and later, for kernels that use shared memory at all */
    ASSERT_EQ(c->shared, want[i].cuob_shared);
    ASSERT_EQ(c->local, 0);
    ASSERT_EQ(c->constant0, want[i].const0);
    ASSERT_EQ(x->sources, RP_RES_FROM_PTXAS | RP_RES_FROM_CUOBJDUMP);
    ASSERT_EQ(x->shared, want[i].smem); /* the first source's value */
    ASSERT_EQ(x->constant0, want[i].const0);
    ASSERT_EQ(x->spills, 0);
  }
  rp_res_table_free(&a);
  rp_res_table_free(&b);
  rp_res_table_free(&m);
  free(pt);
  free(cu);
  return 0;
}

/* --page raw had no DRAM column; --page details has it; merged, each
 * metric comes from the page that has it. */
TEST_IMPL(h200_ncu_pages) {
  char *raw, *det, *nv;
  size_t rl, dl, nl;
  rp_ncu_table a, b, c;
  json_t *j, *o;
  FX_PROBE("ncu-raw.csv", &raw, &rl);
  FX_PROBE("ncu-details.csv", &det, &dl);
  FX_PROBE("ncu-nvtx.txt", &nv, &nl);
  ASSERT_OK(rp_ncu_parse_csv(raw, rl, &a));
  ASSERT_OK(rp_ncu_parse_csv(det, dl, &b));
  ASSERT_OK(rp_ncu_parse_csv(nv, nl, &c));
  ASSERT_EQ(a.count, 1);
  ASSERT_EQ(b.count, 1);
  ASSERT_EQ(c.count, 1);
  ASSERT_EQ(a.rows[0].id, 0);
  ASSERT_STR_EQ(a.rows[0].kernel,
                "probe_copy(const float *, float *, int, int)");
  ASSERT_NEAR(a.rows[0].duration_ns, 2048.0, 1e-9); /* 2.048000 us */
  ASSERT_NEAR(a.rows[0].occupancy_pct, 12.189501, 1e-9);
  ASSERT_NEAR(a.rows[0].registers, 16.0, 0);
  ASSERT_TRUE(isnan(a.rows[0].dram_pct));
  ASSERT_STR_EQ(b.rows[0].kernel, a.rows[0].kernel);
  ASSERT_NEAR(b.rows[0].duration_ns, 2050.0, 1e-9); /* "2.05" us */
  ASSERT_NEAR(b.rows[0].dram_pct, 0.07, 1e-12);
  ASSERT_NEAR(b.rows[0].occupancy_pct, 12.19, 1e-12);
  ASSERT_NEAR(b.rows[0].registers, 16.0, 0);
  ASSERT_NEAR(c.rows[0].duration_ns, 2048.0, 1e-9);
  ASSERT_OK(rp_ncu_table_merge(&a, &b));
  ASSERT_EQ(a.count, 1);
  ASSERT_NEAR(a.rows[0].duration_ns, 2048.0, 1e-9); /* raw's exact value */
  ASSERT_NEAR(a.rows[0].dram_pct, 0.07, 1e-12);     /* from details */
  j = rp_ncu_table_json(&a);
  o = json_array_get(j, 0);
  ASSERT_NEAR(json_real_value(json_object_get(o, "dram_throughput_pct")), 0.07,
              1e-12);
  ASSERT_TRUE(json_is_null(json_object_get(o, "local_load")));
  json_decref(j);
  {
    char *csv;
    rp_ncu_table back;
    ASSERT_OK(rp_ncu_table_csv(&a, &csv));
    ASSERT_CONTAINS(csv, "\"probe_copy(const float *, float *, int, int)\"");
    ASSERT_CONTAINS(csv, ",2048,0.07000000000000000");
    /* what the stage writes reads back through the same parser */
    ASSERT_OK(rp_ncu_parse_csv(csv, strlen(csv), &back));
    ASSERT_EQ(back.count, 1);
    ASSERT_EQ(back.rows[0].id, 0);
    ASSERT_STR_EQ(back.rows[0].kernel, a.rows[0].kernel);
    ASSERT_NEAR(back.rows[0].occupancy_pct, 12.189501, 1e-12);
    rp_ncu_table_free(&back);
    free(csv);
  }
  rp_ncu_table_free(&a);
  rp_ncu_table_free(&b);
  rp_ncu_table_free(&c);
  free(raw);
  free(det);
  free(nv);
  return 0;
}

TEST_IMPL(h200_ncu_console) {
  char *text, *ver, line[512];
  size_t len, vl;
  rp_ncu_table t;
  FX_PROBE("ncu-run.txt", &text, &len);
  FX_PROBE("ncu-version.txt", &ver, &vl);
  ASSERT_EQ(probe_rc("ncu-run.txt"), 0);
  ASSERT_EQ(rp_ncu_scan_output(text, len, line, sizeof line), RP_NCU_OK);
  ASSERT_STR_EQ(line, "");
  ASSERT_EQ(rp_ncu_count_profiled(text, len), 1);
  /* --clock-control none: ncu says the clocks were left alone */
  ASSERT_CONTAINS(text, "Running with unmodified GPU clocks");
  ASSERT_EQ(rp_ncu_parse_csv(text, len, &t), CM_EPARSE);
  ASSERT_CONTAINS(ver, "Version 2025.3.1.0");
  free(text);
  free(ver);
  return 0;
}

/* The H200's nsys: exit 0, an importer error, and only a .qdstrm in the
 * folder (its `ls -la` is nsys-files.txt). */
TEST_IMPL(h200_nsys_qdstrm_only) {
  char *run, *ls, *p, line[512];
  size_t rl, ll, n = 0;
  rp_nsys_file files[16];
  rp_nsys_result r;
  FX_PROBE("nsys-run.txt", &run, &rl);
  FX_PROBE("nsys-files.txt", &ls, &ll);
  ASSERT_EQ(probe_rc("nsys-run.txt"), 0);
  ASSERT_EQ(rp_nsys_scan_output(run, rl, line, sizeof line), 1);
  ASSERT_STR_EQ(line, "Importer error status: An unknown error occurred.");
  /* "-rw-rw-r-- 1 root root 31472391 Nov 29 11:24 timeline.qdstrm":
   * the 5th field is the size, the 9th the name */
  for (p = strtok(ls, "\n"); p != NULL && n < 16; p = strtok(NULL, "\n")) {
    char *f[9];
    int k = 0;
    uint64_t sz;
    char *save = p;
    while (k < 9 && *save) {
      while (*save == ' ')
        save++;
      f[k++] = save;
      if (k == 9)
        break;
      while (*save && *save != ' ')
        save++;
      if (*save)
        *save++ = '\0';
    }
    if (k < 9 || f[0][0] != '-' || cm_parse_u64(f[4], &sz) != CM_OK)
      continue;
    files[n].name = f[8];
    files[n].bytes = sz;
    n++;
  }
  ASSERT_EQ(n, 3);
  ASSERT_OK(rp_nsys_classify("", "timeline", files, n, &r));
  ASSERT_EQ(r.outcome, RP_NSYS_QDSTRM_ONLY);
  ASSERT_EQ(r.qdstrm_bytes, 31472391);
  ASSERT_STR_EQ(r.qdstrm, "timeline.qdstrm");
  ASSERT_STR_EQ(r.report, "");
  ASSERT_STR_EQ(rp_nsys_outcome_name(r.outcome), "limited");
  /* the ncu report in the same folder is not an nsys report */
  ASSERT_OK(rp_nsys_classify("", "ncu_probe", files, n, &r));
  ASSERT_EQ(r.outcome, RP_NSYS_NOTHING);
  free(run);
  free(ls);
  return 0;
}

/* Counters were open on the H200: RmProfilingAdminOnly 0, run as root. */
TEST_IMPL(h200_counter_permission) {
  char *params, *id, path[1024];
  size_t pl, il;
  plat_counter_perm perm;
  FX_PROBE("nvidia-params.txt", &params, &pl);
  FX_PROBE("id.txt", &id, &il);
  ASSERT_EQ(plat_parse_admin_only(params), 0);
  ASSERT_CONTAINS(id, "uid=0(root)");
  ASSERT_OK(cm_snprintf(path, sizeof path,
                        "%s/tests/fixtures/h200-probe/nvidia-params.txt",
                        CM_SOURCE_DIR));
  /* open to everyone, so allowed even for an unprivileged user */
  ASSERT_OK(plat_counter_permission(path, 0, &perm));
  ASSERT_EQ(perm.params_found, 1);
  ASSERT_EQ(perm.admin_only, 0);
  ASSERT_EQ(perm.allowed, 1);
  free(params);
  free(id);
  return 0;
}
