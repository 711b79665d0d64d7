/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 round template for the x86-64 SIMD backends, included once per
 * vector width. The including file defines the parameters below, includes this
 * header, and gets two kernels named after CT_PFX:
 *
 *   CT_PFX_vrounds, CT_PFX_vgroup: "vertical" layout, one state word per
 *       vector and one block per 32-bit lane (CT_LANES blocks at once) in a
 *       CT_PFX_state block, rounds and then rows transposed back to block
 *       order, a group of four words at a time;
 *   CT_PFX_hrounds: "horizontal" layout, one state row per 128-bit lane, for
 *       1..3 independent block sets at once (short inputs and tails);
 *   CT_PFX_hchacha20 (128-bit vectors only): HChaCha20 in rows.
 *
 * Included without CT_PFX, it provides only the shared macros and helpers.
 * Parameters (all undefined again at the end of this file):
 *   CT_PFX                     name prefix
 *   CT_V                       vector type
 *   CT_LANES                   32-bit lanes per vector
 *   CT_ADD(a, b), CT_XOR(a, b) lane-wise 32-bit add and xor
 *   CT_ROT16(x), CT_ROT8(x)    rotate each lane left by 16 / 8 (byte shuffles)
 *   CT_ROTL(x, n)              rotate each lane left by n (shift pair)
 *   CT_SHUF(x, imm)            32-bit lane shuffle inside each 128-bit lane
 *   CT_UNPACK{LO,HI}{32,64}    interleaves inside each 128-bit lane
 *   CT_VROUNDS(st, scalar)     optional: the vertical rounds from
 *                              CT_ASM_RUN instead of intrinsics
 *   CT_VUNROLL                 optional: unroll the intrinsics' round loop
 *   CT_HXROT(d, a, n)          optional: rotl(d ^ a, n) in the horizontal
 *                              rounds, written as the includer wants
 */

#ifndef CHACHA20_X86_TEMPLATE_COMMON
#define CHACHA20_X86_TEMPLATE_COMMON

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <emmintrin.h>
#include "util.h"

#define CT_CAT2(a, b) a##_##b
#define CT_CAT(a, b) CT_CAT2(a, b)
#define CT_FN(name) CT_CAT(CT_PFX, name)

#define CT_INLINE static inline __attribute__((always_inline))

/* pshufb masks rotating each 32-bit lane left by 16 and by 8 (64-bit halves) */
#define CT_ROT16_LO 0x0504070601000302
#define CT_ROT16_HI 0x0d0c0f0e09080b0a
#define CT_ROT8_LO 0x0605040702010003
#define CT_ROT8_HI 0x0e0d0c0f0a09080b


/*
 * Four quarter-rounds on independent words, one step at a time across all
 * four so that each step offers four independent operations.
 */
#define CT_QR_STEP(a, b, d, ROT) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = ROT(d)
#define CT_QR_STEP12(a, b, d) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = CT_ROTL(d, 12)
#define CT_QR_STEP7(a, b, d) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = CT_ROTL(d, 7)

#define CT_QR4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, \
               a3, b3, c3, d3) \
    do { \
        CT_QR_STEP(a0, b0, d0, CT_ROT16); CT_QR_STEP(a1, b1, d1, CT_ROT16); \
        CT_QR_STEP(a2, b2, d2, CT_ROT16); CT_QR_STEP(a3, b3, d3, CT_ROT16); \
        CT_QR_STEP12(c0, d0, b0); CT_QR_STEP12(c1, d1, b1); \
        CT_QR_STEP12(c2, d2, b2); CT_QR_STEP12(c3, d3, b3); \
        CT_QR_STEP(a0, b0, d0, CT_ROT8); CT_QR_STEP(a1, b1, d1, CT_ROT8); \
        CT_QR_STEP(a2, b2, d2, CT_ROT8); CT_QR_STEP(a3, b3, d3, CT_ROT8); \
        CT_QR_STEP7(c0, d0, b0); CT_QR_STEP7(c1, d1, b1); \
        CT_QR_STEP7(c2, d2, b2); CT_QR_STEP7(c3, d3, b3); \
    } while (0)

