/* The harness end to end on a real device (label gpu; skipped, 77, without
 * one): opens a run, times a trivial case (a cudaMemsetAsync per input set),
 * closes it to a file, and checks the file against the schema and the
 * numbers against the method (sample counts, rotation, ceiling, launch
 * floor), once with each L2 flush (write, read). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "cm_test.h"
#include "cm_error.h"
#include "cm_str.h"
#include "pf_timing.h"
#include "schema_check.h"

#include <cuda_runtime_api.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSETS 3
#define BYTES ((size_t)64 << 20)

typedef struct {
  void *buf[NSETS];
  int launches[NSETS];
  int peer_launches[NSETS];
  int rechecked;
} ctx_t;

static int launch(void *p, int set, cudaStream_t s) {
  ctx_t *c = p;
  c->launches[set]++;
  return cudaMemsetAsync(c->buf[set], set, BYTES, s) == cudaSuccess ? CM_OK
                                                                    : CM_ECUDA;
}

/* A stand-in peer: the same memset, counted apart. */
static int peer(void *p, int set, cudaStream_t s) {
  ctx_t *c = p;
  c->peer_launches[set]++;
  return cudaMemsetAsync(c->buf[set], 0x5a, BYTES, s) == cudaSuccess ? CM_OK
                                                                     : CM_ECUDA;
}

static int recheck(void *p) {
  ctx_t *c = p;
  c->rechecked++;
  return CM_OK;
}

/* 1 with a device. Without one: 0 (the test skips), unless
 * KERNEL_REQUIRE_GPU=1, where the test must fail instead (the project's
 * rule for the gpu label): the process exits 3, as cuda_portfolio does. */
static int have_device(void) {
  int n = 0;
  const char *req = getenv("KERNEL_REQUIRE_GPU");
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    if (req != NULL && strcmp(req, "1") == 0) {
      fprintf(stderr, "a CUDA device was required (KERNEL_REQUIRE_GPU=1) "
                      "but none is usable: failed\n");
      fflush(stderr);
      exit(3);
    }
    fprintf(stderr, "no CUDA device: skipped\n");
    return 0;
  }
  return 1;
}

/* One run with the given flush and peer sampling (-1: no peer); checks the
 * file. */
