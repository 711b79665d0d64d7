/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backend vtables: one per primitive. Every backend (portable C, SSSE3, AVX2,
 * AVX-512, NEON ...) fills one of these with the same kernel signatures, so the
 * cipher code and the tests treat them alike.
 */
#ifndef CHACHA_PROV_BACKEND_H
#define CHACHA_PROV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/*
 * out[i] = in[i] ^ keystream[i] for i in [0, len), where the keystream starts at
 * block counter[0] with nonce words counter[1..3] (RFC 8439 layout: key and
 * counter words are host-order uint32 read little-endian from the bytes).
 * Contract: counter[0] + ceil(len / 64) <= 2^32 (the caller splits at 32-bit
 * counter wrap and does OpenSSL's carry into counter[1]); len may be any value,
 * including a partial final block, of which only len bytes are written;
 * in == out is allowed, any other overlap is not; no alignment is required.
 */
typedef void chacha20_xor_fn(uint8_t *out, const uint8_t *in, size_t len,
                             const uint32_t key[8], const uint32_t counter[4]);

typedef struct {
    const char *name;          /* "portable", "ssse3", "avx2", "avx512", "neon" */
    unsigned int caps;         /* CHACHA_CAP_* bits the CPU must have */
    chacha20_xor_fn *xor_stream;
} chacha20_impl;

/*
 * Poly1305: the backend owns an opaque state block (room for precomputed
 * powers of r). It sits in heap contexts, so it is only malloc-aligned (16
 * bytes): backends use unaligned vector loads and stores on it. Buffering of partial 16-byte blocks is done once,
 * in poly1305.c, for every backend.
 *   init:   clamp r, load s, zero the accumulator (key = r || s).
 *   blocks: absorb len bytes (len % 16 == 0); padbit is 1 for full message
 *           blocks and 0 for the final padded block.
 *   emit:   write the 16-byte tag (h + s mod 2^128) and wipe every part of
 *           the state that init or blocks wrote (the backend knows which).
 */
#define POLY1305_STATE_SIZE 512

typedef struct {
    _Alignas(16) unsigned char opaque[POLY1305_STATE_SIZE];
} poly1305_state;

typedef struct {
    const char *name;          /* "portable", "scalar64", "avx2", "ifma", "neon" */
    unsigned int caps;         /* CHACHA_CAP_* bits the CPU must have */
    /* 1 if the state begins with a struct poly1305_r64 (poly1305_r64.h) that
       a fused AEAD kernel may advance in place */
    int r64_state;
    void (*init)(poly1305_state *st, const uint8_t key[32]);
    void (*blocks)(poly1305_state *st, const uint8_t *in, size_t len,
                   uint32_t padbit);
    void (*emit)(poly1305_state *st, uint8_t mac[16]);
} poly1305_impl;

/*
 * Fused ChaCha20-Poly1305 bulk kernels: encrypt or decrypt len bytes (a
 * multiple of 64) from block counter[0] (no 32-bit wrap inside the call) and
 * absorb the ciphertext into a radix-2^64 Poly1305 state as full blocks, in
 * one pass. Used only when the active ChaCha20 and Poly1305 backends are the
 * ones named here, so a forced backend is always what runs.
 */
struct poly1305_r64;
typedef void chacha20_poly1305_xor_mac_fn(uint8_t *out, const uint8_t *in,
                                          size_t len, const uint32_t key[8],
                                          const uint32_t counter[4],
                                          struct poly1305_r64 *mac, int enc);

typedef struct {
    const char *name;          /* "avx2" */
    unsigned int caps;
    const chacha20_impl *chacha;
    const poly1305_impl *poly;
    chacha20_poly1305_xor_mac_fn *xor_mac;
    size_t min_len[2];         /* [open, seal]: shorter runs take two steps */
} chacha20_poly1305_impl;

/* The fused kernel for this backend pair, or NULL (two steps then). */
const chacha20_poly1305_impl *chacha20_poly1305_impl_for(const chacha20_impl *c,
                                                         const poly1305_impl *p);

/* CPU capability bits, detected once (thread-safe) by chacha_cpu_caps(). */
#define CHACHA_CAP_SSSE3     (1u << 0)
#define CHACHA_CAP_AVX2      (1u << 1)   /* includes OS YMM state (XGETBV) */
#define CHACHA_CAP_AVX512F   (1u << 2)   /* includes OS ZMM/opmask state */
#define CHACHA_CAP_AVX512VL  (1u << 3)
#define CHACHA_CAP_AVX512BW  (1u << 4)
#define CHACHA_CAP_AVX512IFMA (1u << 5)
#define CHACHA_CAP_BMI2      (1u << 6)
#define CHACHA_CAP_ADX       (1u << 7)
#define CHACHA_CAP_NEON      (1u << 8)

unsigned int chacha_cpu_caps(void);

/*
 * Every backend compiled into this build, widest first, NULL-terminated; the
 * portable one is always last. backend.c owns these lists.
 */
extern const chacha20_impl *const chacha20_impl_list[];
extern const poly1305_impl *const poly1305_impl_list[];

/* 1 if the CPU has everything the backend needs. */
int chacha_caps_ok(unsigned int caps);

/*
 * Look a backend up by name. NULL or "auto" picks the widest the CPU runs.
 * Returns NULL when the name is unknown (*why = "unknown") or the CPU lacks
 * what it needs (*why = "unavailable"); never silently downgrades.
 */
const chacha20_impl *chacha20_impl_select(const char *name, const char **why);
const poly1305_impl *poly1305_impl_select(const char *name, const char **why);

/* The portable C backends (always present). */
extern const chacha20_impl chacha20_portable_impl;
extern const poly1305_impl poly1305_portable_impl;

#endif
