/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel interface: what every ChaCha20, Poly1305 and fused AEAD kernel
 * (portable C, SSSE3, AVX2, AVX-512, NEON ...) provides, one descriptor per
 * kernel with the same signatures, so the cores and the tests treat them
 * alike. Kernels include this header (and util.h, poly1305_r64.h beside it)
 * and system headers only; each exports its own descriptor.
 */
#ifndef CHACHA_KERNEL_H
#define CHACHA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * CPU capability bits a kernel needs (core/cpu.c detects them once), one per
 * row of caps.def: CHACHA_CAP_SSSE3, CHACHA_CAP_AVX2, ... CHACHA_CAP_ZMM_FAST.
 */
enum chacha_cap_index {
#define CHACHA_CAP(id, word) CHACHA_CAP_INDEX_##id,
#include "caps.def"
#undef CHACHA_CAP
    CHACHA_CAP_COUNT
};
enum {
#define CHACHA_CAP(id, word) CHACHA_CAP_##id = 1u << CHACHA_CAP_INDEX_##id,
#include "caps.def"
#undef CHACHA_CAP
};

/*
 * out[i] = in[i] ^ keystream[i] for i in [0, len), where the keystream starts at
 * block counter[0] with nonce words counter[1..3] (RFC 8439 layout: key and
 * counter words are host-order uint32 read little-endian from the bytes).
 * Contract: counter[0] + ceil(len / 64) <= 2^32 (the caller splits at 32-bit
 * counter wrap and does OpenSSL's carry into counter[1]); len may be any value,
 * including a partial final block, of which only len bytes are written;
 * in == out is allowed, any other overlap is not; no alignment is required.
 * Nothing derived from the key is left on the stack.
 */
typedef void chacha20_xor_fn(uint8_t *out, const uint8_t *in, size_t len,
                             const uint32_t key[8], const uint32_t counter[4]);

/*
 * HChaCha20 (draft-irtf-cfrg-xchacha-03 2.2): the 20 rounds on (constants,
 * key, in[0..3]) without the final addition; out = words 0-3 and 12-15.
 */
typedef void hchacha20_fn(uint32_t out[8], const uint32_t key[8],
                          const uint32_t in[4]);

typedef struct chacha20_kernel_s {
    const char *name;          /* "portable", "ssse3", "avx2", "avx512", "neon" */
    unsigned int caps;         /* CHACHA_CAP_* bits the CPU must have */
    /*
     * CHACHA_CAP_* bits `auto` also asks for (a preference, not a need:
     * forced by name, the kernel runs without them); 0: none.
     */
    unsigned int prefer;
    chacha20_xor_fn *xor_stream;
    /*
     * The same for CPUs whose vector steps are slow (the short-path rule's
     * "hybrid"); NULL: none. avx2: a ninth block on the general purpose
     * registers beside each 8-block pass, where the vector rounds leave
     * issue slots idle; avx512: its short row sets with plain vprold
     * rotates. hybrid_race 0: the model picks it (vector step >= 1.5
     * cycles); else the provider times both entries at load on calls of
     * hybrid_race bytes, and the faster wins.
     */
    chacha20_xor_fn *xor_stream_hybrid;
    unsigned int hybrid_race;
    /*
     * The hybrid entry with its bulk passes in pairs, two independent
     * passes' double rounds alternating (twice the dependent chains, twice
     * the registers); NULL: none. It pays where a pass is bound by its
     * chains' latency, not by the vector pipes: the rule (core/shortpath.c)
     * takes it over the hybrid entry, where that is chosen, when the
     * measured vector step latency times width_probe's operations a cycle
     * is above CHACHA_PAIRS_MIN_LW and it wins a race against the hybrid
     * entry at load. width_probe: the TSC ticks of n vector steps in eight
     * independent chains.
     */
    chacha20_xor_fn *xor_stream_pairs;
    uint64_t (*width_probe)(unsigned int n);
    hchacha20_fn *hchacha20;   /* NULL: the portable one */
    /*
     * For the AEAD core, which makes block 0 (the one-time key) in the same
     * call as the first text. 0: up to 448 bytes of text ride along (one
     * 8-block pass). Else pass_len is the bulk pass in bytes: a text of at
     * most head_max bytes rides along whole; of a longer one, the part that
     * does not fill whole passes (len % pass_len, whole blocks) rides along
     * if at most head_max bytes, so that the rest runs in whole passes;
     * with head_max >= pass_len, a whole pass rides along where nothing
     * whole is left over (the AVX2 kernel: block 0 and 8 blocks of text
     * are one pass, the ninth block on the GPRs).
     */
    unsigned int pass_len, head_max;
    /*
     * The short-path cost model (core/shortpath.c), for vector kernels:
     * the dependent vector steps of one round of its one-block row path
     * (the chain of a quarter round plus one diagonal shuffle), and a
     * probe giving the TSC ticks of n dependent such steps. 0 / NULL:
     * nothing to weigh (the portable kernel; emulated or unprobed ones).
     */
    unsigned int row_steps;
    uint64_t (*step_probe)(unsigned int n);
    /*
     * 1: a call of two blocks costs about what a call of one does (its
     * two-block rows run the same dependency chain as its one-block row):
     * the stream (core/chacha20_stream.c) then makes a block ahead for
     * callers that go on in pieces of at most a block.
     */
    unsigned int two_block_rows;
    /*
     * Another kernel whose fused AEAD kernels this one pairs with (NULL:
     * none): sve2_wide, a variant of sve2's passes, takes sve2-fused.
     */
    const struct chacha20_kernel_s *pairs_as;
} chacha20_kernel;

