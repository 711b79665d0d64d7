/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fused NEON ChaCha20-Poly1305 kernels (AArch64 only): the hybrid and
 * wide passes of chacha20_neon.h with Poly1305 blocks stitched in.
 */
#include "chacha20_neon.h"

#if NEON_VERTICAL_4BLOCKS
/*
 * Fused ChaCha20-Poly1305 bulk kernel (AArch64): the hybrid passes with the
 * scalar Poly1305 (mul, umulh) of 384 bytes of ciphertext stitched into each,
 * on the integer pipes the NEON rounds leave idle (what is MACed when:
 * chacha_a64_xor_mac_passes in chacha20_poly1305_neon.h). The MAC steps are
 * those of poly1305_r64_blocks(), so the accumulator is bit-identical to the
 * two-step path.
 */
/* the pair this kernel fuses */
extern const chacha20_kernel chacha20_neon_kernel;
extern const poly1305_kernel poly1305_neon_kernel;

DEFINE_PASSES_MAC(hybrid, hybrid_passes, BURN_PASSES)
DEFINE_PASSES_MAC(wide, wide_passes, BURN_PASSES)
DEFINE_PASSES_MAC(wide1, wide1_passes, BURN_PASSES)
DEFINE_PASSES_MAC(wide_split, wide_split_passes, BURN_PASSES)
DEFINE_PASSES_PLAIN(wide1, wide1_passes, BURN_PASSES)

void chacha_a64_xor_mac_passes(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8], const uint32_t counter[4],
                               poly1305_state *mst, int enc, size_t pass_bytes,
                               size_t mac_bytes, passes_fn *passes,
                               passes_mac_fn *passes_mac)
{
    poly1305_r64 *p = poly1305_r64_of(mst);    /* the NEON kernel's sc */
    const uint32_t blocks = (uint32_t)(pass_bytes / 64);
    const uint8_t *ct = enc ? out : in;
    size_t n = len / pass_bytes, done = n * pass_bytes, rest;
    uint32_t ctr[4] = { counter[0], counter[1], counter[2], counter[3] };
    stitched_mac m;

    /*
     * Opening, what the passes do not MAC comes first (the tail; with a
     * share of the MAC, the start of the message), so that the passes MAC
     * the bytes they and the rest are about to write, never behind them.
     */
    rest = enc ? 0 : len - n * mac_bytes;
    poly1305_neon_split_blocks(mst, ct, rest, 1);
    m = (stitched_mac){
        p->h[0], p->h[1], p->h[2], p->r[0], p->r[1],
        p->r[1] + (p->r[1] >> 2), ct + rest
    };
    if (enc) {
        if (n > 0) {
            passes(out, in, 1, key, ctr);
            ctr[0] += blocks;
        }
        if (n > 1) {
            passes_mac(out + pass_bytes, in + pass_bytes, n - 1, key, ctr, &m);
            ctr[0] += (uint32_t)(blocks * (n - 1));
        }
    } else {
        passes_mac(out, in, n, key, ctr, &m);
        ctr[0] += (uint32_t)(blocks * n);
    }
    xor_rest(out + done, in + done, len - done, key, ctr);
    p->h[0] = m.h0;
    p->h[1] = m.h1;
    p->h[2] = m.h2;
    /* sealing, what the passes did not MAC: the last pass (or the passes'
       share), and the tail */
    done = (size_t)(m.in - ct);
    poly1305_neon_split_blocks(mst, ct + done, len - done, 1);
    chacha_wipe(&m, sizeof(m));
}

DEFINE_XOR_MAC(xor_mac_neon, HYBRID_BYTES, HYBRID_BYTES, hybrid, hybrid)
DEFINE_XOR_MAC(xor_mac_neon_wide1, WIDE1_BYTES, WIDE1_BYTES, wide1, wide1)
DEFINE_XOR_MAC(xor_mac_neon_wide, WIDE_BYTES, WIDE_BYTES, wide, wide)
DEFINE_XOR_MAC(xor_mac_neon_wide_split, WIDE_BYTES, WIDE_SPLIT_MAC_BYTES, wide,
               wide_split)

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

/*
 * neon_wide's passes with 512 bytes MACed in each: 32 Poly1305 blocks beside
 * the two scalar ChaCha20 blocks on the integer pipes. llvm-mca 19, 16 KiB,
 * cycles a byte (bench/arm-mca.sh): V1 1.58, V2 1.22, N2 2.27 (OpenSSL's
 * best two steps 1.92, 1.52, 2.36); but N1 3.57, where its one multi-cycle
 * pipe takes each 64-bit multiply three cycles, and neon_wide then NEON
 * Poly1305 cost 2.94: auto takes it with ARM_WIDE_MAC only. From 1025
 * bytes, as neon-fused.
 */
extern const chacha20_kernel chacha20_neon_wide_kernel;

/*
 * The same with wide1's passes, one scalar ChaCha20 block and 28 Poly1305
 * blocks in 448 bytes: V1 1.42 cycles a byte (0.740 of OpenSSL's two steps,
 * against 1.58 for neon_wide-fused, whose integer work holds V1's four
 * integer pipes at ~765 cycles a pass); V2 1.39, N2 2.31, N1 3.19 (worse
 * than neon_wide-fused or the two steps there): auto takes it with
 * ARM_WIDE_MAC1 only (V1), before neon_wide-fused. From 1025 bytes.
 */
const chacha20_poly1305_kernel chacha20_poly1305_neon_wide1_kernel = {
    .name = "neon_wide1-fused",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC | CHACHA_CAP_ARM_WIDE_MAC1,
    .chacha = &chacha20_neon_wide_kernel,
    .poly = &poly1305_neon_kernel,
    .xor_mac = xor_mac_neon_wide1,
    .min_len = { HYBRID_MIN_LEN, HYBRID_MIN_LEN },
};

const chacha20_poly1305_kernel chacha20_poly1305_neon_wide_kernel = {
    .name = "neon_wide-fused",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC,
    .chacha = &chacha20_neon_wide_kernel,
    .poly = &poly1305_neon_kernel,
    .xor_mac = xor_mac_neon_wide,
    .min_len = { HYBRID_MIN_LEN, HYBRID_MIN_LEN },
};

/*
 * neon_wide's passes with a share of the MAC stitched in, 160 bytes a pass
 * (10 Poly1305 blocks, WIDE_SPLIT_MAC_BYTES), and the NEON Poly1305 on the
 * rest of the message in its own loop (before the passes opening, after
 * them sealing): auto's AEAD on Neoverse N1 (ARM_WIDE without
 * ARM_WIDE_MAC). There the whole MAC stitched (neon_wide-fused) is bound by
 * the one multi-cycle integer pipe, and the two steps (neon_wide, then the
 * NEON Poly1305) leave the integer pipes idle during the MAC. llvm-mca 19,
 * 16 KiB, sealing, cycles a byte, the rest by neon_split: N1 2.52 (the two
 * steps 2.84, OpenSSL's 3.21); V1 1.53, V2 1.45, N2 2.43, where the
 * kernels above are faster.
 * From 1025 bytes, as the others.
 */
const chacha20_poly1305_kernel chacha20_poly1305_neon_wide_split_kernel = {
    .name = "neon_wide_split-fused",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE,
    .chacha = &chacha20_neon_wide_kernel,
    .poly = &poly1305_neon_kernel,
    .xor_mac = xor_mac_neon_wide_split,
    .min_len = { HYBRID_MIN_LEN, HYBRID_MIN_LEN },
};
#endif
