/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generator of the x86 vertical rounds in inline assembly: each
 * inclusion defines one function,
 *
 *     static inline void CTA_FN(void *st CTA_PARAMS)
 *
 * which runs the 20 rounds of a CTA_WIDTH-bit vertical state block (see
 * CT_FN(state) in chacha20_x86_template.h: in[16] -> out[16], masks in m[2])
 * as one asm statement, without the feed-forward.
 *
 * Parameters, all #undef'd again at the end of this file:
 *   CTA_FN            the function's name (required)
 *   CTA_WIDTH         128 (legacy SSE encoding, xmm) or 256 (VEX, ymm)
 *                     (required)
 *   CTA_EMIT8         optional (256 only, not with CTA_NINTH_BLOCK), 1:
 *                     instead of storing the rows to out[], write the
 *                     eight blocks' 512 bytes, src ^ (rows + in), from the
 *                     registers (see CTA_EMIT8_SEQ), after CTA_HOOK_FINI
 *                     (whose code may still read src: the fused AEAD's
 *                     MAC opening in place);
 *                     out[] then holds only the c rows' swap slots 8..11.
 *                     The function takes (dst, src) after st, unless the
 *                     includer names two registers free at that point that
 *                     hold them, CTA_EMIT_DST and CTA_EMIT_SRC (asm
 *                     operands), loaded by CTA_EMIT_LOAD (asm, optional)
 *   CTA_KEY_ROWS      optional (256 only, with CTA_EMIT8 and its (dst, src)
 *                     parameters), 1: the function takes (dst, src, key,
 *                     dhi, shi) after st. Rows 4..11 are broadcast from key
 *                     where they are loaded and fed forward, and in[4..11]
 *                     are not read: the caller keeps no key copy to wipe.
 *                     Blocks 6 and 7 go to dhi, xored with shi (dst + 384
 *                     and src + 384 for a whole pass; a partial one sends
 *                     them to a buffer)
 *   CTA_NINTH_BLOCK   optional, 1: one more block on the general purpose
 *                     registers, sin[16] -> sx[16], interleaved with the
 *                     vector rounds (its quarter rounds fill the four
 *                     CTA_AFTER_QR hooks of each round)
 * Hooks (asm strings; each defaults to empty; not with CTA_NINTH_BLOCK):
 *   CTA_HOOK_INIT     after the rows are loaded, before the first round
 *   CTA_HOOK_LOOP     after each double round
 *   CTA_HOOK_FINI     after the rows are stored
 *   CTA_HOOK_COLS     the column round's 12 hooks, comma-separated: one
 *                     after each of its 12 step groups (see CTA_ROUND);
 *                     CTA_AFTER_QR(q0, q1, q2, q3) puts one piece after each
 *                     of its four quarter rounds
 *   CTA_HOOK_DIAGS    the same for the diagonal round
 * And for hooks that need more than the state block:
 *   CTA_PARAMS        further parameters of the function, each after a comma
 *   CTA_BEGIN         declarations and statements before the asm statement
 *   CTA_END           statements after it
 *   CTA_OUTPUTS       the asm statement's output operands
 *   CTA_CLOBBERS      further clobbers, each followed by a comma
 *
 * Why assembly: 16 state vectors plus a rotate temporary do not fit in 16
 * vector registers, and gcc and clang then spill far more than needed (AVX2:
 * 1.1 and 0.9 cycles/byte from intrinsics). Here the a, b and d rows (12)
 * stay in registers, with two c rows and two rotate temporaries; the c rows
 * live in their out[] slots (8..11) and two of them are in registers at a
 * time. A round runs its quarter-rounds in two pairs: the pair whose c rows
 * are in registers, then it stores those two, loads the other two and runs
 * the other pair. The pairs are chosen so that the diagonal round starts
 * with the c rows the column round ended with (columns: c0 c1 | c2 c3;
 * diagonals: c2 c3 | c0 c1), so one swap per round. No chain passes
 * through memory: each c row is stored a round before it is loaded
 * again. (Until 0.3.0 one c row stayed in its slot and its quarter-round
 * added straight from memory, which put a store-to-load forwarding, ~7-10
 * cycles on Zen 3, on one chain of every round: on a Zen 3 (AVX2 only, a
 * 1-cycle vector step) the 8-block pass took 0.762 TSC ticks a byte at 16
 * KiB, 0.957 of OpenSSL's AVX2 at 0.729; with the swap 0.738, 0.987.
 * OpenSSL's AVX2 code keeps its c rows the same way.) What bounds the
 * rounds on Zen 3 is the vector ALUs: 128 operations a double round on
 * four pipes, 48 of them shifts and byte shuffles, which only two pipes
 * run; where a vector step takes 2 cycles it is the chain itself (see
 * CTA_ROUND for the order that serves it). More independent blocks in
 * vector registers (a horizontal 2-block set beside the 8, 10 to 14 blocks)
 * cost more in spills than they gain; rotates through vpmulld (other pipes,
 * 3 cycles) are slower.
 *
 * The ninth block: the vector rounds are latency bound, so the integer
 * pipes are idle. Its a, b and d words live in 12 GPRs; the c words stay in
 * memory and one register (r14) carries c through each quarter-round.
 * Everything is addressed from one pointer, operand [st], so that with the
 * ninth block 13 GPRs are free for it. The state block, in CTA_VSZ-byte
 * vectors: in[16] vector input words, out[16] vector results (and the c
 * slots), m[2] byte-shuffle masks rotating lanes by 16 and by 8; then
 * sin[16] scalar input words (aux[8] for other hooked code), sx[16] scalar
 * results, n loop counter.
 */

#ifndef CHACHA20_X86_ROUNDS_COMMON
#define CHACHA20_X86_ROUNDS_COMMON

/* the registers: rows a, b and d, two c rows (CA, CB) and two temporaries */
#define CTA_A0 CTA_REG(0)
#define CTA_A1 CTA_REG(1)
#define CTA_A2 CTA_REG(2)
#define CTA_A3 CTA_REG(3)
#define CTA_B0 CTA_REG(4)
#define CTA_B1 CTA_REG(5)
#define CTA_B2 CTA_REG(6)
#define CTA_B3 CTA_REG(7)
#define CTA_CA CTA_REG(8)
#define CTA_CB CTA_REG(9)
#define CTA_T CTA_REG(10)       /* rotate temporary of CA's quarter-round */
#define CTA_T1 CTA_REG(11)      /* and of CB's */
#define CTA_D0 CTA_REG(12)
#define CTA_D1 CTA_REG(13)
#define CTA_D2 CTA_REG(14)
#define CTA_D3 CTA_REG(15)
/* byte offsets into the state block */
#define CTA_SLOT(i) "(16+" #i ")*" CTA_VSZ "(%[st])"
#define CTA_M16 "32*" CTA_VSZ "(%[st])"
#define CTA_M8 "33*" CTA_VSZ "(%[st])"
#define CTA_SIN(i) "34*" CTA_VSZ "+4*" #i "(%[st])"
#define CTA_SX(i) "34*" CTA_VSZ "+64+4*" #i "(%[st])"
#define CTA_NCTR "34*" CTA_VSZ "+128(%[st])"
#define CTA_LOAD(r, i) CTA_MOVA #i "*" CTA_VSZ "(%[st]), " r "\n\t"
#define CTA_STORE(r, i) CTA_MOVA r ", " CTA_SLOT(i) "\n\t"
/* a += b; d ^= a; d = rotl(d, 16 or 8) by byte shuffle m */
#define CTA_ROW_AD(a, b, d, m) CTA_VADD(a, b) CTA_VXOR(d, a) CTA_VSHUFB(d, m)
/* c += d; b ^= c; b = rotl(b, n), through temporary t */
#define CTA_ROW_CB(b, c, d, t, n) CTA_VADD(c, d) CTA_VXOR(b, c) CTA_VROTL(b, t, n)
/* register r from slot i */
#define CTA_LOAD_SLOT(r, i) CTA_MOVA CTA_SLOT(i) ", " r "\n\t"

/*
 * One round: its quarter-rounds (a_k, b_k, c_k, d_k) in two pairs, 0 and 1
 * with their c rows in CA and CB, then 2 and 3 after CA and CB went to
 * slots so0 and so1 and came back from slots si0 and si1; each pair is
 * advanced step by step through its whole quarter-round. In program order
 * a pair's chain is 16 instructions long, not 32 as when all four advance
 * together: where a vector step takes 2 cycles (a Zen 4 VM) the rounds are
 * latency bound, and with the pairs the 8-block AVX2 pass took 360 TSC
 * ticks, not 403 (OpenSSL's, which orders its quarter rounds in pairs too:
 * 359); the SSSE3 4-block and the fused AVX2 kernels gained 4-6%. h0..h11
 * are the hooks placed between the step groups.
 */
#define CTA_ROUND(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, \
                  so0, so1, si0, si1, h0, h1, h2, h3, h4, h5, h6, h7, h8, \
                  h9, h10, h11) \
    CTA_ROW_AD(a0, b0, d0, CTA_M16) h0 CTA_ROW_AD(a1, b1, d1, CTA_M16) h1 \
    CTA_ROW_CB(b0, CTA_CA, d0, CTA_T, 12) \
    CTA_ROW_CB(b1, CTA_CB, d1, CTA_T1, 12) h2 \
    CTA_ROW_AD(a0, b0, d0, CTA_M8) CTA_ROW_AD(a1, b1, d1, CTA_M8) h3 \
    CTA_ROW_CB(b0, CTA_CA, d0, CTA_T, 7) h4 \
    CTA_ROW_CB(b1, CTA_CB, d1, CTA_T1, 7) h5 \
    CTA_STORE(CTA_CA, so0) CTA_STORE(CTA_CB, so1) \
    CTA_LOAD_SLOT(CTA_CA, si0) CTA_LOAD_SLOT(CTA_CB, si1) \
    CTA_ROW_AD(a2, b2, d2, CTA_M16) h6 CTA_ROW_AD(a3, b3, d3, CTA_M16) h7 \
    CTA_ROW_CB(b2, CTA_CA, d2, CTA_T, 12) \
    CTA_ROW_CB(b3, CTA_CB, d3, CTA_T1, 12) h8 \
    CTA_ROW_AD(a2, b2, d2, CTA_M8) CTA_ROW_AD(a3, b3, d3, CTA_M8) h9 \
    CTA_ROW_CB(b2, CTA_CA, d2, CTA_T, 7) h10 \
    CTA_ROW_CB(b3, CTA_CB, d3, CTA_T1, 7) h11
