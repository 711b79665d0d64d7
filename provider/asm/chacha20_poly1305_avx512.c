/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fused ChaCha20-Poly1305 bulk kernel for AVX-512 (F, VL, BW, IFMA; built
 * with -mavx512f -mavx512vl -mavx512bw -mavx512ifma): the avx512 ChaCha20
 * and the ifma Poly1305 in one pass over the text.
 *
 * Each 1 KiB pass runs the 20 rounds of 16 ChaCha20 blocks in zmm and,
 * between their double rounds, up to four 16-block steps of the two IFMA
 * accumulators (one accumulator's half after each of the first eight double
 * rounds): the rounds are bound by latency and vprold, the MAC by vpmadd52,
 * so each fills the other's idle issue slots, and the data of a pass is
 * still in L1 for the MAC. The MAC reads the ciphertext: the input when
 * opening; when sealing, the output of the passes before (so it lags: pass
 * 0 runs alone and the last kilobyte's MAC runs after the passes). The MAC
 * arithmetic is poly1305_ifma.h's, so the accumulator it leaves in mac is
 * the one poly1305_ifma_kernel.blocks() would.
 * Constant time: no branch or address depends on key or data.
 */
#include "chacha20_avx512.h"
#include "poly1305_ifma.h"

extern const chacha20_kernel CHACHA_AVX512_SYM(chacha20_avx512_kernel);
extern const poly1305_kernel CHACHA_AVX512_SYM(poly1305_ifma_kernel);

/*
 * The powers look changed to the compiler at every pass, so that it
 * broadcasts them from the table again rather than keeping them in
 * registers across passes (Zen 4: 2.5% faster).
 */
#define F5_FROM_MEMORY(p) \
    __asm__("" : "+m"(*(uint64_t (*)[5][16])(void *)(p)->pw))

/*
 * Half i (0..7) of a pass's MAC work: accumulator a (i even) or b times
 * r^16, plus the 128 bytes at mp + 128 i.
 */
#define F5_MAC_HALF(i) \
    do { \
        if ((i) < 2 * ng) { \
            if ((i) % 2 == 0) \
                ma = p5_mul_add(ma, p5_pow_bcast(p, 0), \
                                p5_load8(mp + 128 * (i), hibit)); \
            else \
                mb = p5_mul_add(mb, p5_pow_bcast(p, 0), \
                                p5_load8(mp + 128 * (i), hibit)); \
        } \
    } while (0)

/*
 * One pass: 16 blocks of keystream from crun xored from src to dst, and
 * ng (0..4; a constant after inlining) MAC steps of both accumulators over
 * the 256 ng bytes at mp, a half after each of the first 8 double rounds.
 */
CHACHA_INLINE void f5_pass(uint8_t *dst, const uint8_t *src, c5_run *crun,
                           p5_v *pa, p5_v *pb, const poly1305_ifma_st *p,
                           const uint8_t *mp, size_t ng)
{
    const __m512i hibit = _mm512_set1_epi64((long long)1 << 40);
    p5_v ma = *pa, mb = *pb;
    __m512i x[16];

    F5_FROM_MEMORY(p);
    c5_pass_start(x, crun);
    z512_vdround_pre(x);
    F5_MAC_HALF(0);
    z512_vdround(x);
    F5_MAC_HALF(1);
    z512_vdround(x);
    F5_MAC_HALF(2);
    z512_vdround(x);
    F5_MAC_HALF(3);
    z512_vdround(x);
    F5_MAC_HALF(4);
    z512_vdround(x);
    F5_MAC_HALF(5);
    z512_vdround(x);
    F5_MAC_HALF(6);
    z512_vdround(x);
    F5_MAC_HALF(7);
    z512_vdround(x);
    z512_vdround(x);
    c5_emit16(dst, src, x, crun, CHACHA_BLOCKS(16));
    *pa = ma;
    *pb = mb;
}

/* The keystream past npass whole passes, to len. */
static void xor_rest(uint8_t *out, const uint8_t *in, size_t len,
                     size_t npass, const uint32_t key[8],
                     const uint32_t counter[4])
{
    uint32_t ctr[4];

    if (len == CHACHA_BLOCKS(16) * npass)
        return;
    memcpy(ctr, counter, sizeof(ctr));
    ctr[0] += (uint32_t)(16 * npass);
    CHACHA_AVX512_SYM(chacha20_avx512_kernel).xor_stream(
        out + CHACHA_BLOCKS(16) * npass, in + CHACHA_BLOCKS(16) * npass, len - CHACHA_BLOCKS(16) * npass, key, ctr);
}

/*
 * The passes and the whole MAC, in two accumulators (16-block groups), the
 * first group front padded. No call in here: see xor_mac_avx512.
 */
static __attribute__((noinline))
void fused_passes(uint8_t *out, const uint8_t *in, size_t len,
                  const uint32_t key[8], const uint32_t counter[4],
                  poly1305_ifma_st *p, int enc)
{
    const __m512i hibit = _mm512_set1_epi64((long long)1 << 40);
    const uint8_t *mp = enc ? out : in;     /* the ciphertext */
    const size_t npass = len / CHACHA_BLOCKS(16), nb = len / 16;
    const size_t pad = p5_pad(nb, 1), lead = 16 - pad;
    size_t k, mdone = 0, ng;
    c5_run crun;
    p5_run run;
    p5_v ma, mb;
    __m512i d[6];
    int started = 0;

    ma.l0 = ma.l1 = ma.l2 = _mm512_setzero_si512();
    mb = ma;
    c5_run_setup(&crun, key, counter);
    for (k = 0; k < npass; k++) {
        /* the MAC's first group, once there is ciphertext for it */
        if (!started && (!enc || k > 0)) {
            p5_start(&run, p, mp, pad, 1, 1);
            ma = run.a;
            mb = run.b;
            mdone = 16 * lead;
            started = 1;
        }
        ng = started ? ((enc ? 1024 * k : len) - mdone) / 256 : 0;
        if (ng >= 4)
            f5_pass(out + CHACHA_BLOCKS(16) * k, in + CHACHA_BLOCKS(16) * k, &crun, &ma, &mb, p,
                    mp + mdone, 4);
        else
            f5_pass(out + CHACHA_BLOCKS(16) * k, in + CHACHA_BLOCKS(16) * k, &crun, &ma, &mb, p,
                    mp + mdone, ng);
        mdone += 256 * (ng >= 4 ? 4 : ng);
    }
    chacha_wipe(&crun, sizeof(crun));
    /* the MAC of what the passes left, and the lanes summed into p->sc */
    if (!started) {
        p5_start(&run, p, mp, pad, 1, 1);
        ma = run.a;
        mb = run.b;
        mdone = 16 * lead;
    }
    for (; mdone < len; mdone += 256) {
        ma = p5_mul_add(ma, p5_pow_bcast(p, 0), p5_load8(mp + mdone, hibit));
        mb = p5_mul_add(mb, p5_pow_bcast(p, 0),
                        p5_load8(mp + mdone + 128, hibit));
    }
    d[0] = d[1] = d[2] = d[3] = d[4] = d[5] = _mm512_setzero_si512();
    p5_products(d, ma, p5_pow_lanes(p, 0));
    p5_products(d, mb, p5_pow_lanes(p, 8));
    p5_finish(&p->sc, d);
}

/*
 * Zero the stack where fused_passes() just ran, from the same caller: 32
 * vector registers do not hold the rounds and two MAC accumulators at once,
 * and gcc spills state to slots no C wipe can name (its frame is some 900
 * bytes with gcc 12).
 */
#define F5_BURN 1024

static void xor_mac_avx512(uint8_t *out, const uint8_t *in, size_t len,
                           const uint32_t key[8], const uint32_t counter[4],
                           poly1305_state *mst, int enc)
{
    poly1305_ifma_st *p = (poly1305_ifma_st *)(void *)mst->opaque;

    if (len == 0)
        return;
    /*
     * The keystream of len % 1024 bytes past the whole passes, apart from
     * them: no vector value may live across a call (the ABI saves no zmm,
     * gcc would spill the MAC state to the stack). When sealing it comes
     * first (the MAC reads that output), when opening last (in place, it
     * overwrites the ciphertext the MAC reads).
     */
    if (enc)
        xor_rest(out, in, len, len / CHACHA_BLOCKS(16), key, counter);
    fused_passes(out, in, len, key, counter, p, enc);
    chacha_burn_stack(F5_BURN);
    if (!enc)
        xor_rest(out, in, len, len / CHACHA_BLOCKS(16), key, counter);
}

/*
 * Below these lengths [open, seal] the two steps (avx512 ChaCha20, then
 * ifma Poly1305) are faster. On Zen 4 the one pass only ties them even
 * above (16 KiB: 0.833 c/B either way, 64 KiB 0.830 against 0.834): the
 * rounds and the MAC share the vector pipes, which neither leaves idle
 * enough for the other (2 KiB: fused 0.87-0.90, two steps 0.85-0.88).
 */
#ifndef CHACHA_FUSED512_OPEN_MIN
# define CHACHA_FUSED512_OPEN_MIN 8192
#endif
#ifndef CHACHA_FUSED512_SEAL_MIN
# define CHACHA_FUSED512_SEAL_MIN 8192
#endif

const chacha20_poly1305_kernel CHACHA_AVX512_SYM(chacha20_poly1305_avx512_kernel) = {
    .name = "avx512-fused",
    .caps = CHACHA_AVX512_EMULATED ? 0
            : CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL | CHACHA_CAP_AVX512BW
              | CHACHA_CAP_AVX512IFMA,
    .prefer = CHACHA_CAP_ZMM_FAST,
    .chacha = &CHACHA_AVX512_SYM(chacha20_avx512_kernel),
    .poly = &CHACHA_AVX512_SYM(poly1305_ifma_kernel),
    .xor_mac = xor_mac_avx512,
    .min_len = { CHACHA_FUSED512_OPEN_MIN, CHACHA_FUSED512_SEAL_MIN },
};
