/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fused ChaCha20-Poly1305 bulk kernel for x86-64, AVX2 + BMI2 (build this file
 * with -mavx2 -mbmi2; the CPU needs both).
 *
 * Two passes (ChaCha20, then Poly1305) leave half the machine idle each time:
 * ChaCha20 in ymm registers keeps the vector pipes busy and the integer pipes
 * almost idle, scalar Poly1305 is the other way round. Here one inline-asm
 * loop runs the 20 rounds of eight ChaCha20 blocks (512 bytes) and, between
 * those vector instructions, the radix 2^64 Poly1305 multiply of 32 message
 * blocks of 16 bytes, so both run side by side and the AEAD costs little more
 * than the cipher alone. Per pass, the MAC input is 512 bytes of ciphertext:
 * the current input when decrypting, the output of the previous pass when
 * encrypting (the first ChaCha20 pass and the last MAC pass then run alone).
 *
 * The Poly1305 step is the one of poly1305_r64.h (h = (h + m) * r, partially
 * reduced, 5/4 r1 for the wrap), written with mulx, so the accumulator is
 * bit-identical to poly1305_r64_blocks() after every block.
 * Constant time: no branch or address depends on key or data.
 */
#include <immintrin.h>
#include <string.h>
#include "kernel.h"
#include "util.h"
#include "poly1305_r64.h"

#if !defined(__AVX2__) || !defined(__x86_64__)
# error "chacha20_poly1305_avx2.c needs -mavx2 on x86-64"
#endif

extern const chacha20_kernel chacha20_avx2_kernel;
extern const poly1305_kernel poly1305_avx2_kernel;

/*
 * Everything the asm loop touches, addressed from one base register:
 *   x[16]  input state, one word per vector, lane i = block counter + i
 *   y[16]  rows after the 20 rounds; y[8..11] double as spill slots for the
 *          c rows during the rounds
 *   m[2]   pshufb masks rotating 32-bit lanes by 16 and by 8
 *   k[4]   r0, r1, s1 = r1 + r1 / 4 (Poly1305 key, radix 2^64), and the
 *          asm loop counter
 */
typedef struct {
    __m256i x[16];
    __m256i y[16];
    __m256i m[2];
    uint64_t k[4];
} fused_st;

#define OFF_Y "512"
#define M16 "1024(%[st])"
#define M8 "1056(%[st])"
#define KR0 "1088(%[st])"
#define KR1 "1096(%[st])"
#define KS1 "1104(%[st])"
_Static_assert(offsetof(fused_st, y) == 512, "layout");
_Static_assert(offsetof(fused_st, m) == 1024, "layout");
_Static_assert(offsetof(fused_st, k) == 1088, "layout");

/* ---- vector side: ChaCha20 rounds on eight blocks ---------------------- */

/*
 * Registers: a rows ymm0-3, b rows ymm4-7, d rows ymm12-15. Only two c rows
 * fit (CA = ymm8, CB = ymm9, rotate temporaries ymm10/11): in each round the
 * quarter-rounds p, q keep theirs in CA/CB, u, v load theirs from y[] slots,
 * and half-way each pair hands its c rows over through the slots.
 */
#define A0 "%%ymm0"
#define A1 "%%ymm1"
#define A2 "%%ymm2"
#define A3 "%%ymm3"
#define B0 "%%ymm4"
#define B1 "%%ymm5"
#define B2 "%%ymm6"
#define B3 "%%ymm7"
#define CA "%%ymm8"
#define CB "%%ymm9"
#define T0 "%%ymm10"
#define T1 "%%ymm11"
#define D0 "%%ymm12"
#define D1 "%%ymm13"
#define D2 "%%ymm14"
#define D3 "%%ymm15"

#define XROW(i) #i "*32(%[st])"
#define SLOT(i) #i "*32+" OFF_Y "(%[st])"
#define LDX(r, i) "vmovdqa " XROW(i) ", " r "\n\t"
#define STY(r, i) "vmovdqa " r ", " SLOT(i) "\n\t"

#define VADD(d, s) "vpaddd " s ", " d ", " d "\n\t"
#define VXOR(d, s) "vpxor " s ", " d ", " d "\n\t"
#define VSHB(d, m) "vpshufb " m ", " d ", " d "\n\t"
#define VROL(d, t, n) \
    "vpslld $" #n ", " d ", " t "\n\t" \
    "vpsrld $32-" #n ", " d ", " d "\n\t" \
    "vpor " t ", " d ", " d "\n\t"
/* c = d + y[i] */
#define VADDSLOT(c, d, i) "vpaddd " SLOT(i) ", " d ", " c "\n\t"