/*
 * One quarter-round on four rows (horizontal layout). Each step is
 * a += b; d = rotl(d ^ a, n) through CT_HXROT(d, a, n), which an includer
 * may define to shorten the latency (see CT_HXROT in the parameters);
 * by default the xor and then CT_ROT16, CT_ROT8 or CT_ROTL.
 */
#define CT_ROTN_16(x) CT_ROT16(x)
#define CT_ROTN_12(x) CT_ROTL(x, 12)
#define CT_ROTN_8(x) CT_ROT8(x)
#define CT_ROTN_7(x) CT_ROTL(x, 7)
#define CT_HSTEP(a, b, d, n) a = CT_ADD(a, b); d = CT_HXROT(d, a, n)
#define CT_QR_ROWS(a, b, c, d) \
    do { \
        CT_HSTEP(a, b, d, 16); CT_HSTEP(c, d, b, 12); \
        CT_HSTEP(a, b, d, 8); CT_HSTEP(c, d, b, 7); \
    } while (0)

/*
 * Column round, then diagonal round, on rows a..d. Row b finishes last in
 * each round, so the diagonals are formed by rotating a, c and d instead of
 * b: those shuffles run while b is still being computed and stay off the
 * critical path.
 */
#define CT_DROUND_ROWS(a, b, c, d) \
    do { \
        CT_QR_ROWS(a, b, c, d); \
        a = CT_SHUF(a, 0x93); c = CT_SHUF(c, 0x39); d = CT_SHUF(d, 0x4e); \
        CT_QR_ROWS(a, b, c, d); \
        a = CT_SHUF(a, 0x39); c = CT_SHUF(c, 0x93); d = CT_SHUF(d, 0x4e); \
    } while (0)

/*
 * The 20 rounds of the vertical kernel as one inline-assembly string. 16 state
 * vectors plus a rotate temporary do not fit in 16 vector registers, and gcc
 * and clang then spill far more than needed (AVX2: 1.1 and 0.9 cycles/byte
 * from intrinsics). Here 15 rows stay in registers and one c row lives in its
 * out[] slot. The quarter-round holding that row adds it to d straight into
 * the temporary, stores the sum back and then uses the temporary for its
 * rotate; the other three rotate through the same temporary (renamed by the
 * CPU). Only one of the four chains of a round passes through memory (ymm
 * store-to-load forwarding takes ~10 cycles on Zen 3, against ~7 between two
 * uses of a c row). On Zen 3 this runs as fast as taking turns with two c
 * rows in memory and two temporaries (within noise, with half the spill
 * traffic); without any memory round trip the rounds would be ~5% faster.
 * What bounds them on Zen 3 is the shifts and byte shuffles: ~24 of the 64
 * operations of a round, most of them on the critical path, and only two of
 * the four vector pipes run them; where a vector step takes 2 cycles it is
 * the chain itself (see CT_ASM_ROUND for the order that serves it). More independent blocks in vector registers (a
 * horizontal 2-block set beside the 8, 10 to 14 blocks) cost more in spills
 * than they gain; rotates through vpmulld (other pipes, 3 cycles) are slower.
 *
 * Optionally (CT_ASM_RUN(st, 1)) one more block runs on the general
 * purpose registers, in the hooks of CT_ASM_ROUND, interleaved with the vector
 * code: the vector rounds are latency bound, so the integer pipes are idle;
 * see CHACHA_AVX2_NINTH_BLOCK. Its a, b and d words live in 12 GPRs; the c
 * words stay in memory and one register (r14) carries c through each
 * quarter-round.
 *
 * Everything is addressed from one pointer, operand [st], to a CT_FN(state)
 * (see below), so that with the scalar block 13 GPRs are free for it:
 *   in[16]   vector input words, out[16]  vector results (and the c slot),
 *   m[2]     byte-shuffle masks rotating lanes by 16 and by 8,
 *   sin[16]  scalar input words (aux[8] for other hooked code),
 *   sx[16]   scalar results, n loop counter.
 * The includer defines CT_AREG(i) (register name), CT_ASZ (vector bytes),
 * CT_AMOV (aligned move), VADD(d, s), VXOR(d, s), VSHUFB(d, mask operand),
 * VROTL(d, tmp, n) and CADD_SLOT(c, d, slot) (c = d + out[slot]).
 */
