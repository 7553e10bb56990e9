/* pf_fill.h: input generation: fresh random values, extreme rows, and the
 * device images (dtype bytes with row gaps).
 *
 * Every fill writes exact dtype values (already rounded) into the inputs'
 * `val`, so the float64 reference sees precisely what the kernel reads.
 * Extreme rows (spec.extreme, rows > 1): every row r with r % 4 == 1 gets
 * pattern (r / 4) % npatterns of the op's list; see docs/VALIDATION.md.
 *
 * The fills take a few keys from `rng`, in a fixed order, and derive every
 * value from (key, element index) or (key, row index) with the counter form
 * of pf_rng, so they run on pf_ref_threads() threads and give the same
 * inputs for any thread count.
 */
#ifndef PF_FILL_H
#define PF_FILL_H

#include "pf_case.h"
#include "pf_rng.h"

/* Matmul products of more multiply-adds than the limit in force are
 * verified on a sample (below), the others in full. The default limit,
 * 2^40 (1.1e12), checks every standard shape in full, 8192^3 (5.5e11) the
 * largest (the blocked float64 reference: 14 s on 16 cores in 2 x 4 tiles,
 * 25 s on two in AVX-512's 4 x 8), and samples 16384^3 (4.4e12) and up;
 * --sample-above MACS sets another for the run (0: every product sampled). */
#define PF_MATMUL_SAMPLE_ABOVE ((int64_t)1 << 40)
int64_t pf_matmul_sample_above(void);
void pf_set_matmul_sample_above(int64_t macs); /* < 0: the default again */
/* 1 when an m x n x k product is sampled under the limit in force. */
int pf_matmul_sampled(int64_t m, int64_t n, int64_t k);
/* Random output elements in a sample (plus the first/last rows/columns). */
#define PF_MATMUL_SAMPLE 4096
/* Side of the square blocks that tile the output for the sample's strata:
 * each block (clipped at the last rows and columns) has at least one
 * element of the sample, drawn at random within it. */
#define PF_MATMUL_BLOCK 32

void pf_fill_elementwise(pf_case *c, pf_rng *rng);
void pf_fill_row_sum(pf_case *c, pf_rng *rng);
void pf_fill_softmax(pf_case *c, pf_rng *rng);
void pf_fill_softmax_bwd(pf_case *c, pf_rng *rng);
void pf_fill_rmsnorm(pf_case *c, pf_rng *rng); /* forward and backward */
/* Uniform in [-1, 1]; with spec.extreme, scaled and given specials as
 * docs/VALIDATION.md, "Extreme matmul inputs", says (from the values' own
 * positions: no draw more). Also chooses c->sample when the product is
 * sampled (pf_matmul_sampled):
 * the flat indices, sorted and unique, of PF_MATMUL_SAMPLE random
 * elements, the first and last rows and columns, and one random element of
 * every PF_MATMUL_BLOCK block, drawn from rng in that order after the
 * inputs' keys; on allocation failure it leaves sample NULL (then the
 * reference refuses the case: out of memory). */
void pf_fill_matmul(pf_case *c, pf_rng *rng);

/* Writes each input's image from val (rounded to the case dtype), with the
 * row gaps (ld > cols) set to a recognisable finite value, 777, that would
 * change any result it leaked into (mask gaps: 0xA5). Outputs are left
 * alone. Multi-threaded over contiguous ranges of the image. */
void pf_fill_images(pf_case *c);

/* The extreme pattern written into row (n elements) for op kind `which`
 * (0 = softmax logits, 1 = sums, 2 = rmsnorm inputs); pattern < 0 is the
 * ends pattern of every kind (16 first and last, 0 between), which the last
 * row of an extreme tensor of at least 3 rows holds; exposed for tests. */
void pf_fill_extreme_row(double *row, int64_t n, int pattern, int which,
                         cpk_dtype dt, pf_rng *rng);
/* Number of patterns for `which`. */
int pf_fill_npatterns(int which);

#endif
