/* Instrumentation markers found in fabricated environments. */
#include "cm_test.h"
#include "cm_str.h"
#include "pf_instrument.h"

TEST_IMPL(marker_names) {
  ASSERT_TRUE(pf_instrument_is_marker("CUDA_INJECTION64_PATH"));
  ASSERT_TRUE(pf_instrument_is_marker("NVTX_INJECTION64_PATH"));
  ASSERT_TRUE(pf_instrument_is_marker("LD_PRELOAD"));
  ASSERT_TRUE(pf_instrument_is_marker("NV_NSIGHT_INJECTION_TRANSPORT_KEY"));
  ASSERT_TRUE(pf_instrument_is_marker("NV_SANITIZER_INJECTION_PORT_BASE"));
  ASSERT_TRUE(pf_instrument_is_marker("NSYS_PROFILING_SESSION_ID"));
  ASSERT_TRUE(pf_instrument_is_marker("COMPUTE_SANITIZER_OPTIONS"));
  ASSERT_TRUE(pf_instrument_is_marker("NV_COMPUTE_PROFILER_PERFWORKS_DIR"));
  ASSERT_TRUE(pf_instrument_is_marker("CUDA_LAUNCH_BLOCKING"));
  /* Near misses are not markers: exact names match whole. */
  ASSERT_TRUE(!pf_instrument_is_marker("LD_PRELOAD_X"));
  ASSERT_TRUE(!pf_instrument_is_marker("LD_LIBRARY_PATH"));
  ASSERT_TRUE(!pf_instrument_is_marker("CUDA_VISIBLE_DEVICES"));
  ASSERT_TRUE(!pf_instrument_is_marker("NSYSX"));
  ASSERT_TRUE(!pf_instrument_is_marker(""));
  ASSERT_TRUE(!pf_instrument_is_marker(NULL));
  return 0;
}

TEST_IMPL(fabricated_env) {
  char *env[] = {"HOME=/root",
                 "CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so",
                 "PATH=/usr/bin",
                 "NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN=49152",
                 "LD_PRELOAD=",
                 "NSYS_SESSION=1",
                 NULL};
  pf_markers m;
  pf_instrument_detect(env, &m);
  ASSERT_EQ(m.count, 4);
  /* environment order, names only (values never copied) */
  ASSERT_STR_EQ(m.names[0], "CUDA_INJECTION64_PATH");
  ASSERT_STR_EQ(m.names[1], "NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN");
  ASSERT_STR_EQ(m.names[2], "LD_PRELOAD"); /* empty value still counts */
  ASSERT_STR_EQ(m.names[3], "NSYS_SESSION");
  return 0;
}

TEST_IMPL(clean_env) {
  char *env[] = {"HOME=/root", "CUDA_VISIBLE_DEVICES=0",
                 "LD_LIBRARY_PATH=/usr/local/cuda/lib64", NULL};
  pf_markers m;
  m.count = 99;
  pf_instrument_detect(env, &m);
  ASSERT_EQ(m.count, 0);
  pf_instrument_detect(NULL, &m);
  ASSERT_EQ(m.count, 0);
  return 0;
}

/* Windows environments hold "=C:=C:\\dir" entries and names without '='. */
TEST_IMPL(windows_entries) {
  char *env[] = {"=C:=C:\\work", "NVTX_INJECTION64_PATH", "Path=C:\\x", NULL};
  pf_markers m;
  pf_instrument_detect(env, &m);
  ASSERT_EQ(m.count, 1);
  ASSERT_STR_EQ(m.names[0], "NVTX_INJECTION64_PATH");
  return 0;
}

TEST_IMPL(cap) {
  static char store[PF_MAX_MARKERS + 8][32];
  char *env[PF_MAX_MARKERS + 9];
  char last[32];
  pf_markers m;
  int i;
  for (i = 0; i < PF_MAX_MARKERS + 8; i++) {
    cm_snprintf(store[i], sizeof store[i], "NSYS_V%d=1", i);
    env[i] = store[i];
  }
  env[PF_MAX_MARKERS + 8] = NULL;
  pf_instrument_detect(env, &m);
  ASSERT_EQ(m.count, PF_MAX_MARKERS);
  cm_snprintf(last, sizeof last, "NSYS_V%d", PF_MAX_MARKERS - 1);
  ASSERT_STR_EQ(m.names[PF_MAX_MARKERS - 1], last);
  return 0;
}