#define CT_A0 CT_AREG(0)
#define CT_A1 CT_AREG(1)
#define CT_A2 CT_AREG(2)
#define CT_A3 CT_AREG(3)
#define CT_B0 CT_AREG(4)
#define CT_B1 CT_AREG(5)
#define CT_B2 CT_AREG(6)
#define CT_B3 CT_AREG(7)
#define CT_C0 CT_AREG(8)
#define CT_C1 CT_AREG(9)
#define CT_C2 CT_AREG(10)
#define CT_T CT_AREG(11)        /* rotate temporary; row c3 is in slot 11 */
#define CT_D0 CT_AREG(12)
#define CT_D1 CT_AREG(13)
#define CT_D2 CT_AREG(14)
#define CT_D3 CT_AREG(15)
/* byte offsets into the state block */
#define CT_SLOT(i) "(16+" #i ")*" CT_ASZ "(%[st])"
#define CT_M16 "32*" CT_ASZ "(%[st])"
#define CT_M8 "33*" CT_ASZ "(%[st])"
#define CT_SIN(i) "34*" CT_ASZ "+4*" #i "(%[st])"
#define CT_SX(i) "34*" CT_ASZ "+64+4*" #i "(%[st])"
#define CT_NCTR "34*" CT_ASZ "+128(%[st])"
#define CT_LOAD(r, i) CT_AMOV #i "*" CT_ASZ "(%[st]), " r "\n\t"
#define CT_STORE(r, i) CT_AMOV r ", " CT_SLOT(i) "\n\t"
/* a += b; d ^= a; d = rotl(d, 16 or 8) by byte shuffle m */
#define CT_ROW_AD(a, b, d, m) VADD(a, b) VXOR(d, a) VSHUFB(d, m)
/* c += d; b ^= c; b = rotl(b, n) */
#define CT_ROW_CB(b, c, d, n) VADD(c, d) VXOR(b, c) VROTL(b, CT_T, n)
/* the same with c in slot 11, passing through the temporary */
#define CT_ROW_CB_MEM(b, d, n) \
    CADD_SLOT(CT_T, d, 11) VXOR(b, CT_T) CT_STORE(CT_T, 11) VROTL(b, CT_T, n)

/*
 * Scalar words: a0..a3 eax ebx ecx edx, b0..b3 esi edi r8d r9d,
 * d0..d3 r10d..r13d; c in sx[8..11], carried in r14d.
 */
#define CT_S_AD(a, b, d, n) \
    "addl %%" b ", %%" a "\n\t" "xorl %%" a ", %%" d "\n\t" \
    "roll $" #n ", %%" d "\n\t"
#define CT_S_CB(b, d, n) \
    "addl %%" d ", %%r14d\n\t" "xorl %%r14d, %%" b "\n\t" \
    "roll $" #n ", %%" b "\n\t"
#define CT_S_QR(a, b, c, d) \
    "movl " CT_SX(c) ", %%r14d\n\t" \
    CT_S_AD(a, b, d, 16) CT_S_CB(b, d, 12) \
    CT_S_AD(a, b, d, 8) CT_S_CB(b, d, 7) \
    "movl %%r14d, " CT_SX(c) "\n\t"
#define CT_S_LD(r, i) "movl " CT_SIN(i) ", %%" r "\n\t"
#define CT_S_ST(r, i) "movl %%" r ", " CT_SX(i) "\n\t"
#define CT_S_CP(i) "movl " CT_SIN(i) ", %%r14d\n\t" "movl %%r14d, " CT_SX(i) "\n\t"
#define CT_S_INIT \
    CT_S_LD("eax", 0) CT_S_LD("ebx", 1) CT_S_LD("ecx", 2) CT_S_LD("edx", 3) \
    CT_S_LD("esi", 4) CT_S_LD("edi", 5) CT_S_LD("r8d", 6) CT_S_LD("r9d", 7) \
    CT_S_CP(8) CT_S_CP(9) CT_S_CP(10) CT_S_CP(11) \
    CT_S_LD("r10d", 12) CT_S_LD("r11d", 13) CT_S_LD("r12d", 14) \
    CT_S_LD("r13d", 15)
#define CT_S_FINI \
    CT_S_ST("eax", 0) CT_S_ST("ebx", 1) CT_S_ST("ecx", 2) CT_S_ST("edx", 3) \
    CT_S_ST("esi", 4) CT_S_ST("edi", 5) CT_S_ST("r8d", 6) CT_S_ST("r9d", 7) \
    CT_S_ST("r10d", 12) CT_S_ST("r11d", 13) CT_S_ST("r12d", 14) \
    CT_S_ST("r13d", 15)
