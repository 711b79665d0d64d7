/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for AVX2 (built with -mavx2 only): 8 blocks per pass in ymm lanes,
 * and for tails and short inputs 2, 4 or 6 blocks in horizontal ymm rows or
 * one block in an xmm row set.
 */
#include "chacha20_avx2.h"
#include "chacha20_x86_probe.h"

CHACHA_X86_STEP_PROBE(step_probe_avx2, "vpaddd %%ymm1, %%ymm0, %%ymm0")

/* what a partial last pass xors blocks 6 and 7 into, in ks[] */
static const _Alignas(32) uint8_t zero_pass[CHACHA_BLOCKS(2)];

/*
 * The scalar block of st (after y256_vrounds(st, 1)) to dst, xored with src.
 * Word by word: sx[] was just written by 32-bit stores, which wider loads
 * could not forward from.
 */
CHACHA_INLINE
void emit_scalar(uint8_t *dst, const uint8_t *src, const y256_state *st)
{
    uint32_t w;
    int i;

    for (i = 0; i < 16; i++) {
        memcpy(&w, src + 4 * i, 4);
        w ^= st->sx[i] + st->sin[i];
        memcpy(dst + 4 * i, &w, 4);
    }
}

/*
 * len > 384. With ninth (the hybrid entry, xor_stream_hybrid), first
 * nine_block_passes() passes of 9 whole blocks, 8 in ymm and 1 on the GPRs
 * interleaved with them; then passes of 8 (the last possibly partial) while
 * more than 384 bytes remain.
 * Returns how many bytes it did; the rest (at most 384) is for the row paths.
 * The ninth block is free where the vector rounds are latency bound with
 * room to spare (a vector step of 2 cycles: 16 KiB 11778 -> 11151 TSC ticks
 * on such a Zen 4) and a loss where they are not (~20% slower on a Zen 4 with
 * 1-cycle steps, where the front end is the bound): the short-path model
 * (core/shortpath.c) picks the entry at load.
 */
/*
 * Of n whole blocks, how many go in passes of 9: as many as leave whole
 * passes of 8 for the rest, in the fewest passes, ceil(n / 9) (128 blocks:
 * 8 of 9 and 7 of 8), so that no short tail in rows (as long as a pass)
 * follows; none where that fewest is no fewer than passes of 8 alone.
 */
static size_t nine_block_passes(size_t n)
{
    size_t passes = (n + 8) / 9;

    return n >= 8 * passes ? n - 8 * passes : 0;
}

static __attribute__((noinline))
size_t xor_8x(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], int ninth)
{
    const size_t total = len;
    _Alignas(32) y256_state st;
    _Alignas(32) uint8_t ks[CHACHA_BLOCKS(2)];
    y256_state *p = &st;
    uint32_t ctr = counter[0];
    size_t nine = ninth ? nine_block_passes(len / CHACHA_BLOCK_LEN) : 0;
    /* the nine-block passes store their rows (and read the key rows) */
    int i, rows_out = nine > 0;

    /* only such passes read the key rows from st.in[] */
    y256_setup(p, rows_out ? key : NULL, counter);
    if (ninth) {
        st.sin[0] = CHACHA_SIGMA0;
        st.sin[1] = CHACHA_SIGMA1;
        st.sin[2] = CHACHA_SIGMA2;
        st.sin[3] = CHACHA_SIGMA3;
        for (i = 0; i < 8; i++)
            st.sin[4 + i] = key[i];
        st.sin[13] = counter[1];
        st.sin[14] = counter[2];
        st.sin[15] = counter[3];
    }

    for (; nine > 0; nine--) {
        st.sin[12] = ctr + 8;
        y256_vrounds(p, 1);
        emit8(out, in, p);
        emit_scalar(out + CHACHA_BLOCKS(8), in + CHACHA_BLOCKS(8), p);
        st.in[12] = _mm256_add_epi32(st.in[12], _mm256_set1_epi32(9));
        ctr += 9;
        len -= CHACHA_BLOCKS(9);
        in += CHACHA_BLOCKS(9);
        out += CHACHA_BLOCKS(9);
    }
    while (len > CHACHA_BLOCKS(6)) {
        if (len >= CHACHA_BLOCKS(8)) {
            y256_rounds_emit(p, out, in, key, out + CHACHA_BLOCKS(6),
                             in + CHACHA_BLOCKS(6));
        } else {
            /* partial: blocks 0-5 whole in place, 6 and 7 to ks */
            y256_rounds_emit(p, out, in, key, ks, zero_pass);
            ct_xor_tail_wipe(out + CHACHA_BLOCKS(6), in + CHACHA_BLOCKS(6), ks,
                             CHACHA_BLOCKS(2), len - CHACHA_BLOCKS(6));
        }
        st.in[12] = _mm256_add_epi32(st.in[12], _mm256_set1_epi32(8));
        ctr += 8;
        len -= len >= CHACHA_BLOCKS(8) ? CHACHA_BLOCKS(8) : len;
        in += CHACHA_BLOCKS(8);
        out += CHACHA_BLOCKS(8);
    }
    /*
     * The key words and the round outputs: nothing key-derived stays
     * behind. Full passes write no key row and leave only the c rows' swap
     * slots (out[8..11]).
     */
    if (rows_out) {
        chacha_wipe(&st.in[4], 8 * sizeof(st.in[4]));
        chacha_wipe(st.out, sizeof(st.out));
    } else {
        chacha_wipe(&st.out[8], 4 * sizeof(st.out[8]));
    }
    if (ninth)
        chacha_wipe(st.sin, sizeof(st.sin) + sizeof(st.sx));
    return total - len;
}

