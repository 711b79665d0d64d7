/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 with AVX-512 IFMA (built with -mavx512f -mavx512vl -mavx512bw
 * -mavx512ifma): short runs in scalar radix 2^64, longer ones in eight
 * 44-bit-limb lanes (poly1305_ifma.h), two accumulators from
 * POLY1305_IFMA_PAIR_MIN blocks on. The powers r^1..r^16 are computed on
 * first vector use, so short messages never pay for them.
 */
#include "poly1305_ifma.h"

/*
 * Fewest blocks of a run that take the vector path (powers included).
 * Scalar poly1305_r64_blocks() costs a fixed ~14 cycles a block; the vector
 * path r^1..r^16 plus its 8-lane steps. Whole MACs, ours in MB/s, best of
 * 3 x 7 samples, Zen 4 with a 2-cycle vector latency (bench --only
 * poly1305): 128 bytes scalar 2025-2031 vs vector 1575, 192 bytes 2392-2418
 * vs 2144, 256 bytes 2622 vs 2770-2892. With a 1-cycle latency the
 * crossover can only move down, by at most the 12-15 block band. Runs of
 * POLY1305_IFMA_MIN_WARM blocks or more take the vector path where the
 * powers exist, or where with this run the MAC has absorbed
 * POLY1305_IFMA_MIN blocks (a live context pays for them once). The choice
 * depends on lengths only.
 */
#ifndef POLY1305_IFMA_MIN
# define POLY1305_IFMA_MIN 16
#endif
#ifndef POLY1305_IFMA_MIN_WARM
# define POLY1305_IFMA_MIN_WARM 8
#endif

/* Fewest blocks that use two accumulators (16-block groups). */
#ifndef POLY1305_IFMA_PAIR_MIN
# define POLY1305_IFMA_PAIR_MIN 32
#endif

#define P5_WIPE_ALL ((sizeof(poly1305_ifma_st) + 63) & ~(size_t)63)
#define P5_WIPE_SC ((sizeof(poly1305_r64) + 63) & ~(size_t)63)

/* Absorb nb >= POLY1305_IFMA_MIN blocks. */
static void vector_blocks(poly1305_ifma_st *p, const uint8_t *in, size_t nb,
                          uint64_t padbit)
{
    const int two = nb >= POLY1305_IFMA_PAIR_MIN;
    const size_t pad = p5_pad(nb, two);
    p5_run run;

    p5_start(&run, p, in, pad, two, padbit);
    in += 16 * (two ? 16 : 8) - 16 * pad;
    nb -= (two ? 16 : 8) - pad;
    if (two) {
        for (; nb > 0; nb -= 16, in += 256) {
            P5_STEP_A(&run, in);
            P5_STEP_B(&run, in + 128);
        }
    } else {
        for (; nb > 0; nb -= 8, in += 128)
            P5_STEP_A(&run, in);
    }
    p5_end(&run, p, two);
}

static void ifma_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_ifma_st *p = (poly1305_ifma_st *)st->opaque;

    poly1305_r64_init(&p->sc, key);
    p->have_powers = 0;
    p->seen = 0;
}

static void ifma_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                        uint32_t padbit)
{
    poly1305_ifma_st *p = (poly1305_ifma_st *)st->opaque;
    size_t nb = len / 16;

    /* the branch depends only on the public length */
    p->seen += nb;
    if (nb >= POLY1305_IFMA_MIN_WARM
        && (p->have_powers != 0 || p->seen >= POLY1305_IFMA_MIN))
        vector_blocks(p, in, nb, padbit);
    else
        poly1305_r64_blocks(&p->sc, in, nb, padbit);
}

static void ifma_emit(poly1305_state *st, uint8_t mac[16])
{
    poly1305_ifma_st *p = (poly1305_ifma_st *)st->opaque;
    uint64_t tag[2];

    /* whole-word stores (x86-64: little-endian): gcc 12 makes a slow byte
       shuffle of chacha_store_le64() here */
    poly1305_r64_tag(&p->sc, tag);
    memcpy(mac, tag, sizeof(tag));
    /* the powers of r exist only if a long run took the vector path */
    if (p->have_powers)
        chacha_wipe(st->opaque, P5_WIPE_ALL);
    else
        chacha_wipe(st->opaque, P5_WIPE_SC);
}

const poly1305_kernel CHACHA_AVX512_SYM(poly1305_ifma_kernel) = {
    .name = "ifma",
    .caps = CHACHA_AVX512_EMULATED ? 0
            : CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL | CHACHA_CAP_AVX512BW
              | CHACHA_CAP_AVX512IFMA,
    .prefer = CHACHA_CAP_ZMM_FAST,    /* else auto takes avx2 */
    .init = ifma_init,
    .blocks = ifma_blocks,
    .emit = ifma_emit,
};