#define CT_S_COL0 CT_S_QR("eax", "esi", 8, "r10d")
#define CT_S_COL1 CT_S_QR("ebx", "edi", 9, "r11d")
#define CT_S_COL2 CT_S_QR("ecx", "r8d", 10, "r12d")
#define CT_S_COL3 CT_S_QR("edx", "r9d", 11, "r13d")
#define CT_S_DIAG0 CT_S_QR("eax", "edi", 10, "r13d")
#define CT_S_DIAG1 CT_S_QR("ebx", "r8d", 11, "r10d")
#define CT_S_DIAG2 CT_S_QR("ecx", "r9d", 8, "r11d")
#define CT_S_DIAG3 CT_S_QR("edx", "esi", 9, "r12d")
/* the GPRs the scalar block uses, for the clobber list */
#define CT_S_CLOBBERS "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", \
    "r10", "r11", "r12", "r13", "r14",

/*
 * One round: its quarter-rounds (a_k, b_k, c_k, d_k) in two pairs, (0, 1)
 * then (3, 2), each pair advanced step by step through its whole quarter
 * round; quarter-round 3 has its c row in slot 11. In program order a pair's
 * chain is 16 instructions long, not 32 as when all four advance together:
 * where a vector step takes 2 cycles (a Zen 4 VM) the rounds are latency
 * bound, and with the pairs the 8-block AVX2 pass takes 360 TSC ticks, not
 * 403 (OpenSSL's, which orders its quarter rounds in pairs too: 359); the
 * SSSE3 4-block and the fused AVX2 kernels gain 4-6%. h0..h11 are hooks (asm
 * strings, often empty) placed between the vector steps: another
 * instruction stream interleaved with the rounds, such as a scalar ninth
 * block or a fused kernel's Poly1305.
 */
#define CT_ASM_ROUND(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, \
                     a3, b3, d3, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, \
                     h10, h11) \
    CT_ROW_AD(a0, b0, d0, CT_M16) h0 CT_ROW_AD(a1, b1, d1, CT_M16) h1 \
    CT_ROW_CB(b0, c0, d0, 12) CT_ROW_CB(b1, c1, d1, 12) h2 \
    CT_ROW_AD(a0, b0, d0, CT_M8) CT_ROW_AD(a1, b1, d1, CT_M8) h3 \
    CT_ROW_CB(b0, c0, d0, 7) h4 CT_ROW_CB(b1, c1, d1, 7) h5 \
    CT_ROW_AD(a3, b3, d3, CT_M16) h6 CT_ROW_AD(a2, b2, d2, CT_M16) h7 \
    CT_ROW_CB_MEM(b3, d3, 12) CT_ROW_CB(b2, c2, d2, 12) h8 \
    CT_ROW_AD(a3, b3, d3, CT_M8) CT_ROW_AD(a2, b2, d2, CT_M8) h9 \
    CT_ROW_CB_MEM(b3, d3, 7) h10 CT_ROW_CB(b2, c2, d2, 7) h11

/*
 * The whole vertical kernel as one asm string: load the 16 rows, init, ten
 * double rounds (each: columns with hooks c0..c11, diagonals with d0..d11,
 * then loop), store the rows, fini. Called with the hooks as macros that
 * expand to comma-separated lists (CT_NO_HOOKS, CT_S_COL_HOOKS ...), hence
 * the extra expansion step.
 */