/*
 * 1..6 blocks (len <= 384) in horizontal rows: nsets ymm sets of two blocks
 * each, len > 128 * (nsets - 1).
 */
CHACHA_INLINE
void xor_h256(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], int nsets)
{
    __m256i v[12];
    __m256i a = _mm256_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3,
                                  (int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    __m256i b = _mm256_broadcastsi128_si256(LOADU128(key));
    __m256i c = _mm256_broadcastsi128_si256(LOADU128(key + 4));
    __m256i d = _mm256_add_epi32(_mm256_broadcastsi128_si256(LOADU128(counter)),
                                 _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0));
    const __m256i two = _mm256_setr_epi32(2, 0, 0, 0, 2, 0, 0, 0);
    _Alignas(32) uint8_t ks[CHACHA_BLOCKS(2)];
    int k;

    _Pragma("GCC unroll 3")
    for (k = 0; k < nsets; k++) {
        v[4 * k] = a;
        v[4 * k + 1] = b;
        v[4 * k + 2] = c;
        v[4 * k + 3] = d;
        d = _mm256_add_epi32(d, two);
    }
    if (nsets == 3)
        y256_hrounds3(v);
    else
        y256_hrounds(v, nsets);
    _Pragma("GCC unroll 3")
    for (k = 0; k < nsets; k++) {
        if (len >= CHACHA_BLOCKS(2)) {
            emit_pair(out, in, CHACHA_BLOCK_LEN, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                      v[4 * k + 3]);
            out += CHACHA_BLOCKS(2);
            in += CHACHA_BLOCKS(2);
            len -= CHACHA_BLOCKS(2);
        } else {
            emit_pair(ks, NULL, CHACHA_BLOCK_LEN, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                      v[4 * k + 3]);
            ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
            break;
        }
    }
}

/* One block (len <= 64) in xmm rows. */
static __attribute__((noinline))
void xor_1(uint8_t *out, const uint8_t *in, size_t len,
           const uint32_t key[8], const uint32_t counter[4])
{
    __m128i v[12];
    _Alignas(16) uint8_t ks[CHACHA_BLOCK_LEN];
    int g;

    v[0] = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    v[1] = LOADU128(key);
    v[2] = LOADU128(key + 4);
    v[3] = LOADU128(counter);
    x128_hrounds(v, 1);
    /* unrolled, so that the rows stay in registers (a loop over v[] made
       gcc 12 store them to the red zone first) */
    _Pragma("GCC unroll 4")
    for (g = 0; g < 4; g++) {
        if (len == CHACHA_BLOCK_LEN)
            STOREU128(out + 16 * g,
                      _mm_xor_si128(v[g], LOADU128(in + 16 * g)));
        else
            STOREU128(ks + 16 * g, v[g]);
    }
    if (len < CHACHA_BLOCK_LEN)
        ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
}

