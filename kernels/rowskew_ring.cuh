/* rowskew_ring.cuh: the ring path of rowskew.cu (v23; v26c's stats warp): its
 * sizes and experiment switches (CPK_RING_*), ring_k's device helpers, ring_k,
 * which brings each segment into a ring of shared-memory slots by bulk copies
 * and writes it from there, and its launch (ring_launch, ring_op), which
 * skew_run calls where the ring takes the rows. Part of rowskew.cu's
 * translation unit, not a header of its own: included once, there, inside its
 * anonymous namespace (in cpk__), after what it uses (skp, the sk_* rules and
 * skew_k's word helpers). Split out of the one file so that each part has one
 * job, while the kernels stay those of one unit: the same code, and the same
 * names (an anonymous namespace's mangled names carry the main file's). */
#ifndef CPK_ROWSKEW_RING_CUH
#define CPK_ROWSKEW_RING_CUH

/* ---- v23: the ring path of the skew path ----
 * The same segments, words and order of work as skew_k, but each block's
 * segments come into a ring of NB shared-memory slots of 32 KiB by 1-D
 * bulk copies (cp.async.bulk, completing an mbarrier a slot), and nothing
 * is read twice from device memory or the L2. Two consumer groups of 8
 * warps take turns: iteration s of group s % 2 waits for segment s in its
 * slot and publishes its partial (A), then writes segment s - L from the
 * slot it still occupies (B, L = 2: the same group's), and once every warp
 * of the group has read that slot (the group's named barrier) its thread 0
 * refills it with segment s - L + NB. With NB a multiple of the groups
 * each slot is one group's alone, so the waits on a slot's barrier are
 * always for its next phase, and the hand-over of a slot from the reads to
 * the copy that overwrites it is a barrier of the group (after each
 * reader's fence.proxy.async) ahead of the thread that issues the copy.
 * B's row statistics come from the block's stats warp (v26c, below).
 * One block an SM (NB x 32 KiB of shared memory); G the resident blocks
 * rounded down to a multiple of a row's segments, so a step holds whole
 * rows (else cudaErrorNotSupported: skew_k runs). softmax (no mask),
 * softmax_bwd and rmsnorm, 16-byte aligned rows whose width is a whole
 * number of 16-byte vectors (the bulk copies' unit). */
/* v26c, the stats warp (the default; CPK_RING_SW=0, experiment builds
 * and the probes below, restores v23's poll by each group's warp 0): a
 * 17th warp a block polls each B's row partials and merges them into the
 * row's statistics ahead of the groups, handing them over through a ring
 * of kRgNS shared-memory cells with a full and an empty mbarrier each, so
 * that a group's B waits only for its cell, not for the words' round trip
 * and the merge (v26b's probe: those 3-10 us of a launch) */
#ifndef CPK_RING_SW
#define CPK_RING_SW 1
#endif
constexpr int kRgWarps = 16;         /* consumer warps */
constexpr int kRgNT = kRgWarps * 32; /* consumer threads */
constexpr int kRgThreads = kRgNT + (CPK_RING_SW ? 32 : 0);
constexpr unsigned kRgSlot = 32768; /* bytes of input a slot */
#ifndef CPK_RING_NB /* experiment builds: slots, a multiple of the groups */
#define CPK_RING_NB 6
#endif
#ifndef CPK_RING_NG /* experiment builds: consumer groups, taking turns */
#define CPK_RING_NG 2
#endif
/* CPK_RING_PROF=1 (experiment builds): thread 0 of each group of five
 * blocks adds up clock64 per phase of its iterations and prints the sums
 * in the launch whose epoch is 8 mod 64 (docs/PERFORMANCE.md, v24a) */
#ifndef CPK_RING_PROF
#define CPK_RING_PROF 0
#endif
/* CPK_RING_TL=1 (experiment builds, v25f's probe): thread 0 of each
 * consumer group reads %globaltimer at the kernel's entry, after the
 * prologue's barrier, at the end of each of its first 17 iterations and at
 * its end, and prints them (ns, the rest relative to the entry) in every
 * launch: each block's timeline, to place the launch's time (the
 * printf's own time falls after the last reading) */
