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

/* Half i (0..7) of the pass's MAC work: accumulator a or b, 128 bytes. */
#define F5_MAC_HALF(i) \
    do { \
        if ((i) < 2 * ng) { \
            if ((i) % 2 == 0) \
                P5_STEP_A(prun, mp + 128 * (i)); \
            else \
                P5_STEP_B(prun, mp + 128 * (i)); \
        } \
    } while (0)

/*
 * One pass: 16 blocks of keystream from crun xored from src to dst, and
 * ng (0..4; a constant after inlining) MAC steps over the 256 ng bytes at
 * mp, after the double rounds.
 */
C5_INLINE void f5_pass(uint8_t *dst, const uint8_t *src, c5_run *crun,
                       p5_run *prun, const uint8_t *mp, size_t ng)
{
    __m512i x[16];

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
    c5_emit16(dst, src, x, crun, 1024);
}

/* The keystream past npass whole passes, to len. */
static void xor_rest(uint8_t *out, const uint8_t *in, size_t len,
                     size_t npass, const uint32_t key[8],
                     const uint32_t counter[4])
{
    uint32_t ctr[4];

    if (len == 1024 * npass)
        return;
    memcpy(ctr, counter, sizeof(ctr));
    ctr[0] += (uint32_t)(16 * npass);
    CHACHA_AVX512_SYM(chacha20_avx512_kernel).xor_stream(
        out + 1024 * npass, in + 1024 * npass, len - 1024 * npass, key, ctr);
}

static void xor_mac_avx512(uint8_t *out, const uint8_t *in, size_t len,
                           const uint32_t key[8], const uint32_t counter[4],
                           poly1305_state *mst, int enc)
{
    poly1305_ifma_st *p = (poly1305_ifma_st *)(void *)mst->opaque;
    const uint8_t *mp = enc ? out : in;     /* the ciphertext */
    const size_t npass = len / 1024, nb = len / 16;
    const size_t pad = p5_pad(nb, 1), lead = 16 - pad;
    size_t k, mdone = 0, ng;
    c5_run crun;
    p5_run prun;
    int started = 0;

    if (len == 0)
        return;
    c5_run_setup(&crun, key, counter);
    for (k = 0; k < npass; k++) {
        /* the MAC's first group, once there is ciphertext for it */
        if (!started && (!enc || k > 0)) {
            p5_start(&prun, p, mp, pad, 1, 1);
            mdone = 16 * lead;
            started = 1;
        }
        ng = started ? ((enc ? 1024 * k : len) - mdone) / 256 : 0;
        if (ng >= 4)
            f5_pass(out + 1024 * k, in + 1024 * k, &crun, &prun, mp + mdone, 4);
        else
            f5_pass(out + 1024 * k, in + 1024 * k, &crun, &prun, mp + mdone,
                    ng);
        mdone += 256 * (ng >= 4 ? 4 : ng);
    }
    chacha_wipe(&crun, sizeof(crun));
    /*
     * The rest: the keystream of len % 1024 bytes, and the MAC of what the
     * passes left, in that order when sealing (it MACs that output), the
     * other way round when opening (in place, that output overwrites it).
     */
    if (enc)
        xor_rest(out, in, len, npass, key, counter);
    if (!started) {
        p5_start(&prun, p, mp, pad, 1, 1);
        mdone = 16 * lead;
    }
    for (; mdone < len; mdone += 256) {
        P5_STEP_A(&prun, mp + mdone);
        P5_STEP_B(&prun, mp + mdone + 128);
    }
    if (!enc)
        xor_rest(out, in, len, npass, key, counter);
    p5_end(&prun, p, 1);
}

/*
 * Below these lengths [open, seal] the two steps (avx512 ChaCha20, then
 * ifma Poly1305) are as fast; sealing needs more, its first pass and last
 * MAC kilobyte running alone.
 */
#ifndef CHACHA_FUSED512_OPEN_MIN
# define CHACHA_FUSED512_OPEN_MIN 1024
#endif
#ifndef CHACHA_FUSED512_SEAL_MIN
# define CHACHA_FUSED512_SEAL_MIN 2048
#endif

const chacha20_poly1305_kernel CHACHA_AVX512_SYM(chacha20_poly1305_avx512_kernel) = {
    .name = "avx512-fused",
    .caps = CHACHA_AVX512_EMULATED ? 0
            : CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL | CHACHA_CAP_AVX512BW
              | CHACHA_CAP_AVX512IFMA,
    .chacha = &CHACHA_AVX512_SYM(chacha20_avx512_kernel),
    .poly = &CHACHA_AVX512_SYM(poly1305_ifma_kernel),
    .xor_mac = xor_mac_avx512,
    .min_len = { CHACHA_FUSED512_OPEN_MIN, CHACHA_FUSED512_SEAL_MIN },
};
