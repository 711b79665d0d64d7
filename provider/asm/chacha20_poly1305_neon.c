/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fused NEON ChaCha20-Poly1305 kernel, neon-fused (AArch64 only): the
 * hybrid passes of chacha20_neon.h with Poly1305 blocks stitched in.
 */
#include "chacha20_neon.h"

#if NEON_VERTICAL_4BLOCKS
/*
 * Fused ChaCha20-Poly1305 bulk kernel (AArch64): the hybrid passes with the
 * scalar Poly1305 (mul, umulh) of 384 bytes of ciphertext stitched into each,
 * on the integer pipes the NEON rounds leave idle. Sealing, a pass MACs the
 * previous pass's output (the first pass runs alone, the last one's output
 * is MACed after); opening, each pass MACs its own input. The MAC steps are
 * those of poly1305_r64_blocks(), so the accumulator is bit-identical to the
 * two-step path.
 */
/* the pair this kernel fuses */
extern const chacha20_kernel chacha20_neon_kernel;
extern const poly1305_kernel poly1305_neon_kernel;

static __attribute__((noinline)) void
hybrid_mac(uint8_t *out, const uint8_t *in, size_t n,
           const uint32_t key[8], const uint32_t counter[4], stitched_mac *mac)
{
    stitched_mac m = *mac;      /* a local copy lives in registers */

    hybrid_passes(out, in, n, key, counter, &m);
    mac->h0 = m.h0;
    mac->h1 = m.h1;
    mac->h2 = m.h2;
    mac->in = m.in;
}

static void chacha20_neon_hybrid_mac(uint8_t *out, const uint8_t *in, size_t n,
                                     const uint32_t key[8],
                                     const uint32_t counter[4], stitched_mac *mac)
{
    hybrid_mac(out, in, n, key, counter, mac);
    chacha_burn_stack(BURN_PASSES);
}

static void xor_mac_neon(uint8_t *out, const uint8_t *in, size_t len,
                         const uint32_t key[8], const uint32_t counter[4],
                         poly1305_state *mst, int enc)
{
    poly1305_r64 *p = poly1305_r64_of(mst);    /* the NEON kernel's sc */
    size_t n = len / HYBRID_BYTES, done;
    uint32_t ctr[4] = { counter[0], counter[1], counter[2], counter[3] };
    stitched_mac m = {
        p->h[0], p->h[1], p->h[2], p->r[0], p->r[1],
        p->r[1] + (p->r[1] >> 2), enc ? out : in
    };

    if (enc) {
        if (n > 0) {
            chacha20_neon_hybrid(out, in, 1, key, ctr);
            ctr[0] += 6;
        }
        if (n > 1) {
            chacha20_neon_hybrid_mac(out + HYBRID_BYTES, in + HYBRID_BYTES,
                                     n - 1, key, ctr, &m);
            ctr[0] += (uint32_t)(6 * (n - 1));
        }
        done = n * HYBRID_BYTES;
        xor_rest(out + done, in + done, len - done, key, ctr);
    } else {
        chacha20_neon_hybrid_mac(out, in, n, key, ctr, &m);
        ctr[0] += (uint32_t)(6 * n);
    }
    p->h[0] = m.h0;
    p->h[1] = m.h1;
    p->h[2] = m.h2;
    /* what the passes did not MAC: the tail (and sealing, the last pass) */
    done = (size_t)(m.in - (enc ? out : in));
    poly1305_r64_blocks(p, (enc ? out : in) + done, (len - done) / 16, 1);
    if (!enc) {
        done = n * HYBRID_BYTES;
        xor_rest(out + done, in + done, len - done, key, ctr);
    }
    chacha_wipe(&m, sizeof(m));
}

/*
 * From 1025 bytes: below, the two-step path executes fewer instructions
 * (its ChaCha20 keeps the 4-block passes there), see HYBRID_MIN_LEN.
 */
const chacha20_poly1305_kernel chacha20_poly1305_neon_kernel = {
    .name = "neon-fused",
    .caps = CHACHA_CAP_NEON,
    .chacha = &chacha20_neon_kernel,
    .poly = &poly1305_neon_kernel,
    .xor_mac = xor_mac_neon,
    .min_len = { HYBRID_MIN_LEN, HYBRID_MIN_LEN },
};
#endif
