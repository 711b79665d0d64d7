/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The path rule: calls of at most `scalar_blocks` blocks run the portable
 * (scalar) kernel instead of the chosen vector kernel, and so does HChaCha20
 * when scalar_blocks >= 1; longer ones run the kernel's hybrid entry (scalar
 * blocks beside the vector ones, or rows for slow vector steps) if `hybrid`
 * is 1, and its paired passes (on the hybrid entry) if 2. Chosen at load from a cost
 * model fed with this CPU's measured latencies (see shortpath.c), or forced.
 */
#ifndef CHACHA_CORE_SHORTPATH_H
#define CHACHA_CORE_SHORTPATH_H

#include <stddef.h>
#include "kernel.h"

#define CHACHA_SCALAR_BLOCKS_MAX 4
/*
 * hybrid = 2 (pairs) when step latency x width is above this (a pass bound
 * by its chains) and the pairs win a race at load (see shortpath.c)
 */
#define CHACHA_PAIRS_MIN_LW 4.0
/* ... taking less than this of the hybrid entry's time on 2 KiB calls */
#define CHACHA_PAIRS_WIN (15.0 / 16.0)

typedef struct {
    unsigned int scalar_blocks;    /* 0..CHACHA_SCALAR_BLOCKS_MAX */
    int hybrid;                    /* 1: the kernel's xor_stream_hybrid,
                                      2: its xor_stream_pairs */
    const char *hybrid_source;     /* "model", "race", "static", "forced", "none" */
    const char *source;            /* "model", "static", "forced", "scalar kernel" */
    /* what the model weighed, in core cycles (0: not measured) */
    double step_cycles;            /* one dependent vector step */
    double scalar_block_cycles;    /* one scalar (portable) 64-byte block */
    double vector_block_cycles;    /* one row pass: 20 * row_steps * step */
    double race_ratio;             /* hybrid entry's time / xor_stream's at
                                      hybrid_race bytes (0: not raced) */
    double width;                  /* vector steps a cycle, eight independent
                                      chains (0: not measured) */
    double pairs_race;             /* pairs entry's time / hybrid entry's at
                                      2 KiB (0: not raced) */
} chacha_short_rule;

/*
 * The rule for kernel k. NULL, "" or "auto": not forced; else blocks is a
 * number 0..CHACHA_SCALAR_BLOCKS_MAX and hybrid "on", "pairs" or "off" (on
 * for a kernel without a hybrid entry means its only one; pairs gives what
 * the kernel has of pairs, hybrid entry, plain entry). Returns 0 if either is
 * none of these; r then holds the auto rule for it.
 */
int chacha_short_rule_choose(const chacha20_kernel *k, const char *blocks,
                             const char *hybrid, chacha_short_rule *r);

/* "scalar-blocks=1 hybrid=on (model: vector step 2.0 cycles, ...)" */
void chacha_short_rule_describe(const chacha_short_rule *r, char *buf,
                                size_t len);

/* "off", "on" or "pairs" for a rule's hybrid value */
const char *chacha_hybrid_name(int hybrid);

#endif