#define CT_ASM_VROUNDS(...) CT_ASM_VROUNDS_(__VA_ARGS__)
#define CT_ASM_VROUNDS_(init, loop, fini, c0, c1, c2, c3, c4, c5, c6, c7, \
                        c8, c9, c10, c11, d0, d1, d2, d3, d4, d5, d6, d7, \
                        d8, d9, d10, d11) \
    CT_LOAD(CT_A0, 0) CT_LOAD(CT_A1, 1) CT_LOAD(CT_A2, 2) CT_LOAD(CT_A3, 3) \
    CT_LOAD(CT_B0, 4) CT_LOAD(CT_B1, 5) CT_LOAD(CT_B2, 6) CT_LOAD(CT_B3, 7) \
    CT_LOAD(CT_C0, 8) CT_LOAD(CT_C1, 9) CT_LOAD(CT_C2, 10) CT_LOAD(CT_T, 11) \
    CT_LOAD(CT_D0, 12) CT_LOAD(CT_D1, 13) CT_LOAD(CT_D2, 14) \
    CT_LOAD(CT_D3, 15) CT_STORE(CT_T, 11) \
    init \
    "movl $10, " CT_NCTR "\n\t" \
    ".p2align 5\n" \
    "1:\n\t" \
    /* columns (0,4,8,12) (1,5,9,13) (2,6,10,14) | (3,7,11,15) */ \
    CT_ASM_ROUND(CT_A0, CT_B0, CT_C0, CT_D0, CT_A1, CT_B1, CT_C1, CT_D1, \
                 CT_A2, CT_B2, CT_C2, CT_D2, CT_A3, CT_B3, CT_D3, \
                 c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11) \
    /* diagonals (0,5,10,15) (2,7,8,13) (3,4,9,14) | (1,6,11,12) */ \
    CT_ASM_ROUND(CT_A0, CT_B1, CT_C2, CT_D3, CT_A2, CT_B3, CT_C0, CT_D1, \
                 CT_A3, CT_B0, CT_C1, CT_D2, CT_A1, CT_B2, CT_D0, \
                 d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11) \
    loop \
    "decl " CT_NCTR "\n\t" \
    "jnz 1b\n\t" \
    CT_STORE(CT_A0, 0) CT_STORE(CT_A1, 1) CT_STORE(CT_A2, 2) \
    CT_STORE(CT_A3, 3) CT_STORE(CT_B0, 4) CT_STORE(CT_B1, 5) \
    CT_STORE(CT_B2, 6) CT_STORE(CT_B3, 7) CT_STORE(CT_C0, 8) \
    CT_STORE(CT_C1, 9) CT_STORE(CT_C2, 10) \
    CT_STORE(CT_D0, 12) CT_STORE(CT_D1, 13) CT_STORE(CT_D2, 14) \
    CT_STORE(CT_D3, 15) \
    fini

/* twelve empty hooks */
#define CT_NO_HOOKS , , , , , , , , , , ,
/* the scalar block's quarter-rounds, one per step group */
#define CT_S_COL_HOOKS , , CT_S_COL0, , , CT_S_COL1, , , CT_S_COL2, , , CT_S_COL3
#define CT_S_DIAG_HOOKS , , CT_S_DIAG0, , , CT_S_DIAG1, , , CT_S_DIAG2, , , \
    CT_S_DIAG3

/* the vector registers every CT_ASM_VROUNDS clobbers */
#define CT_VEC_CLOBBERS \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
    "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/*
 * Run the vertical kernel on the state block at st, with the scalar block
 * interleaved (scalar) or not.
 */
#define CT_ASM_RUN(st, scalar) \
    do { \
        if (scalar) \
            __asm__ volatile(CT_ASM_VROUNDS(CT_S_INIT, , CT_S_FINI, \
                                            CT_S_COL_HOOKS, CT_S_DIAG_HOOKS) \
                : [st] "+r"(st) : : CT_S_CLOBBERS CT_VEC_CLOBBERS, "cc", \
                  "memory"); \
        else \
            __asm__ volatile(CT_ASM_VROUNDS(, , , CT_NO_HOOKS, CT_NO_HOOKS) \
                : [st] "+r"(st) : : CT_VEC_CLOBBERS, "cc", "memory"); \
    } while (0)

/*
 * dst[0..n) = src[0..n) ^ ks[0..n) for a final partial stretch, n < 512;
 * touches no byte of src or dst at or past n.
 */
CT_INLINE void ct_xor_tail(uint8_t *dst, const uint8_t *src,
                           const uint8_t *ks, size_t n)
{
    uint64_t a, b;
    uint32_t c, e;

    while (n >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)src);

        v = _mm_xor_si128(v, _mm_loadu_si128((const __m128i *)ks));
        _mm_storeu_si128((__m128i *)dst, v);
        dst += 16;
        src += 16;
        ks += 16;
        n -= 16;
    }
    if (n & 8) {
        memcpy(&a, src, 8);
        memcpy(&b, ks, 8);
        a ^= b;
        memcpy(dst, &a, 8);
        dst += 8;
        src += 8;
        ks += 8;
    }
    if (n & 4) {
        memcpy(&c, src, 4);
        memcpy(&e, ks, 4);
        c ^= e;
        memcpy(dst, &c, 4);
        dst += 4;
        src += 4;
        ks += 4;
    }
    n &= 3;
    while (n--)
        *dst++ = *src++ ^ *ks++;
}

