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
#include <string.h>
#include "kernel.h"
#include "util.h"
#include "poly1305_r64.h"
#include "chacha20_avx2.h"

#if !defined(__AVX2__) || !defined(__BMI2__) || !defined(__x86_64__)
# error "chacha20_poly1305_avx2.c needs -mavx2 -mbmi2 on x86-64"
#endif

/* the pair this kernel fuses (and runs alone on short stretches) */
extern const chacha20_kernel chacha20_avx2_kernel;
extern const poly1305_kernel poly1305_avx2_kernel;

/*
 * The vector side is the AVX2 kernel's: the template's 8-block state
 * (y256_state: in[] -> out[] over the rounds, the rotate masks in m[]) and
 * its round assembly (chacha20_x86_rounds.h), with the Poly1305 pieces
 * below in its hooks. The Poly1305 key rides in the state's aux[] words: r0, r1,
 * s1 = r1 + r1 / 4, and a loop counter.
 */
#define KR0 "34*32+0(%[st])"
#define KR1 "34*32+8(%[st])"
#define KS1 "34*32+16(%[st])"
#define KCNT "34*32+24(%[st])"
_Static_assert(offsetof(y256_state, aux) == 34 * 32, "layout");

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
#define POLY_OPERANDS \
    [p] "+r"(p), [h0] "+r"(h0), [h1] "+r"(h1), [h2] "+r"(h2), \
    [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), \
    [t4] "=&r"(t4), [t5] "=&r"(t5), [m0] "=&r"(m0), [m1] "=&r"(m1)

/*
 * Rounds of eight blocks, written to dst xored with src from the registers
 * (CTA_EMIT8, after the last Poly1305 blocks, which may read src when
 * opening in place; the pointers come from aux[4], aux[5] into two Poly1305
 * temporaries, free by then), and 32 Poly1305
 * blocks from p: three per double round (30) in the rounds' 24 hooks, the
 * last two after the loop. A block is eight pieces (PL rides with PC).
 */
#define KDST "34*32+32(%[st])"
#define KSRC "34*32+40(%[st])"
#define CTA_FN fused_rounds
#define CTA_WIDTH CHACHA_BLOCKS(4)
#define CTA_EMIT8 1
#define CTA_EMIT_DST "%[t0]"
#define CTA_EMIT_SRC "%[t1]"
#define CTA_EMIT_LOAD "movq " KDST ", %[t0]\n\t" "movq " KSRC ", %[t1]\n\t"
#define CTA_PARAMS , const uint8_t *p, uint64_t h[3]
#define CTA_BEGIN \
    uint64_t h0 = h[0], h1 = h[1], h2 = h[2]; \
    uint64_t t0, t1, t2, t3, t4, t5, m0, m1;
#define CTA_END h[0] = h0; h[1] = h1; h[2] = h2;
#define CTA_OUTPUTS POLY_OPERANDS
#define CTA_CLOBBERS "rdx",
#define CTA_HOOK_INIT PA(0)
#define CTA_HOOK_LOOP "addq $48, %[p]\n\t"
#define CTA_HOOK_FINI PNEXT(16) PLAST
#define CTA_HOOK_COLS \
    PB, PC PL(16), PD, PE, PF, PG, PAR, PH, PB, PC PL(32), PD, PE
#define CTA_HOOK_DIAGS \
    PF, PG, PAR, PH, PB, PC PL(48), PD, PE, PF, PG, PAR, PH
#include "chacha20_x86_rounds.h"

/*
 * nb (>= 0) Poly1305 blocks alone, the same asm step as in the fused loop
 * (Zen 3: 0.72 rdtsc ticks/byte, poly1305_r64_blocks() from GCC 12 1.06):
 * the short stretches and opening's tail. Sealing's last MAC pass, which
 * has no ChaCha20 work to pair with either, goes to the AVX2 Poly1305
 * kernel's blocks() instead (vector lanes from 256 bytes).
 */