/* one piece after each quarter round of a round (hooks 2, 5, 8, 11) */
#define CTA_AFTER_QR(q0, q1, q2, q3) , , q0, , , q1, , , q2, , , q3
#define CTA_NO_HOOKS CTA_AFTER_QR(, , , )

/*
 * The whole asm string: load the rows (and copy c2, c3 to their slots),
 * init, ten double rounds (each: columns with hooks c0..c11, diagonals
 * with d0..d11, then loop), store the rows (c2 and c3 are in their slots
 * already), fini. The hook lists arrive as single macro arguments, hence
 * the extra expansion step.
 */
#define CTA_VROUNDS(...) CTA_VROUNDS_(__VA_ARGS__)
#define CTA_VROUNDS_(init, loop, fini, c0, c1, c2, c3, c4, c5, c6, c7, \
                     c8, c9, c10, c11, d0, d1, d2, d3, d4, d5, d6, d7, \
                     d8, d9, d10, d11) \
    CTA_LOAD(CTA_A0, 0) CTA_LOAD(CTA_A1, 1) CTA_LOAD(CTA_A2, 2) \
    CTA_LOAD(CTA_A3, 3) CTA_LOADK(CTA_B0, 4, 0) CTA_LOADK(CTA_B1, 5, 4) \
    CTA_LOADK(CTA_B2, 6, 8) CTA_LOADK(CTA_B3, 7, 12) \
    CTA_LOADK(CTA_T, 10, 24) CTA_LOADK(CTA_T1, 11, 28) \
    CTA_LOADK(CTA_CA, 8, 16) CTA_LOADK(CTA_CB, 9, 20) \
    CTA_LOAD(CTA_D0, 12) CTA_LOAD(CTA_D1, 13) CTA_LOAD(CTA_D2, 14) \
    CTA_LOAD(CTA_D3, 15) CTA_STORE(CTA_T, 10) CTA_STORE(CTA_T1, 11) \
    init \
    "movl $10, " CTA_NCTR "\n\t" \
    ".p2align 5\n" \
    "1:\n\t" \
    /* columns (0,4,8,12) (1,5,9,13) | (2,6,10,14) (3,7,11,15) */ \
    CTA_ROUND(CTA_A0, CTA_B0, CTA_D0, CTA_A1, CTA_B1, CTA_D1, \
              CTA_A2, CTA_B2, CTA_D2, CTA_A3, CTA_B3, CTA_D3, 8, 9, 10, 11, \
              c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11) \
    /* diagonals (0,5,10,15) (1,6,11,12) | (2,7,8,13) (3,4,9,14) */ \
    CTA_ROUND(CTA_A0, CTA_B1, CTA_D3, CTA_A1, CTA_B2, CTA_D0, \
              CTA_A2, CTA_B3, CTA_D1, CTA_A3, CTA_B0, CTA_D2, 10, 11, 8, 9, \
              d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11) \
    loop \
    "decl " CTA_NCTR "\n\t" \
    "jnz 1b\n\t" \
    CTA_FINAL \
    fini \
    CTA_FINAL_AFTER