/*
 * The end of every kernel whose last pass is partial: that pass's keystream
 * was written to ks (kslen bytes); xor its first n bytes in, then wipe it.
 */
CT_INLINE void ct_xor_tail_wipe(uint8_t *dst, const uint8_t *src, uint8_t *ks,
                                size_t kslen, size_t n)
{
    ct_xor_tail(dst, src, ks, n);
    chacha_wipe(ks, kslen);
}

/* the words of a vertical state array x in locals x0..x15, and back */
#define CT_X_LOAD(x) \
    CT_V x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3]; \
    CT_V x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7]; \
    CT_V x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11]; \
    CT_V x12 = x[12], x13 = x[13], x14 = x[14], x15 = x[15]
#define CT_X_STORE(x) \
    do { \
        x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; \
        x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7; \
        x[8] = x8; x[9] = x9; x[10] = x10; x[11] = x11; \
        x[12] = x12; x[13] = x13; x[14] = x14; x[15] = x15; \
    } while (0)

#endif /* CHACHA20_X86_TEMPLATE_COMMON */

#ifdef CT_PFX   /* without it, only the common part above */

#ifndef CT_HXROT
# define CT_HXROT(d, a, n) CT_CAT(CT_ROTN, n)(CT_XOR(d, a))
#endif

/*
 * State block of the vertical kernel (layout fixed by CT_ASM_VROUNDS): in[]
 * holds the 16 input words broadcast to every lane, with lane i of in[12] =
 * counter + i; m[] the rotate masks; sin[] the words of the scalar block, if
 * any (its counter follows the last lane's).
 */
typedef struct {
    CT_V in[16], out[16], m[2];
    union {
        uint32_t sin[16];
        uint64_t aux[8];    /* or what another hooked stream keeps there */
    };
    uint32_t sx[16];
    uint32_t n, pad[15];
} CT_FN(state);

_Static_assert(offsetof(CT_FN(state), out) == 16 * sizeof(CT_V), "layout");
_Static_assert(offsetof(CT_FN(state), sin) == 34 * sizeof(CT_V), "layout");
_Static_assert(offsetof(CT_FN(state), sx) == 34 * sizeof(CT_V) + 64, "layout");
_Static_assert(offsetof(CT_FN(state), n) == 34 * sizeof(CT_V) + 128, "layout");

#ifndef CT_VROUNDS
/*
 * Register-resident forms of the vertical kernel (intrinsics only), for
 * kernels that keep the working state out of memory:
 *   CT_FN(vround_pre)(x): the part of the first column round that does not
 *       depend on the block counter (word 12): quarter-rounds 1-3 and the
 *       first addition of quarter-round 0. A run of passes does it once.
 *   CT_FN(vrounds_x)(x, pre): the 20 rounds on x in place; with pre (a
 *       constant), x is the state after CT_FN(vround_pre) with word 12 set.
 *       Also as single double rounds (CT_FN(vdround), CT_FN(vdround_pre)),
 *       for kernels that put other work between them.
 */
CT_INLINE void CT_FN(vround_pre)(CT_V x[16])
{
    CT_QR_STEP(x[1], x[5], x[13], CT_ROT16);
    CT_QR_STEP(x[2], x[6], x[14], CT_ROT16);
    CT_QR_STEP(x[3], x[7], x[15], CT_ROT16);
    CT_QR_STEP12(x[9], x[13], x[5]);
    CT_QR_STEP12(x[10], x[14], x[6]);
    CT_QR_STEP12(x[11], x[15], x[7]);
    CT_QR_STEP(x[1], x[5], x[13], CT_ROT8);
    CT_QR_STEP(x[2], x[6], x[14], CT_ROT8);
    CT_QR_STEP(x[3], x[7], x[15], CT_ROT8);
    CT_QR_STEP7(x[9], x[13], x[5]);
    CT_QR_STEP7(x[10], x[14], x[6]);
    CT_QR_STEP7(x[11], x[15], x[7]);
    x[0] = CT_ADD(x[0], x[4]);
}