#ifndef CPK_RING_TL
#define CPK_RING_TL 0
#endif
/* CPK_RING_NULL (experiment builds, v26b's probe; its output is wrong on
 * purpose, so it is timed by Nsight Compute, not by the benchmark, which
 * verifies first): 1, the ring's copies, slot waits, barriers, refills and
 * B's arithmetic and stores, but no A (no reduction, no words) and no poll
 * (B's statistics constants); 2, A as the default's, still no poll. The
 * launch's duration against the default's places the time: the ring's
 * data movement alone (1), the SM's work of A (2 - 1), the wait for the
 * row's partials (the default - 2) */
#ifndef CPK_RING_NULL
#define CPK_RING_NULL 0
#endif
/* (CPK_RING_TL, a consumer group's own timeline, runs with the stats
 * warp too since v48c: its readings are the groups' only) */
static_assert(!(CPK_RING_SW && (CPK_RING_PROF || CPK_RING_NULL)),
              "the probes are v23's ring's: build them with CPK_RING_SW=0");
constexpr int kRgNS = 8; /* v26c's statistics cells */
#define RPROF(i) CPK__PROF(CPK_RING_PROF, true, rp, rlast, i)
constexpr int kRgGroups = CPK_RING_NG;
constexpr int kRgGW = kRgWarps / kRgGroups; /* warps a group */
constexpr int kRgGT = kRgGW * 32;           /* threads a group */
constexpr int kRgNB = CPK_RING_NB;          /* slots */
/* Slot j holds segments j, j + NB, ...; with NB a multiple of the groups
 * its A is always group j % NG's, which waited for the slot's previous
 * phase itself: no waiter is ever two phases ahead of a barrier (the
 * parity of an mbarrier wait tells only one phase from the next). */
static_assert(CPK_RING_NB % CPK_RING_NG == 0, "slots a multiple of groups");
static_assert(kRgGT * kRgGroups == kRgNT, "the groups split the warps");
/* the slots, rmsnorm's w, the barriers and the groups' scratch and
 * statistics; then (v26c) the stats warp's barriers and cells */
__host__ __device__ constexpr size_t rg_sw_off(int op) {
  return (size_t)kRgNB * kRgSlot + (sk_wsh(op) ? kRgSlot : 0) +
         (size_t)2 * kRgNB * 8 + (size_t)kRgGroups * (64 * 4 + 2 * 8);
}
__host__ __device__ constexpr size_t rg_smem(int op) {
  return rg_sw_off(op) + (CPK_RING_SW ? (size_t)kRgNS * (2 * 8 + 8) : 0);
}
static_assert(rg_smem(CPK_OP_SOFTMAX) <= 232448 &&
                  rg_smem(CPK_OP_RMSNORM) <= 232448,
              "over the 227 KiB a block may have");

/* ring_k's device helpers: its body is sm_90 code only (the portable
 * compute_80 PTX traps), and so are they */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
/* a consumer group's named barrier (1 + its index) */
__device__ __forceinline__ void rg_bar(int cg) {
  asm volatile("bar.sync %0, %1;" ::"r"(1 + cg), "n"(kRgGT) : "memory");
}
/* block_max and block_csum over a consumer group's warps */
__device__ __forceinline__ float rg_max(float v, float *sh, int cg) {
  const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % kRgGW;
  v = warp_max(v);
  rg_bar(cg);
  if (lane == 0)
    sh[w] = v;
  rg_bar(cg);
  return warp_max(lane < kRgGW ? sh[lane] : -CUDART_INF_F);
}
__device__ __forceinline__ float rg_csum(csum v, float *sh, int cg) {
  const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % kRgGW;
  warp_csum(v);
  rg_bar(cg);
  if (lane == 0) {
    sh[w] = v.s;
    sh[32 + w] = v.c;
  }
  rg_bar(cg);
  csum r;
  if (lane < kRgGW) {
    r.s = sh[lane];
    r.c = sh[32 + lane];
  }
  warp_csum(r);
  return r.value();
}

/* Until the phase of the given parity has completed; a phase that never
 * completes (only a bug could do that) ends in a trap, not a hang. */
__device__ __forceinline__ void rg_mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t spins = 0;
  for (;;) {
    if (mbar_try_wait(bar, parity))
      return;
    if (++spins > (1u << 26))
      __trap();
  }
}
/* bytes (a multiple of 16) from global src to shared dst, completing on
 * the mbarrier bar, with an L2 policy */