/* 1..384 bytes */
static __attribute__((noinline))
void chacha20_xor_short(uint8_t *out, const uint8_t *in, size_t len,
                        const uint32_t key[8],
                        const uint32_t counter[4])
{
    if (len <= CHACHA_BLOCK_LEN)
        xor_1(out, in, len, key, counter);
    else if (len <= CHACHA_BLOCKS(2))
        xor_h256(out, in, len, key, counter, 1);
    else if (len <= CHACHA_BLOCKS(4))
        xor_h256(out, in, len, key, counter, 2);
    else
        xor_h256(out, in, len, key, counter, 3);
}

/*
 * Stack the multi-block row paths may leave rows in (spilled or their ks[]
 * copies), burnt after them: their frame (-fstack-usage:
 * chacha20_xor_short 168 bytes with gcc 12, 856 with clang 14 since the
 * three-set rounds are asm (696 before; clang keeps the rows it hands the
 * asm in its frame too); 808 with gcc if its rows array is kept in memory:
 * the loops are unrolled so that it is not), the 128-byte red zone a leaf
 * may use, and 64 bytes for saved
 * registers and alignment (clang's SSSE3 rows needed them). They are kept
 * out of line so that their frames are below the burning caller's. xor_1
 * keeps its rows in registers and wipes its ks[] (test_stack_residue checks
 * both compilers): no burn after it, which was 8% of a 64-byte AEAD update
 * (Zen 4, 120 against 131 ns).
 */
#if defined(__clang__)
# define BURN_ROWS 1152
#else
# define BURN_ROWS 640
#endif

CHACHA_INLINE
void xor_avx2(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], int ninth)
{
    uint32_t c[4] = { counter[0], counter[1], counter[2], counter[3] };
    size_t done = 0;

    if (len > CHACHA_BLOCKS(6)) {
        done = xor_8x(out, in, len, key, counter, ninth);
        c[0] += (uint32_t)(done / CHACHA_BLOCK_LEN);
    }
    if (len - done > CHACHA_BLOCK_LEN) {
        chacha20_xor_short(out + done, in + done, len - done, key, c);
        chacha_burn_stack(BURN_ROWS);
    } else if (len > done) {
        xor_1(out + done, in + done, len - done, key, c);
    }
}

/*
 * A lone whole block after the passes of eight (9, 17, ... blocks: an AEAD
 * record of 1 KiB is 17 with its block 0) rides in one pass as the ninth
 * block on the general registers, not in a call of its own whose one-block
 * chain (~300 cycles of dependent vector steps) the pass would not hide:
 * Zen 3, kernel alone, 576 B 668 -> 571 TSC ticks, 1088 B 1049 -> 962.
 * Where vector steps take 2 cycles the ninth block is free anyway (the
 * hybrid entry, core/shortpath.c).
 */
static void chacha20_xor_avx2(uint8_t *out, const uint8_t *in, size_t len,
                              const uint32_t key[8], const uint32_t counter[4])
{
    xor_avx2(out, in, len, key, counter,
             len > CHACHA_BLOCKS(8) && len % CHACHA_BLOCKS(8) == CHACHA_BLOCK_LEN);
}

static void chacha20_xor_avx2_gpr(uint8_t *out, const uint8_t *in, size_t len,
                                  const uint32_t key[8], const uint32_t counter[4])
{
    xor_avx2(out, in, len, key, counter, 1);
}

/* the 128-bit template's HChaCha20, VEX-encoded */
static void hchacha20_avx2(uint32_t out[8], const uint32_t key[8],
                           const uint32_t in[4])
{
    x128_hchacha20(out, key, in);   /* in registers: no stack to burn */
}

const chacha20_kernel chacha20_avx2_kernel = {
    .name = "avx2",
    .caps = CHACHA_CAP_AVX2,
    .xor_stream = chacha20_xor_avx2,
    .xor_stream_hybrid = chacha20_xor_avx2_gpr,
    .hchacha20 = hchacha20_avx2,
    /* 4 adds, 4 xors, 2 vpshufb rotates, 2 shift-or rotates (2 steps each), a vpshufd */
    .row_steps = 15,
    .two_block_rows = 1,
    /* the AEAD's block 0 and up to a pass of text: at most 9 blocks, one pass */
    .pass_len = CHACHA_BLOCKS(8),
    .head_max = CHACHA_BLOCKS(8),
    .step_probe = step_probe_avx2,
};
