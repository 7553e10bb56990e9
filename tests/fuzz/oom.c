/* oom.c: every fuzz target's input again, with allocations made to fail.
 *
 *   fuzz_oom_<target> PATH...        (replay.c's main and arguments)
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * and --wrap=exit (tests/fuzz/CMakeLists.txt: GNU-style linkers on Linux),
 * so that every call of the first four in the target, in repro's libraries
 * and in the static libuv, zlib and jansson lands here. For one input: the
 * target runs twice with nothing failing (the second run counts the N
 * allocations it makes), then
 * once for each failure point k, the k-th allocation returning NULL and
 * every other succeeding. Each run must
 *   - return, not crash (a signal names the input and k before the
 *     process dies with it);
 *   - leave no block allocated that it allocated (every block this file
 *     handed out is in a table until freed, so a leak is counted, not
 *     guessed);
 *   - reach the failure point (a run that makes fewer than k allocations
 *     means the count is not repeatable: reported, since the failure
 *     points are then not what they claim).
 * The target's own invariants (FUZZ_CHECK) still hold, except where one
 * states an allocation's success: those ask fuzz_oom_failed() (fuzz.h).
 * One stop is by design: a failure inside jansson's reader stops the
 * process with exit(CM_JSON_OOM_EXIT) (cm_file.h). exit is wrapped too:
 * that exit, after the failure was made, ends the run (a jump back here)
 * and counts as a stop; the blocks the run still held are freed, as the
 * exit would have, and not counted as a leak. Any other exit is passed on.
 * Every point is tried up to FUZZ_OOM_POINTS of them (environment variable,
 * default 20000; 0: no limit); past it the points are sampled: the first
 * FUZZ_OOM_HEAD, then the rest evenly spread over the remaining
 * allocations. (A sample of 400 missed a leak that every point found: most
 * of a JSON input's allocations are the reader's, where a failure stops.)
 * What cannot be made to fail: allocations inside the C library itself
 * (fopen's buffer, for one), which do not pass through these symbols.
 * Exit 1 on a finding, else replay.c's codes. docs/REPRO.md,
 * "Allocation failures".
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include "cm_file.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
_Noreturn void __real_exit(int code);
_Noreturn void __wrap_exit(int code);

/* ---- the blocks handed out, by address (open addressing, linear probes,
 * deletion by backward shift: no tombstones to build up) ---- */
#define LIVE_BITS 21
#define LIVE_SLOTS ((size_t)1 << LIVE_BITS)
static uintptr_t live[LIVE_SLOTS];
static size_t live_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The blocks the current run allocated, in order (some freed since): a
 * run stopped by the JSON reader's exit has its left ones freed here, as
 * the process's exit would have. */
static void **run_blocks;
static size_t run_nblocks, run_cap;
static int recording;

static void record(void *p) {
  if (!recording)
    return;
  if (run_nblocks == run_cap) {
    size_t cap = run_cap == 0 ? 4096 : run_cap * 2;
    void **b = __real_realloc(run_blocks, cap * sizeof *b);
    if (b == NULL) {
      fprintf(stderr, "oom: the driver itself is out of memory\n");
      abort();
    }
    run_blocks = b;
    run_cap = cap;
  }
  run_blocks[run_nblocks++] = p;
}

/* the allocations counted, and the one made to fail (0: none) */
static unsigned long long calls, fail_at;
static int failed;

static size_t slot_of(uintptr_t p) {
  uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> (64 - LIVE_BITS));
}

static void live_add(void *p) {
  size_t i = slot_of((uintptr_t)p);
  if (live_count + 1 >= LIVE_SLOTS / 2) {
    /* a target with a million blocks alive is itself the finding */
    fprintf(stderr, "oom: more than %lu blocks alive at once\n",
            (unsigned long)(LIVE_SLOTS / 2));
    abort();
  }
  while (live[i] != 0)
    i = (i + 1) & (LIVE_SLOTS - 1);
  live[i] = (uintptr_t)p;
  live_count++;
}

