/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-only: the AVX-512 intrinsics of the avx512/ifma kernels on SIMDe's
 * portable implementations (Debian libsimde-dev), for the emulated copies
 * of those kernels that the kernel suites run on any x86-64 CPU. Included
 * through provider/asm/avx512_isa.h when CHACHA_AVX512_EMU is defined;
 * never part of the module. Below, what SIMDe 0.7.4 lacks, written for
 * plain correctness: IFMA's 52-bit multiplies, byte-masked loads and stores,
 * expanding loads, vpshufd on zmm and the mask type names. Masked and
 * expanding loads and masked stores touch only the selected bytes, as the
 * instructions do architecturally, so the guard-page tests hold here too.
 */
#ifndef CHACHA_TEST_AVX512_EMU_H
#define CHACHA_TEST_AVX512_EMU_H

#if defined(__AVX512F__)
# error "the emulated AVX-512 kernels are built without -mavx512*"
#endif

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <stdint.h>
#include <string.h>

typedef simde__mmask8 __mmask8;
typedef simde__mmask16 __mmask16;
typedef simde__mmask32 __mmask32;
typedef simde__mmask64 __mmask64;
typedef int _MM_PERM_ENUM;

#define EMU_INLINE static inline __attribute__((unused))

/* low or high 52 bits of the 104-bit product of the low 52 bits of b, c */
EMU_INLINE uint64_t emu_madd52(uint64_t a, uint64_t b, uint64_t c, int hi)
{
    const uint64_t m52 = ((uint64_t)1 << 52) - 1;
    unsigned __int128 p = (unsigned __int128)(b & m52) * (c & m52);

    return a + (hi ? (uint64_t)(p >> 52) : (uint64_t)p & m52);
}

#define EMU_MADD52(name, type, n, hi) \
    EMU_INLINE type name(type a, type b, type c) \
    { \
        uint64_t va[n], vb[n], vc[n]; \
        int i_; \
        memcpy(va, &a, sizeof(va)); \
        memcpy(vb, &b, sizeof(vb)); \
        memcpy(vc, &c, sizeof(vc)); \
        for (i_ = 0; i_ < (n); i_++) \
            va[i_] = emu_madd52(va[i_], vb[i_], vc[i_], hi); \
        memcpy(&a, va, sizeof(va)); \
        return a; \
    }
EMU_MADD52(emu_mm512_madd52lo_epu64, simde__m512i, 8, 0)
EMU_MADD52(emu_mm512_madd52hi_epu64, simde__m512i, 8, 1)
EMU_MADD52(emu_mm256_madd52lo_epu64, simde__m256i, 4, 0)
EMU_MADD52(emu_mm256_madd52hi_epu64, simde__m256i, 4, 1)
#define _mm512_madd52lo_epu64 emu_mm512_madd52lo_epu64
#define _mm512_madd52hi_epu64 emu_mm512_madd52hi_epu64
#define _mm256_madd52lo_epu64 emu_mm256_madd52lo_epu64
#define _mm256_madd52hi_epu64 emu_mm256_madd52hi_epu64

/* byte-masked loads (zeroing) and stores: only selected bytes are touched */
#define EMU_MASKED(type, n, mtype, lname, sname) \
    EMU_INLINE type lname(mtype k, const void *p) \
    { \
        unsigned char v[n] = { 0 }; \
        type r; \
        int i_; \
        for (i_ = 0; i_ < (n); i_++) \
            if ((k >> i_) & 1) \
                v[i_] = ((const unsigned char *)p)[i_]; \
        memcpy(&r, v, sizeof(r)); \
        return r; \
    } \
    EMU_INLINE void sname(void *p, mtype k, type a) \
    { \
        unsigned char v[n]; \
        int i_; \
        memcpy(v, &a, sizeof(v)); \
        for (i_ = 0; i_ < (n); i_++) \
            if ((k >> i_) & 1) \
                ((unsigned char *)p)[i_] = v[i_]; \
    }
EMU_MASKED(simde__m512i, 64, uint64_t, emu_mm512_maskz_loadu_epi8,
           emu_mm512_mask_storeu_epi8)
EMU_MASKED(simde__m256i, 32, uint32_t, emu_mm256_maskz_loadu_epi8,
           emu_mm256_mask_storeu_epi8)
EMU_MASKED(simde__m128i, 16, uint32_t, emu_mm_maskz_loadu_epi8,
           emu_mm_mask_storeu_epi8)
#define _mm512_maskz_loadu_epi8 emu_mm512_maskz_loadu_epi8
#define _mm512_mask_storeu_epi8 emu_mm512_mask_storeu_epi8
#define _mm256_maskz_loadu_epi8 emu_mm256_maskz_loadu_epi8
#define _mm256_mask_storeu_epi8 emu_mm256_mask_storeu_epi8
#define _mm_maskz_loadu_epi8 emu_mm_maskz_loadu_epi8
#define _mm_mask_storeu_epi8 emu_mm_mask_storeu_epi8

/* expanding load: consecutive qwords from p into the selected lanes */
EMU_INLINE simde__m512i emu_mm512_maskz_expandloadu_epi64(simde__mmask8 k,
                                                          const void *p)
{
    uint64_t v[8] = { 0 };
    simde__m512i r;
    int i, j = 0;

    for (i = 0; i < 8; i++)
        if ((k >> i) & 1)
            memcpy(&v[i], (const unsigned char *)p + 8 * j++, 8);
    memcpy(&r, v, sizeof(r));
    return r;
}
#define _mm512_maskz_expandloadu_epi64 emu_mm512_maskz_expandloadu_epi64

/* vpshufd on each 128-bit lane of a zmm */
EMU_INLINE simde__m512i emu_mm512_shuffle_epi32(simde__m512i a, int imm)
{
    uint32_t v[16], r[16];
    int l, i;

    memcpy(v, &a, sizeof(v));
    for (l = 0; l < 4; l++)
        for (i = 0; i < 4; i++)
            r[4 * l + i] = v[4 * l + ((imm >> (2 * i)) & 3)];
    memcpy(&a, r, sizeof(r));
    return a;
}
#define _mm512_shuffle_epi32 emu_mm512_shuffle_epi32

#endif