/* a += b; d ^= a; d <<<= 16 or 8 */
#define QAD(a, b, d, m) VADD(a, b) VXOR(d, a) VSHB(d, m)
/* c += d (cadd); b ^= c; b <<<= n */
#define QCB(b, c, t, n, cadd) cadd VXOR(b, c) VROL(b, t, n)

/*
 * One round on four quarter-rounds p, q, u, v with twelve scalar pieces
 * q0..q11 (strings, may be "") spread between the vector steps.
 */
#define ROUND(ap, bp, dp, aq, bq, dq, cp, cq, au, bu, du, av, bv, dv, cu, cv, \
              q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11) \
    QAD(ap, bp, dp, M16) q0 QAD(aq, bq, dq, M16) q1 \
    QAD(au, bu, du, M16) q2 QAD(av, bv, dv, M16) \
    QCB(bp, CA, T0, 12, VADD(CA, dp)) q3 \
    QCB(bq, CB, T1, 12, VADD(CB, dq)) q4 \
    STY(CA, cp) STY(CB, cq) \
    QCB(bu, CA, T0, 12, VADDSLOT(CA, du, cu)) q5 \
    QCB(bv, CB, T1, 12, VADDSLOT(CB, dv, cv)) \
    QAD(ap, bp, dp, M8) q6 QAD(aq, bq, dq, M8) q7 \
    QAD(au, bu, du, M8) q8 QAD(av, bv, dv, M8) \
    QCB(bu, CA, T0, 7, VADD(CA, du)) q9 \
    QCB(bv, CB, T1, 7, VADD(CB, dv)) q10 \
    STY(CA, cu) STY(CB, cv) \
    QCB(bp, CA, T0, 7, VADDSLOT(CA, dp, cp)) q11 \
    QCB(bq, CB, T1, 7, VADDSLOT(CB, dq, cq))

/* columns: (0,4,8,12) (1,5,9,13) | (2,6,10,14) (3,7,11,15) */
#define COLUMNS(...) \
    ROUND(A0, B0, D0, A1, B1, D1, 8, 9, A2, B2, D2, A3, B3, D3, 10, 11, \
          __VA_ARGS__)
/* diagonals: (2,7,8,13) (3,4,9,14) | (0,5,10,15) (1,6,11,12) */
#define DIAGONALS(...) \
    ROUND(A2, B3, D1, A3, B0, D2, 8, 9, A0, B1, D3, A1, B2, D0, 10, 11, \
          __VA_ARGS__)

/* ---- scalar side: one Poly1305 block in pieces ------------------------- */

/*
 * One Poly1305 block: h = (h + m + 2^128) * r, partially reduced. The
 * message add is done one block ahead: PAR adds the next block (loaded early
 * by PL) and 2^128 while the previous product is still being reduced, before
 * the fold c = 5 (w2 >> 2) lands in h0 (PH), which takes a cycle off the
 * serial chain. So a run of blocks is PA(0) (the first add, from memory),
 * then per block PB PC PL(next) PD PE PF PG PAR PH, and the last block leaves
 * PL and PAR out. The chain is about 12 cycles a block on Zen 3: six
 * multiplies through one multiplier, then two adds and the fold.
 * Products: h0 r0 -> t1:t0, h0 r1 -> t3:t2, h1 r0 -> t5:t4, h1 s1 -> h1:h0,
 * h2 s1 -> t0, h2 r0 -> h2. Then h r = w0 + 2^64 w1 + 2^128 w2 (w0 in h0,
 * w1 in h1, w2 in t5; w2 < 2^63.4) and w2 folds as (w2 >> 2) * 5 + 2^128
 * (w2 & 3) since 2^130 = 5 mod p. Carries never cross a piece boundary.
 */
#define PA(o) \
    "addq " #o "(%[p]), %[h0]\n\t" \
    "adcq " #o "+8(%[p]), %[h1]\n\t" \
    "adcq $1, %[h2]\n\t"
#define PB \
    "movq %[h0], %%rdx\n\t" \
    "mulxq " KR0 ", %[t0], %[t1]\n\t" \
    "mulxq " KR1 ", %[t2], %[t3]\n\t"
#define PC \
    "movq %[h1], %%rdx\n\t" \
    "mulxq " KR0 ", %[t4], %[t5]\n\t" \
    "mulxq " KS1 ", %[h0], %[h1]\n\t"
#define PD \
    "addq %[t0], %[h0]\n\t" \
    "adcq %[t1], %[h1]\n\t" \
    "movq %[h2], %[t0]\n\t" \
    "imulq " KS1 ", %[t0]\n\t"