/* One double round on x in place. */
CT_INLINE void CT_FN(vdround)(CT_V x[16])
{
    CT_X_LOAD(x);

    CT_QR4(x0, x4, x8, x12, x1, x5, x9, x13,
           x2, x6, x10, x14, x3, x7, x11, x15);
    CT_QR4(x0, x5, x10, x15, x1, x6, x11, x12,
           x2, x7, x8, x13, x3, x4, x9, x14);
    CT_X_STORE(x);
}

/* The first double round after CT_FN(vround_pre) (word 12 set). */
CT_INLINE void CT_FN(vdround_pre)(CT_V x[16])
{
    CT_X_LOAD(x);

    /* the rest of the first column round: quarter-round 0 */
    x12 = CT_XOR(x12, x0);
    x12 = CT_ROT16(x12);
    CT_QR_STEP12(x8, x12, x4);
    CT_QR_STEP(x0, x4, x12, CT_ROT8);
    CT_QR_STEP7(x8, x12, x4);
    CT_QR4(x0, x5, x10, x15, x1, x6, x11, x12,
           x2, x7, x8, x13, x3, x4, x9, x14);
    CT_X_STORE(x);
}

CT_INLINE void CT_FN(vrounds_x)(CT_V x[16], int pre)
{
    int i = 0;

    if (pre) {
        CT_FN(vdround_pre)(x);
        i = 1;
    }
#ifdef CT_VUNROLL
    _Pragma("GCC unroll 10")    /* gcc 12, zmm: 6% faster fully unrolled */
#endif
    for (; i < 10; i++)
        CT_FN(vdround)(x);
}

#endif /* !CT_VROUNDS */

/*
 * The 20 rounds of the vertical kernel, st->in to st->out, and if scalar
 * (a constant; CT_VROUNDS only) of the scalar block, st->sin to st->sx, both
 * without the feed-forward.
 */
CT_INLINE void CT_FN(vrounds)(CT_FN(state) *st, int scalar)
{
#ifdef CT_VROUNDS
    CT_VROUNDS(st, scalar);
#else
    CT_V x[16];
    int i;

    (void)scalar;   /* only the assembly has a scalar block */
    for (i = 0; i < 16; i++)
        x[i] = st->in[i];
    CT_FN(vrounds_x)(x, 0);
    for (i = 0; i < 16; i++)
        st->out[i] = x[i];
#endif
}

/*
 * Feed-forward and 4x4 transpose of words 4g..4g+3 of the rounds' output x
 * and the input state in: w[j] = row g (bytes 16g..16g+15) of the block in
 * lane j of each 128-bit lane, j = 0..3 (for wider vectors, 128-bit lane L
 * holds block 4L + j).
 */
CT_INLINE void CT_FN(vgroup_x)(CT_V w[4], const CT_V x[16],
                               const CT_V in[16], int g)
{
    CT_V w0 = CT_ADD(x[4 * g + 0], in[4 * g + 0]);
    CT_V w1 = CT_ADD(x[4 * g + 1], in[4 * g + 1]);
    CT_V w2 = CT_ADD(x[4 * g + 2], in[4 * g + 2]);
    CT_V w3 = CT_ADD(x[4 * g + 3], in[4 * g + 3]);
    CT_V t0 = CT_UNPACKLO32(w0, w1), t1 = CT_UNPACKHI32(w0, w1);
    CT_V t2 = CT_UNPACKLO32(w2, w3), t3 = CT_UNPACKHI32(w2, w3);

    w[0] = CT_UNPACKLO64(t0, t2);
    w[1] = CT_UNPACKHI64(t0, t2);
    w[2] = CT_UNPACKLO64(t1, t3);
    w[3] = CT_UNPACKHI64(t1, t3);
}

/* CT_FN(vgroup_x) after vrounds, from the state block */
CT_INLINE void CT_FN(vgroup)(CT_V w[4], const CT_FN(state) *st, int g)
{
    CT_FN(vgroup_x)(w, st->out, st->in, g);
}


