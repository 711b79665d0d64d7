/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The assertion counters of the tests that do not use testutil's TU_CHECK
 * (the white-box kernel tests, the allocation sweep): each keeps its own
 * check() that says what failed, and counts through tu_count(); tu_summary()
 * prints the "<test>: N passed, N failed" line that ./test.sh adds up.
 */
#ifndef CHACHA_TU_CHECK_H
#define CHACHA_TU_CHECK_H

#include <stdio.h>

/* failures past this many are counted, not described */
#define TU_FAIL_DETAILS 40

static unsigned long n_pass, n_fail;

/* Counts one assertion; 1 when the caller should describe this failure. */
static inline int tu_count(int ok)
{
    if (ok) {
        n_pass++;
        return 0;
    }
    return ++n_fail <= TU_FAIL_DETAILS;
}

/* Prints "<name>: N passed, N failed"; the exit status: 0 if none failed. */
static inline int tu_summary(const char *name)
{
    printf("%s: %lu passed, %lu failed\n", name, n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}

#endif