#define PE \
    "imulq " KR0 ", %[h2]\n\t" \
    "addq %[t2], %[t4]\n\t" \
    "adcq %[t3], %[t5]\n\t"
#define PF \
    "addq %[t4], %[h1]\n\t" \
    "adcq %[h2], %[t5]\n\t" \
    "addq %[t0], %[h1]\n\t" \
    "adcq $0, %[t5]\n\t"
#define PG \
    "movq %[t5], %[t0]\n\t" \
    "movq %[t5], %[h2]\n\t" \
    "andq $3, %[h2]\n\t" \
    "shrq $2, %[t5]\n\t" \
    "andq $-4, %[t0]\n\t" \
    "addq %[t0], %[t5]\n\t"
#define PH \
    "addq %[t5], %[h0]\n\t" \
    "adcq $0, %[h1]\n\t" \
    "adcq $0, %[h2]\n\t"
/*
 * PL(o) loads the next block into m0:m1 early (PA's loads, issued late in a
 * full scheduler, would land on the chain); PAR adds it.
 */
#define PL(o) \
    "movq " #o "(%[p]), %[m0]\n\t" \
    "movq " #o "+8(%[p]), %[m1]\n\t"
#define PAR \
    "addq %[m0], %[h0]\n\t" \
    "adcq %[m1], %[h1]\n\t" \
    "adcq $1, %[h2]\n\t"
/* a block whose successor is at n(%[p]), and the last block of a run */
#define PNEXT(n) PB PC PL(n) PD PE PF PG PAR PH
#define PLAST PB PC PD PE PF PG PH
/* loop counter in st->k[3]: no register left for it */
#define KCNT "1112(%[st])"
#define POLY_OPERANDS \
    [p] "+r"(p), [h0] "+r"(h0), [h1] "+r"(h1), [h2] "+r"(h2), \
    [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), \
    [t4] "=&r"(t4), [t5] "=&r"(t5), [m0] "=&r"(m0), [m1] "=&r"(m1)

/*
 * Rounds of eight blocks (st->x to st->y) and 32 Poly1305 blocks from p:
 * three per double round (30), the last two after the loop, between the
 * stores of the rows. Each round has twelve slots for scalar pieces, so a
 * double round carries three blocks of eight pieces (PL rides with PC).
 */
static inline __attribute__((always_inline))
void fused_rounds(fused_st *st, const uint8_t *p, uint64_t h[3])
{
    uint64_t h0 = h[0], h1 = h[1], h2 = h[2];
    uint64_t t0, t1, t2, t3, t4, t5, m0, m1;

    st->k[3] = 10;
    __asm__ volatile(
        LDX(A0, 0) LDX(A1, 1) LDX(A2, 2) LDX(A3, 3)
        LDX(B0, 4) LDX(B1, 5) LDX(B2, 6) LDX(B3, 7)
        LDX(CA, 8) LDX(CB, 9) LDX(T0, 10) LDX(T1, 11)
        LDX(D0, 12) LDX(D1, 13) LDX(D2, 14) LDX(D3, 15)
        STY(T0, 10) STY(T1, 11)
        PA(0)
        ".p2align 5\n"
        "1:\n\t"
        COLUMNS(PB, PC PL(16), PD, PE, PF, PG, PAR, PH,
                PB, PC PL(32), PD, PE)
        DIAGONALS(PF, PG, PAR, PH,
                  PB, PC PL(48), PD, PE, PF, PG, PAR, PH)
        "addq $48, %[p]\n\t"
        "decq " KCNT "\n\t"
        "jnz 1b\n\t"
        STY(A0, 0) PB STY(A1, 1) PC PL(16) STY(A2, 2) PD STY(A3, 3) PE
        STY(B0, 4) PF STY(B1, 5) PG PAR STY(B2, 6) PH STY(B3, 7) PB
        STY(CA, 8) PC STY(CB, 9) PD
        STY(D0, 12) PE STY(D1, 13) PF STY(D2, 14) PG STY(D3, 15) PH
        : POLY_OPERANDS
        : [st] "r"(st)
        : "rdx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
          "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
          "xmm14", "xmm15", "cc", "memory");
    h[0] = h0;
    h[1] = h1;
    h[2] = h2;
}

/*
 * nb (>= 0) Poly1305 blocks alone, the same asm step as in the fused loop
 * (Zen 3: 0.72 rdtsc ticks/byte, poly1305_r64_blocks() from GCC 12 1.06):
 * the MAC passes that have no ChaCha20 work to pair with.
 */
