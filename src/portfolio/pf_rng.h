/* pf_rng.h: a small, reproducible random generator for test inputs.
 *
 * SplitMix64: one 64-bit state, good statistical quality for test data, and
 * the same stream on every platform, so `--seed N` reproduces a run exactly.
 * Not for cryptography.
 *
 * SplitMix64 is counter-based: output i of the stream seeded with `key` is a
 * pure function of (key, i). Parallel fills use that: each worker seeks to
 * the first element of its range, so the values never depend on how many
 * threads there are or where the ranges split.
 */
#ifndef PF_RNG_H
#define PF_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t state;
} pf_rng;

/* Seeds the generator; any value (0 included) is a valid seed. */
void pf_rng_seed(pf_rng *r, uint64_t seed);
/* Positions r so that its next output is pf_rng_at(key, index): the stream
 * seeded with `key`, after `index` outputs were drawn. */
void pf_rng_seek(pf_rng *r, uint64_t key, uint64_t index);
/* Output number `index` (from 0) of the stream seeded with `key`, without a
 * generator: the same bits pf_rng_next would give there. */
uint64_t pf_rng_at(uint64_t key, uint64_t index);
/* Maps 64 random bits to a uniform double in [lo, hi), as
 * pf_rng_uniform does. */
double pf_rng_bits_uniform(uint64_t bits, double lo, double hi);
/* Next 64 random bits. */
uint64_t pf_rng_next(pf_rng *r);
/* Uniform double in [lo, hi). */
double pf_rng_uniform(pf_rng *r, double lo, double hi);
/* Uniform integer in [0, n) for n >= 1 (tiny modulo bias is irrelevant for
 * test data). */
uint64_t pf_rng_below(pf_rng *r, uint64_t n);
/* Mixes a run seed and a case number into an independent case seed. */
uint64_t pf_rng_derive(uint64_t seed, uint64_t salt);
/* A fresh seed from the clock and the address space layout, for runs
 * without --seed. */
uint64_t pf_rng_fresh_seed(void);

#endif
