/* pf_rng.c: SplitMix64 (Steele, Lea, Flood 2014), written from its
 * published constants. */
#include "pf_rng.h"

#include <time.h>

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void pf_rng_seed(pf_rng *r, uint64_t seed) {
  r->state = seed;
}

#define GOLDEN 0x9e3779b97f4a7c15ull

uint64_t pf_rng_next(pf_rng *r) {
  r->state += GOLDEN;
  return mix(r->state);
}

/* The state after `index` steps is key + index * GOLDEN (mod 2^64): the
 * generator is a Weyl sequence fed through a mixer. */
void pf_rng_seek(pf_rng *r, uint64_t key, uint64_t index) {
  r->state = key + index * GOLDEN;
}

uint64_t pf_rng_at(uint64_t key, uint64_t index) {
  return mix(key + (index + 1) * GOLDEN);
}

double pf_rng_bits_uniform(uint64_t bits, double lo, double hi) {
  double u = (double)(bits >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * u;
}

double pf_rng_uniform(pf_rng *r, double lo, double hi) {
  return pf_rng_bits_uniform(pf_rng_next(r), lo, hi);
}

uint64_t pf_rng_below(pf_rng *r, uint64_t n) {
  return n <= 1 ? 0 : pf_rng_next(r) % n;
}

uint64_t pf_rng_derive(uint64_t seed, uint64_t salt) {
  return mix(seed ^ mix(salt + 0x632be59bd9b4e019ull));
}

uint64_t pf_rng_fresh_seed(void) {
  struct timespec ts;
  int local = 0;
  timespec_get(&ts, TIME_UTC);
  /* Clock plus a stack address: two runs in the same nanosecond still
   * differ where the address space is randomised. Keep it below 2^53 so the
   * printed seed survives a trip through JSON numbers. */
  return mix((uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
             (uint64_t)(uintptr_t)&local) &
         ((1ull << 53) - 1);
}
