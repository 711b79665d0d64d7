/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 128-bit instantiation of the x86 ChaCha20 template (prefix x128):
 * SSSE3 code, VEX-encoded where the including file is built with -mavx2.
 * Define CT_VROUNDS first for a vertical kernel in assembly.
 */
#include <tmmintrin.h>

#define CT_PFX x128
#define CT_V __m128i
#define CT_LANES 4
#define CT_ADD(a, b) _mm_add_epi32(a, b)
#define CT_XOR(a, b) _mm_xor_si128(a, b)
#define CT_ROT16(x) _mm_shuffle_epi8(x, _mm_set_epi64x(CT_ROT16_HI, CT_ROT16_LO))
#define CT_ROT8(x) _mm_shuffle_epi8(x, _mm_set_epi64x(CT_ROT8_HI, CT_ROT8_LO))
#define CT_ROTL(x, n) _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - (n)))
#define CT_SHUF(x, imm) _mm_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm_unpackhi_epi64(a, b)

#include "chacha20_x86_template.h"
