/* Unit tests of the portfolio's host logic, no GPU: plan chooser, CLI
 * parsing, allocator selection, .npy header, case lists and inputs. */
#include "cm_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "cm_error.h"
#include "pf_cli.h"
#include "pf_fill.h"
#include "pf_half.h"
#include "pf_npy.h"
#include "pf_ops.h"
#include "pf_plan.h"
#include "pf_ref.h"
#include "pf_rng.h"
#include "pf_run.h"
#include "pf_sets.h"
#include "pf_tol.h"
#include "platform.h"

TEST_IMPL(plan_chooser) {
  /* A device without clusters or sm_90a: the multi-pass variants. */
  pf_plan_dev old = {132, 0, 0, 0}, few = {16, 0, 0, 0};
  /* Hopper: FUSED wherever the row fits, HOPPER for fp16/bf16; h without
   * the grid path (fewer than 132 SMs, or CPK_FUSED_GRID=0), hg (an H200)
   * with it. */
  pf_plan_dev h = {132, 1, 1, 0}, hg = {132, 1, 1, 1};
  const pf_plan_dev *sms = &old;
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 4096, 33, sms), CPK_V_WARP);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_BF16, 8, 1024, sms), CPK_V_WARP);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_F32, 4096, 4097, sms),
            CPK_V_BLOCK);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F16, 4096, 8192, sms),
            CPK_V_ONLINE);
  /* few very wide rows: split; many wide rows: a block each */
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 4, 1048577, sms),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM, CPK_F32, 4096, 1048577, sms),
            CPK_V_BLOCK);
  /* wide-ish but not very wide: no split even with few rows */
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_F32, 2, 5000, sms),
            CPK_V_BLOCK);
  /* the threshold follows the SM count, not a table */
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_F32, 100, 70000, &old),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_F32, 100, 70000, &few),
            CPK_V_BLOCK);
  ASSERT_EQ(pf_plan_choose(CPK_OP_MATMUL, CPK_F32, 1, 1, sms), CPK_V_TILED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_MATMUL, CPK_BF16, 1, 1, sms),
            CPK_V_TENSORCORE);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ADD, CPK_F16, 1, 9, sms), CPK_V_VECTOR);
  /* With clusters: FUSED where the row can be held (rowfused_plan.cuh's list
   * and its wide path), up to 2^18-wide rows for rmsnorm and 2^16 for
   * rmsnorm_backward; past that the measured faster SPLIT / BLOCK
   * (pf_plan.h). */
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 65536, 1024, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 256, 262144, &h),
            CPK_V_FUSED);
  /* 2^20-wide rows fit (one 16-block cluster, or the wide path): softmax,
   * softmax_backward and row_sum take FUSED, rmsnorm SPLIT (measured faster
   * there); fp32 softmax_backward's two 4 MiB rows do not fit: SPLIT */
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX_BWD, CPK_BF16, 1048576), 1);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 32, 1048576, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX_BWD, CPK_BF16, 32, 1048576, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX_BWD, CPK_F32, 32, 1048576, &h),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_F32, 32, 1048576, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_BF16, 2, 4194304, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM, CPK_F32, 32, 1048576, &h),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM, CPK_BF16, 32, 1048576, &h),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_BF16, 2048, 32768, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_F32, 32, 1048576, &h),
            CPK_V_SPLIT);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_BF16, 256, 262144, &h),
            CPK_V_BLOCK);
  ASSERT_EQ(pf_plan_choose(CPK_OP_ROW_SUM, CPK_F16, 3, 5, &h), CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_MATMUL, CPK_BF16, 1, 1, &h), CPK_V_HOPPER);
  ASSERT_EQ(pf_plan_choose(CPK_OP_MATMUL, CPK_F32, 1, 1, &h), CPK_V_TILED);
  /* matmul with its whole shape: HOPPER up to CPK_HOPPER_MAX_DIM in each of
   * M, N and K (its TMA coordinates are 32-bit), TENSORCORE past it (HOPPER
   * refused the launch: exit 3 after the inputs and reference were made) */
  ASSERT_EQ(CPK_HOPPER_MAX_DIM, 2147483646);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_F16, 2147483646, 1, 2147483646, &h),
            CPK_V_HOPPER);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_F16, 1, 1, 2147483647, &h),
            CPK_V_TENSORCORE);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_BF16, 2147483647, 1, 1, &h),
            CPK_V_TENSORCORE);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_BF16, 1, 4294967296LL, 1, &h),
            CPK_V_TENSORCORE);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_F32, 1, 1, 2147483647, &h), CPK_V_TILED);
  ASSERT_EQ(pf_plan_choose_matmul(CPK_F16, 1, 1, 2147483647, sms),
            CPK_V_TENSORCORE);
  /* the fit rule itself: a pure function of op, dtype and cols */
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_F32, 1048576), 1);
  /* past 2^20 fp32 softmax fits only through the grid path (v11), up to
   * the width whose block chunk fills 4 x 512 vectors: 132 x 8192 */
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_F32, 1048577), 1);
  ASSERT_EQ(cpk_fused_needs_grid(CPK_OP_SOFTMAX, CPK_F32, 1048577), 1);
  ASSERT_EQ(cpk_fused_needs_grid(CPK_OP_SOFTMAX, CPK_F32, 1048576), 0);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_F32, 1081344), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_F32, 1081345), 0);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_BF16, 1081345), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_RMSNORM_BWD, CPK_BF16, 262144), 1);
  /* the grid path (kGrid) takes rmsnorm_backward from 2^17 columns to about
   * 2^20 in every dtype: it fits, but only a device that runs the grid path
   * takes the widths no on-chip configuration holds */
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM_BWD, CPK_F32, 262144), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_RMSNORM_BWD, CPK_F32, 262144), 1);
  ASSERT_EQ(cpk_fused_needs_grid(CPK_OP_RMSNORM_BWD, CPK_F32, 262144), 1);
  ASSERT_EQ(cpk_fused_needs_grid(CPK_OP_RMSNORM_BWD, CPK_BF16, 262144), 0);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_RMSNORM_BWD, CPK_BF16, 1048576), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_RMSNORM_BWD, CPK_F32, 1081344), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_RMSNORM_BWD, CPK_F32, 1081345), 0);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM_BWD, CPK_F32, 131072), 0);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_SOFTMAX, CPK_F32, 262144), 0);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_SOFTMAX, CPK_F32, 1048576), 1);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_SOFTMAX, CPK_BF16, 1048576), 0);
  /* 16-bit rmsnorm at 2^18 too (v11c: two blocks per SM), from 2^17 + 1 */
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM, CPK_BF16, 262144), 1);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM, CPK_F16, 131073), 1);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM, CPK_BF16, 131072), 0);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_RMSNORM, CPK_BF16, 1048576), 1);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_SOFTMAX_BWD, CPK_F32, 1048576), 1);
  ASSERT_EQ(cpk_fused_grid(CPK_OP_SOFTMAX_BWD, CPK_BF16, 1048576), 0);
  /* with the grid path on the device, the plan takes FUSED there */
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_F32, 32, 1048576, &hg),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_BF16, 256, 262144, &hg),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM, CPK_BF16, 32, 1048576, &hg),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX_BWD, CPK_F32, 32, 1048576, &hg),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 4, 1048577, &hg),
            CPK_V_FUSED);
  ASSERT_NE(pf_plan_choose(CPK_OP_SOFTMAX, CPK_F32, 4, 1048577, &h),
            CPK_V_FUSED);
  ASSERT_EQ(pf_plan_choose(CPK_OP_RMSNORM_BWD, CPK_F32, 64, 65537, &hg),
            CPK_V_SPLIT);
  /* the grid path's workspace: the exchange ring (a header and 128 rows x
   * 132 blocks x two 8-byte words); the skew path's (softmax, softmax_bwd,
   * rmsnorm from 131073 columns): the header (256 bytes), then a word a
   * segment of 32 KiB of input (two for softmax; 8192 fp32 or 16384
   * 16-bit columns; softmax_bwd's two inputs 16 KiB each, half the
   * columns); none for the other FUSED rows */
  {
    const cpk_rows wide = {256, 262144, 262144}, narrow = {64, 1024, 1024};
    const cpk_rows skmin = {3, 131073, 131073}, below = {3, 131072, 131072};
    ASSERT_GE(cpk_workspace_bytes(CPK_OP_RMSNORM, CPK_V_FUSED, CPK_F32, wide),
              (size_t)256 + 128 * 132 * 16);
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_SOFTMAX, CPK_V_FUSED, CPK_F32, narrow),
              0);
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_SOFTMAX, CPK_V_FUSED, CPK_F32, wide),
              (size_t)256 + 256 * 32 * 2 * 8);
    ASSERT_EQ(
        cpk_workspace_bytes(CPK_OP_SOFTMAX_BWD, CPK_V_FUSED, CPK_BF16, wide),
        (size_t)256 + 256 * 32 * 8);
    /* 131073 bf16 columns: 9 segments of 16384, 27 for 3 rows: 432 bytes
     * of words, 512 rounded */
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_SOFTMAX, CPK_V_FUSED, CPK_BF16, skmin),
              (size_t)256 + 512);
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_SOFTMAX, CPK_V_FUSED, CPK_BF16, below),
              0);
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_ROW_SUM, CPK_V_FUSED, CPK_BF16, below),
              0);
  }
  /* the wide path (kWide) holds row_sum and 16-bit softmax rows past the
   * on-chip list, up to 2^26 columns */
  ASSERT_EQ(cpk_fused_fits(CPK_OP_ROW_SUM, CPK_F32, 4194304), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_BF16, (int64_t)1 << 26), 1);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_BF16, ((int64_t)1 << 26) + 1),
            0);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_SOFTMAX, CPK_F32, 4194304), 0);
  ASSERT_EQ(cpk_fused_fits(CPK_OP_MATMUL, CPK_F32, 16), 0);
  return 0;
}