/* the rows to out[] (c2 and c3 are in their slots already) */
#define CTA_STORE_ROWS \
    CTA_STORE(CTA_A0, 0) CTA_STORE(CTA_A1, 1) CTA_STORE(CTA_A2, 2) \
    CTA_STORE(CTA_A3, 3) CTA_STORE(CTA_B0, 4) CTA_STORE(CTA_B1, 5) \
    CTA_STORE(CTA_B2, 6) CTA_STORE(CTA_B3, 7) CTA_STORE(CTA_CA, 8) \
    CTA_STORE(CTA_CB, 9) \
    CTA_STORE(CTA_D0, 12) CTA_STORE(CTA_D1, 13) CTA_STORE(CTA_D2, 14) \
    CTA_STORE(CTA_D3, 15)

/*
 * CTA_EMIT8 (ymm): the rows from the registers to dst, without a trip
 * through out[] (16 stores and 16 loads a pass, and a 512-byte wipe a call:
 * ~3% of a 512-byte call on Zen 3). Row i of the vertical state holds word i of
 * blocks 0..7, block 4L + j in lane j of 128-bit lane L.
 * CTA_T4(w0, w1, w2, w3, t, u): add in[] (rows i0..i3), then the 4x4
 * transpose inside each 128-bit lane through temporaries t and u; the
 * group's words of block j (lane 0) and j + 4 (lane 1) end in w0, t, w2,
 * w3 for j = 0..3, and w1, u are free.
 * CTA_E2(r, q, x, off): r and q hold words 4g..4g+3 and 4g+4..4g+7 of
 * blocks j and j + 4: their 32 bytes at off and off + 256, xored with
 * src, through x (q is overwritten).
 */
