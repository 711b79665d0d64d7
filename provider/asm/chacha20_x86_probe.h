/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 kernels' latency probe for the short-path cost model
 * (core/shortpath.c): the TSC ticks of a chain of n dependent copies of the
 * one vector step that their one-block row path repeats, so the model can
 * weigh that path against the scalar one on the CPU it runs on (VMs with the
 * same CPUID have shown a vector step of 1 and of 2 core cycles).
 */
#ifndef CHACHA20_X86_PROBE_H
#define CHACHA20_X86_PROBE_H

#include <stdint.h>

static inline uint64_t chacha_x86_tsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

#define CHACHA_X86_STEP8(i) i "\n\t" i "\n\t" i "\n\t" i "\n\t" \
                            i "\n\t" i "\n\t" i "\n\t" i "\n\t"

/*
 * uint64_t fn(unsigned int n): the TSC ticks of n / 8 runs of insns8 (eight
 * instructions), which clobber the registers named after it.
 */
#define CHACHA_X86_PROBE(fn, insns8, ...) \
    static uint64_t fn(unsigned int n) \
    { \
        uint64_t t = chacha_x86_tsc(); \
        for (; n >= 8; n -= 8) \
            __asm__ volatile(insns8 ::: __VA_ARGS__); \
        return chacha_x86_tsc() - t; \
    }

/* n (rounded down to 8) dependent insn on xmm0: a step's latency */
#define CHACHA_X86_STEP_PROBE(fn, insn) \
    CHACHA_X86_PROBE(fn, CHACHA_X86_STEP8(insn), "xmm0")

/*
 * n (rounded down to 8) of the three-operand op (e.g. "vpaddd") spread over
 * eight independent chains, registers 0-7 of the kind reg (e.g. "zmm"): the
 * vector pipes' width for it.
 */
#define CHACHA_X86_WIDTH_OP(op, reg, i) \
    op " %%" reg i ", %%" reg i ", %%" reg i "\n\t"
#define CHACHA_X86_WIDTH_PROBE(fn, op, reg) \
    CHACHA_X86_PROBE(fn, CHACHA_X86_WIDTH_OP(op, reg, "0") \
                         CHACHA_X86_WIDTH_OP(op, reg, "1") \
                         CHACHA_X86_WIDTH_OP(op, reg, "2") \
                         CHACHA_X86_WIDTH_OP(op, reg, "3") \
                         CHACHA_X86_WIDTH_OP(op, reg, "4") \
                         CHACHA_X86_WIDTH_OP(op, reg, "5") \
                         CHACHA_X86_WIDTH_OP(op, reg, "6") \
                         CHACHA_X86_WIDTH_OP(op, reg, "7"), \
                     "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
                     "xmm7")

#endif