/* A run that verified nothing because every case was skipped must not
 * exit 0; failures and earlier errors win. */
TEST_IMPL(exit_for_counts) {
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 5, 0, 0), PF_EXIT_OK);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 5, 0, 2), PF_EXIT_OK);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 0, 0, 2), PF_EXIT_NODEV);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 0, 1, 2), PF_EXIT_FAIL);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 3, 1, 0), PF_EXIT_FAIL);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_CUDA, 0, 0, 2), PF_EXIT_CUDA);
  ASSERT_EQ(pf_exit_for_counts(PF_EXIT_OK, 0, 0, 0), PF_EXIT_OK);
  return 0;
}

static int parse(pf_opts *o, char *err, const char *a1, const char *a2,
                 const char *a3, const char *a4) {
  char *argv[6] = {"cuda_portfolio", (char *)a1, (char *)a2,
                   (char *)a3,       (char *)a4, NULL};
  int argc = 1;
  while (argc < 5 && argv[argc])
    argc++;
  return pf_cli_parse(argc, argv, o, err, 256);
}

/* The --bench set narrowed to SHAPE, and to OP where it is not NULL. */
static int bench_shape(pf_opts *o, pf_set *s, const char *shape,
                       const char *op) {
  char err[256];
  int r = parse(o, err, "--bench", "--shape", shape, NULL);
  if (r != CM_OK)
    return r;
  if (op != NULL)
    o->op = pf_op_find(op);
  return pf_sets_build(o, s);
}

TEST_IMPL(cli_parse) {
  pf_opts o;
  char err[256];
  ASSERT_OK(parse(&o, err, "--op", "softmax", "--shape", "8x1048577"));
  ASSERT_EQ(o.op, pf_op_find("softmax"));
  ASSERT_EQ(o.dims[1], 1048577);
  ASSERT_EQ(o.mode, PF_MODE_SELECT);
  ASSERT_OK(
      parse(&o, err, "--test-only", "--seed", "9223372036854775807", NULL));
  ASSERT_EQ(o.mode, PF_MODE_TEST_ONLY);
  ASSERT_TRUE(o.have_seed && o.seed == (uint64_t)INT64_MAX);
  ASSERT_OK(parse(&o, err, "--list", "--format", "json", NULL));
  ASSERT_TRUE(o.mode == PF_MODE_LIST && o.list_json);
  ASSERT_OK(parse(&o, err, "--variant", "auto", "--dtype", "bf16"));
  ASSERT_EQ(o.variant, PF_VARIANT_AUTO);
  ASSERT_EQ(o.dtype, CPK_BF16);
  ASSERT_OK(parse(&o, err, "--op", "matmul", "--trans", "tn"));
  ASSERT_TRUE(o.trans_a == 1 && o.trans_b == 0);
  ASSERT_OK(parse(&o, err, "--bench", NULL, NULL, NULL));
  ASSERT_EQ(o.flush, -1); /* unset: the harness's default (write) */
  ASSERT_OK(parse(&o, err, "--flush", "read", "--json", "r.json"));
  ASSERT_EQ(o.flush, PF_FLUSH_READ);
  ASSERT_OK(parse(&o, err, "--flush", "write", "--json", "r.json"));
  ASSERT_EQ(o.flush, PF_FLUSH_WRITE);
  ASSERT_EQ(o.peer_sampling, -1); /* unset: the harness's default */
  ASSERT_OK(
      parse(&o, err, "--peer-sampling", "sequential", "--json", "r.json"));
  ASSERT_EQ(o.peer_sampling, 0);
  ASSERT_OK(
      parse(&o, err, "--peer-sampling", "interleaved", "--json", "r.json"));
  ASSERT_EQ(o.peer_sampling, 1);
  ASSERT_OK(parse(&o, err, "--test-only", NULL, NULL, NULL));
  ASSERT_TRUE(o.sample_above == -1); /* unset: PF_MATMUL_SAMPLE_ABOVE */
  ASSERT_OK(parse(&o, err, "--test-only", "--sample-above", "0", NULL));
  ASSERT_TRUE(o.sample_above == 0);
  ASSERT_OK(
      parse(&o, err, "--sample-above", "9223372036854775807", NULL, NULL));
  ASSERT_TRUE(o.sample_above == INT64_MAX);
  return 0;
}

/* Words that were accepted and then dropped, or that let a run start that
 * could not end well, are refused at parse time with what to do: a seed
 * the results file cannot hold (it recorded -1 for 2^64 - 1), --mask with
 * --bench (timed unmasked), an empty --json or --dump (misnamed, or read
 * past the string), one path for both, --list beside a mode word (which
 * won depended on the order) or an output, options for the other kind of
 * op than the shape's rank allows, a padding that overflows, and
 * --sample-above where no matmul runs (another op, an RxW shape, --list,
 * the controls). */