#define CTA_FF(r, i) "vpaddd " #i "*32(%[st]), " r ", " r "\n\t"
/* rows 4..11 (key word at byte k): from in[], or broadcast from the key through t */
#define CTA_FFK(r, i, k, t) CTA_FFK_(r, i, k, t)
#define CTA_T4(w0, w1, w2, w3, i0, i1, i2, i3, t, u) \
    CTA_FF(w0, i0) CTA_FF(w1, i1) CTA_FF(w2, i2) CTA_FF(w3, i3) \
    CTA_T4_(w0, w1, w2, w3, t, u)
#define CTA_T4K(w0, w1, w2, w3, i0, i1, i2, i3, k0, k1, k2, k3, t, u) \
    CTA_FFK(w0, i0, k0, t) CTA_FFK(w1, i1, k1, t) \
    CTA_FFK(w2, i2, k2, t) CTA_FFK(w3, i3, k3, t) \
    CTA_T4_(w0, w1, w2, w3, t, u)
#define CTA_T4_(w0, w1, w2, w3, t, u) \
    "vpunpckldq " w1 ", " w0 ", " t "\n\t" \
    "vpunpckhdq " w1 ", " w0 ", " w1 "\n\t" \
    "vpunpckldq " w3 ", " w2 ", " u "\n\t" \
    "vpunpckhdq " w3 ", " w2 ", " w3 "\n\t" \
    "vpunpcklqdq " u ", " t ", " w0 "\n\t" \
    "vpunpckhqdq " u ", " t ", " t "\n\t" \
    "vpunpcklqdq " w3 ", " w1 ", " w2 "\n\t" \
    "vpunpckhqdq " w3 ", " w1 ", " w3 "\n\t"