__device__ __forceinline__ void rg_bulk_ld(uint32_t dst, const void *src,
                                           uint32_t bytes, uint32_t bar,
                                           uint64_t pol) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar), "l"(pol)
               : "memory");
}
#endif

template <typename T, int OP>
__global__ void __launch_bounds__(kRgThreads, 1) ring_k(const skp p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int VEC = ty<T>::vec;
  constexpr int NI = sk_inputs(OP);
  constexpr int NT = kRgGT; /* a group's threads share a segment */
  constexpr int U = (int)kRgSlot / NI / 16 / NT; /* vectors a thread, input */
  constexpr int SEG = NT * U * VEC;              /* elements a segment */
  constexpr int NWD = sk_words(OP);
  constexpr int NB = kRgNB;
  constexpr int GPL = 4;
  static_assert(SEG == kSkThreads * sk_u(OP) * VEC, "skew_k's segments");
  extern __shared__ __align__(128) unsigned char rsm[];
  uint4 *buf = reinterpret_cast<uint4 *>(rsm); /* [NB][NI][U][NT] */
  uint4 *wsh = buf + (size_t)NB * NI * U * NT; /* [U][NT]: rmsnorm's w */
  /* the slots' full barriers [NB], then rmsnorm's w barrier and NB - 1
   * unused words (v23a-v23c's empty barriers: the measured layout) */
  unsigned long long *bars = reinterpret_cast<unsigned long long *>(
      rsm + (size_t)NB * kRgSlot + (sk_wsh(OP) ? kRgSlot : 0));
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  const int cg = tid / NT, gt = tid % NT; /* group, thread in it */
  /* the group's reduction scratch [64] and row statistics [2] */
  float *sh = reinterpret_cast<float *>(bars + 2 * NB) + 64 * cg;
  float2 *s_stat =
      reinterpret_cast<float2 *>(reinterpret_cast<float *>(bars + 2 * NB) +
                                 64 * kRgGroups) +
      2 * cg;
#if CPK_RING_SW
  unsigned char *swb = rsm + rg_sw_off(OP);
  const uint32_t sfull0 = smem_u32(swb), sempty0 = sfull0 + 8u * kRgNS;
  float2 *sw_stat = reinterpret_cast<float2 *>(swb + 16 * kRgNS);
#endif
  const unsigned blk = blockIdx.x, G = gridDim.x;
  const uint32_t ep = *(volatile const unsigned *)p.hdr + 1u;
  const unsigned nseg = (unsigned)p.nseg, L = p.lag;
#if CPK_RING_TL
  unsigned long long tl[20];
  int ntl = 0;
  tl[ntl++] = global_ns();
#endif
  /* this block's segments: blk, blk + G, ... */
  const unsigned S = blk < p.tseg ? (p.tseg - blk + G - 1) / G : 0u;
  const uint32_t full0 = smem_u32(bars);
  const uint32_t wbar = full0 + 8u * NB; /* rmsnorm's w (sk_wsh) */
  const float fill = OP == CPK_OP_SOFTMAX ? -CUDART_INF_F : 0.f;
  auto where = [&](unsigned k, int64_t &r, int &c0, int &c1) {
    r = k / nseg;
    c0 = (int)(k % nseg) * SEG;
    c1 = p.cols - c0 < SEG ? p.cols : c0 + SEG;
  };

  /* segment k (of this block's: its k-th) into slot k % NB */
  const uint64_t pol = pol_evict_first();
  auto fill_slot = [&](unsigned k) {
    const unsigned slot = k % NB;
    int64_t r;
    int c0, c1;
    where(k * G + blk, r, c0, c1);
    const uint32_t bytes = (uint32_t)(c1 - c0) * (uint32_t)sizeof(T);
    const uint32_t fb = full0 + 8u * slot;
    const uint32_t dst = smem_u32(buf + (size_t)slot * NI * U * NT);
    mbar_arrive_tx(fb, bytes * NI);
    rg_bulk_ld(dst, static_cast<const T *>(p.in0) + r * p.stride + c0, bytes,
               fb, pol);
    if constexpr (NI > 1)
      rg_bulk_ld(dst + (uint32_t)(U * NT * 16),
                 static_cast<const T *>(p.in1) + r * p.stride + c0, bytes, fb,
                 pol);
  };
  if (tid == 0) {
    for (int i = 0; i < NB + (sk_wsh(OP) ? 1 : 0); ++i)
      mbar_init(full0 + 8u * i, 1u);
#if CPK_RING_SW
    for (int i = 0; i < kRgNS; ++i) {
      mbar_init(sfull0 + 8u * i, 1u);
      mbar_init(sempty0 + 8u * i, (uint32_t)kRgGT);
    }
#endif
    fence_barrier_init();
    for (unsigned k = 0; k < S && k < (unsigned)NB; ++k) {
      fill_slot(k);
      /* rmsnorm's w over the block's columns (the same in every step) by a
       * bulk copy of its own, after the first two segments' and waited for
       * by B only (v24c: staged by loads before the first step, it queued
       * behind all the ring's copies, and every warp with it) */
      if constexpr (sk_wsh(OP)) {
        if (k + 1 == (S < 2u ? S : 2u)) {
          int64_t r;
          int c0, c1;
          where(blk, r, c0, c1);
          const uint32_t bytes = (uint32_t)(c1 - c0) * (uint32_t)sizeof(T);
          mbar_arrive_tx(wbar, bytes);
          rg_bulk_ld(smem_u32(wsh), static_cast<const T *>(p.w) + c0, bytes,
                     wbar, pol_evict_last());
        }
      }
    }
  }
  __syncthreads();
#if CPK_RING_TL
  tl[ntl++] = global_ns();
#endif

  uint4 fv;
  {
    float f[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      f[k] = fill;
    fv = pack_t<T>(f);
  }
  const bool poller = (wid % kRgGW) == 0; /* the group's warp 0 */
#if CPK_RING_PROF
  long long rp[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  unsigned rspins = 0, rits = 0;
  const long long rstart = clock64();
  long long rlast = rstart;
#endif
#if CPK_RING_SW
  const bool stats_warp = tid >= kRgNT; /* the block's last warp */
#else
  constexpr bool stats_warp = false;
#endif
  if (stats_warp) {
#if CPK_RING_SW
    /* the stats warp: B's k-th segment's row statistics into cell k % NS,
     * in the order of the groups' B's, at most NS ahead of them */
    for (unsigned k = 0; k < S; ++k) {
      const unsigned j = k % kRgNS;
      rg_mbar_wait(sempty0 + 8u * j, ((k / kRgNS) & 1u) ^ 1u);
      const unsigned t0 = (unsigned)((k * G + blk) / nseg) * nseg;
      unsigned long long f[GPL][NWD];
      sk_words_load(f, p, ep, t0, lane);
      sk_words_poll(f, p, ep, t0, lane);
      const float2 rs = sk_merge<OP>(f, p, lane);
      if (lane == 0) {
        sw_stat[j] = rs;
        mbar_arrive(sfull0 + 8u * j);
      }
    }
#endif
  } else {
    /* the groups take turns: iteration s (A of segment s, B of s - L) is
     * group s % NG's */
    for (unsigned s = (unsigned)cg; s < S + L; s += kRgGroups) {
      const bool has_b = s >= L && s - L < S;
      const unsigned sbk = s - L, tb = sbk * G + blk;
      int64_t rb = 0;
      int b0 = 0, b1 = 0;
      if (has_b)
        where(tb, rb, b0, b1);
      /* B's words first: their round trip under A's work (lane l holds the
       * row's partials l, l + 32, ...) */
      const unsigned t0 = (unsigned)rb * nseg;
      unsigned long long f[GPL][NWD];
      if (has_b && poller && !CPK_RING_SW)
        sk_words_load(f, p, ep, t0, lane);
#if CPK_RING_PROF
      ++rits;
#endif
      RPROF(7);
      if (s < S) {
        /* A: segment s's partial */
        const unsigned slot = s % NB, ta = s * G + blk;
        int64_t ra;
        int a0, a1;
        where(ta, ra, a0, a1);
        rg_mbar_wait(full0 + 8u * slot, (s / NB) & 1u);
        RPROF(0);
#if CPK_RING_NULL != 1
        const uint4 *sb = buf + (size_t)slot * NI * U * NT;
        uint4 qa[NI][U];
#pragma unroll
        for (int i = 0; i < NI; ++i)
#pragma unroll
          for (int u = 0; u < U; ++u)
            qa[i][u] = a0 + (u * NT + gt) * VEC < a1 ? sb[(i * U + u) * NT + gt]
                                                     : (i == 0 ? fv : uint4{});
        float pm = 0.f, ps;
        if constexpr (OP == CPK_OP_SOFTMAX) {
          const float2 pp = sk_softmax_partial<T>(
              qa[0], [&](float v) { return rg_max(v, sh, cg); },
              [&](csum v) { return rg_csum(v, sh, cg); });
          pm = pp.x;
          ps = pp.y;
        } else {
          ps = rg_csum(sk_sum<T, OP>(qa), sh, cg);
        }
        if (gt == 0)
          sk_publish<NWD>(p, ep, ta, pm, ps);
#endif
        RPROF(1);
      }
      if (has_b) {
        /* B: segment s - L, its row's partials all out; its slot's data
         * acquired through the slot's barrier (A of s - L waited for the
         * same phase, and the slot is refilled only after this B) */
        const unsigned slot = sbk % NB;
        rg_mbar_wait(full0 + 8u * slot, (sbk / NB) & 1u);
        if constexpr (sk_wsh(OP))
          rg_mbar_wait(wbar, 0u); /* w's one phase (one probe once done) */
        RPROF(2);
#if CPK_RING_NULL
        if (poller && lane == 0)
          s_stat[(s / kRgGroups) & 1u] = make_float2(0.f, 1.f);
        if (false) {
#elif CPK_RING_SW
        if (false) {
#else
        if (poller) {
#endif
#if CPK_RING_PROF
          rspins += sk_words_poll(f, p, ep, t0, lane);
#else
          sk_words_poll(f, p, ep, t0, lane);
#endif
          RPROF(3);
          const float2 rs = sk_merge<OP>(f, p, lane);
          if (lane == 0)
            s_stat[(s / kRgGroups) & 1u] = rs;
        }
#if CPK_RING_SW
        /* the row's statistics from the stats warp's cell, handed back by
         * every thread of the group once it has read them (each reader's own
         * arrival, the release the stats warp's next write acquires: v26c's
         * first build handed it back by each warp's lane 0 after a
         * __syncwarp, which racecheck does not follow) */
        float2 st;
        {
          const unsigned j = sbk % kRgNS;
          rg_mbar_wait(sfull0 + 8u * j, (sbk / kRgNS) & 1u);
          st = sw_stat[j];
          mbar_arrive(sempty0 + 8u * j);
        }
#else
        rg_bar(cg);
        RPROF(4);
        const float2 st = s_stat[(s / kRgGroups) & 1u];
#endif
        const uint4 *sb = buf + (size_t)slot * NI * U * NT;
        T *orow = static_cast<T *>(p.out) + rb * p.stride;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int e = b0 + (u * NT + gt) * VEC;
          if (e >= b1)
            continue;
          float o[VEC], b[VEC];
          unpack<T>(sb[u * NT + gt], o);
          if constexpr (OP == CPK_OP_SOFTMAX_BWD)
            unpack<T>(sb[(U + u) * NT + gt], b);
          else if constexpr (OP == CPK_OP_RMSNORM)
            unpack<T>(wsh[u * NT + gt], b); /* w's copy waited for above */
          sk_out<OP>(o, b, st);
          store_slot<T, false>(orow, e, b1, true, o);
        }
        RPROF(5);
        /* the slot's next segment, once every warp of the group has read
         * it (each reader's generic accesses ordered before the async
         * proxy's copy by its fence, then the group's barrier) */
        if (sbk + NB < S) {
          fence_proxy_async();
          rg_bar(cg);
          if (gt == 0)
            fill_slot(sbk + NB);
        }
        RPROF(6);
      }
#if CPK_RING_TL
      if (gt == 0 && ntl < 19)
        tl[ntl++] = global_ns();
#endif
    }
  }
#if CPK_RING_TL
  if (gt == 0 && tid < kRgNT) { /* not the stats warp's first thread */
    const unsigned long long te = global_ns();
    for (int i = ntl; i < 19; ++i)
      tl[i] = tl[0];
    printf("ringtl ep=%u blk=%u cg=%d S=%u t0=%llu pro=%llu it=%lld %lld "
           "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld "
           "%lld %lld end=%llu\n",
           ep, blk, cg, S, tl[0], tl[1] - tl[0], (long long)(tl[2] - tl[0]),
           (long long)(tl[3] - tl[0]), (long long)(tl[4] - tl[0]),
           (long long)(tl[5] - tl[0]), (long long)(tl[6] - tl[0]),
           (long long)(tl[7] - tl[0]), (long long)(tl[8] - tl[0]),
           (long long)(tl[9] - tl[0]), (long long)(tl[10] - tl[0]),
           (long long)(tl[11] - tl[0]), (long long)(tl[12] - tl[0]),
           (long long)(tl[13] - tl[0]), (long long)(tl[14] - tl[0]),
           (long long)(tl[15] - tl[0]), (long long)(tl[16] - tl[0]),
           (long long)(tl[17] - tl[0]), (long long)(tl[18] - tl[0]),
           te - tl[0]);
  }
#endif
#if CPK_RING_PROF
  if (gt == 0 && (ep & 63u) == 8u &&
      (blk == 0 || blk == 32 || blk == 64 || blk == 96 || blk == G - 1))
    printf("ringprof op=%d es=%d blk=%u cg=%d G=%u nseg=%u S=%u L=%u its=%u "
           "cyc total=%lld top=%lld wa=%lld a=%lld wb=%lld poll=%lld "
           "merge=%lld write=%lld refill=%lld spins=%u\n",
           OP, (int)sizeof(T), blk, cg, G, nseg, S, L, rits, clock64() - rstart,
           rp[7], rp[0], rp[1], rp[2], rp[3], rp[4], rp[5], rp[6], rspins);
#endif
  /* every block has read the header before it counts itself out */
  if (tid == 0)
    epoch_count_out(p.hdr, G, ep);
#else
  (void)p;
  __trap();
#endif
}

/* cudaErrorNotSupported where the ring cannot take these rows (skew_k
 * then runs); strict (CPK_SKEW_RING=2, tests): cudaErrorInvalidValue
 * instead, and no fallback once the ring is asked for. */
template <typename T, int OP>
cudaError_t ring_launch(const skp &p0, bool strict, cudaStream_t st) {
  static int cdev = -1;
  static unsigned resident = 0;
  static bool usable = false;
  /* CPK_RING_L (experiments): the lag in steps, 2 by default */
  static const int64_t lagk = knob_int("CPK_RING_L", 2);
  constexpr size_t smem = rg_smem(OP);
  int dev = 0;
  CPK__TRY(cudaGetDevice(&dev));
  if (dev != cdev) {
    int coop = 0, major = 0;
    CPK__TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CPK__TRY(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    usable = coop && major >= 9;
    if (usable) {
      CPK__TRY(cudaFuncSetAttribute(ring_k<T, OP>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
      CPK__TRY(grid_for(ring_k<T, OP>, kRgThreads, smem, INT_MAX, &resident));
    }
    cdev = dev;
  }
  if (!usable)
    return strict ? cudaErrorInvalidValue : cudaErrorNotSupported;
  skp p = p0;
  const unsigned G = resident / (unsigned)p.nseg * (unsigned)p.nseg;
  /* the lag a multiple of the groups: B of a segment is then the group's
   * that read it in A, and its barrier orders both reads before the copy
   * that refills the slot */
  const int64_t lag = lagk < kRgGroups ? kRgGroups : lagk;
  if (G == 0 || lag % kRgGroups != 0 || lag + 2 > kRgNB)
    return strict ? cudaErrorInvalidValue : cudaErrorNotSupported;
  p.wfix = 1;
  p.lag = (unsigned)lag;
  p.nstep = 0; /* unused: each block counts its own segments */
  const cudaError_t e =
      coop_launch(ring_k<T, OP>, dim3(G), dim3(kRgThreads), smem, st, p);
  if (e == cudaErrorCooperativeLaunchTooLarge && !strict) {
    /* fewer resident than the occupancy said (a tool's instrumented
     * kernel): skew_k from now on */
    (void)cudaGetLastError();
    usable = false;
    return cudaErrorNotSupported;
  }
  CPK__TRY(e);
  return cudaGetLastError();
}

template <int OP>
cudaError_t ring_op(cpk_dtype dt, const skp &p, bool strict, cudaStream_t st) {
  return with_dt(
      dt, [&](auto e) { return ring_launch<decltype(e), OP>(p, strict, st); });
}

#endif
