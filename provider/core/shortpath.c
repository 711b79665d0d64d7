/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The short-path cost model. A vector kernel's one-block path (rows: the
 * block's four rows in one register set) is one dependent chain: each round
 * is row_steps vector steps in a row, so a row pass costs
 *     Cv = 20 * row_steps * L      (L: a vector step's latency, cycles)
 * for one block and, up to the row width, for a few more at the same cost.
 * The scalar block has four independent quarter rounds a round on the
 * integer pipes; its cost Cs is measured as it is (the portable kernel, one
 * block, each call dependent on the one before). n blocks run scalar when
 *     n * Cs <= Cv,  n <= CHACHA_SCALAR_BLOCKS_MAX.
 * On the two Zen 4 latency profiles seen (VMs reporting the same CPUID):
 *   L = 1: avx512 Cv = 260, avx2 300; Cs ~ 300 -> 0 blocks: vector always;
 *   L = 2: avx512 Cv = 520, avx2 600; Cs ~ 330 -> 1 block scalar.
 * The hybrid entry (avx2: a ninth block on the GPRs in each 8-block pass)
 * adds ~52 scalar operations to the 64 vector ones of each round. That is
 * free while the round's dependent chain (14 steps of L cycles) outlasts
 * what the front end needs to issue both (116 operations at 5 to 6 a cycle:
 * ~20-23 cycles), i.e. from L = 1.5: L = 2 gives 28 cycles (16 KiB: 5% less
 * time on such a Zen 4), L = 1 gives 14 (there it was ~20% slower).
 * L and Cs are measured at load, in units of a dependent GPR add (one core
 * cycle), as the minimum of a few short runs (~10-40 us in all). If a
 * measurement is implausible (a VM's TSC, a preempted run), the static rule
 * is 1 block and no hybrid: at worst ~10% slower for one block where vector
 * wins (L = 1), against ~1.8x where scalar wins (L = 2).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"
#include "cpu.h"
#include "registry.h"
#include "shortpath.h"

#define STATIC_BLOCKS 1
#define HYBRID_MIN_STEP 1.5
/* a raced hybrid entry must take less than 31/32 of xor_stream's time */
#define RACE_WIN (31.0 / 32.0)
#define RACE_MAX 1024
/*
 * The pairs race: 2 KiB calls (one full pair), pairs entry against hybrid,
 * in turn, the best of PAIRS_RUNS each (~50 us): a busy SMT sibling's
 * windows outlast 8 runs, and in turn both sides see the same windows.
 */
#define PAIRS_RACE_LEN 2048
#define PAIRS_RUNS 16
_Static_assert(RACE_MAX <= PAIRS_RACE_LEN, "entry_chain's buffer takes both races");
#define RUNS 8
#define CHAIN 1024

/* what measure() takes at load: core cycles or ratios (0: not measured) */
typedef struct {
    double step, block, race, width, pairs_race;
} chacha_probes;

#if defined(__x86_64__)
static uint64_t tsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* the TSC reads alone, taken off each timed run */
static uint64_t nothing(const chacha20_kernel *k)
{
    uint64_t t = tsc();

    (void)k;
    return tsc() - t;
}

/* CHAIN dependent adds: the unit (one core cycle each) */
static uint64_t add_chain(const chacha20_kernel *k)
{
    uint64_t x = 0, t = tsc();
    int i;

    (void)k;
    for (i = 0; i < CHAIN / 8; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                         : "+r"(x));
    return tsc() - t;
}

/* 4 dependent 64-byte scalar blocks (each call's key from the last output) */
static uint64_t scalar_chain(const chacha20_kernel *k)
{
    uint32_t key[8] = { 0 }, ctr[4] = { 0 };
    uint8_t buf[CHACHA_BLOCK_LEN] = { 0 };
    uint64_t t = tsc();
    int i;

    (void)k;
    for (i = 0; i < 4; i++) {
        chacha20_portable_kernel.xor_stream(buf, buf, CHACHA_BLOCK_LEN, key, ctr);
        key[0] = chacha_load_le32(buf);
    }
    return tsc() - t;
}

static uint64_t min_of_n(uint64_t (*f)(const chacha20_kernel *),
                         const chacha20_kernel *k, int runs)
{
    uint64_t best = UINT64_MAX, t;
    int i;

    for (i = 0; i < runs; i++)
        if ((t = f(k)) < best)
            best = t;
    return best;
}

static uint64_t min_of(uint64_t (*f)(const chacha20_kernel *),
                       const chacha20_kernel *k)
{
    return min_of_n(f, k, RUNS);
}

static uint64_t step_chain(const chacha20_kernel *k)
{
    return k->step_probe(CHAIN);
}

/*
 * 8 CHAIN independent steps: about as long as step_chain where L W = 8.
 * The width is the core's, not what a busy SMT sibling leaves of it: on a
 * Zen 5 VM whose other vCPU ran vector code, runs of 8 measured W = 4 and
 * W = 2.5 in turn (L W 8 and 5), in windows longer than 8 runs. The best of
 * WIDTH_RUNS (~75 us) finds a quiet one unless the sibling is busy
 * throughout; L W then still passes CHACHA_PAIRS_MIN_LW (4), and the race
 * decides.
 */
#define WIDTH_RUNS 128
static uint64_t width_run(const chacha20_kernel *k)
{
    return k->width_probe(8 * CHAIN);
}

/* 4 dependent calls of len bytes through entry f of k */
static uint64_t entry_chain(chacha20_xor_fn *f, size_t len)
{
    uint32_t key[8] = { 0 }, ctr[4] = { 0 };
    uint8_t buf[PAIRS_RACE_LEN] = { 0 };
    uint64_t t = tsc();
    int i;

    for (i = 0; i < 4; i++) {
        f(buf, buf, len, key, ctr);
        key[0] = chacha_load_le32(buf);
    }
    return tsc() - t;
}

static uint64_t plain_chain(const chacha20_kernel *k)
{
    return entry_chain(k->xor_stream, k->hybrid_race);
}

static uint64_t hybrid_chain(const chacha20_kernel *k)
{
    return entry_chain(k->xor_stream_hybrid, k->hybrid_race);
}

/* the pairs' time over the hybrid entry's, runs in turn (0: implausible) */
static double pairs_race(const chacha20_kernel *k, double tsc_cost)
{
    uint64_t single = UINT64_MAX, paired = UINT64_MAX, t;
    double ratio;
    int i;

    for (i = 0; i < PAIRS_RUNS; i++) {
        if ((t = entry_chain(k->xor_stream_hybrid, PAIRS_RACE_LEN)) < single)
            single = t;
        if ((t = entry_chain(k->xor_stream_pairs, PAIRS_RACE_LEN)) < paired)
            paired = t;
    }
    if ((double)single <= tsc_cost)
        return 0;
    ratio = ((double)paired - tsc_cost) / ((double)single - tsc_cost);
    return ratio >= 0.25 && ratio <= 4 ? ratio : 0;
}

/*
 * Measure L and Cs (cycles) and, for a kernel that races its entries, the
 * hybrid entry's time over xor_stream's, the vector width and, where the
 * width says a pass is bound by its chains, the pairs' race (0: not
 * measured); returns 0 if L or Cs is implausible.
 */
static int measure(const chacha20_kernel *k, chacha_probes *p)
{
    double tsc_cost = (double)min_of(nothing, k);
    double add = ((double)min_of(add_chain, k) - tsc_cost) / CHAIN;
    double plain, step_ticks;

    memset(p, 0, sizeof(*p));
    if (add <= 0)
        return 0;
    step_ticks = ((double)min_of(step_chain, k) - tsc_cost) / CHAIN;
    p->step = step_ticks / add;
    p->block = ((double)min_of(scalar_chain, k) - tsc_cost) / 4 / add;
    if (k->width_probe != NULL) {
        /*
         * L W is the ratio of a step's latency to its issue interval, both
         * in TSC ticks: no unit to calibrate (the add chain's noise would
         * enter twice)
         */
        double t = ((double)min_of_n(width_run, k, WIDTH_RUNS) - tsc_cost)
                   / (8 * CHAIN);

        /* an implausible width turns only the pairs off, not the model */
        p->width = t > 0 && step_ticks > 0 ? step_ticks / t / p->step : 0;
        if (p->width < 0.25 || p->width > 16)
            p->width = 0;
    }
    if (k->hybrid_race != 0 && k->xor_stream_hybrid != NULL
        && k->hybrid_race <= RACE_MAX) {
        plain = (double)min_of(plain_chain, k) - tsc_cost;
        if (plain <= 0)
            return 0;
        p->race = ((double)min_of(hybrid_chain, k) - tsc_cost) / plain;
        if (p->race < 0.25 || p->race > 4)
            return 0;
    }
    /* the pairs come on the hybrid choice: raced only where it can win */
    if (k->xor_stream_pairs != NULL && k->xor_stream_hybrid != NULL
        && p->step * p->width > CHACHA_PAIRS_MIN_LW
        && (k->hybrid_race == 0 || p->race < RACE_WIN))
        p->pairs_race = pairs_race(k, tsc_cost);
    return p->step >= 0.5 && p->step <= 8 && p->block >= 100 && p->block <= 2000;
}
#else
static int measure(const chacha20_kernel *k, chacha_probes *p)
{
    (void)k;
    memset(p, 0, sizeof(*p));
    return 0;
}
#endif

/*
 * The model's measurement, once per process per kernel of the registry: a
 * slot per registry position, claimed by the first caller (0 -> 1), filled
 * and published (-> 2, or 3 for a measurement found implausible); a caller
 * that finds a slot being filled measures for itself. Lock-free: nothing to
 * allocate or fail, and later library contexts skip the probes.
 */
#define MEASURED_SLOTS 8
static _Atomic int measured_state[MEASURED_SLOTS];
static chacha_probes measured_probes[MEASURED_SLOTS];

static int measure_once(const chacha20_kernel *k, chacha_probes *p)
{
    int i, st, ok;

    for (i = 0; i < MEASURED_SLOTS && chacha20_kernels[i] != NULL; i++)
        if (chacha20_kernels[i] == k)
            break;
    if (i == MEASURED_SLOTS || chacha20_kernels[i] == NULL)
        return measure(k, p);
    st = atomic_load(&measured_state[i]);
    if (st >= 2) {
        *p = measured_probes[i];
        return st == 2;
    }
    ok = measure(k, p);
    st = 0;
    if (atomic_compare_exchange_strong(&measured_state[i], &st, 1)) {
        measured_probes[i] = *p;
        atomic_store(&measured_state[i], ok ? 2 : 3);
    }
    return ok;
}

static int forced(const char *v)
{
    return v != NULL && *v != '\0' && strcmp(v, "auto") != 0;
}

int chacha_short_rule_choose(const chacha20_kernel *k, const char *blocks,
                             const char *hybrid, chacha_short_rule *r)
{
    int measured, ok = 1;
    chacha_probes p;

    memset(r, 0, sizeof(*r));
    r->source = r->hybrid_source = "none";
    if (k->row_steps != 0 && k != &chacha20_portable_kernel) {
        /* never probe a kernel this CPU lacks (its probe's instructions
           would fault): the static rule then */
        measured = k->step_probe != NULL && chacha_caps_ok(k->caps)
                   && measure_once(k, &p);
        if (measured) {
            r->step_cycles = p.step;
            r->scalar_block_cycles = p.block;
            r->race_ratio = p.race;
            r->width = p.width;
            r->pairs_race = p.pairs_race;
            r->vector_block_cycles = 20.0 * k->row_steps * r->step_cycles;
            while (r->scalar_blocks < CHACHA_SCALAR_BLOCKS_MAX
                   && (r->scalar_blocks + 1) * r->scalar_block_cycles
                      <= r->vector_block_cycles)
                r->scalar_blocks++;
            r->source = "model";
        } else {
            r->scalar_blocks = STATIC_BLOCKS;
            r->source = "static";
        }
        if (k->xor_stream_hybrid != NULL && k->hybrid_race != 0) {
            r->hybrid = measured && r->race_ratio < RACE_WIN;
            r->hybrid_source = measured ? "race" : r->source;
        } else if (k->xor_stream_hybrid != NULL) {
            r->hybrid = measured && r->step_cycles >= HYBRID_MIN_STEP;
            r->hybrid_source = r->source;
        }
        /*
         * the paired passes, where one pass is bound by its chains (the
         * model) and the pairs won their race
         */
        if (r->hybrid && k->xor_stream_pairs != NULL && measured
            && r->step_cycles * r->width > CHACHA_PAIRS_MIN_LW
            && r->pairs_race > 0 && r->pairs_race < CHACHA_PAIRS_WIN)
            r->hybrid = 2;
    }
    if (forced(blocks)) {
        char *end;
        unsigned long n = strtoul(blocks, &end, 10);

        if (*blocks >= '0' && *blocks <= '9' && *end == '\0'
            && n <= CHACHA_SCALAR_BLOCKS_MAX) {
            r->scalar_blocks = (unsigned int)n;
            r->source = "forced";
        } else {
            ok = 0;
        }
    }
    if (forced(hybrid)) {
        if (strcmp(hybrid, "on") == 0 || strcmp(hybrid, "off") == 0
            || strcmp(hybrid, "pairs") == 0) {
            /* what the kernel has of it: pairs, else its hybrid entry */
            r->hybrid = strcmp(hybrid, "off") == 0 || k->xor_stream_hybrid == NULL ? 0
                        : strcmp(hybrid, "pairs") == 0 && k->xor_stream_pairs != NULL ? 2
                        : 1;
            r->hybrid_source = "forced";
        } else {
            ok = 0;
        }
    }
    return ok;
}

void chacha_short_rule_describe(const chacha_short_rule *r, char *buf,
                                size_t len)
{
    int n = snprintf(buf, len, "scalar-blocks=%u (%s) hybrid=%s (%s)",
                     r->scalar_blocks, r->source, chacha_hybrid_name(r->hybrid),
                     r->hybrid_source);

    if (r->vector_block_cycles > 0 && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; model: vector step %.1f"
                      " cycles, row pass %.0f, scalar block %.0f",
                      r->step_cycles, r->vector_block_cycles,
                      r->scalar_block_cycles);
    if (r->race_ratio > 0 && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; race: hybrid entry %.2fx the"
                      " time", r->race_ratio);
    if (r->width > 0 && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; pairs: step x width %.1f"
                      " (race above %.0f)", r->step_cycles * r->width,
                      CHACHA_PAIRS_MIN_LW);
    if (r->pairs_race > 0 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", pairs %.2fx the time at %d B",
                 r->pairs_race, PAIRS_RACE_LEN);
}

const char *chacha_hybrid_name(int hybrid)
{
    return hybrid == 2 ? "pairs" : hybrid ? "on" : "off";
}