#define CTA_E2(r, q, x, off) \
    CTA_E2_(r, q, x, #off "(" CTA_EMIT_SRC ")", #off "(" CTA_EMIT_DST ")", \
            "256+" #off "(" CTA_EMIT_SRC ")", "256+" #off "(" CTA_EMIT_DST ")")
/* blocks 6 and 7 (j = 2, 3) through CTA_EMIT_SHI/DHI, which point at block 6 */
#define CTA_E2H(r, q, x, off, offh) \
    CTA_E2_(r, q, x, #off "(" CTA_EMIT_SRC ")", #off "(" CTA_EMIT_DST ")", \
            CTA_E2H_BASE #offh "(" CTA_EMIT_SHI ")", \
            CTA_E2H_BASE #offh "(" CTA_EMIT_DHI ")")
#define CTA_E2_(r, q, x, sa, da, sb, db) \
    "vperm2i128 $0x20, " q ", " r ", " x "\n\t" \
    "vperm2i128 $0x31, " q ", " r ", " q "\n\t" \
    "vpxor " sa ", " x ", " x "\n\t" \
    "vmovdqu " x ", " da "\n\t" \
    "vpxor " sb ", " q ", " q "\n\t" \
    "vmovdqu " q ", " db "\n\t"
/*
 * Rows 0-3 and 4-7 (bytes 0..31 of each block), then 8-11 (CA, CB and the
 * slots of rows 10 and 11) and 12-15 (bytes 32..63).
 */
#define CTA_EMIT8_SEQ \
    CTA_EMIT_LOAD \
    CTA_T4(CTA_A0, CTA_A1, CTA_A2, CTA_A3, 0, 1, 2, 3, CTA_T, CTA_T1) \
    CTA_T4K(CTA_B0, CTA_B1, CTA_B2, CTA_B3, 4, 5, 6, 7, 0, 4, 8, 12, \
            CTA_A1, CTA_T1) \
    CTA_E2(CTA_A0, CTA_B0, CTA_B1, 0) \
    CTA_E2(CTA_T, CTA_A1, CTA_B1, 64) \
    CTA_E2H(CTA_A2, CTA_B2, CTA_B1, 128, 0) \
    CTA_E2H(CTA_A3, CTA_B3, CTA_B1, 192, 64) \
    CTA_LOAD_SLOT(CTA_A0, 10) CTA_LOAD_SLOT(CTA_A1, 11) \
    CTA_T4K(CTA_CA, CTA_CB, CTA_A0, CTA_A1, 8, 9, 10, 11, 16, 20, 24, 28, \
            CTA_A2, CTA_A3) \
    CTA_T4(CTA_D0, CTA_D1, CTA_D2, CTA_D3, 12, 13, 14, 15, CTA_B0, CTA_B1) \
    CTA_E2(CTA_CA, CTA_D0, CTA_D1, 32) \
    CTA_E2(CTA_A2, CTA_B0, CTA_D1, 96) \
    CTA_E2H(CTA_A0, CTA_D2, CTA_D1, 160, 32) \
    CTA_E2H(CTA_A1, CTA_D3, CTA_D1, 224, 96)

/*
 * The ninth block's words: a0..a3 eax ebx ecx edx, b0..b3 esi edi r8d r9d,
 * d0..d3 r10d..r13d; c in sx[8..11], carried in r14d.
 */
#define CTA_S_AD(a, b, d, n) \
    "addl %%" b ", %%" a "\n\t" "xorl %%" a ", %%" d "\n\t" \
    "roll $" #n ", %%" d "\n\t"
#define CTA_S_CB(b, d, n) \
    "addl %%" d ", %%r14d\n\t" "xorl %%r14d, %%" b "\n\t" \
    "roll $" #n ", %%" b "\n\t"
#define CTA_S_QR(a, b, c, d) \
    "movl " CTA_SX(c) ", %%r14d\n\t" \
    CTA_S_AD(a, b, d, 16) CTA_S_CB(b, d, 12) \
    CTA_S_AD(a, b, d, 8) CTA_S_CB(b, d, 7) \
    "movl %%r14d, " CTA_SX(c) "\n\t"
#define CTA_S_LD(r, i) "movl " CTA_SIN(i) ", %%" r "\n\t"
#define CTA_S_ST(r, i) "movl %%" r ", " CTA_SX(i) "\n\t"
#define CTA_S_CP(i) "movl " CTA_SIN(i) ", %%r14d\n\t" "movl %%r14d, " CTA_SX(i) "\n\t"
#define CTA_S_INIT \
    CTA_S_LD("eax", 0) CTA_S_LD("ebx", 1) CTA_S_LD("ecx", 2) CTA_S_LD("edx", 3) \
    CTA_S_LD("esi", 4) CTA_S_LD("edi", 5) CTA_S_LD("r8d", 6) CTA_S_LD("r9d", 7) \
    CTA_S_CP(8) CTA_S_CP(9) CTA_S_CP(10) CTA_S_CP(11) \
    CTA_S_LD("r10d", 12) CTA_S_LD("r11d", 13) CTA_S_LD("r12d", 14) \
    CTA_S_LD("r13d", 15)
#define CTA_S_FINI \
    CTA_S_ST("eax", 0) CTA_S_ST("ebx", 1) CTA_S_ST("ecx", 2) CTA_S_ST("edx", 3) \
    CTA_S_ST("esi", 4) CTA_S_ST("edi", 5) CTA_S_ST("r8d", 6) CTA_S_ST("r9d", 7) \
    CTA_S_ST("r10d", 12) CTA_S_ST("r11d", 13) CTA_S_ST("r12d", 14) \
    CTA_S_ST("r13d", 15)
#define CTA_S_COLS CTA_AFTER_QR(CTA_S_QR("eax", "esi", 8, "r10d"), \
                                CTA_S_QR("ebx", "edi", 9, "r11d"), \
                                CTA_S_QR("ecx", "r8d", 10, "r12d"), \
                                CTA_S_QR("edx", "r9d", 11, "r13d"))
#define CTA_S_DIAGS CTA_AFTER_QR(CTA_S_QR("eax", "edi", 10, "r13d"), \
                                 CTA_S_QR("ebx", "r8d", 11, "r10d"), \
                                 CTA_S_QR("ecx", "r9d", 8, "r11d"), \
                                 CTA_S_QR("edx", "esi", 9, "r12d"))