static void poly_blocks(y256_state *st, const uint8_t *p, size_t nb,
                        uint64_t h[3])
{
    uint64_t h0 = h[0], h1 = h[1], h2 = h[2];
    uint64_t t0, t1, t2, t3, t4, t5, m0, m1;

    if (nb == 0)
        return;
    st->aux[3] = nb - 1;
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

static void fused_setup_key(y256_state *st, const poly1305_r64 *mac)
{
    st->aux[0] = mac->r[0];
    st->aux[1] = mac->r[1];
    st->aux[2] = mac->r[1] + (mac->r[1] >> 2);
    st->aux[3] = 0;
}

/* one fused 512-byte pass: out = in ^ keystream, MAC over p[0..512) */
CHACHA_INLINE
void fused_pass(uint8_t *out, const uint8_t *in, const uint8_t *p,
                y256_state *st, uint64_t h[3])
{
    st->aux[4] = (uint64_t)(uintptr_t)out;
    st->aux[5] = (uint64_t)(uintptr_t)in;
    fused_rounds(st, p, h);
    st->in[12] = _mm256_add_epi32(st->in[12], _mm256_set1_epi32(8));
}

static void xor_mac_avx2(uint8_t *out, const uint8_t *in, size_t len,
                         const uint32_t key[8], const uint32_t counter[4],
                         poly1305_state *mst, int enc)
{
    poly1305_r64 *mac = poly1305_r64_of(mst);   /* the AVX2 state's sc */
    _Alignas(32) y256_state st;
    size_t nfull = len / CHACHA_BLOCKS(8), tail = len % CHACHA_BLOCKS(8), k;
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
        chacha20_avx2_kernel.xor_stream(out, in, CHACHA_BLOCKS(8), key, ctr);
        ctr[0] += 8;
        y256_setup(&st, key, ctr);
        for (k = 1; k < nfull; k++)
            fused_pass(out + CHACHA_BLOCKS(8) * k, in + CHACHA_BLOCKS(8) * k, out + CHACHA_BLOCKS(8) * (k - 1),
                       &st, h);
        ctr[0] += (uint32_t)(8 * (nfull - 1));
        if (tail > 0)
            chacha20_avx2_kernel.xor_stream(out + CHACHA_BLOCKS(8) * nfull, in + CHACHA_BLOCKS(8) * nfull,
                                          tail, key, ctr);
        /*
         * The last pass's MAC has no ChaCha20 work beside it: the Poly1305
         * kernel's own blocks(), whose vector lanes take it from 256 bytes
         * (on a live context its powers of r are there already).
         */
        mac->h[0] = h[0];
        mac->h[1] = h[1];
        mac->h[2] = h[2];
        poly1305_avx2_kernel.blocks(mst, out + CHACHA_BLOCKS(8) * (nfull - 1),
                                    CHACHA_BLOCKS(8) + tail, 1);
        h[0] = mac->h[0];
        h[1] = mac->h[1];
        h[2] = mac->h[2];
    } else {
        y256_setup(&st, key, ctr);
        for (k = 0; k < nfull; k++)
            fused_pass(out + CHACHA_BLOCKS(8) * k, in + CHACHA_BLOCKS(8) * k, in + CHACHA_BLOCKS(8) * k, &st, h);
        ctr[0] += (uint32_t)(8 * nfull);
        if (tail > 0) {
            poly_blocks(&st, in + CHACHA_BLOCKS(8) * nfull, tail / 16, h);
            chacha20_avx2_kernel.xor_stream(out + CHACHA_BLOCKS(8) * nfull, in + CHACHA_BLOCKS(8) * nfull,
                                          tail, key, ctr);
        }
    }
    mac->h[0] = h[0];
    mac->h[1] = h[1];
    mac->h[2] = h[2];
    /*
     * No key, keystream or r left on the stack: the passes write their
     * output from registers, so of st only the key rows, the c rows' swap
     * slots and aux[] (r, the pointers) hold anything secret.
     */
    if (nfull != 0) {
        chacha_wipe(&st.in[4], 8 * sizeof(st.in[4]));
        chacha_wipe(&st.out[8], 4 * sizeof(st.out[8]));
    }
    chacha_wipe(st.aux, sizeof(st.aux));
}

/*
 * Opening stitches from one 512-byte pass on. Sealing MACs the previous
 * pass's output, so its first ChaCha20 pass C and last MAC pass M run
 * alone: n passes cost C + (n - 1) F + M against n (C + M) in two steps,
 * which is less as soon as n >= 2 if a fused pass F < C + M. One pass gains
 * nothing and loses the setup. Zen 4, vector latency 2, bulk seal ours in
 * MB/s (bench --openssl-avx2 --only aead): 512 bytes fused 1408-1457 vs two
 * steps 1661-1678, 1024 bytes 1809-1837 vs 1741-1763.
 */
#ifndef CHACHA_FUSED_SEAL_MIN
# define CHACHA_FUSED_SEAL_MIN CHACHA_BLOCKS(16)
#endif

const chacha20_poly1305_kernel chacha20_poly1305_avx2_kernel = {
    .name = "avx2-fused",
    .caps = CHACHA_CAP_AVX2 | CHACHA_CAP_BMI2,
    .chacha = &chacha20_avx2_kernel,
    .poly = &poly1305_avx2_kernel,
    .xor_mac = xor_mac_avx2,
    .min_len = { CHACHA_BLOCKS(8), CHACHA_FUSED_SEAL_MIN },
};