static void poly_blocks(fused_st *st, const uint8_t *p, size_t nb,
                        uint64_t h[3])
{
    uint64_t h0 = h[0], h1 = h[1], h2 = h[2];
    uint64_t t0, t1, t2, t3, t4, t5, m0, m1;

    if (nb == 0)
        return;
    st->k[3] = nb - 1;
    __asm__ volatile(
        PA(0)
        "cmpq $0, " KCNT "\n\t"
        "je 2f\n\t"
        "1:\n\t"
        PNEXT(16)
        "addq $16, %[p]\n\t"
        "decq " KCNT "\n\t"
        "jnz 1b\n"
        "2:\n\t"
        PLAST
        : POLY_OPERANDS
        : [st] "r"(st)
        : "rdx", "cc", "memory");
    h[0] = h0;
    h[1] = h1;
    h[2] = h2;
}

#define LOADU256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STOREU256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)

/*
 * Feed-forward and 4x4 transpose of words 4g..4g+3: on return o0..o3 hold
 * row g (bytes 16g..16g+15) of blocks 0..3 in the low 128-bit lanes and of
 * blocks 4..7 in the high lanes.
 */
#define ROWS_OF_GROUP(g, o0, o1, o2, o3) \
    do { \
        __m256i w0_ = _mm256_add_epi32(st->y[4 * (g)], st->x[4 * (g)]); \
        __m256i w1_ = _mm256_add_epi32(st->y[4 * (g) + 1], st->x[4 * (g) + 1]); \
        __m256i w2_ = _mm256_add_epi32(st->y[4 * (g) + 2], st->x[4 * (g) + 2]); \
        __m256i w3_ = _mm256_add_epi32(st->y[4 * (g) + 3], st->x[4 * (g) + 3]); \
        __m256i u0_ = _mm256_unpacklo_epi32(w0_, w1_); \
        __m256i u1_ = _mm256_unpackhi_epi32(w0_, w1_); \
        __m256i u2_ = _mm256_unpacklo_epi32(w2_, w3_); \
        __m256i u3_ = _mm256_unpackhi_epi32(w2_, w3_); \
        o0 = _mm256_unpacklo_epi64(u0_, u2_); \
        o1 = _mm256_unpackhi_epi64(u0_, u2_); \
        o2 = _mm256_unpacklo_epi64(u1_, u3_); \
        o3 = _mm256_unpackhi_epi64(u1_, u3_); \
    } while (0)

/* 32 bytes at offset off of blocks j and j + 4: rows ra (off) and rb */
#define XOR_HALF(j, off, ra, rb) \
    do { \
        STOREU256(out + 64 * (j) + (off), _mm256_xor_si256( \
            _mm256_permute2x128_si256(ra, rb, 0x20), \
            LOADU256(in + 64 * (j) + (off)))); \
        STOREU256(out + 64 * (j) + 256 + (off), _mm256_xor_si256( \
            _mm256_permute2x128_si256(ra, rb, 0x31), \
            LOADU256(in + 64 * (j) + 256 + (off)))); \
    } while (0)

/*
 * out = in ^ (st->y + st->x), the eight blocks back in byte order: rows 0-1
 * of every block first, then rows 2-3, so that eight vectors are live at a
 * time and nothing goes through the stack.
 */
static inline __attribute__((always_inline))
void fused_emit(uint8_t *out, const uint8_t *in, const fused_st *st)
{
    __m256i a0, a1, a2, a3, b0, b1, b2, b3;

    ROWS_OF_GROUP(0, a0, a1, a2, a3);
    ROWS_OF_GROUP(1, b0, b1, b2, b3);
    XOR_HALF(0, 0, a0, b0);
    XOR_HALF(1, 0, a1, b1);
    XOR_HALF(2, 0, a2, b2);
    XOR_HALF(3, 0, a3, b3);
    ROWS_OF_GROUP(2, a0, a1, a2, a3);
    ROWS_OF_GROUP(3, b0, b1, b2, b3);
    XOR_HALF(0, 32, a0, b0);
    XOR_HALF(1, 32, a1, b1);
    XOR_HALF(2, 32, a2, b2);
    XOR_HALF(3, 32, a3, b3);
}

static void fused_setup(fused_st *st, const uint32_t key[8],
                        const uint32_t counter[4])
{
    int i;

    st->x[0] = _mm256_set1_epi32(0x61707865);   /* "expand 32-byte k" */
    st->x[1] = _mm256_set1_epi32(0x3320646e);
    st->x[2] = _mm256_set1_epi32(0x79622d32);
    st->x[3] = _mm256_set1_epi32(0x6b206574);
    for (i = 0; i < 8; i++)
        st->x[4 + i] = _mm256_set1_epi32((int)key[i]);
    st->x[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter[0]),
                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    st->x[13] = _mm256_set1_epi32((int)counter[1]);
    st->x[14] = _mm256_set1_epi32((int)counter[2]);
    st->x[15] = _mm256_set1_epi32((int)counter[3]);
    st->m[0] = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
                                14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5,
                                10, 11, 8, 9, 14, 15, 12, 13);
    st->m[1] = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10,
                                15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6,
                                11, 8, 9, 10, 15, 12, 13, 14);
}