/* the GPRs the ninth block uses, for the clobber list */
#define CTA_S_CLOBBERS "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", \
    "r10", "r11", "r12", "r13", "r14",

/* the vector registers the rounds clobber */
#define CTA_VEC_CLOBBERS \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
    "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

#endif /* CHACHA20_X86_ROUNDS_COMMON */

/* ---- one instantiation ---------------------------------------------- */

#if !defined(CTA_FN) || !defined(CTA_WIDTH)
# error "chacha20_x86_rounds.h: define CTA_FN and CTA_WIDTH first"
#endif

/* the instructions of the width */
#if CTA_WIDTH == 128
# define CTA_REG(i) "%%xmm" #i
# define CTA_VSZ "16"
# define CTA_MOVA "movdqa "
# define CTA_VADD(d, s) "paddd " s ", " d "\n\t"
# define CTA_VXOR(d, s) "pxor " s ", " d "\n\t"
# define CTA_VSHUFB(d, m) "pshufb " m ", " d "\n\t"
# define CTA_VROTL(d, t, n) \
    "movdqa " d ", " t "\n\t" "pslld $" #n ", " t "\n\t" \
    "psrld $32-" #n ", " d "\n\t" "por " t ", " d "\n\t"
#elif CTA_WIDTH == 256
# define CTA_REG(i) "%%ymm" #i
# define CTA_VSZ "32"
# define CTA_MOVA "vmovdqa "
# define CTA_VADD(d, s) "vpaddd " s ", " d ", " d "\n\t"
# define CTA_VXOR(d, s) "vpxor " s ", " d ", " d "\n\t"
# define CTA_VSHUFB(d, m) "vpshufb " m ", " d ", " d "\n\t"
# define CTA_VROTL(d, t, n) \
    "vpslld $" #n ", " d ", " t "\n\t" "vpsrld $32-" #n ", " d ", " d "\n\t" \
    "vpor " t ", " d ", " d "\n\t"