TEST_IMPL(cli_dropped_words) {
  static const char *const bad[][8] = {
      {"--seed", "18446744073709551615", NULL},
      {"--bench", "--op", "softmax", "--mask", NULL},
      {"--op", "add", "--json", "", NULL},
      {"--op", "add", "--dump", "", NULL},
      {"--op", "add", "--json", "same", "--dump", "same", NULL},
      {"--list", "--test-only", NULL},
      {"--test-only", "--list", NULL},
      {"--list", "--json", "x.json", NULL},
      {"--shape", "4x5x6", "--stride", "100", NULL},
      {"--shape", "4x5x6", "--mask", NULL},
      {"--shape", "4x5", "--trans", "tt", NULL},
      {"--shape", "4x5", "--ld-pad", "3", NULL},
      {"--op", "matmul", "--shape", "4398046511104x1x1", "--ld-pad", "1048576",
       NULL},
      {"--op", "softmax", "--sample-above", "0", NULL},
      {"--shape", "4x5", "--sample-above", "0", NULL},
      {"--list", "--sample-above", "0", NULL},
      {"--negative-control", "--sample-above", "0", NULL},
      {"--verify-control", "--sample-above", "0", NULL},
  };
  static const char *const want[] = {
      "from 0 to 9223372036854775807",
      "--mask with --bench",
      "--json needs a file path",
      "--dump needs a folder",
      "one path for the results file and the dump folder",
      "--list and --test-only",
      "--list and --test-only",
      "--list with --json",
      "--stride with an MxNxK shape",
      "--mask with an MxNxK shape",
      "--trans with an RxW shape",
      "--ld-pad with an RxW shape",
      "with --ld-pad overflows",
      "--sample-above says which matmul products",
      "--sample-above with an RxW shape",
      "--list with --sample-above",
      "drop --sample-above",
      "drop --sample-above",
  };
  pf_opts o;
  char err[256], *argv[9];
  size_t i;
  int n;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    argv[0] = "cuda_portfolio";
    for (n = 0; bad[i][n] != NULL; n++)
      argv[n + 1] = (char *)bad[i][n];
    argv[n + 1] = NULL;
    if (pf_cli_parse(n + 1, argv, &o, err, sizeof err) != CM_EINVAL ||
        strstr(err, want[i]) == NULL)
      fprintf(stderr, "case %lu: \"%s\"\n", (unsigned long)i, err);
    ASSERT_EQ(pf_cli_parse(n + 1, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, want[i]);
  }
  /* the largest seed it takes, and the message that names the stride */
  {
    char *ok[] = {"cuda_portfolio", "--seed", "9223372036854775807", NULL};
    char *st[] = {
        "cuda_portfolio",     "--op", "softmax", "--shape", "2x3", "--stride",
        "576460752303423487", NULL};
    ASSERT_OK(pf_cli_parse(3, ok, &o, err, sizeof err));
    ASSERT_EQ(o.seed, (uint64_t)INT64_MAX);
    ASSERT_EQ(pf_cli_parse(7, st, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "(the --stride) overflow");
  }
  return 0;
}

TEST_IMPL(cli_errors) {
  pf_opts o;
  char err[256];
  ASSERT_EQ(parse(&o, err, "--shape", "0x5", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "positive integer");
  ASSERT_EQ(parse(&o, err, "--shape", "-3x5", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--shape", "99999999999999999999x2", NULL, NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "fits in 64 bits");
  ASSERT_EQ(parse(&o, err, "--shape", "4611686018427387904x4", NULL, NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "overflow");
  ASSERT_EQ(parse(&o, err, "--op", "matmul", "--shape", "5x5"), CM_EINVAL);
  ASSERT_CONTAINS(err, "MxNxK");
  ASSERT_EQ(parse(&o, err, "--shape", "4x8", "--shape", "8x16"), CM_EINVAL);
  ASSERT_CONTAINS(err, "given twice");
  ASSERT_EQ(parse(&o, err, "--op", "nope", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "unknown op");
  ASSERT_EQ(parse(&o, err, "--frobnicate", NULL, NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--frobnicate");
  ASSERT_EQ(parse(&o, err, "--seed", NULL, NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "needs a value");
  ASSERT_EQ(parse(&o, err, "--shape", "4x100", "--stride", "99"), CM_EINVAL);
  ASSERT_CONTAINS(err, "smaller than the row width");
  ASSERT_EQ(parse(&o, err, "--trans", "nx", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--gpu", "-1", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--sample-above", "-1", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--sample-above -1: expected an integer from 0");
  ASSERT_EQ(parse(&o, err, "--sample-above", "1e9", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--sample-above", "5", "--sample-above", "6"),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--sample-above given twice");
  ASSERT_EQ(parse(&o, err, "--flush", "clean", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--flush clean: expected write");
  ASSERT_EQ(parse(&o, err, "--flush", NULL, NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "needs a value");
  ASSERT_EQ(parse(&o, err, "--peer-sampling", "paired", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--peer-sampling paired: expected interleaved");
  ASSERT_EQ(parse(&o, err, "--hot", "--flush", "read", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "a hot run does not flush");
  /* an option that only shapes timing, without --json (nothing is timed) */
  ASSERT_EQ(parse(&o, err, "--bench", "--flush", "read", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--flush shapes timing");
  ASSERT_CONTAINS(err, "add --json PATH");
  ASSERT_EQ(parse(&o, err, "--smoke", "--profile-range", NULL, NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--profile-range shapes timing");
  ASSERT_EQ(parse(&o, err, "--format", "gbench", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--format gbench shapes timing");
  ASSERT_EQ(parse(&o, err, "--budget", "1", NULL, NULL), CM_EINVAL);
  ASSERT_OK(parse(&o, err, "--budget", "1", "--json", "r.json"));
  /* --lock-clocks: MHz, optionally :MHz, and only for a timed run. */
  ASSERT_OK(parse(&o, err, "--json", "r.json", "--lock-clocks", "1755"));
  ASSERT_EQ(o.lock_sm_mhz, 1755);
  ASSERT_EQ(o.lock_mem_mhz, 0);
  ASSERT_OK(parse(&o, err, "--json", "r.json", "--lock-clocks", "1755:2619"));
  ASSERT_EQ(o.lock_sm_mhz, 1755);
  ASSERT_EQ(o.lock_mem_mhz, 2619);
  ASSERT_OK(parse(&o, err, "--json", "r.json", NULL, NULL));
  ASSERT_EQ(o.lock_sm_mhz, 0); /* the default: clocks as found */
  ASSERT_EQ(parse(&o, err, "--lock-clocks", "1755", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "add --json PATH");
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--lock-clocks", "fast"),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "expected SM_MHZ or SM_MHZ:MEM_MHZ");
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--lock-clocks", "1755:"),
            CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--lock-clocks", ":2619"),
            CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--lock-clocks", "0"),
            CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--lock-clocks", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "needs a value");
  {
    char *argv[] = {"cuda_portfolio", "--op",    "matmul", "--variant",
                    "tiled",          "--dtype", "bf16",   NULL};
    ASSERT_EQ(pf_cli_parse(7, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "no variant tiled in bf16");
  }
  {
    /* HOPPER refuses a dimension past CPK_HOPPER_MAX_DIM at the launch:
     * said now, with the fix, before any device */
    char *argv[] = {"cuda_portfolio", "--op",    "matmul",         "--variant",
                    "hopper",         "--shape", "1x2147483647x8", "--dtype",
                    "fp16",           NULL};
    ASSERT_EQ(pf_cli_parse(9, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "hopper takes M, N and K up to 2147483646");
    ASSERT_CONTAINS(err, "N = 2147483647 is past it: use --variant tensorcore");
    argv[6] = "2147483646x1x8";
    ASSERT_OK(pf_cli_parse(9, argv, &o, err, sizeof err));
    argv[4] = "tensorcore";
    argv[6] = "1x1x2147483647";
    ASSERT_OK(pf_cli_parse(9, argv, &o, err, sizeof err));
  }
  /* caught here, before any device is opened (they failed after it, or
   * never ended: --warmup inf) */
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--warmup", "inf"), CM_EINVAL);
  ASSERT_CONTAINS(err, "--warmup inf: expected a finite non-negative number");
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--budget", "inf"), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--max-samples", "5"),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--min-samples 10 is larger than --max-samples 5 "
                       "(the default minimum)");
  ASSERT_EQ(parse(&o, err, "--json", "r.json", "--min-samples", "5000"),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "(the default maximum)");
  ASSERT_OK(parse(&o, err, "--json", "r.json", "--max-samples", "10"));
  ASSERT_EQ(parse(&o, err, "--op", "copy", "--variant", "warp"), CM_EINVAL);
  ASSERT_CONTAINS(err, "copy has no variant warp (see --list)");
  ASSERT_OK(parse(&o, err, "--op", "copy", "--variant", "vector"));
  ASSERT_EQ(parse(&o, err, "--op", "softmax", "--stride", "2"), CM_EINVAL);
  ASSERT_CONTAINS(err, "--stride 2 needs --shape RxW");
  ASSERT_EQ(parse(&o, err, "--test-only", "--shape", "64x1000", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--shape with --test-only");
  {
    /* an option that does not shape the op's tensors: refused, not
     * dropped (the case ran without it) */
    char *argv[] = {"cuda_portfolio", "--op", "copy", "--shape", "4x4",
                    "--stride",       "8",    NULL};
    ASSERT_EQ(pf_cli_parse(7, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--stride 8 pads the rows of the row ops; copy runs "
                         "on contiguous tensors: drop --stride");
    argv[2] = "matmul";
    argv[4] = "8x8x8";
    ASSERT_EQ(pf_cli_parse(7, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "matmul pads its operands' rows with --ld-pad P");
    argv[2] = "softmax";
    argv[4] = "4x4";
    ASSERT_OK(pf_cli_parse(7, argv, &o, err, sizeof err));
    argv[5] = "--ld-pad";
    argv[6] = "3";
    ASSERT_EQ(pf_cli_parse(7, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--ld-pad shapes matmul's operands; softmax has none: "
                         "pad its rows with --stride S");
    argv[2] = "add";
    argv[5] = "--trans";
    argv[6] = "tn";
    ASSERT_EQ(pf_cli_parse(7, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--trans shapes matmul's operands; add has none");
    /* --mask on an op without a mask, in a set or alone: refused (the
     * cases ran unmasked); --no-mask is what they are */
    argv[2] = "row_sum";
    argv[5] = "--mask";
    ASSERT_EQ(pf_cli_parse(6, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "--mask masks softmax's input; row_sum takes no "
                         "mask: drop --mask, or use --op softmax");
    argv[3] = "--test-only";
    argv[4] = "--mask";
    ASSERT_EQ(pf_cli_parse(5, argv, &o, err, sizeof err), CM_EINVAL);
    ASSERT_CONTAINS(err, "row_sum takes no mask");
    argv[4] = "--no-mask";
    ASSERT_OK(pf_cli_parse(5, argv, &o, err, sizeof err));
    argv[2] = "softmax";
    argv[4] = "--mask";
    ASSERT_OK(pf_cli_parse(5, argv, &o, err, sizeof err));
  }
  /* the negative control is one fixed case: a selection word would be
   * dropped, so it is refused */
  ASSERT_OK(parse(&o, err, "--negative-control", NULL, NULL, NULL));
  ASSERT_EQ(parse(&o, err, "--negative-control", "--dtype", "bf16", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--negative-control runs alone (copy_unmasked, fp32, "
                       "4097 elements): drop --dtype");
  ASSERT_EQ(parse(&o, err, "--negative-control", "--mask", NULL, NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --mask");
  ASSERT_EQ(parse(&o, err, "--negative-control", "--variant", "vector", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --variant");
  /* a refusal repeats the word as given, made one line of text: an ESC and
   * a byte that is not UTF-8 show as '?', a carriage return as a space */
  ASSERT_EQ(parse(&o, err, "--op", "soft\x1b[2Jmax\r\xff", NULL, NULL),
            CM_EINVAL);
  ASSERT_STR_EQ(err, "--op soft?[2Jmax ?: unknown op (see --list)");
  /* a path with a control character is refused by its byte and offset
   * (it would be printed in messages and recorded in the results); a
   * path that is not UTF-8 is not refused */
  ASSERT_EQ(parse(&o, err, "--smoke", "--json", "r\x1b[2J.json", NULL),
            CM_EINVAL);
  ASSERT_STR_EQ(err, "--json: the path holds a control character (byte 0x1B "
                     "at offset 1): give one without");
  ASSERT_EQ(parse(&o, err, "--smoke", "--dump", "d\nx", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--dump: the path holds a control character (byte 0x0A "
                       "at offset 1)");
  ASSERT_OK(parse(&o, err, "--smoke", "--dump", "r\xe9sultats", NULL));
  /* auto too: the controls' variants are fixed, and the word was dropped */
  ASSERT_EQ(parse(&o, err, "--verify-control", "--variant", "auto", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--verify-control runs alone (add_ftz, fp32, the "
                       "cases of add's verification set): drop --variant");
  /* two modes: refused, whichever order (the last one used to win:
   * --verify-control --test-only ran the whole set), but --test-only with
   * --smoke, the smoke set verified, in either order */
  ASSERT_EQ(parse(&o, err, "--verify-control", "--test-only", NULL, NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--verify-control and --test-only are two modes");
  ASSERT_EQ(parse(&o, err, "--bench", "--smoke", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--bench and --smoke are two modes: give one");
  ASSERT_OK(parse(&o, err, "--test-only", "--smoke", NULL, NULL));
  ASSERT_EQ(o.mode, PF_MODE_SMOKE);
  ASSERT_OK(parse(&o, err, "--smoke", "--test-only", NULL, NULL));
  ASSERT_EQ(o.mode, PF_MODE_SMOKE);
  ASSERT_OK(parse(&o, err, "--smoke", "--smoke", NULL, NULL));
  ASSERT_EQ(o.mode, PF_MODE_SMOKE);
  /* neither control writes --dump's files: refused, not ignored */
  ASSERT_EQ(parse(&o, err, "--negative-control", "--dump", "d", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --dump");
  /* the verification control: add's fp32 set, run as add_ftz */
  ASSERT_OK(parse(&o, err, "--verify-control", NULL, NULL, NULL));
  ASSERT_EQ(o.mode, PF_MODE_VERIFY_CONTROL);
  ASSERT_EQ(parse(&o, err, "--verify-control", "--op", "add", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--verify-control runs alone (add_ftz, fp32, the "
                       "cases of add's verification set): drop --op");
  ASSERT_EQ(parse(&o, err, "--verify-control", "--dtype", "fp16", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --dtype");
  ASSERT_EQ(parse(&o, err, "--verify-control", "--dump", "d", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --dump");
  ASSERT_EQ(parse(&o, err, "--verify-control", "--shape", "7x7", NULL),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "--shape with --verify-control");
  ASSERT_EQ(parse(&o, err, "--verify-control", "--json", "r.json", NULL),
            CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--smoke", "--trans", "tt", NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "--trans shapes the one case");
  ASSERT_EQ(parse(&o, err, "--bench", "--extreme", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "drop --bench to run that case alone");
  ASSERT_EQ(parse(&o, err, "--format", "json", NULL, NULL), CM_EINVAL);
  ASSERT_CONTAINS(err, "add --json PATH or --list");
  ASSERT_EQ(parse(&o, err, "--seed", " -1", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--shape", "+4x4", NULL, NULL), CM_EINVAL);
  ASSERT_EQ(parse(&o, err, "--op", "softmax", "--op", "matmul"), CM_EINVAL);
  ASSERT_CONTAINS(err, "--op given twice (softmax, then matmul)");
  /* --bench --shape still narrows the standard shapes */
  ASSERT_OK(parse(&o, err, "--bench", "--shape", "8192x8192", NULL));
  return 0;
}

TEST_IMPL(alloc_env) {
  pf_alloc_mode m;
  char err[256];
  ASSERT_OK(pf_alloc_resolve(-1, NULL, &m, err, sizeof err));
  ASSERT_EQ(m, PF_ALLOC_POOLED);
  ASSERT_OK(pf_alloc_resolve(-1, "exact", &m, err, sizeof err));
  ASSERT_EQ(m, PF_ALLOC_EXACT);
  ASSERT_STR_EQ(pf_alloc_name(m), "exact");
  ASSERT_EQ(pf_alloc_resolve(-1, "EXACT", &m, err, sizeof err), CM_EINVAL);
  ASSERT_CONTAINS(err, "CUDA_PORTFOLIO_ALLOC");
  /* the value repeated as one line of text: an ESC does not reach the
   * terminal */
  ASSERT_EQ(pf_alloc_resolve(-1, "ex\x1b[2Jact", &m, err, sizeof err),
            CM_EINVAL);
  ASSERT_CONTAINS(err, "allocator 'ex?[2Jact'");
  /* the flag wins over the environment */
  ASSERT_OK(pf_alloc_resolve(PF_ALLOC_POOLED, "exact", &m, err, sizeof err));
  ASSERT_EQ(m, PF_ALLOC_POOLED);
  return 0;
}

TEST_IMPL(npy_header) {
  char head[512], path[1024], back[256];
  size_t len;
  int64_t shape[2] = {3, 5};
  float data[15];
  FILE *f;
  long size;
  int i;
  ASSERT_OK(pf_npy_header("<f4", 2, shape, head, sizeof head, &len));
  ASSERT_EQ(len % 64, 0);
  ASSERT_TRUE(memcmp(head, "\x93NUMPY\x01\x00", 8) == 0);
  ASSERT_EQ((unsigned char)head[8] | ((unsigned char)head[9] << 8), len - 10);
  ASSERT_EQ(head[len - 1], '\n');
  memcpy(back, head + 10, len - 10);
  back[len - 10] = '\0';
  ASSERT_CONTAINS(back, "'descr': '<f4'");
  ASSERT_CONTAINS(back, "'fortran_order': False");
  ASSERT_CONTAINS(back, "'shape': (3, 5)");
  for (i = 0; i < 15; i++)
    data[i] = (float)i;
  snprintf(path, sizeof path, "%s/a.npy", cm_test_tmpdir());
  ASSERT_OK(pf_npy_write(path, "<f4", 4, 2, shape, data));
  f = fopen(path, "rb");
  ASSERT_TRUE(f != NULL);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, (long)len + 4 * 7, SEEK_SET);
  ASSERT_EQ(fread(data, 4, 1, f), 1);
  fclose(f);
  ASSERT_EQ(size, (long)len + 60);
  ASSERT_NEAR(data[0], 7.0, 0);
  ASSERT_OK(pf_npy_header("<f8", 1, shape, head, sizeof head, &len));
  memcpy(back, head + 10, len - 10);
  back[len - 10] = '\0';
  ASSERT_CONTAINS(back, "'shape': (3,)");
  return 0;
}

/* --trans with neither --op nor --shape selects every op at its default
 * shape; the transposes shape the matmul cases only (as --ld-pad, --stride
 * and --mask shape theirs). On the other ops they changed the case's seed
 * (pf_case_seed) and nothing else: the softmax case of such a run, rerun
 * alone (--op softmax, which refuses --trans), saw other inputs. Found by
 * the pf_cli fuzz target (tests/fuzz/regress/pf_cli/). */
TEST_IMPL(select_trans_matmul_only) {
  pf_opts o, one;
  pf_set s, alone;
  char err[256];
  int n, i, found = 0;
  const pf_op *ops = pf_ops(&n);
  ASSERT_OK(parse(&o, err, "--trans", "tt", NULL, NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  ASSERT_OK(parse(&one, err, "--op", "softmax", NULL, NULL));
  ASSERT_OK(pf_sets_build(&one, &alone));
  ASSERT_TRUE(alone.n > 0);
  for (i = 0; i < s.n; i++) {
    const pf_spec *sp = &s.v[i];
    const int mm = ops[sp->op].kind == PF_KIND_MATMUL;
    ASSERT_EQ(sp->trans_a, mm);
    ASSERT_EQ(sp->trans_b, mm);
    if (sp->op == alone.v[0].op && sp->variant == alone.v[0].variant &&
        sp->dt == alone.v[0].dt) {
      ASSERT_EQ(pf_case_seed(7, sp), pf_case_seed(7, &alone.v[0]));
      found = 1;
    }
  }
  ASSERT_TRUE(found);
  pf_set_free(&s);
  pf_set_free(&alone);
  return 0;
}

/* --extreme on matmul (since 2026-12-07; refused before, when matmul's
 * inputs were uniform in [-1, 1] in every case): with --op matmul, with an
 * MxNxK shape, and in a selection of every op, where each case takes it.
 * The test set and the smoke set each have matmul cases with extreme
 * inputs in every dtype, HOPPER's among them. */
TEST_IMPL(select_extreme_matmul) {
  pf_opts o;
  pf_set s;
  char err[256];
  int n, i, d, mode, mms = 0;
  const pf_op *ops = pf_ops(&n);
  const int mm = pf_op_find("matmul");
  ASSERT_OK(parse(&o, err, "--op", "matmul", "--extreme", NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  ASSERT_TRUE(s.n > 0);
  for (i = 0; i < s.n; i++)
    ASSERT_TRUE(s.v[i].op == mm && s.v[i].extreme == 1);
  pf_set_free(&s);
  ASSERT_OK(parse(&o, err, "--shape", "8x8x8", "--extreme", NULL));
  ASSERT_OK(parse(&o, err, "--extreme", NULL, NULL, NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  for (i = 0; i < s.n; i++) {
    ASSERT_EQ(s.v[i].extreme, 1);
    mms += ops[s.v[i].op].kind == PF_KIND_MATMUL;
  }
  ASSERT_TRUE(mms > 0 && mms < s.n);
  pf_set_free(&s);
  for (mode = 0; mode < 2; mode++) {
    int per_dt[3] = {0, 0, 0}, hopper = 0;
    ASSERT_OK(parse(&o, err, mode ? "--smoke" : "--test-only", "--op", "matmul",
                    NULL));
    ASSERT_OK(pf_sets_build(&o, &s));
    for (i = 0; i < s.n; i++)
      if (s.v[i].extreme) {
        per_dt[s.v[i].dt]++;
        hopper += s.v[i].variant == CPK_V_HOPPER;
      }
    for (d = 0; d < 3; d++)
      ASSERT_TRUE(per_dt[d] > 0);
    ASSERT_TRUE(hopper > 0);
    pf_set_free(&s);
  }
  return 0;
}

/* The smoke set (what the sanitize stage runs) takes every path of the
 * HOPPER matmul: operands and C with 16-byte leading dimensions (TMA loads
 * and the TMA-store epilogue, on ragged tiles, in both transposes) and an
 * odd leading dimension (the manual loader and the register epilogue). A
 * TMA-path shape added to the table but left out of the set (as a fixed
 * count once did) fails here. */
TEST_IMPL(smoke_matmul_paths) {
  pf_opts o;
  pf_set s;
  pf_case c;
  char err[256];
  int i, nops, tma_nn = 0, tma_tt = 0, odd = 0;
  const int mm = pf_op_find("matmul");
  ASSERT_TRUE(mm >= 0);
  ASSERT_OK(parse(&o, err, "--smoke", "--op", "matmul", NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  for (i = 0; i < s.n; i++) {
    const pf_spec *sp = &s.v[i];
    int64_t m, n, lda, ldb, ldc;
    ASSERT_EQ(sp->op, mm);
    if (sp->variant != CPK_V_HOPPER || sp->dt == CPK_F32)
      continue;
    /* the leading dimensions the runner derives from the spec */
    memset(&c, 0, sizeof c);
    c.spec = *sp;
    ASSERT_OK(pf_case_setup(&c, &pf_ops(&nops)[mm], CPK_V_HOPPER));
    m = c.g.m;
    n = c.g.n;
    lda = c.g.lda;
    ldb = c.g.ldb;
    ldc = c.g.ldc;
    pf_case_free(&c);
    if (lda % 8 == 0 && ldb % 8 == 0 && ldc % 8 == 0 &&
        (m % 128 != 0 || n % 256 != 0)) {
      if (!sp->trans_a && !sp->trans_b)
        tma_nn = 1;
      if (sp->trans_a && sp->trans_b)
        tma_tt = 1;
    }
    if (lda % 8 != 0 || ldb % 8 != 0 || ldc % 8 != 0)
      odd = 1;
  }
  ASSERT_TRUE(tma_nn);
  ASSERT_TRUE(tma_tt);
  ASSERT_TRUE(odd);
  pf_set_free(&s);
  return 0;
}

/* The smoke set runs every supported (op, variant, dtype) at least once, and
 * its auto cases take every plan; the negative control is in no set. */
TEST_IMPL(sets_cover) {
  pf_opts o;
  pf_set s;
  char err[256];
  int n, i, j, v, d, seen[16][16][3];
  const pf_op *ops = pf_ops(&n);
  const pf_plan_dev nodev = {132, 0, 0, 0};
  unsigned plans = 0;
  memset(seen, 0, sizeof seen);
  ASSERT_OK(parse(&o, err, "--smoke", NULL, NULL, NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  for (i = 0; i < s.n; i++) {
    const pf_spec *sp = &s.v[i];
    ASSERT_TRUE(sp->op >= 0 && sp->op < n);
    if (sp->variant >= 0)
      seen[sp->op][sp->variant][sp->dt] = 1;
    else if (ops[sp->op].kind == PF_KIND_ROWS)
      plans |= 1u << pf_plan_choose(ops[sp->op].kop, sp->dt, sp->dims[0],
                                    sp->dims[1], &nodev);
  }
  for (j = 0; j < n; j++)
    for (v = 0; v <= CPK_V_LAST; v++)
      for (d = 0; d < 3; d++)
        if (pf_op_supports(&ops[j], v, (cpk_dtype)d) && !seen[j][v][d])
          CM_TEST_FAIL_("smoke misses %s/%s/%s", ops[j].name,
                        pf_variant_name(v), pf_dtype_name((cpk_dtype)d));
  ASSERT_TRUE(plans & (1u << CPK_V_WARP));
  ASSERT_TRUE(plans & (1u << CPK_V_SPLIT));
  ASSERT_TRUE(plans & ((1u << CPK_V_BLOCK) | (1u << CPK_V_ONLINE)));
  ASSERT_TRUE(s.n < 400);
  pf_set_free(&s);
  /* --test-only filtered by op and dtype */
  ASSERT_OK(parse(&o, err, "--test-only", "--op", "softmax", NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  ASSERT_TRUE(s.n > 20);
  for (i = 0; i < s.n; i++)
    ASSERT_EQ(s.v[i].op, pf_op_find("softmax"));
  for (i = 0; i < s.n && !(s.v[i].mask && s.v[i].dims[1] == 1048577); i++)
    ;
  ASSERT_TRUE(i < s.n); /* a masked 1,048,577-wide case is in the set */
  pf_set_free(&s);
  /* --bench --shape keeps only that standard shape (three dtypes) */
  ASSERT_OK(bench_shape(&o, &s, "256x262144", "rmsnorm"));
  ASSERT_EQ(s.n, 3);
  for (i = 0; i < s.n; i++)
    ASSERT_TRUE(s.v[i].dims[0] == 256 && s.v[i].dims[1] == 262144);
  pf_set_free(&s);
  /* a shape that is not standard matches nothing (pf_main says so) */
  ASSERT_OK(bench_shape(&o, &s, "256x262145", NULL));
  ASSERT_EQ(s.n, 0);
  pf_set_free(&s);
  /* copy and add: 2^28 elements, then the row shapes' counts, 2^26 and
   * 2^25, each dtype, as one 1xN row */
  ASSERT_OK(parse(&o, err, "--bench", "--op", "copy", NULL));
  ASSERT_OK(pf_sets_build(&o, &s));
  ASSERT_EQ(s.n, 9);
  for (i = 0; i < s.n; i++) {
    static const int64_t want[3] = {(int64_t)1 << 28, (int64_t)1 << 26,
                                    (int64_t)1 << 25};
    ASSERT_TRUE(s.v[i].ndims == 2 && s.v[i].dims[0] == 1);
    ASSERT_EQ(s.v[i].dims[1], want[i / 3]);
    ASSERT_EQ((int)s.v[i].dt, i % 3);
  }
  pf_set_free(&s);
  /* a row shape names the elementwise cases of its element count, and
   * the row ops' cases of that shape: 65536x1024 = 2^26 */
  ASSERT_OK(bench_shape(&o, &s, "65536x1024", NULL));
  for (i = 0, j = 0, v = 0; i < s.n; i++) {
    if (ops[s.v[i].op].kind == PF_KIND_ELEM) {
      ASSERT_EQ(s.v[i].dims[1], (int64_t)1 << 26);
      j++;
    } else {
      ASSERT_EQ(ops[s.v[i].op].kind, PF_KIND_ROWS);
      ASSERT_TRUE(s.v[i].dims[0] == 65536 && s.v[i].dims[1] == 1024);
      v++;
    }
  }
  ASSERT_EQ(j, 6);  /* copy and add, three dtypes each */
  ASSERT_EQ(v, 15); /* five row ops, three dtypes each */
  pf_set_free(&s);
  ASSERT_OK(bench_shape(&o, &s, "1x33554432", "add"));
  ASSERT_EQ(s.n, 3);
  for (i = 0; i < s.n; i++)
    ASSERT_EQ(s.v[i].dims[1], (int64_t)1 << 25);
  pf_set_free(&s);
  /* 2^25 as rows, but not a count no standard shape has, nor one whose
   * product does not fit in 64 bits */
  ASSERT_OK(bench_shape(&o, &s, "32x1048576", "copy"));
  ASSERT_EQ(s.n, 3);
  pf_set_free(&s);
  ASSERT_OK(bench_shape(&o, &s, "1x33554433", "copy"));
  ASSERT_EQ(s.n, 0);
  pf_set_free(&s);
  ASSERT_TRUE(parse(&o, err, "--bench", "--shape", "4611686018427387904x4",
                    NULL) != CM_OK); /* the parser names the overflow */
  ASSERT_EQ(pf_op_find("copy_unmasked"), -1);
  return 0;
}

static int make_case(pf_case *c, const char *op, int64_t r, int64_t w,
                     int64_t stride, cpk_dtype dt) {
  int n;
  memset(c, 0, sizeof *c);
  c->spec.op = pf_op_find(op);
  c->spec.dt = dt;
  c->spec.dims[0] = r;
  c->spec.dims[1] = w;
  c->spec.ndims = 2;
  c->spec.stride = stride;
  c->spec.extreme = 1;
  c->spec.mask = 1;
  return pf_case_setup(c, &pf_ops(&n)[c->spec.op], CPK_V_BLOCK);
}

/* A matmul case of M x N x K in dt on the TILED path, leading dimensions
 * padded by ld_pad, set up (no fill). */
static int matmul_case(pf_case *c, cpk_dtype dt, int64_t m, int64_t n,
                       int64_t k, int64_t ld_pad) {
  int nops;
  memset(c, 0, sizeof *c);
  c->spec.op = pf_op_find("matmul");
  c->spec.dt = dt;
  c->spec.dims[0] = m;
  c->spec.dims[1] = n;
  c->spec.dims[2] = k;
  c->spec.ndims = 3;
  c->spec.ld_pad = ld_pad;
  return pf_case_setup(c, &pf_ops(&nops)[c->spec.op], CPK_V_TILED);
}

/* The bytes behind gbps and the roofline (docs/PERFORMANCE.md, "The two
 * numbers"): each tensor's logical elements once, a row's padding never;
 * rmsnorm's w and rmsnorm_backward's w and dw once, row_sum's output one
 * element a row. R = 6 rows of W = 10 fp16 columns stored 13 apart. */
TEST_IMPL(op_bytes) {
  static const struct {
    const char *op;
    double bytes; /* es = 2, R W = 60 */
  } want[] = {{"row_sum", 2.0 * (60 + 6)},
              {"softmax", 2.0 * (2 * 60)},
              {"softmax_backward", 2.0 * (3 * 60)},
              {"rmsnorm", 2.0 * (2 * 60 + 10)},
              {"rmsnorm_backward", 2.0 * (3 * 60 + 2 * 10)},
              {"copy", 2.0 * (2 * 60)},
              {"add", 2.0 * (3 * 60)}};
  pf_case c;
  size_t i;
  int n;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    ASSERT_OK(make_case(&c, want[i].op, 6, 10, 13, CPK_F16));
    pf_case_free(&c);
    c.spec.mask = 0; /* unmasked softmax: no mask tensor */
    ASSERT_OK(pf_case_setup(&c, &pf_ops(&n)[c.spec.op], CPK_V_BLOCK));
    if (c.op->bytes(&c) != want[i].bytes)
      CM_TEST_FAIL_("%s: %.0f bytes, expected %.0f", want[i].op,
                    c.op->bytes(&c), want[i].bytes);
    ASSERT_NEAR(c.op->flops(&c), 0, 0);
    pf_case_free(&c);
  }
  /* matmul 6 x 10 x 4 with leading dimensions padded by 3: A, B and C
   * once, 2 M N K flops */
  ASSERT_OK(matmul_case(&c, CPK_F16, 6, 10, 4, 3));
  ASSERT_NEAR(c.op->bytes(&c), 2.0 * (6 * 4 + 4 * 10 + 6 * 10), 0);
  ASSERT_NEAR(c.op->flops(&c), 2.0 * 6 * 10 * 4, 0);
  pf_case_free(&c);
  return 0;
}

TEST_IMPL(fill_inputs) {
  pf_case c;
  pf_rng rng;
  int64_t j;
  ASSERT_OK(make_case(&c, "softmax", 12, 10, 13, CPK_F16));
  ASSERT_EQ(c.ntensors, 3); /* x, mask, y */
  pf_rng_seed(&rng, 42);
  c.op->fill(&c, &rng);
  pf_fill_images(&c);
  /* row 1 carries the 10000/9999 pattern (rounded to fp16) */
  ASSERT_NEAR(c.t[0].val[10], 10000.0, 0);
  ASSERT_NEAR(c.t[0].val[11], pf_dtype_round(CPK_F16, 9999.0), 0);
  /* row 2 is fully masked, row 3 all but one */
  for (j = 0; j < 10; j++)
    ASSERT_EQ(c.t[1].mval[20 + j], 1);
  {
    int kept = 0;
    for (j = 0; j < 10; j++)
      kept += !c.t[1].mval[30 + j];
    ASSERT_EQ(kept, 1);
  }
  /* the row gap of the input image holds 777, exactly representable */
  ASSERT_NEAR(pf_dtype_load(CPK_F16, c.t[0].image + 2 * 10), 777.0, 0);
  /* every value is exactly representable in the dtype */
  for (j = 0; j < 120; j++)
    if (isfinite(c.t[0].val[j]))
      ASSERT_TRUE(c.t[0].val[j] == pf_dtype_round(CPK_F16, c.t[0].val[j]));
  /* the reference marks the fully masked row as zeros */
  ASSERT_OK(c.op->reference(&c));
  ASSERT_TRUE(c.t[2].expected[20] == 0 && c.t[2].expected[29] == 0);
  pf_case_free(&c);
  return 0;
}

TEST_IMPL(case_seed) {
  pf_spec a, b;
  memset(&a, 0, sizeof a);
  a.op = 3;
  a.dims[0] = 4;
  a.dims[1] = 5;
  b = a;
  ASSERT_TRUE(pf_case_seed(7, &a) == pf_case_seed(7, &b));
  b.dt = CPK_F16;
  ASSERT_TRUE(pf_case_seed(7, &a) != pf_case_seed(7, &b));
  ASSERT_TRUE(pf_case_seed(7, &a) != pf_case_seed(8, &a));
  return 0;
}

/* Which products are sampled: above the limit in force, 2^40 unless
 * --sample-above (pf_set_matmul_sample_above) set another. The benchmark's
 * 4095x4097x4093 and 4096^3 (6.9e10) and 8192^3 (5.5e11) are checked in
 * full by default (8192^3 was sampled under the limit of 2^37, before the
 * thirteenth session), 16384^3 (4.4e12) on a sample; 1500x1400x1300 (2.7e9)
 * in full by default and on a sample under a limit of 2^31 (the limit
 * before 2026-12-06). */
TEST_IMPL(matmul_sample) {
  pf_case c;
  pf_rng rng;
  int64_t i;
  ASSERT_TRUE(pf_matmul_sample_above() == PF_MATMUL_SAMPLE_ABOVE);
  ASSERT_TRUE(!pf_matmul_sampled(4095, 4097, 4093));
  ASSERT_TRUE(!pf_matmul_sampled(4096, 4096, 4096));
  ASSERT_TRUE(!pf_matmul_sampled(1, 1, PF_MATMUL_SAMPLE_ABOVE));
  ASSERT_TRUE(pf_matmul_sampled(1, 1, PF_MATMUL_SAMPLE_ABOVE + 1));
  ASSERT_TRUE(!pf_matmul_sampled(8192, 8192, 8192));
  ASSERT_TRUE(pf_matmul_sampled(16384, 16384, 16384));
  ASSERT_TRUE(pf_matmul_sampled(INT64_MAX, INT64_MAX, INT64_MAX));
  pf_set_matmul_sample_above(0);
  ASSERT_TRUE(pf_matmul_sampled(1, 1, 1));
  pf_set_matmul_sample_above(INT64_MAX);
  ASSERT_TRUE(!pf_matmul_sampled(1 << 20, 1 << 20, 1 << 20)); /* 2^60 */
  pf_set_matmul_sample_above(-1);
  ASSERT_TRUE(pf_matmul_sample_above() == PF_MATMUL_SAMPLE_ABOVE);
  ASSERT_OK(matmul_case(&c, CPK_F32, 1500, 1400, 1300, 3)); /* 2.7e9 MACs */
  ASSERT_EQ(c.g.lda, 1303);
  ASSERT_EQ(c.g.ldc, 1403);
  pf_rng_seed(&rng, 1);
  c.op->fill(&c, &rng);
  ASSERT_TRUE(c.sample == NULL); /* under the default limit: in full */
  pf_case_free(&c);
  ASSERT_OK(matmul_case(&c, CPK_F32, 1500, 1400, 1300, 3));
  pf_set_matmul_sample_above((int64_t)1 << 31);
  pf_rng_seed(&rng, 1);
  c.op->fill(&c, &rng);
  pf_set_matmul_sample_above(-1);
  ASSERT_TRUE(c.sample != NULL);
  ASSERT_TRUE(c.nsample > 2 * (1500 + 1400));
  for (i = 1; i < c.nsample; i++)
    ASSERT_TRUE(c.sample[i] > c.sample[i - 1]); /* sorted, unique */
  ASSERT_EQ(c.sample[c.nsample - 1], 1500 * 1400 - 1);
  pf_case_free(&c);
  return 0;
}

/* cpk_matmul_workspace_bytes (pure, no GPU): HOPPER's repack scratch only
 * for fp16/bf16 operands whose ld TMA cannot take; sections of rows x ld
 * rounded up to 64 elements, 2 bytes each, 256-byte rounded. */
TEST_IMPL(matmul_workspace) {
  /* The benchmark shape: NN, odd lds everywhere. */
  cpk_gemm g = {4095, 4097, 4093, 4093, 4097, 4097, 0, 0};
  cpk_gemm al = {4096, 4096, 4096, 4096, 4096, 4096, 0, 0};
  cpk_gemm h = g, bad = g;
  size_t need, a_only, b_only;
  int v, d;
  /* A: 4095 rows x 4096 (4093 padded); B: 4093 rows x 4160 (4097 padded) */
  const size_t sa = (size_t)4095 * 4096 * 2,
               sb = ((size_t)4093 * 4160 * 2 + 255) / 256 * 256;
  need = cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, g);
  ASSERT_EQ(need, sa + sb);
  ASSERT_EQ(need, 67600128);
  ASSERT_TRUE(need >= (size_t)(4095 * 4093 + 4093 * 4097) * 2);
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_BF16, g), need);
  ASSERT_EQ(need % 256, 0);
  /* Aligned lds: TMA reads in place, nothing to size. */
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, al), 0);
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_BF16, al), 0);
  /* One operand odd: only its section. */
  h.ldb = 4104; /* multiple of 8 */
  a_only = cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, h);
  ASSERT_EQ(a_only, sa);
  h = g;
  h.lda = 4096;
  b_only = cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, h);
  ASSERT_EQ(b_only, sb);
  /* Transposed operands keep their stored orientation: A^T is K x M. */
  h = g;
  h.trans_a = 1;
  h.lda = 4095; /* >= M */
  h.trans_b = 1;
  h.ldb = 4093; /* >= K */
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, h),
            ((size_t)4093 * 4096 * 2 + 255) / 256 * 256 +
                ((size_t)4097 * 4096 * 2 + 255) / 256 * 256);
  /* The smallest case: one element each, 64-element padded rows. */
  {
    cpk_gemm one = {1, 1, 1, 1, 1, 1, 0, 0};
    ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, one), 512);
  }
  /* Every other variant and fp32: 0, odd lds or not. */
  for (v = 0; v <= CPK_V_LAST; v++)
    for (d = 0; d < 3; d++) {
      size_t w = cpk_matmul_workspace_bytes((cpk_variant)v, (cpk_dtype)d, g);
      if (v != CPK_V_HOPPER || d == CPK_F32)
        ASSERT_EQ(w, 0);
      else
        ASSERT_EQ(w, need);
    }
  /* An invalid shape sizes nothing (cpk_matmul rejects it). */
  bad.lda = 4092; /* < K */
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, bad), 0);
  bad = g;
  bad.m = 0;
  ASSERT_EQ(cpk_matmul_workspace_bytes(CPK_V_HOPPER, CPK_F16, bad), 0);
  /* and the row-op sizing stays 0 for matmul */
  {
    cpk_rows r = {4095, 4097, 4097};
    ASSERT_EQ(cpk_workspace_bytes(CPK_OP_MATMUL, CPK_V_HOPPER, CPK_F16, r), 0);
  }
  return 0;
}

/* A kernel that computed exactly and rounded its output once to the dtype
 * must pass every op's tolerance, extreme rows and masks included; an
 * output with one element zeroed must not (the tolerances are not so loose
 * that they accept anything). */
TEST_IMPL(tolerance_admits_rounding) {
  static const char *const ops[] = {"row_sum",          "softmax",
                                    "softmax_backward", "rmsnorm",
                                    "rmsnorm_backward", "add"};
  size_t k;
  int d, i;
  for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
    for (d = 0; d < 3; d++) {
      pf_case c;
      pf_rng rng;
      ASSERT_OK(make_case(&c, ops[k], 23, 257, 0, (cpk_dtype)d));
      pf_rng_seed(&rng, 99 + k);
      c.op->fill(&c, &rng);
      ASSERT_OK(c.op->reference(&c));
      for (i = 0; i < c.ntensors; i++) {
        pf_tensor *t = &c.t[i];
        int64_t n = t->rows * t->cols, j, bad = -1;
        pf_tol tol = pf_tol_get(c.kop, c.dt);
        pf_cmp cmp;
        if (!t->is_output)
          continue;
        pf_dtype_saturate(c.dt, t->expected, n);
        for (j = 0; j < n; j++) {
          t->val[j] = pf_dtype_round(c.dt, t->expected[j]);
          if (bad < 0 && isfinite(t->expected[j]) &&
              fabs(t->expected[j]) > 1e-3)
            bad = j;
        }
        if (!pf_compare(t->val, t->expected, t->scale, n, NULL, 0, tol, &cmp))
          CM_TEST_FAIL_("%s %s %s: rounding alone fails at %lld: %g vs %.17g",
                        ops[k], pf_dtype_name(c.dt), t->name,
                        (long long)cmp.worst, cmp.worst_actual,
                        cmp.worst_expected);
        ASSERT_TRUE(bad >= 0);
        t->val[bad] = 0;
        ASSERT_EQ(
            pf_compare(t->val, t->expected, t->scale, n, NULL, 0, tol, &cmp),
            0);
      }
      pf_case_free(&c);
    }
  return 0;
}

/* Fills the case with seed 5 on `threads` threads; returns a copy of every
 * input's values and masks, concatenated (caller frees), in *out. */
static int fill_copy(pf_case *c, int threads, unsigned char **out,
                     size_t *size) {
  pf_rng rng;
  size_t total = 0, at = 0;
  int i;
  pf_ref_set_threads(threads);
  pf_rng_seed(&rng, 5);
  c->op->fill(c, &rng);
  pf_fill_images(c);
  pf_ref_set_threads(0);
  for (i = 0; i < c->ntensors; i++)
    total += (size_t)(c->t[i].rows * c->t[i].cols) * 9 + c->t[i].bytes;
  if ((*out = calloc(total, 1)) == NULL)
    return CM_ENOMEM;
  for (i = 0; i < c->ntensors; i++) {
    pf_tensor *t = &c->t[i];
    size_t n = (size_t)(t->rows * t->cols);
    if (t->is_output)
      continue;
    if (t->val)
      memcpy(*out + at, t->val, n * sizeof(double));
    at += n * sizeof(double);
    if (t->mval)
      memcpy(*out + at, t->mval, n);
    at += n;
    memcpy(*out + at, t->image, t->bytes);
    at += t->bytes;
  }
  *size = at;
  return CM_OK;
}

/* The inputs of a case depend on the seed only: 1 thread and 3 threads
 * (ranges split at different places) give the same bytes, for fills that
 * draw per element (add), per row (softmax masks, softmax_backward y) and
 * extreme rows. */
TEST_IMPL(fill_threads_invariant) {
  static const struct {
    const char *op;
    int64_t rows, cols;
  } cases[] = {{"add", 1, 300007},
               {"softmax", 67, 5003},
               {"softmax_backward", 41, 7001},
               {"rmsnorm", 45, 6007}};
  size_t k;
  for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    pf_case a, b;
    unsigned char *va, *vb;
    size_t na, nb;
    ASSERT_OK(
        make_case(&a, cases[k].op, cases[k].rows, cases[k].cols, 0, CPK_BF16));
    ASSERT_OK(
        make_case(&b, cases[k].op, cases[k].rows, cases[k].cols, 0, CPK_BF16));
    ASSERT_OK(fill_copy(&a, 1, &va, &na));
    ASSERT_OK(fill_copy(&b, 3, &vb, &nb));
    ASSERT_EQ(na, nb);
    ASSERT_TRUE(na > 0);
    if (memcmp(va, vb, na) != 0) {
      size_t at = 0;
      while (va[at] == vb[at])
        at++;
      CM_TEST_FAIL_("%s: inputs differ between 1 and 3 threads at byte %zu",
                    cases[k].op, at);
    }
    /* and the seed matters: the first input's values are not constant */
    ASSERT_TRUE(a.t[0].val[0] != a.t[0].val[1] ||
                a.t[0].val[1] != a.t[0].val[2]);
    free(va);
    free(vb);
    pf_case_free(&a);
    pf_case_free(&b);
  }
  return 0;
}

/* The counter form of the generator is the sequential stream. */
TEST_IMPL(rng_counter) {
  pf_rng r, s;
  int i;
  pf_rng_seed(&r, 0x1234);
  for (i = 0; i < 1000; i++) {
    uint64_t x = pf_rng_next(&r);
    ASSERT_TRUE(x == pf_rng_at(0x1234, (uint64_t)i));
    if (i == 500) {
      pf_rng_seek(&s, 0x1234, 501);
      ASSERT_TRUE(pf_rng_next(&s) == pf_rng_at(0x1234, 501));
    }
  }
  ASSERT_TRUE(pf_rng_at(1, 0) != pf_rng_at(2, 0));
  ASSERT_GE(plat_cpu_count(), 1);
  return 0;
}