/*
 * The entry of k a path rule's hybrid value takes (0 off, 1 the hybrid
 * entry, 2 the paired passes): what k has of it, down to xor_stream.
 */
static inline chacha20_xor_fn *chacha20_kernel_entry(const chacha20_kernel *k,
                                                     int hybrid)
{
    if (hybrid == 2 && k->xor_stream_pairs != NULL)
        return k->xor_stream_pairs;
    if (hybrid != 0 && k->xor_stream_hybrid != NULL)
        return k->xor_stream_hybrid;
    return k->xor_stream;
}

/*
 * Poly1305: the kernel owns an opaque state block (room for precomputed
 * powers of r). It sits in heap contexts, so it is only malloc-aligned (16
 * bytes): kernels use unaligned vector loads and stores on it. Buffering of
 * partial 16-byte blocks is done once, in core/poly1305_stream.c.
 *   init:   clamp r, load s, zero the accumulator (key = r || s).
 *   blocks: absorb len bytes (len % 16 == 0); padbit is 1 for full message
 *           blocks and 0 for the final padded block.
 *   emit:   write the 16-byte tag (h + s mod 2^128) and wipe every part of
 *           the state that init or blocks wrote (the kernel knows which).
 */
#define POLY1305_STATE_SIZE 1024

typedef struct {
    _Alignas(16) unsigned char opaque[POLY1305_STATE_SIZE];
} poly1305_state;

typedef struct poly1305_kernel {
    const char *name;          /* "portable", "avx2", "ifma", "neon", "neon_wide" */
    unsigned int caps;
    unsigned int prefer;       /* CHACHA_CAP_* bits auto also asks for */
    /* a kernel of the same state, init and emit: the fused AEAD kernels
       made for that one take this one too (NULL: none) */
    const struct poly1305_kernel *pairs_as;
    void (*init)(poly1305_state *st, const uint8_t key[32]);
    void (*blocks)(poly1305_state *st, const uint8_t *in, size_t len,
                   uint32_t padbit);
    void (*emit)(poly1305_state *st, uint8_t mac[16]);
} poly1305_kernel;

/*
 * Fused ChaCha20-Poly1305 bulk kernel: encrypt (enc = 1) or decrypt len bytes
 * (a multiple of 64) from block counter[0] (no 32-bit wrap inside the call)
 * and absorb the ciphertext into mac as full blocks (padbit 1), in one pass.
 * Same result as the kernel pair it names:
 *   enc: chacha->xor_stream(out, in, len); poly->blocks(mac, out, len, 1)
 *   dec: poly->blocks(mac, in, len, 1); chacha->xor_stream(out, in, len)
 * mac is a state of that Poly1305 kernel, which alone knows its layout.
 * in == out is allowed, any other overlap is not; no alignment is required.
 */
typedef void chacha20_poly1305_xor_mac_fn(uint8_t *out, const uint8_t *in,
                                          size_t len, const uint32_t key[8],
                                          const uint32_t counter[4],
                                          poly1305_state *mac, int enc);

typedef struct {
    const char *name;          /* read back as chacha20-poly1305-impl */
    unsigned int caps;
    unsigned int prefer;       /* CHACHA_CAP_* bits auto also asks for */
    const chacha20_kernel *chacha;  /* used only when both of these are the */
    const poly1305_kernel *poly;    /* active kernels: forcing one is honoured */
    chacha20_poly1305_xor_mac_fn *xor_mac;
    size_t min_len[2];         /* [open, seal]: shorter runs take two steps */
} chacha20_poly1305_kernel;

/* The portable kernels, always present. */
extern const chacha20_kernel chacha20_portable_kernel;
extern const poly1305_kernel poly1305_portable_kernel;

#endif