#else
# error "chacha20_x86_rounds.h: CTA_WIDTH is 128 or 256"
#endif

#if defined(CTA_KEY_ROWS) && CTA_KEY_ROWS
# if CTA_WIDTH != 256 || !defined(CTA_EMIT8) || defined(CTA_EMIT_DST)
#  error "chacha20_x86_rounds.h: CTA_KEY_ROWS goes with CTA_EMIT8's (dst, src)"
# endif
/* the key rows broadcast from the key (operand [key]), not read from in[4..11] */
# define CTA_LOADK(r, i, k) "vpbroadcastd " #k "(%[key]), " r "\n\t"
# define CTA_FFK_(r, i, k, t) \
    "vpbroadcastd " #k "(%[key]), " t "\n\t" "vpaddd " t ", " r ", " r "\n\t"
#else
# define CTA_LOADK(r, i, k) CTA_LOAD(r, i)
# define CTA_FFK_(r, i, k, t) CTA_FF(r, i)
#endif
#if defined(CTA_EMIT8) && CTA_EMIT8
# if CTA_WIDTH != 256 || (defined(CTA_NINTH_BLOCK) && CTA_NINTH_BLOCK)
#  error "chacha20_x86_rounds.h: CTA_EMIT8 is for the 256-bit vector rounds"
# endif
# define CTA_FINAL
# define CTA_FINAL_AFTER CTA_EMIT8_SEQ
# ifndef CTA_EMIT_DST
#  if defined(CTA_PARAMS) || defined(CTA_INPUTS)
#   error "chacha20_x86_rounds.h: with CTA_PARAMS, name CTA_EMIT_DST/SRC"
#  endif
#  define CTA_EMIT_DST "%[dst]"
#  define CTA_EMIT_SRC "%[src]"
#  if defined(CTA_KEY_ROWS) && CTA_KEY_ROWS
#   define CTA_PARAMS , uint8_t *dst, const uint8_t *src, const uint32_t *key, \
                      uint8_t *dhi, const uint8_t *shi
#   define CTA_INPUTS , [dst] "r"(dst), [src] "r"(src), [key] "r"(key), \
                      [dhi] "r"(dhi), [shi] "r"(shi)