static void fused_setup_key(fused_st *st, const poly1305_r64 *mac)
{
    st->k[0] = mac->r[0];
    st->k[1] = mac->r[1];
    st->k[2] = mac->r[1] + (mac->r[1] >> 2);
    st->k[3] = 0;
}

/* one fused 512-byte pass: out = in ^ keystream, MAC over p[0..512) */
static inline __attribute__((always_inline))
void fused_pass(uint8_t *out, const uint8_t *in, const uint8_t *p,
                fused_st *st, uint64_t h[3])
{
    fused_rounds(st, p, h);
    fused_emit(out, in, st);
    st->x[12] = _mm256_add_epi32(st->x[12], _mm256_set1_epi32(8));
}

static void xor_mac_avx2(uint8_t *out, const uint8_t *in, size_t len,
                         const uint32_t key[8], const uint32_t counter[4],
                         poly1305_state *mst, int enc)
{
    poly1305_r64 *mac = poly1305_r64_of(mst);   /* the AVX2 state's sc */
    _Alignas(32) fused_st st;
    size_t nfull = len / 512, tail = len % 512, k;
    uint32_t ctr[4] = { counter[0], counter[1], counter[2], counter[3] };
    uint64_t h[3] = { mac->h[0], mac->h[1], mac->h[2] };

    fused_setup_key(&st, mac);
    if (nfull == 0) {
        /* short: the two steps one after the other */
        if (enc) {
            chacha20_avx2_kernel.xor_stream(out, in, len, key, ctr);
            poly_blocks(&st, out, len / 16, h);
        } else {
            poly_blocks(&st, in, len / 16, h);
            chacha20_avx2_kernel.xor_stream(out, in, len, key, ctr);
        }
    } else if (enc) {
        /* pass 0 has no ciphertext to MAC yet; pass k MACs pass k - 1 */
        chacha20_avx2_kernel.xor_stream(out, in, 512, key, ctr);
        ctr[0] += 8;
        fused_setup(&st, key, ctr);
        for (k = 1; k < nfull; k++)
            fused_pass(out + 512 * k, in + 512 * k, out + 512 * (k - 1),
                       &st, h);
        ctr[0] += (uint32_t)(8 * (nfull - 1));
        if (tail > 0)
            chacha20_avx2_kernel.xor_stream(out + 512 * nfull, in + 512 * nfull,
                                          tail, key, ctr);
        poly_blocks(&st, out + 512 * (nfull - 1), (512 + tail) / 16, h);
    } else {
        fused_setup(&st, key, ctr);
        for (k = 0; k < nfull; k++)
            fused_pass(out + 512 * k, in + 512 * k, in + 512 * k, &st, h);
        ctr[0] += (uint32_t)(8 * nfull);
        if (tail > 0) {
            poly_blocks(&st, in + 512 * nfull, tail / 16, h);
            chacha20_avx2_kernel.xor_stream(out + 512 * nfull, in + 512 * nfull,
                                          tail, key, ctr);
        }
    }
    mac->h[0] = h[0];
    mac->h[1] = h[1];
    mac->h[2] = h[2];
    /* no key, keystream or r left on the stack */
    if (nfull == 0)
        memset(st.k, 0, sizeof(st.k));
    else
        memset(&st, 0, sizeof(st));
    __asm__ volatile("" : : "r"(&st) : "memory");
}

/*
 * Opening stitches from one 512-byte pass on. Sealing MACs the previous
 * pass's output, so its first ChaCha20 pass and last MAC pass run alone:
 * below SEAL_MIN the two-step path (AVX2 ChaCha20, then AVX2 Poly1305) wins.
 */
#ifndef CHACHA_FUSED_SEAL_MIN
# define CHACHA_FUSED_SEAL_MIN 2048
#endif

const chacha20_poly1305_kernel chacha20_poly1305_avx2_kernel = {
    .name = "avx2-fused",
    .caps = CHACHA_CAP_AVX2 | CHACHA_CAP_BMI2,
    .chacha = &chacha20_avx2_kernel,
    .poly = &poly1305_avx2_kernel,
    .xor_mac = xor_mac_avx2,
    .min_len = { 512, CHACHA_FUSED_SEAL_MIN },
};
