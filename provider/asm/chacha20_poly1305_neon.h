/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CHACHA_ASM_CHACHA20_POLY1305_NEON_H
#define CHACHA_ASM_CHACHA20_POLY1305_NEON_H

/*
 * The AArch64 fused AEAD kernels' common parts (the NEON ones and sve2's):
 * the MAC stitched into a pass, and the bulk loop around the passes.
 */
#include <stddef.h>
#include <stdint.h>
#include "kernel.h"
#include "poly1305_r64.h"
#include "util.h"

/*
 * The Poly1305 side of a stitched pass (the fused AEAD kernels): the radix
 * 2^64 accumulator and key, and the ciphertext it takes in during the pass,
 * blocks (POLY1305_R64_A64_STEP) between the rounds, on the integer pipes
 * while the vector ones run the rounds. NULL for plain ChaCha20 passes.
 */
typedef struct {
    uint64_t h0, h1, h2, r0, r1, s1;
    const uint8_t *in;
} stitched_mac;

/*
 * One block: the step with h0..h2, in (advanced) and r0, r1, s1 of m; EXTRA
 * more inputs (from a comma), then the clobbers.
 */
#define MAC_ASM(m, EXTRA, ...) \
    do { \
        uint64_t m0_, m1_, t0_, t1_, t2_, t3_; \
        \
        __asm__(POLY1305_R64_A64_STEP("") \
                : POLY1305_R64_A64_OUT((m)->h0, (m)->h1, (m)->h2, (m)->in, \
                                       m0_, m1_, t0_, t1_, t2_, t3_) \
                : POLY1305_R64_A64_IN((m)->r0, (m)->r1, (m)->s1, (uint64_t)1) EXTRA \
                : __VA_ARGS__); \
    } while (0)
#define MAC_BLOCK(m) MAC_ASM(m, , "cc", "memory")
#define MAC_ROUND(m) do { if (m) MAC_BLOCK(m); } while (0)

/*
 * The Poly1305 neon_split kernel's blocks() (poly1305_neon.c), on a NEON
 * kernel's state: full blocks of a long run in the vector lanes with scalar
 * ones beside them, the rest as neon's blocks().
 */
void poly1305_neon_split_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                                uint32_t padbit);

/*
 * The NEON kernels' ChaCha20 (chacha20_neon.c: aliases of their
 * descriptors' functions), called directly by the SVE kernels for input
 * shorter than a pass and the rest after the passes: a tail call where the
 * descriptor's pointer took a load and an indirect call.
 */
void chacha20_neon_xor(uint8_t *out, const uint8_t *in, size_t len,
                       const uint32_t key[8], const uint32_t counter[4]);
void chacha20_neon_wide_xor(uint8_t *out, const uint8_t *in, size_t len,
                            const uint32_t key[8], const uint32_t counter[4]);

/* n passes of ChaCha20 from block counter[0]: out = in ^ keystream */
typedef void passes_fn(uint8_t *out, const uint8_t *in, size_t n,
                       const uint32_t key[8], const uint32_t counter[4]);
/* the same with mac's blocks stitched in (and the stack burnt after) */
typedef void passes_mac_fn(uint8_t *out, const uint8_t *in, size_t n,
                           const uint32_t key[8], const uint32_t counter[4],
                           stitched_mac *mac);

/*
 * name_plain: n passes by pass (an inline pass loop with a stitched_mac *
 * argument) without a MAC, out of line, so that short input does not pay for
 * the passes' setup; name_burnt, a passes_fn: the same, then burn bytes of
 * stack burnt.
 */
#define DEFINE_PASSES_PLAIN(name, pass, burn) \
    static __attribute__((noinline)) void \
    name##_plain(uint8_t *out, const uint8_t *in, size_t n, \
                 const uint32_t key[8], const uint32_t counter[4]) \
    { \
        pass(out, in, n, key, counter, NULL); \
    } \
    static __attribute__((noinline)) void \
    name##_burnt(uint8_t *out, const uint8_t *in, size_t n, \
                 const uint32_t key[8], const uint32_t counter[4]) \
    { \
        name##_plain(out, in, n, key, counter); \
        chacha_burn_stack(burn); \
    }

/*
 * name_mac, a passes_mac_fn: n passes by pass (an inline pass loop with a
 * stitched_mac * argument) with mac, out of line, then burn bytes of stack
 * burnt.
 */
#define DEFINE_PASSES_MAC(name, pass, burn) \
    static __attribute__((noinline)) void \
    name##_mac_inner(uint8_t *out, const uint8_t *in, size_t n, \
                     const uint32_t key[8], const uint32_t counter[4], \
                     stitched_mac *mac) \
    { \
        stitched_mac m = *mac;      /* a local copy lives in registers */ \
        \
        pass(out, in, n, key, counter, &m); \
        mac->h0 = m.h0; \
        mac->h1 = m.h1; \
        mac->h2 = m.h2; \
        mac->in = m.in; \
    } \
    static void name##_mac(uint8_t *out, const uint8_t *in, size_t n, \
                           const uint32_t key[8], const uint32_t counter[4], \
                           stitched_mac *mac) \
    { \
        name##_mac_inner(out, in, n, key, counter, mac); \
        chacha_burn_stack(burn); \
    }

/*
 * A fused kernel's xor_mac: passes of pass_bytes (pass_bytes / 64 blocks),
 * plain (passes, which burns) or with the MAC stitched in (passes_mac,
 * mac_bytes of it a pass: pass_bytes, or a share), then the rest by the
 * NEON kernel; the NEON Poly1305 (its blocks(), vector from
 * POLY1305_NEON_MIN bytes) takes what the passes do not MAC. Sealing, the
 * passes MAC the ciphertext from the start, behind what they write (the
 * first pass runs alone), and the NEON Poly1305 the rest after them;
 * opening, it takes the start of the message first (with the whole MAC
 * stitched, the tail's length), and the passes MAC the rest, ahead of what
 * they and the tail write, so that in place they read the ciphertext.
 */
void chacha_a64_xor_mac_passes(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8], const uint32_t counter[4],
                               poly1305_state *mst, int enc, size_t pass_bytes,
                               size_t mac_bytes, passes_fn *passes,
                               passes_mac_fn *passes_mac);

/*
 * fn, a fused kernel's xor_mac: the loop above on plain_burnt and
 * name_mac, whose passes MAC mac_bytes each
 */
#define DEFINE_XOR_MAC(fn, pass_bytes, mac_bytes, plain, name) \
    static void fn(uint8_t *out, const uint8_t *in, size_t len, \
                   const uint32_t key[8], const uint32_t counter[4], \
                   poly1305_state *mst, int enc) \
    { \
        chacha_a64_xor_mac_passes(out, in, len, key, counter, mst, enc, \
                                  pass_bytes, mac_bytes, plain##_burnt, \
                                  name##_mac); \
    }

#endif