#   define CTA_EMIT_DHI "%[dhi]"
#   define CTA_EMIT_SHI "%[shi]"
#   define CTA_E2H_BASE ""
#  else
#   define CTA_PARAMS , uint8_t *dst, const uint8_t *src
#   define CTA_INPUTS , [dst] "r"(dst), [src] "r"(src)
#  endif
# endif
# ifndef CTA_EMIT_LOAD
#  define CTA_EMIT_LOAD
# endif
# ifndef CTA_EMIT_DHI      /* blocks 6 and 7 in place */
#  define CTA_EMIT_DHI CTA_EMIT_DST
#  define CTA_EMIT_SHI CTA_EMIT_SRC
#  define CTA_E2H_BASE "384+"
# endif
#else
# define CTA_FINAL CTA_STORE_ROWS
# define CTA_FINAL_AFTER
#endif
#ifndef CTA_INPUTS
# define CTA_INPUTS
#endif
#if defined(CTA_NINTH_BLOCK) && CTA_NINTH_BLOCK
# if defined(CTA_HOOK_INIT) || defined(CTA_HOOK_FINI) || \
     defined(CTA_HOOK_COLS) || defined(CTA_HOOK_DIAGS) || defined(CTA_CLOBBERS)
#  error "chacha20_x86_rounds.h: the ninth block takes the hooks"
# endif
# define CTA_HOOK_INIT CTA_S_INIT
# define CTA_HOOK_FINI CTA_S_FINI
# define CTA_HOOK_COLS CTA_S_COLS
# define CTA_HOOK_DIAGS CTA_S_DIAGS
# define CTA_CLOBBERS CTA_S_CLOBBERS
#endif
#ifndef CTA_HOOK_INIT
# define CTA_HOOK_INIT
#endif
#ifndef CTA_HOOK_LOOP
# define CTA_HOOK_LOOP
#endif
#ifndef CTA_HOOK_FINI
# define CTA_HOOK_FINI
#endif
#ifndef CTA_HOOK_COLS
# define CTA_HOOK_COLS CTA_NO_HOOKS
#endif
#ifndef CTA_HOOK_DIAGS
# define CTA_HOOK_DIAGS CTA_NO_HOOKS
#endif
#ifndef CTA_PARAMS
# define CTA_PARAMS
#endif
#ifndef CTA_BEGIN
# define CTA_BEGIN
#endif
#ifndef CTA_END
# define CTA_END
#endif
#ifndef CTA_OUTPUTS
# define CTA_OUTPUTS
#endif
#ifndef CTA_CLOBBERS
# define CTA_CLOBBERS
#endif

CHACHA_INLINE
void CTA_FN(void *st CTA_PARAMS)
{
    CTA_BEGIN
    __asm__ volatile(CTA_VROUNDS(CTA_HOOK_INIT, CTA_HOOK_LOOP, CTA_HOOK_FINI,
                                 CTA_HOOK_COLS, CTA_HOOK_DIAGS)
                     : CTA_OUTPUTS
                     : [st] "r"(st) CTA_INPUTS
                     : CTA_CLOBBERS CTA_VEC_CLOBBERS, "cc", "memory");
    CTA_END
}

#undef CTA_FN
#undef CTA_WIDTH
#undef CTA_NINTH_BLOCK
#undef CTA_EMIT8
#undef CTA_KEY_ROWS
#undef CTA_LOADK
#undef CTA_FFK_
#undef CTA_EMIT_DST
#undef CTA_EMIT_SRC
#undef CTA_EMIT_DHI
#undef CTA_EMIT_SHI
#undef CTA_E2H_BASE
#undef CTA_EMIT_LOAD
#undef CTA_FINAL
#undef CTA_FINAL_AFTER
#undef CTA_INPUTS
#undef CTA_HOOK_INIT
#undef CTA_HOOK_LOOP
#undef CTA_HOOK_FINI
#undef CTA_HOOK_COLS
#undef CTA_HOOK_DIAGS
#undef CTA_PARAMS
#undef CTA_BEGIN
#undef CTA_END
#undef CTA_OUTPUTS
#undef CTA_CLOBBERS
#undef CTA_REG
#undef CTA_VSZ
#undef CTA_MOVA
#undef CTA_VADD
#undef CTA_VXOR
#undef CTA_VSHUFB
#undef CTA_VROTL
