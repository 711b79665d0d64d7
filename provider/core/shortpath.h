/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The short-path rule: calls of at most `scalar_blocks` blocks run the
 * portable (scalar) kernel instead of the chosen vector kernel, and so does
 * HChaCha20 when scalar_blocks >= 1. Chosen at load from a cost model fed
 * with this CPU's measured latencies (see shortpath.c), or forced.
 */
#ifndef CHACHA_CORE_SHORTPATH_H
#define CHACHA_CORE_SHORTPATH_H

#include <stddef.h>
#include "kernel.h"

#define CHACHA_SCALAR_BLOCKS_MAX 4

typedef struct {
    unsigned int scalar_blocks;    /* 0..CHACHA_SCALAR_BLOCKS_MAX */
    const char *source;            /* "model", "static", "forced", "scalar kernel" */
    /* what the model weighed, in core cycles (0: not measured) */
    double step_cycles;            /* one dependent vector step */
    double scalar_block_cycles;    /* one scalar (portable) 64-byte block */
    double vector_block_cycles;    /* one row pass: 20 * row_steps * step */
} chacha_short_rule;

/*
 * The rule for kernel k: forced (NULL, "" or "auto": not forced) is a
 * number of blocks 0..CHACHA_SCALAR_BLOCKS_MAX. Returns 0 if forced is
 * neither; r then holds the auto rule.
 */
int chacha_short_rule_choose(const chacha20_kernel *k, const char *forced,
                             chacha_short_rule *r);

/* "1 block (model: vector step 2.0 cycles, ...)" */
void chacha_short_rule_describe(const chacha_short_rule *r, char *buf,
                                size_t len);

#endif