/* 1 if p was handed out here (and is now forgotten), 0 if not */
static int live_del(void *p) {
  size_t i = slot_of((uintptr_t)p), j;
  while (live[i] != (uintptr_t)p) {
    if (live[i] == 0)
      return 0;
    i = (i + 1) & (LIVE_SLOTS - 1);
  }
  live[i] = 0;
  live_count--;
  /* shift back every later entry of the run that probed past slot i */
  for (j = (i + 1) & (LIVE_SLOTS - 1); live[j] != 0;
       j = (j + 1) & (LIVE_SLOTS - 1)) {
    size_t h = slot_of(live[j]);
    /* entry j stays if its home lies cyclically in (i, j] */
    if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
      continue;
    live[i] = live[j];
    live[j] = 0;
    i = j;
  }
  return 1;
}

/* 1 if this allocation is the one to fail */
static int fail_now(void) {
  calls++;
  if (fail_at != 0 && calls == fail_at) {
    failed = 1;
    return 1;
  }
  return 0;
}

void *__wrap_malloc(size_t n) {
  void *p = NULL;
  pthread_mutex_lock(&lock);
  if (!fail_now() && (p = __real_malloc(n)) != NULL) {
    live_add(p);
    record(p);
  }
  pthread_mutex_unlock(&lock);
  return p;
}

void *__wrap_calloc(size_t k, size_t n) {
  void *p = NULL;
  pthread_mutex_lock(&lock);
  if (!fail_now() && (p = __real_calloc(k, n)) != NULL) {
    live_add(p);
    record(p);
  }
  pthread_mutex_unlock(&lock);
  return p;
}

void *__wrap_realloc(void *p, size_t n) {
  void *q = NULL;
  pthread_mutex_lock(&lock);
  if (p != NULL && n == 0) {
    /* as free (glibc); C23 leaves it undefined, and no caller should */
    live_del(p);
    __real_free(p);
  } else if (!fail_now()) {
    /* a block the C library made keeps its owner's accounting */
    int ours = p != NULL && live_del(p);
    q = __real_realloc(p, n);
    if (q != NULL && (p == NULL || ours)) {
      live_add(q);
      record(q);
    } else if (q == NULL && ours)
      live_add(p); /* the old block stays the caller's */
  }
  pthread_mutex_unlock(&lock);
  return q;
}

void __wrap_free(void *p) {
  if (p == NULL)
    return;
  pthread_mutex_lock(&lock);
  live_del(p);
  pthread_mutex_unlock(&lock);
  __real_free(p);
}

int fuzz_oom_failed(void) {
  int f;
  pthread_mutex_lock(&lock);
  f = failed;
  pthread_mutex_unlock(&lock);
  return f;
}

/* ---- one run ---- */
static const char *cur_name;
static unsigned long long cur_k, cur_n;
static jmp_buf run_jmp;
static int in_run;

_Noreturn void __wrap_exit(int code) {
  if (in_run && code == CM_JSON_OOM_EXIT && fuzz_oom_failed())
    longjmp(run_jmp, 1);
  __real_exit(code);
}

/* decimal digits of v at the end of buf[0..24), returning where they start */
static char *u64_text(char *buf, unsigned long long v) {
  char *p = buf + 23;
  *p = '\0';
  do
    *--p = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  return p;
}

static void say(const char *s) {
  (void)!write(2, s, strlen(s));
}