static int run_case(pf_flush flush, int interleaved, const char *name) {
  static char *argv[] = {"test_bench_gpu", NULL};
  pf_bench_opts o;
  pf_bench *b = NULL;
  pf_timed_case tc;
  ctx_t ctx;
  char path[1024], err[512];
  json_t *doc, *schema, *c0, *t, *ceil, *pt;
  json_error_t e;
  double floor_s;
  int i;
  memset(&ctx, 0, sizeof ctx);
  for (i = 0; i < NSETS; i++)
    ASSERT_EQ(cudaMalloc(&ctx.buf[i], BYTES), cudaSuccess);
  pf_bench_opts_init(&o);
  ASSERT_EQ(o.flush, PF_FLUSH_WRITE); /* the default */
  o.flush = flush;
  ASSERT_EQ(o.peer_interleaved, 1); /* the default */
  if (interleaved >= 0)
    o.peer_interleaved = interleaved;
  o.warmup_s = 0.01;
  o.min_samples = 7;
  o.max_samples = 50;
  o.budget_s = 0.5;
  o.progress = 0;
  o.argc = 1;
  o.argv = argv;
  ASSERT_OK(pf_bench_open(&o, &b));
  memset(&tc, 0, sizeof tc);
  tc.info.op = "memset";
  tc.info.variant = "runtime";
  tc.info.dtype = "u8";
  tc.info.dims[0] = (int64_t)BYTES;
  tc.info.ndims = 1;
  tc.info.logical_bytes = (double)BYTES;
  tc.ctx = &ctx;
  tc.nsets = NSETS;
  tc.launch = launch;
  tc.recheck = recheck;
  if (interleaved >= 0) {
    tc.peer_launch = peer;
    tc.peer_name = "memset-peer";
  }
  ASSERT_OK(pf_bench_case(b, &tc, 0.0, 0.0, 0.0, 0.0));
  ASSERT_OK(
      cm_snprintf(path, sizeof path, "%s/%s.json", cm_test_tmpdir(), name));
  ASSERT_OK(pf_bench_close(b, path));
  ASSERT_EQ(ctx.rechecked, 1);
  for (i = 0; i < NSETS; i++) {
    ASSERT_GT(ctx.launches[i], 1); /* every set used: rotation */
    cudaFree(ctx.buf[i]);
  }

  doc = json_load_file(path, 0, &e);
  ASSERT_TRUE(doc != NULL);
  schema = json_load_file(CP_SCHEMA_PATH, 0, &e);
  ASSERT_TRUE(schema != NULL);
  if (schema_check(schema, doc, err, sizeof err))
    CM_TEST_FAIL_("schema: %s", err);
  ceil = json_object_get(doc, "ceilings");
  ASSERT_TRUE(json_real_value(json_object_get(ceil, "copy_bandwidth_gbps")) >
              1.0);
  /* Reading alone is measured too (a rate, not absent). */
  ASSERT_TRUE(json_real_value(json_object_get(ceil, "read_bandwidth_gbps")) >
              1.0);
  /* The launch floor: an empty kernel between two events, a few
   * microseconds; far under the 64 MiB memset's time. */
  floor_s = json_real_value(json_object_get(ceil, "launch_floor_s"));
  ASSERT_TRUE(floor_s > 0 && floor_s < 1e-3);
  ASSERT_STR_EQ(json_string_value(
                    json_object_get(json_object_get(doc, "settings"), "flush")),
                flush == PF_FLUSH_READ ? "read" : "write");
  c0 = json_array_get(json_object_get(doc, "cases"), 0);
  t = json_object_get(c0, "timing");
  ASSERT_GE(json_integer_value(json_object_get(t, "n")), 7);
  ASSERT_LE(json_integer_value(json_object_get(t, "n")), 50);
  ASSERT_EQ(json_array_size(json_object_get(t, "samples_s")),
            json_integer_value(json_object_get(t, "n")));
  ASSERT_TRUE(json_real_value(json_object_get(t, "median_s")) > floor_s);
  ASSERT_STR_EQ(json_string_value(json_object_get(c0, "cache")), "cold");
  pt = json_object_get(json_object_get(c0, "peer"), "timing");
  if (interleaved < 0) {
    ASSERT_TRUE(
        json_is_false(json_object_get(json_object_get(c0, "peer"), "present")));
  } else {
    ASSERT_TRUE(
        json_is_true(json_object_get(json_object_get(c0, "peer"), "present")));
    ASSERT_STR_EQ(json_string_value(json_object_get(
                      json_object_get(doc, "settings"), "peer_sampling")),
                  interleaved ? "interleaved" : "sequential");
    for (i = 0; i < NSETS; i++)
      ASSERT_GT(ctx.peer_launches[i], 1); /* the peer rotates sets too */
    if (interleaved) {
      /* one sample of each per round, one stopping rule for both */
      ASSERT_EQ(json_integer_value(json_object_get(pt, "n")),
                json_integer_value(json_object_get(t, "n")));
      ASSERT_STR_EQ(json_string_value(json_object_get(pt, "stop_reason")),
                    json_string_value(json_object_get(t, "stop_reason")));
      ASSERT_EQ(json_integer_value(json_object_get(pt, "warmup_launches")),
                json_integer_value(json_object_get(t, "warmup_launches")));
    }
  }
  json_decref(schema);
  json_decref(doc);
  return 0;
}

TEST_IMPL(run_one_case) {
  if (!have_device())
    return TEST_SKIP;
  return run_case(PF_FLUSH_WRITE, -1, "gpu-write");
}

/* The same with the L2 flushed by reading (--flush read). */
TEST_IMPL(run_read_flush) {
  if (!have_device())
    return TEST_SKIP;
  return run_case(PF_FLUSH_READ, -1, "gpu-read");
}

