/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fused ChaCha20-Poly1305 bulk kernel for x86-64 with AVX2 and BMI2 (the
 * caller must check CHACHA_CAP_AVX2 | CHACHA_CAP_BMI2). The ChaCha20 rounds of
 * eight blocks run in ymm registers while the integer pipes run Poly1305 in
 * radix 2^64 over 512 bytes of ciphertext, in one instruction stream.
 */
#ifndef CHACHA_PROV_CHACHA20_POLY1305_AVX2_H
#define CHACHA_PROV_CHACHA20_POLY1305_AVX2_H

#include <stddef.h>
#include <stdint.h>
#include "poly1305_r64.h"

/*
 * Encrypt (enc = 1) or decrypt (enc = 0) len bytes, len a multiple of 64
 * (0 allowed), with the keystream from block counter[0] (the caller
 * guarantees counter[0] + len / 64 <= 2^32), and absorb the len bytes of
 * ciphertext into mac as full 16-byte blocks with padbit 1. Same result as
 *   enc: chacha20_xor(out, in, len); poly1305_r64_blocks(mac, out, len / 16, 1)
 *   dec: poly1305_r64_blocks(mac, in, len / 16, 1); chacha20_xor(out, in, len)
 * in == out is allowed, any other overlap is not; no alignment is required.
 * Constant time: branches depend on len only.
 */
void chacha20_poly1305_avx2_xor_mac(uint8_t *out, const uint8_t *in, size_t len,
                                    const uint32_t key[8],
                                    const uint32_t counter[4],
                                    poly1305_r64 *mac, int enc);

#endif