/* the handlers there were before (AddressSanitizer's, under linux-asan) */
static const int caught[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction before_sig[sizeof caught / sizeof caught[0]];

static void on_signal(int sig) {
  /* only write(2) and what was set before the run began; then the handler
   * there was before is put back and the fault happens again on return
   * (abort() raises once more), so the process dies of it, with
   * AddressSanitizer's report where it runs */
  char a[24], b[24], c[24];
  size_t i;
  say("oom: ");
  say(cur_name != NULL ? cur_name : "?");
  say(": signal ");
  say(u64_text(a, (unsigned long long)sig));
  say(" while allocation ");
  say(u64_text(b, cur_k));
  say(" of ");
  say(u64_text(c, cur_n));
  say(" failed (0: none)\n");
  for (i = 0; i < sizeof caught / sizeof caught[0]; i++)
    if (caught[i] == sig)
      sigaction(sig, &before_sig[i], NULL);
}

static void catch_signals(void) {
  struct sigaction sa;
  size_t i;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  for (i = 0; i < sizeof caught / sizeof caught[0]; i++)
    sigaction(caught[i], &sa, &before_sig[i]);
}

/* Runs the target once with allocation k failing (0: none); the number of
 * allocations it made, the blocks it left, whether allocation k was
 * reached and whether the run was stopped by the JSON reader's exit,
 * through the pointers. */
static void run_once(const uint8_t *data, size_t size, unsigned long long k,
                     unsigned long long *made, long *left, int *hit,
                     int *stopped) {
  size_t before;
  pthread_mutex_lock(&lock);
  before = live_count;
  calls = 0;
  fail_at = k;
  failed = 0;
  pthread_mutex_unlock(&lock);
  cur_k = k;
  *stopped = 0;
  cm_json_forget_failures(); /* each run as a fresh process */
  in_run = 1;
  pthread_mutex_lock(&lock);
  run_nblocks = 0;
  recording = 1;
  pthread_mutex_unlock(&lock);
  if (setjmp(run_jmp) == 0)
    (void)LLVMFuzzerTestOneInput(data, size);
  else
    *stopped = 1;
  in_run = 0;
  pthread_mutex_lock(&lock);
  recording = 0;
  if (*stopped) {
    /* what the stopped run still held, freed as its exit would have; a
     * block recorded twice (an address reused) is freed once */
    size_t i;
    for (i = 0; i < run_nblocks; i++)
      if (live_del(run_blocks[i]))
        __real_free(run_blocks[i]);
  }
  *made = calls;
  *left = (long)live_count - (long)before;
  *hit = failed;
  fail_at = 0;
  failed = 0;
  pthread_mutex_unlock(&lock);
}

static unsigned long long env_points(void) {
  const char *s = getenv("FUZZ_OOM_POINTS");
  char *end;
  unsigned long long v;
  if (s == NULL || *s == '\0')
    return 20000;
  v = strtoull(s, &end, 10);
  if (*end != '\0') {
    fprintf(stderr,
            "oom: FUZZ_OOM_POINTS=%s is not a count; "
            "give a number (0: every failure point)\n",
            s);
    exit(2);
  }
  return v;
}

#define FUZZ_OOM_HEAD 100ull

/* The i-th of m failure points among n allocations (1-based, increasing):
 * the first FUZZ_OOM_HEAD, then spread evenly up to n. */
static unsigned long long point(unsigned long long i, unsigned long long m,
                                unsigned long long n) {
  unsigned long long rest, span;
  if (m >= n || i <= FUZZ_OOM_HEAD)
    return i;
  rest = m - FUZZ_OOM_HEAD; /* points after the head */
  span = n - FUZZ_OOM_HEAD; /* allocations after the head */
  return FUZZ_OOM_HEAD + ((i - FUZZ_OOM_HEAD) * span) / rest;
}

int fuzz_oom_input(const char *name, const uint8_t *data, size_t size) {
  static int installed;
  unsigned long long n, made, i, m, stops = 0, want = env_points();
  long left;
  int hit, stopped;
  if (!installed) {
    catch_signals();
    installed = 1;
  }
  cur_name = name;
  /* twice without failures: what a first call sets up once (a temporary
   * folder, a hash seed) is not counted as a leak of the second */
  cur_n = 0;
  run_once(data, size, 0, &n, &left, &hit, &stopped);
  run_once(data, size, 0, &n, &left, &hit, &stopped);
  cur_n = n;
  if (left != 0) {
    fprintf(stderr,
            "oom: %s: with no allocation failing, %ld block(s) "
            "left allocated\n",
            name, left);
    return 1;
  }
  m = want == 0 || want > n ? n : want;
  if (m < FUZZ_OOM_HEAD && n > m)
    m = n < FUZZ_OOM_HEAD ? n : FUZZ_OOM_HEAD;
  for (i = 1; i <= m; i++) {
    unsigned long long k = point(i, m, n);
    run_once(data, size, k, &made, &left, &hit, &stopped);
    if (stopped) {
      stops++;
      continue;
    }
    if (!hit) {
      fprintf(stderr,
              "oom: %s: allocation %llu of %llu was to fail, but the "
              "run made only %llu: the count is not repeatable\n",
              name, k, n, made);
      return 1;
    }
    if (left != 0) {
      fprintf(stderr,
              "oom: %s: with allocation %llu of %llu failing, %ld "
              "block(s) left allocated\n",
              name, k, n, left);
      return 1;
    }
  }
  printf("oom: %s: %llu allocations; %llu failure point(s) tried%s: %llu "
         "returned and freed what they allocated, %llu stopped in the JSON "
         "reader by design\n",
         name, n, m, m < n ? " (sampled)" : " (every one)", m - stops, stops);
  return 0;
}