/* Three horizontal sets from rows a..d, d advanced by step from set to set. */
CT_INLINE void CT_FN(hsets)(CT_V v[12], CT_V a, CT_V b, CT_V c, CT_V d,
                            CT_V step)
{
    int k;

    for (k = 0; k < 3; k++) {
        v[4 * k] = a;
        v[4 * k + 1] = b;
        v[4 * k + 2] = c;
        v[4 * k + 3] = d;
        d = CT_ADD(d, step);
    }
}

/*
 * One double round of the horizontal layout (see CT_FN(hrounds)) on nsets
 * sets in place, no feed-forward: for kernels that run sets of different
 * widths side by side.
 */
CT_INLINE void CT_FN(hdround)(CT_V v[12], int nsets)
{
    CT_DROUND_ROWS(v[0], v[1], v[2], v[3]);
    if (nsets > 1)
        CT_DROUND_ROWS(v[4], v[5], v[6], v[7]);
    if (nsets > 2)
        CT_DROUND_ROWS(v[8], v[9], v[10], v[11]);
}

/*
 * Horizontal kernel: v[4 * k .. 4 * k + 3] are rows a..d of set k, for
 * nsets (1..3, a compile-time constant after inlining) independent sets.
 * Runs the 20 rounds and adds the input rows back.
 */
CT_INLINE void CT_FN(hrounds)(CT_V v[12], int nsets)
{
    CT_V a0 = v[0], b0 = v[1], c0 = v[2], d0 = v[3];
    CT_V a1 = v[4], b1 = v[5], c1 = v[6], d1 = v[7];
    CT_V a2 = v[8], b2 = v[9], c2 = v[10], d2 = v[11];
    int i;

    for (i = 0; i < 10; i++) {
        CT_DROUND_ROWS(a0, b0, c0, d0);
        if (nsets > 1)
            CT_DROUND_ROWS(a1, b1, c1, d1);
        if (nsets > 2)
            CT_DROUND_ROWS(a2, b2, c2, d2);
    }
    v[0] = CT_ADD(a0, v[0]); v[1] = CT_ADD(b0, v[1]);
    v[2] = CT_ADD(c0, v[2]); v[3] = CT_ADD(d0, v[3]);
    if (nsets > 1) {
        v[4] = CT_ADD(a1, v[4]); v[5] = CT_ADD(b1, v[5]);
        v[6] = CT_ADD(c1, v[6]); v[7] = CT_ADD(d1, v[7]);
    }
    if (nsets > 2) {
        v[8] = CT_ADD(a2, v[8]); v[9] = CT_ADD(b2, v[9]);
        v[10] = CT_ADD(c2, v[10]); v[11] = CT_ADD(d2, v[11]);
    }
}

#if CT_LANES == 4
/*
 * HChaCha20 (draft-irtf-cfrg-xchacha-03 2.2): one block in rows, the 20
 * rounds without the feed-forward; out = row a || row d. About 15% faster
 * than the portable scalar rounds on Zen 4 (both are latency-bound on one
 * block), which is the HChaCha20 share of a short XChaCha20-Poly1305 record.
 */
CT_INLINE void CT_FN(hchacha20)(uint32_t out[8], const uint32_t key[8],
                                const uint32_t in[4])
{
    CT_V a = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1,
                            (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    CT_V b = _mm_loadu_si128((const CT_V *)(const void *)key);
    CT_V c = _mm_loadu_si128((const CT_V *)(const void *)(key + 4));
    CT_V d = _mm_loadu_si128((const CT_V *)(const void *)in);
    int i;

    for (i = 0; i < 10; i++)
        CT_DROUND_ROWS(a, b, c, d);
    _mm_storeu_si128((CT_V *)(void *)out, a);
    _mm_storeu_si128((CT_V *)(void *)(out + 4), d);
}
#endif

#undef CT_PFX
#undef CT_V
#undef CT_LANES
#undef CT_ADD
#undef CT_XOR
#undef CT_ROT16
#undef CT_ROT8
#undef CT_ROTL
#undef CT_SHUF
#undef CT_UNPACKLO32
#undef CT_UNPACKHI32
#undef CT_UNPACKLO64
#undef CT_UNPACKHI64
#undef CT_VROUNDS
#undef CT_VUNROLL
#undef CT_HXROT

#endif /* CT_PFX */
