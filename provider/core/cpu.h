/* SPDX-License-Identifier: Apache-2.0 */
/* CPU capabilities (CHACHA_CAP_* of kernel.h), detected once per process. */
#ifndef CHACHA_CORE_CPU_H
#define CHACHA_CORE_CPU_H

#include <stddef.h>
#include <stdint.h>

/*
 * What this CPU and OS run, minus what CHACHA_PROVIDER_DISABLE hides (a
 * comma-separated list of the words of kernel/caps.def (ssse3, avx2, ...,
 * zmm for the preference CHACHA_CAP_ZMM_FAST) or "all"; like OPENSSL_ia32cap for OpenSSL, it can only take features away).
 * Thread-safe; read once.
 */
unsigned int chacha_cpu_caps(void);

/* 1 if the CPU has every bit of caps. */
int chacha_caps_ok(unsigned int caps);

/*
 * The first word of CHACHA_PROVIDER_DISABLE that names no feature, or NULL:
 * the provider refuses to load on one, as on an unknown kernel name.
 */
const char *chacha_cpu_disable_error(void);

/*
 * Append word to the space-separated list in buf (len bytes, *used of them
 * taken, buf[0] = '\0' to begin); 0 when it does not fit (what fitted of
 * it stays, as snprintf leaves it). For the word lists of load errors.
 */
int chacha_append_word(char *buf, size_t len, size_t *used, const char *word);

/*
 * The preference bits (ARM_WIDE, ARM_WIDE_MAC) of the Arm core that MIDR_EL1
 * value midr names; 0 for any other core. On every architecture (tests).
 */
unsigned int chacha_arm_core_prefer(uint64_t midr);

/* "ssse3 avx2 ... all": the words CHACHA_PROVIDER_DISABLE takes. */
void chacha_cpu_disable_words(char *buf, size_t len);

#endif