/* A case with a peer, sampled in alternation with ours (the default), and
 * one after the other. */
TEST_IMPL(run_peer_interleaved) {
  if (!have_device())
    return TEST_SKIP;
  return run_case(PF_FLUSH_WRITE, 1, "gpu-peer-interleaved");
}

TEST_IMPL(run_peer_sequential) {
  if (!have_device())
    return TEST_SKIP;
  return run_case(PF_FLUSH_WRITE, 0, "gpu-peer-sequential");
}

/* --hot: each sample is queued behind the hold of the stream, so the host's
 * time to submit the launch is not in it. The launch here sleeps 5 ms on
 * the host before it queues a 4 KiB memset: without the hold every sample
 * would be 5 ms or more (the first event is recorded at once on an idle
 * stream); with it, the samples are the memset's microseconds. */
static int slow_submit(void *p, int set, cudaStream_t s) {
  ctx_t *c = p;
  struct timespec ts = {0, 5000000};
  c->launches[set]++;
  nanosleep(&ts, NULL);
  return cudaMemsetAsync(c->buf[set], set, 4096, s) == cudaSuccess ? CM_OK
                                                                   : CM_ECUDA;
}

TEST_IMPL(hot_hold) {
  static char *argv[] = {"test_bench_gpu", "--hot", NULL};
  pf_bench_opts o;
  pf_bench *b = NULL;
  pf_timed_case tc;
  ctx_t ctx;
  char path[1024], err[512];
  json_t *doc, *schema, *c0, *t;
  json_error_t e;
  double med;
  if (!have_device())
    return TEST_SKIP;
  memset(&ctx, 0, sizeof ctx);
  ASSERT_EQ(cudaMalloc(&ctx.buf[0], 4096), cudaSuccess);
  pf_bench_opts_init(&o);
  o.cold = 0;
  o.warmup_s = 0.01;
  o.min_samples = 5;
  o.max_samples = 9;
  o.budget_s = 0.2;
  o.progress = 0;
  o.argc = 2;
  o.argv = argv;
  ASSERT_OK(pf_bench_open(&o, &b));
  memset(&tc, 0, sizeof tc);
  tc.info.op = "memset";
  tc.info.variant = "slow-submit";
  tc.info.dtype = "u8";
  tc.info.dims[0] = 4096;
  tc.info.ndims = 1;
  tc.info.logical_bytes = 4096.0;
  tc.ctx = &ctx;
  tc.nsets = 1;
  tc.launch = slow_submit;
  tc.recheck = recheck;
  ASSERT_OK(pf_bench_case(b, &tc, 0.0, 0.0, 0.0, 0.0));
  ASSERT_OK(
      cm_snprintf(path, sizeof path, "%s/gpu-hot.json", cm_test_tmpdir()));
  ASSERT_OK(pf_bench_close(b, path));
  cudaFree(ctx.buf[0]);
  doc = json_load_file(path, 0, &e);
  ASSERT_TRUE(doc != NULL);
  schema = json_load_file(CP_SCHEMA_PATH, 0, &e);
  ASSERT_TRUE(schema != NULL);
  if (schema_check(schema, doc, err, sizeof err))
    CM_TEST_FAIL_("schema: %s", err);
  ASSERT_TRUE(json_is_true(
      json_object_get(json_object_get(doc, "settings"), "hot_hold")));
  c0 = json_array_get(json_object_get(doc, "cases"), 0);
  ASSERT_STR_EQ(json_string_value(json_object_get(c0, "cache")), "hot");
  t = json_object_get(c0, "timing");
  ASSERT_EQ(json_integer_value(json_object_get(t, "hold_late")), 0);
  med = json_real_value(json_object_get(t, "median_s"));
  fprintf(stderr, "hot median with a 5 ms submission: %.3g s\n", med);
  ASSERT_TRUE(med > 0 && med < 1e-3);
  json_decref(schema);
  json_decref(doc);
  return 0;
}
