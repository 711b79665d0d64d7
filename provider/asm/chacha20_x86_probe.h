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

/* uint64_t fn(unsigned int n): n (rounded down to 8) dependent insn on xmm0 */
#define CHACHA_X86_STEP_PROBE(fn, insn) \
    static uint64_t fn(unsigned int n) \
    { \
        uint64_t t = chacha_x86_tsc(); \
        for (; n >= 8; n -= 8) \
            __asm__ volatile(CHACHA_X86_STEP8(insn) ::: "xmm0"); \
        return chacha_x86_tsc() - t; \
    }

#endif
